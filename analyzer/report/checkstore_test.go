package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
)

func TestCheckStore(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	st, err := store.Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	// cut is a store whose process was killed before the schema's first
	// commit: a file of no bytes, as SQLite leaves it.
	cut := filepath.Join(dir, "cut.db")
	if err := os.WriteFile(cut, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("not a store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		runs    []string
		needRun bool
		want    string // "" = no error
	}{
		{filepath.Join(dir, "missing.db"), nil, true, "no such file"},
		{text, nil, false, "notes.txt"},
		{empty, nil, true, "holds no run"},
		{empty, nil, false, ""},
		{empty, []string{"r-404"}, false, "run r-404 is not in"},
		// A run asked of a store cut short is not in it (and a killed
		// run's --resume may start it again); a report of it is told the
		// file is no store yet.
		{cut, []string{"r1"}, false, "run r1 is not in " + cut + ": it is an empty database"},
		{cut, nil, true, "not a gmark results store: an empty database"},
	} {
		err := CheckStore(c.path, c.runs, c.needRun)
		var se *StoreError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v", c.path, c.runs, err)
		case c.want != "" && (!errors.As(err, &se) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v: %v, want a StoreError saying %q", c.path, c.runs, err, c.want)
		}
	}
}
