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
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/gmark/gmark/internal/outfile"
)

// ErrForeign is Open's error for a database with tables that are not the
// caller's.
var ErrForeign = errors.New("a SQLite database with tables of its own")

// ErrNotFile is Open's error for a path that is not a regular file.
var ErrNotFile = errors.New("not a regular file")

// Open opens (creating if needed) the SQLite file at path with pragmas
// (each "name(value)", as the driver takes them) and one connection. The
// file may hold only the tables named in own (and SQLite's); it is then
// put in WAL mode. what names the file in errors ("the scheduler's
// state").
func Open(path, what string, own []string, pragmas ...string) (*sql.DB, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s): %s is a SQLite file; give the path of one", path, ErrNotFile, outfile.Kind(fi.Mode()), what)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
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

// checkTables refuses a database with a table or view not in own.
func checkTables(db *sql.DB, path, what string, own []string) error {
	foreign, err := ForeignTables(db, own)
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
