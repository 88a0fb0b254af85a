package report

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
)

func TestCommonDir(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"/a/b/c", "/a/b/c", "/a/b/c"},
		{"/a/b/c", "/a/b", "/a/b"},
		{"/a/b", "/a/b/c/d", "/a/b"},
		{"/a/bc", "/a/b", "/a"}, // a common prefix that is no directory
		{"/x/y", "/a/b", "/"},
		{"/", "/a", "/"},
	} {
		if got := commonDir(c.a, c.b); got != c.want {
			t.Errorf("commonDir(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// The layout puts every input under one directory as it stood around the
// run's working directory, and names relative paths as the run did.
func TestLayout(t *testing.T) {
	p := store.Provenance{WorkingDir: "/home/u/exp", Inputs: []store.Input{
		{Path: "specs/s.wdl"}, {Path: "../fits/f.toml"}, {Path: "/data/grid.toml"}}}
	l := newLayout(p, "/out/inputs")
	for _, c := range []struct{ path, place, arg string }{
		{"/home/u/exp", "/out/inputs/home/u/exp", "/out/inputs/home/u/exp"},
		{"specs/s.wdl", "/out/inputs/home/u/exp/specs/s.wdl", "specs/s.wdl"},
		{"../fits/f.toml", "/out/inputs/home/u/fits/f.toml", "../fits/f.toml"},
		{"/data/grid.toml", "/out/inputs/data/grid.toml", "/out/inputs/data/grid.toml"},
	} {
		if got := l.place(c.path); got != c.place {
			t.Errorf("place(%q) = %q, want %q", c.path, got, c.place)
		}
		if got := l.arg(c.path); got != c.arg {
			t.Errorf("arg(%q) = %q, want %q", c.path, got, c.arg)
		}
	}
	// One input, beside the working directory: the root is the working
	// directory itself.
	l = newLayout(store.Provenance{WorkingDir: "/w", Inputs: []store.Input{{Path: "s.wdl"}}}, "/o")
	if got := l.place("s.wdl"); got != "/o/s.wdl" {
		t.Errorf("place = %q", got)
	}
}

// writeRun records run r with provenance p in a new store at db.
func writeRun(t *testing.T, db string, r store.Run, p store.Provenance) {
	t.Helper()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Write(context.Background(), func(tx *store.Tx) error {
		pid, _ := tx.EnsureProject("p", "", 1)
		sid, _ := tx.EnsureScenario(pid, "s", "", 1)
		r.ScenarioID, r.ProvenanceSHA256 = sid, p.ComputeDigest()
		if err := tx.InsertRun(r); err != nil {
			return err
		}
		return tx.InsertProvenance(p)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReproduceRefuses(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	writeRun(t, db, store.Run{ID: "r1", Target: "dryrun"}, store.Provenance{RunID: "r1", SpecPath: "s.wdl", SpecSHA256: "abc"})
	for _, c := range []struct {
		run, want string
		is        error
	}{
		{"none", "", store.ErrNotFound},
		{"r1", "the store holds none of its input files", nil},
	} {
		_, err := Reproduce(db, c.run, filepath.Join(dir, "out"))
		if err == nil || c.is != nil && !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.run, err)
		}
	}
}

// The commands follow the run's command, settings and target; an input
// the store holds by digest only is named with where to put it.
func TestReproduceCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	spec := []byte("1\tunitary\t1\tsser\tsingle\t1\t*:1\tC(1s)\n")
	sha := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	seed := uint64(9)
	p := store.Provenance{RunID: "r", WorkingDir: "/w", CommandLine: `["gmark","submit","wl","--target","local"]`, SpecPath: "s.wdl", Seed: &seed,
		Target: "local", TargetConfig: `{"processors":3}`, Manifest: `{"jdf":["sbatch"],"single_file":true,"traces":["swf"]}`,
		Inputs: []store.Input{{Role: store.InputSpec, Path: "s.wdl", SHA256: sha(spec), Size: int64(len(spec)), Stored: true},
			{Role: store.InputTrace, Path: "/big.swf", SHA256: strings.Repeat("a", 64), Size: 1 << 30},
			{Role: store.InputTargets, Path: "t.toml", SHA256: sha(spec), Size: int64(len(spec)), Stored: true}},
		Contents: map[string][]byte{sha(spec): spec}}
	writeRun(t, db, store.Run{ID: "r", Target: "local",
		Settings: `{"workers":7,"speedup":10,"max_in_flight":0,"has_tail":true,"tail_ns":60000000000,"retries":0,"submit_retries":-1,"backoff_ns":500000000,"retry_for_ns":-1}`}, p)
	out := filepath.Join(dir, "repro")
	r, err := Reproduce(db, "r", out)
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(out, "workload")
	want := [][]string{
		{"gmark", "generate", "s.wdl", "--seed", "9", "-o", work, "-f", "--jdf", "sbatch", "--single-file", "--format", "swf"},
		{"gmark", "submit", work, "--target", "local", "--db", filepath.Join(out, "results.db"), "--workers", "7", "--speedup", "10",
			"--tail", "1m0s", "--submit-retries", "0", "--retry-for", "0s", "--targets", filepath.Join(out, "inputs", "w", "t.toml"), "--processors", "3"},
	}
	if !reflect.DeepEqual(r.Commands, want) {
		t.Errorf("commands\n%q\nwant\n%q", r.Commands, want)
	}
	if r.WorkDir != filepath.Join(out, "inputs", "w") || len(r.Written) != 2 || len(r.Missing) != 1 {
		t.Errorf("workdir %s, written %v, missing %v", r.WorkDir, r.Written, r.Missing)
	}
	if b, err := os.ReadFile(filepath.Join(out, "inputs", "w", "s.wdl")); err != nil || string(b) != string(spec) {
		t.Errorf("the spec written: %q %v", b, err)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"put that file at " + filepath.Join(out, "inputs", "big.swf"), "gmark generate s.wdl --seed 9", "cd " + r.WorkDir} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("the text lacks %q:\n%s", w, text.String())
		}
	}
	script, err := os.ReadFile(filepath.Join(out, ReproduceScript))
	if err != nil || !strings.Contains(string(script), `"$GMARK" submit `+work) {
		t.Errorf("script %s (%v)", script, err)
	}
}

// The page shows what the provenance records of the build, the scheduler
// and the inputs.
func TestHTMLShowsProvenanceInputs(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	clean, spec := false, []byte("spec")
	sum := sha256.Sum256(spec)
	writeRun(t, db, store.Run{ID: "r", Target: "dryrun"}, store.Provenance{RunID: "r", GmarkVersion: "v9", GmarkRevision: "0123abcd",
		GmarkModified: &clean, Scheduler: `{"core":{"policy":"CF"}}`,
		Inputs:   []store.Input{{Role: store.InputSpec, Path: "s.wdl", SHA256: hex.EncodeToString(sum[:]), Size: 4, Stored: true}},
		Contents: map[string][]byte{hex.EncodeToString(sum[:]): spec}})
	index, err := Write(context.Background(), db, nil, filepath.Join(dir, "report"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"v9 (revision 0123abcd, clean)", "scheduler parameters", `&#34;policy&#34;: &#34;CF&#34;`, "input: spec", "<code>s.wdl</code> (4 bytes"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
