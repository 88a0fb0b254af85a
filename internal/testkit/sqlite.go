package testkit

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// SQLiteFile makes a SQLite database at path with the statements run in
// order (none: an empty database file) and returns path: another program's
// database, a table of the wrong shape, for the tests of what gmark
// refuses to read or write.
func SQLiteFile(t testing.TB, path string, stmts ...string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %s: %v", path, s, err)
		}
	}
	return path
}
