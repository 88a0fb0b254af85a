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
