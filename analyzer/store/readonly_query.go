package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"

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
