package provenance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter/targets"
	"github.com/gmark/gmark/wdl"
)

// files writes name → content under dir.
func files(t *testing.T, dir string, fs map[string]string) {
	t.Helper()
	for name, content := range fs {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// generate writes the workload of spec (relative to the working
// directory) into dir.
func generate(t *testing.T, spec, dir string) {
	t.Helper()
	s, err := wdl.ParseFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := generator.New(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generator.WriteDir(s, g, generator.DirOptions{Out: dir, SpecPath: spec, Seed: 1}); err != nil {
		t.Fatal(err)
	}
}

const fitFile = "[runtime]\nfamily = \"Exp\"\n[runtime.params]\nrate = 0.1\n"

// The inputs of a workload: its spec, the extension and fit files it read
// and the trace it replays, each by digest and content; the grid and
// targets files; a file changed or gone since generation by the
// manifest's digest alone, with a warning.
func TestCollect(t *testing.T) {
	t.Chdir(t.TempDir())
	files(t, ".", map[string]string{
		"specs/s.wdl": "1\tunitary\t2\tsser\tsingle\t1\t*:1\tC(1s)\tExternalFile=ext/a.xin,RunTime=Fit(../fits/f.toml,runtime)\n" +
			"2\tunitary\t1\twl:trace\tsingle\t1\t*:?\t-\tFile=trace.swf,FirstN=3\n",
		"specs/ext/a.xin": "Iterations=5\n",
		"fits/f.toml":     fitFile,
		"specs/trace.swf": testkit.SyntheticSWF(20, 1),
		"targets.toml":    "[local]\nprocessors = 2\n",
	})
	generate(t, "specs/s.wdl", "w")
	in, warnings := Collect(Sources{WorkloadDir: "w", Grid: "examples/das2.toml", Targets: "targets.toml"})
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	want := []struct{ role, path string }{
		{store.InputSpec, "specs/s.wdl"}, {store.InputInclude, "specs/ext/a.xin"}, {store.InputInclude, "fits/f.toml"},
		{store.InputTrace, "specs/trace.swf"}, {store.InputGrid, "examples/das2.toml"}, {store.InputTargets, "targets.toml"},
	}
	if len(in.Files) != len(want) {
		t.Fatalf("inputs %+v, want %v", in.Files, want)
	}
	for i, w := range want {
		f := in.Files[i]
		var content []byte
		if name, ok := examples.Lookup(w.path); ok {
			content, _ = examples.ReadFile(name) // not on disk here: the built-in copy
		} else {
			content, _ = os.ReadFile(w.path)
		}
		if f.Role != w.role || f.Path != w.path || !f.Stored || f.Size != int64(len(content)) || string(in.Contents[f.SHA256]) != string(content) {
			t.Errorf("input %d: %+v, want %s %s with its content", i, f, w.role, w.path)
		}
	}

	// Changed and gone since generation.
	files(t, ".", map[string]string{"specs/ext/a.xin": "Iterations=6\n"})
	if err := os.Remove("fits/f.toml"); err != nil {
		t.Fatal(err)
	}
	in2, warnings := Collect(Sources{WorkloadDir: "w"})
	if len(warnings) != 2 || !strings.Contains(warnings[0], "has changed since the workload was generated") ||
		!strings.Contains(warnings[1], "no such file") {
		t.Errorf("warnings %q", warnings)
	}
	for i, f := range in2.Files[1:3] {
		if f.Stored || f.SHA256 != in.Files[i+1].SHA256 {
			t.Errorf("%+v: want the manifest's digest, not stored", f)
		}
	}
	if len(in2.Files) != 4 || !in2.Files[0].Stored || !in2.Files[3].Stored {
		t.Errorf("the spec and the trace: %+v", in2.Files)
	}
}

// No manifest, no files: nothing to record, and no failure.
func TestCollectNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, s := range []Sources{{}, {WorkloadDir: "none"}, {Grid: "no-grid.toml"}} {
		in, warnings := Collect(s)
		if len(in.Files) != 0 || in.Core != nil || len(warnings) > 1 {
			t.Errorf("%+v: %+v %v", s, in, warnings)
		}
	}
	if err := os.Mkdir("dir.toml", 0o755); err != nil {
		t.Fatal(err)
	}
	if in, w := Collect(Sources{Targets: "dir.toml"}); len(in.Files) != 0 || len(w) != 1 || !strings.Contains(w[0], "not a regular file") {
		t.Errorf("a directory as targets file: %+v %v", in, w)
	}
}

// The bundled core's grid and scheduler parameters, as it is started:
// the grid file's, with the run's overrides; none for a core gmark did
// not start.
func TestForTarget(t *testing.T) {
	t.Chdir(t.TempDir())
	s := ForTarget("w", targets.KoalaConfig{Grid: "examples/das2.toml", Policy: "WF", TimeScale: 100, ScanInterval: "30s"}, "")
	if s.Grid != "examples/das2.toml" || s.Core == nil {
		t.Fatalf("%+v", s)
	}
	p := s.Core.Params()
	if p["policy"] != "WF" || p["time_scale"] != 100.0 || p["scan_interval"] != "30s" || p["claim_threshold"] != 1.0 {
		t.Errorf("params %v", p)
	}
	if s := ForTarget("w", targets.KoalaConfig{Endpoint: "http://127.0.0.1:1", Grid: "g.toml"}, ""); s.Grid != "" || s.Core != nil {
		t.Errorf("a core gmark did not start: %+v", s)
	}
	if s := ForTarget("w", map[string]any{}, "t.toml"); s.Targets != "t.toml" || s.Core != nil {
		t.Errorf("dryrun: %+v", s)
	}
}

// CollectFor is Collect of ForTarget, its warnings written one a line.
func TestCollectFor(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("dir.toml", 0o755); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	in := CollectFor("", nil, "dir.toml", &w)
	if len(in.Files) != 0 || !strings.HasPrefix(w.String(), "warning: ") || strings.Count(w.String(), "\n") != 1 {
		t.Errorf("%+v %q", in, w.String())
	}
	w.Reset()
	if in := CollectFor("", nil, "", &w); len(in.Files) != 0 || w.Len() != 0 {
		t.Errorf("nothing to collect: %+v %q", in, w.String())
	}
}
