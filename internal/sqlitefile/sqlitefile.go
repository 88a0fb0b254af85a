// Package sqlitefile opens the SQLite files that gmark's servers keep
// their state in (the bundled scheduler's, the placeholder metaqueue's):
// the path must be a regular file or not exist yet, and a database that
// holds tables of another program (or of another part of gmark: a results
// store, the other server's state) is refused before anything is written
// to it, so that gmark never adds its tables to someone else's database.
package sqlitefile

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strings"

	"github.com/gmark/gmark/internal/readlimit"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrForeign is Open's error for a database with tables that are not the
// caller's.
var ErrForeign = errors.New("a SQLite database with tables of its own")

// ErrNotFile is Open's error for a path that is not a regular file.
var ErrNotFile = errors.New("not a regular file")

// ErrDamaged is Open's error for a file that is not a sound SQLite
// database: corrupted pages, or not a database at all.
var ErrDamaged = errors.New("not a sound SQLite database")

// IsInput tells whether err is one of Open's refusals of the file it was
// given (not a regular file, another program's database, a damaged one):
// the user's input, not the machine's failure.
func IsInput(err error) bool {
	return errors.Is(err, ErrNotFile) || errors.Is(err, ErrForeign) || errors.Is(err, ErrDamaged)
}

// Open opens (creating if needed) the SQLite file at path with pragmas
// (each "name(value)", as the driver takes them) and one connection. The
// file may hold only the tables named in own (and SQLite's); it is then
// put in WAL mode. what names the file in errors ("the scheduler's
// state").
func Open(path, what string, own []string, pragmas ...string) (*sql.DB, error) {
	if err := Check(path, what); err != nil {
		return nil, err
	}
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := checkTables(db, path, what, own); err != nil {
		db.Close()
		return nil, err
	}
	// Only now: WAL mode changes the file's header.
	if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return db, nil
}

// header is how every SQLite database file starts.
const header = "SQLite format 3\x00"

// Check refuses, creating and writing nothing, a path that Open would
// refuse for its kind or its first bytes: not a regular file (ErrNotFile),
// or a file that is neither empty nor starts as a SQLite database does
// (ErrDamaged). A missing file passes. A server checks its state so before
// it writes the files it keeps beside it (its token).
func Check(path, what string) error {
	var nr *readlimit.NotRegularError
	f, err := readlimit.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.As(err, &nr):
		return fmt.Errorf("%s: %w (%s): %s is a SQLite file; give the path of one", path, ErrNotFile, nr.What, what)
	case err != nil:
		return err
	}
	defer f.Close()
	b := make([]byte, len(header))
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fmt.Errorf("%s: %v", path, err)
	}
	if n > 0 && string(b[:n]) != header {
		return fmt.Errorf("%s: %w (it does not start as one does): %s is a SQLite file; restore it from a copy, or give another path", path, ErrDamaged, what)
	}
	return nil
}

// checkTables refuses a database with a table or view not in own.
func checkTables(db *sql.DB, path, what string, own []string) error {
	foreign, err := ForeignTables(db, own)
	var se *sqlite.Error
	if errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_NOTADB || se.Code()&0xff == sqlite3.SQLITE_CORRUPT) {
		return fmt.Errorf("%s: %w (%v): %s is a SQLite file; restore it from a copy, or give another path", path, ErrDamaged, err, what)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if foreign == "" {
		return nil
	}
	return fmt.Errorf("%s: not %s: %w (%s); give another file", path, what, ErrForeign, foreign)
}

// ForeignTables lists, for a message, the tables and views of the
// database q reads that are not in own (SQLite's own aside): the first
// five by name, "…" for more; "" when there are none.
func ForeignTables(q interface {
	Query(string, ...any) (*sql.Rows, error)
}, own []string) (string, error) {
	rows, err := q.Query(`SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var foreign []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", err
		}
		if !slices.Contains(own, n) {
			foreign = append(foreign, n)
		}
	}
	if len(foreign) > 5 {
		foreign = append(foreign[:5], "…")
	}
	return strings.Join(foreign, ", "), rows.Err()
}
