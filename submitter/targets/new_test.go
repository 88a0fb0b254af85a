package targets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/submitter/local"
)

// New makes each target from the targets file, the settings and a resumed
// run's record; what the user got wrong is an InputError.
func TestNew(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "targets.toml")
	if err := os.WriteFile(file, []byte("[local]\nprocessors = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if tg, _, err := New(ctx, "dryrun", Options{}, nil); err != nil || tg.Name() != "dryrun" {
		t.Fatalf("dryrun: %v %v", tg, err)
	}
	run := filepath.Join(dir, "run")
	tg, cfg, err := New(ctx, "local", Options{File: file, RunDir: run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if c := cfg.(local.Config); c.Processors != 3 || c.Dir != filepath.Join(run, "local") {
		t.Errorf("local from the file: %+v", c)
	}
	// A resumed run keeps its recorded directory; the command line's
	// processors win over the file's.
	tg2, cfg, err := New(ctx, "local", Options{File: file, RunDir: filepath.Join(dir, "other"), Processors: 2},
		[]byte(`{"dir":"`+filepath.Join(run, "local")+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer tg2.Close()
	if c := cfg.(local.Config); c.Processors != 2 || c.Dir != filepath.Join(run, "local") {
		t.Errorf("local resumed: %+v", c)
	}
	for _, tc := range []struct {
		name string
		o    Options
		msg  string
	}{
		{"bogus", Options{}, `unknown target "bogus"`},
		{"slurm", Options{File: file}, "no [slurm] section"},
		{"local", Options{File: filepath.Join(dir, "missing.toml")}, "targets file"},
		{"koala", Options{Koala: KoalaOptions{Grid: Flag{Value: filepath.Join(dir, "missing-grid.toml")}}}, "missing-grid.toml"},
		{"koala", Options{Koala: KoalaOptions{Endpoint: Flag{Value: "http://127.0.0.1:1"}, TokenFile: Flag{Value: filepath.Join(dir, "no-token"), Set: true}}}, "--token-file"},
	} {
		_, _, err := New(ctx, tc.name, tc.o, nil)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %+v: %v, want an InputError with %q", tc.name, tc.o, err, tc.msg)
		}
	}
}

// Every target of the table has a name of its own, a doc and a
// constructor; Lookup finds each.
func TestTargetTable(t *testing.T) {
	for _, s := range Targets {
		if s.Name == "" || s.Doc == "" || s.make == nil {
			t.Errorf("%+v: a target needs a name, a doc and a constructor", s)
		}
		if got, err := Lookup(s.Name); err != nil || got.Name != s.Name {
			t.Errorf("Lookup(%q) = %v, %v", s.Name, got.Name, err)
		}
	}
	// The order --target's usage has always had; a new target comes after.
	if got, want := List(), "dryrun, local, slurm, condor, sge, koala, arc, gram"; !strings.HasPrefix(got, want) {
		t.Errorf("List() = %q, want %q…", got, want)
	}
}
