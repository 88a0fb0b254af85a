package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A wdl workload's runs are identified by the files its spec reads too: the
// same spec over a changed trace is another run (a store's results of the
// old trace are not taken for the new one), a spec reading no file keeps
// the digest it had, a directory moved whole keeps its digests, and a
// missing input is an error at the spec's line.
func TestWDLRunsCoverTheSpecsInputs(t *testing.T) {
	write := func(dir, name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const trace = "1 0 -1 100 4 -1 -1 4 -1 -1 1 1 1 -1 0 -1 -1 -1\n2 10 -1 50 2 -1 -1 2 -1 -1 1 1 1 -1 0 -1 -1 -1\n3 20 -1 70 2 -1 -1 2 -1 -1 1 1 1 -1 0 -1 -1 -1\n"
	exp := "name = \"inputs\"\nseed = 1\ntopology = \"das2-g5k\"\narchitectures = [\"sep-c\"]\nloads = [50]\n" +
		"repetitions = 1\n[workload]\nkind = \"wdl\"\nspec = \"w.wdl\"\n"
	setup := func(spec string) string {
		dir := t.TempDir()
		write(dir, "t.swf", trace)
		write(dir, "w.wdl", spec)
		write(dir, "e.toml", exp)
		return dir
	}
	digest := func(dir string) (string, error) {
		e, err := Load(filepath.Join(dir, "e.toml"), Options{})
		if err != nil {
			return "", err
		}
		r, err := e.Run(0)
		if err != nil {
			t.Fatal(err)
		}
		return r.Digest, nil
	}
	must := func(dir string) string {
		t.Helper()
		d, err := digest(dir)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	replay := "1\twl:trace\tsingle\t1\t*:?\t-\tFile=t.swf\n"
	a := setup(replay)
	before := must(a)
	if d := must(setup(replay)); d != before {
		t.Errorf("the same spec and trace in another directory: digest %s, want %s", d, before)
	}
	write(a, "t.swf", strings.Replace(trace, " 100 ", " 101 ", 1))
	if d := must(a); d == before {
		t.Error("the trace the spec replays changed, and the run's digest did not")
	}
	e, err := Load(filepath.Join(a, "e.toml"), Options{})
	if err != nil || e.Scenarios[0].Workload.SpecInputs == "" {
		t.Fatalf("a spec that reads a trace has no inputs digest (%v)", err)
	}
	plain := setup("5\tsser\tsingle\t1\t*:?\t-\t-\n")
	if e, err := Load(filepath.Join(plain, "e.toml"), Options{}); err != nil || e.Scenarios[0].Workload.SpecInputs != "" {
		t.Errorf("a spec that reads no file has an inputs digest %q (%v): its runs' digests would have changed", e.Scenarios[0].Workload.SpecInputs, err)
	}
	if err := os.Remove(filepath.Join(a, "t.swf")); err != nil {
		t.Fatal(err)
	}
	_, err = digest(a)
	if err == nil || !strings.Contains(err.Error(), "e.toml:") || !strings.Contains(err.Error(), "t.swf") {
		t.Errorf("with the spec's trace gone: %v, want an error at the spec's line naming the trace", err)
	}
}
