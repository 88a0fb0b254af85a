package sqlitefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
	_ "modernc.org/sqlite"
)

// Open takes a new path, a file of the caller's tables (and a link to
// one, and names with URL characters), and refuses, leaving the file as it
// was, a database with tables of its own and paths that are not regular
// files.
func TestOpen(t *testing.T) {
	own := []string{"meta", "jobs"}
	dir := t.TempDir()
	sqlFile := func(name string, stmts ...string) string {
		return testkit.SQLiteFile(t, filepath.Join(dir, name), stmts...)
	}
	mine := sqlFile("mine.db", "CREATE TABLE meta (k TEXT)", "CREATE TABLE jobs (id TEXT)", "CREATE INDEX j ON jobs(id)")
	if err := os.Symlink(mine, filepath.Join(dir, "link.db")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "damaged.db")
	if err := os.WriteFile(damaged, bytes.Repeat([]byte("not a database\n"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	badPages := filepath.Join(dir, "pages.db")
	if err := os.WriteFile(badPages, append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 4096)...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		path string
		want error // nil: opened
		says string
	}{
		{"new file", filepath.Join(dir, "new.db"), nil, ""},
		{"URL characters in the name", filepath.Join(dir, "a?b#c%d.db"), nil, ""},
		{"the caller's tables", mine, nil, ""},
		{"a link to them", filepath.Join(dir, "link.db"), nil, ""},
		{"an empty file", sqlFile("empty.db"), nil, ""},
		{"another program's", sqlFile("other.db", "CREATE TABLE accounts (id INTEGER)", "CREATE TABLE jobs (x)"), ErrForeign, "not the test's state: a SQLite database with tables of its own (accounts)"},
		{"views count", sqlFile("view.db", "CREATE VIEW v AS SELECT 1"), ErrForeign, "(v)"},
		{"many", sqlFile("many.db", "CREATE TABLE a(x)", "CREATE TABLE b(x)", "CREATE TABLE c(x)", "CREATE TABLE d(x)", "CREATE TABLE e(x)", "CREATE TABLE f(x)"), ErrForeign, "(a, b, c, d, e, …)"},
		{"a directory", dir, ErrNotFile, "(a directory): the test's state is a SQLite file"},
		{"a FIFO", fifo, ErrNotFile, "(a FIFO (named pipe))"},
		{"a loop of links", loop, ErrNotFile, "(a loop of symbolic links)"},
		{"a text file", damaged, ErrDamaged, "not a sound SQLite database (it does not start as one does): the test's state is a SQLite file; restore it from a copy"},
		{"a damaged database", badPages, ErrDamaged, "not a sound SQLite database (file is not a database (26)): the test's state is a SQLite file; restore it from a copy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before []byte
			if fi, err := os.Stat(c.path); err == nil && fi.Mode().IsRegular() {
				before, _ = os.ReadFile(c.path) // not a FIFO: it would wait for a writer
			}
			db, err := Open(c.path, "the test's state", own, "busy_timeout(1000)")
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var mode string
				if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
					t.Errorf("journal mode %q, %v", mode, err)
				}
				if _, err := db.Exec("CREATE TABLE IF NOT EXISTS meta (k TEXT)"); err != nil {
					t.Error(err)
				}
				if _, err := os.Stat(c.path); err != nil {
					t.Errorf("the file is not at its path: %v", err)
				}
				return
			}
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, c.want) || !IsInput(err) || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), c.path+": ") {
				t.Errorf("%v; want %v naming the path and saying %q", err, c.want, c.says)
			}
			if fi, err := os.Stat(c.path); err == nil && fi.Mode().IsRegular() {
				if after, _ := os.ReadFile(c.path); !bytes.Equal(after, before) {
					t.Error("the file was changed")
				}
			}
		})
	}
}
