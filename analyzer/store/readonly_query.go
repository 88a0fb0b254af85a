package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// QueryConn returns one connection of the store on which SQLite itself
// refuses, while it compiles a statement, everything but reading: for SQL
// from outside (`gmark report sql`). PRAGMA query_only alone is not enough,
// since the SQL may turn it off ("…; PRAGMA query_only(0); DELETE …"); an
// authorizer cannot be turned off from SQL. Close the connection with
// release, which removes the authorizer before the connection goes back to
// the pool.
func (s *Store) QueryConn(ctx context.Context) (conn *sql.Conn, release func(), err error) {
	conn, err = s.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := setAuthorizer(conn, readOnlyAuthorizer); err != nil {
		conn.Close()
		return nil, nil, err
	}
	release = func() {
		if setAuthorizer(conn, nil) != nil {
			// A connection that keeps the authorizer must not serve
			// gmark's own writes: drop it from the pool.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}
	return conn, release, nil
}

func setAuthorizer(conn *sql.Conn, fn sqlite.AuthorizerFn) error {
	return conn.Raw(func(dc any) error {
		r, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("store: the SQLite driver has no authorizer")
		}
		return r.RegisterAuthorizer(fn)
	})
}

// IsNotAuthorized reports whether err is SQLite refusing a statement that
// QueryConn's authorizer denied: "not authorized" when it compiles, or
// SQLITE_AUTH for the statements (VACUUM) it checks as they run.
func IsNotAuthorized(err error) bool {
	var se *sqlite.Error
	return err != nil && (strings.Contains(err.Error(), "not authorized") || errors.As(err, &se) && se.Code() == sqlite3.SQLITE_AUTH)
}

// readPragmas are the pragmas that only report: those that take a name
// (table_info(jobs)) and those allowed without a value (user_version, not
// user_version = 5). Any other pragma may change the file or the
// connection (wal_checkpoint, optimize, query_only, writable_schema, …).
var (
	namePragmas  = map[string]bool{"table_info": true, "table_xinfo": true, "index_list": true, "index_info": true, "index_xinfo": true, "foreign_key_list": true, "integrity_check": true, "quick_check": true, "table_list": true}
	valuePragmas = map[string]bool{"user_version": true, "schema_version": true, "application_id": true, "page_count": true, "page_size": true, "freelist_count": true, "journal_mode": true, "encoding": true, "data_version": true, "compile_options": true, "database_list": true, "function_list": true, "pragma_list": true, "collation_list": true, "module_list": true}
)

func readOnlyAuthorizer(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthFunction, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	case sqlite.AuthPragma:
		p := strings.ToLower(arg1)
		if namePragmas[p] || valuePragmas[p] && arg2 == "" {
			return sqlite.AuthorizerOK
		}
	}
	return sqlite.AuthorizerDeny
}

// writeStart are the first keywords of SQLite's statements that write or
// change the connection. They are refused with a message that says so; any
// other text goes to SQLite on a read-only connection (QueryConn), which
// refuses writes whatever the text says and explains its syntax errors.
var writeStart = map[string]bool{"INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true, "UPSERT": true,
	"CREATE": true, "DROP": true, "ALTER": true, "ATTACH": true, "DETACH": true, "VACUUM": true, "REINDEX": true,
	"ANALYZE": true, "BEGIN": true, "COMMIT": true, "END": true, "ROLLBACK": true, "SAVEPOINT": true, "RELEASE": true}

// QueryError is a query from outside that is not one the store answers: a
// write, an empty query, or one SQLite refuses (its syntax, a table that
// does not exist). It is the user's to fix.
type QueryError struct{ msg string }

func (e *QueryError) Error() string { return e.msg }

// CheckReadQuery refuses, before it reaches SQLite, a query that is empty
// or that would write.
func CheckReadQuery(q string) error {
	q = strings.TrimSpace(q)
	words := strings.FieldsFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == ';' })
	if len(words) == 0 {
		return &QueryError{"the query is empty"}
	}
	first := strings.ToUpper(words[0])
	if writeStart[first] || first == "PRAGMA" && strings.Contains(q, "=") {
		return &QueryError{fmt.Sprintf("it runs read-only queries (SELECT, WITH, EXPLAIN, VALUES, PRAGMA without '='); %q would write: the store is append-only and only gmark writes it", words[0])}
	}
	return nil
}

// Rows are the result of a query, every value as text ("NULL" for null).
type Rows struct {
	Columns []string
	Values  [][]string
}

// Query runs a read-only query from outside (CheckReadQuery, then on
// QueryConn) and returns its rows as text.
func (s *Store) Query(ctx context.Context, q string) (*Rows, error) {
	if err := CheckReadQuery(q); err != nil {
		return nil, err
	}
	conn, release, err := s.QueryConn(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := conn.QueryContext(ctx, strings.TrimSpace(q))
	if err != nil {
		return nil, queryError(err)
	}
	defer rows.Close()
	out := &Rows{}
	if out.Columns, err = rows.Columns(); err != nil {
		return nil, err
	}
	vals := make([]any, len(out.Columns))
	ptrs := make([]any, len(out.Columns))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		rec := make([]string, len(vals))
		for i, v := range vals {
			rec[i] = textOf(v)
		}
		out.Values = append(out.Values, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, queryError(err)
	}
	return out, nil
}

func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// queryError says why SQLite refused a query from outside.
func queryError(err error) error {
	if IsNotAuthorized(err) {
		return &QueryError{"the store is opened read-only (queries only): " + err.Error()}
	}
	return &QueryError{err.Error()}
}
