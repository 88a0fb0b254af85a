package generator

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// Inputs names the files of each kind a spec's generation reads (traces,
// workflows, grid files, fit files): each file it names is read (without
// it, the spec does not generate), and a spec that reads none has none.
func TestInputsAreWhatGenerationReads(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"grid.toml": "[[cluster]]\nname = \"a\"\nprocessors = 64\n",
		"fit.toml":  "[runtime]\nfamily = \"Exponential\"\nparams = { rate = 0.01 }\n",
		"t.swf":     "1 0 -1 100 4 -1 -1 4 -1 -1 1 1 1 -1 0 -1 -1 -1\n2 10 -1 50 2 -1 -1 2 -1 -1 1 1 1 -1 0 -1 -1 -1\n",
	}
	wf, err := os.ReadFile(filepath.Join("..", "examples", "sim", "wfformat", "diamond-1.5.json"))
	if err != nil {
		t.Skip("the shipped WfFormat example is not here:", err)
	}
	files["sub/diamond.json"] = string(wf)
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, line string
		want       []string // relative to dir
	}{
		{"none", "5\tsser\tsingle\t1\t*:?\t-\t-", nil},
		{"a trace", "1\twl:trace\tsingle\t1\t*:?\t-\tFile=t.swf", []string{"t.swf"}},
		{"a workflow", "2\twf:sub/diamond.json\tsingle\t1\t*:?\t-\t-", []string{"sub/diamond.json"}},
		{"a grid file", "100\twl:bot\tsingle\t1\t*:?\t-\tTargetLoad=0.3,Grid=grid.toml", []string{"grid.toml"}},
		{"a fit file", "5\tsser\tsingle\t1\t*:?\t-\tRunTime=Fit(fit.toml,runtime)", []string{"fit.toml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := parseIn(t, dir, tc.line)
			var want []string
			for _, w := range tc.want {
				want = append(want, filepath.Join(dir, w))
			}
			got := Inputs(spec)
			if !slices.Equal(got, want) {
				t.Fatalf("Inputs %v, want %v", got, want)
			}
			if err := generates(spec); err != nil {
				t.Fatalf("the spec does not generate with its inputs: %v", err)
			}
			for _, in := range got {
				d, err := InputDigest(in)
				if err != nil || len(d) != 64 {
					t.Errorf("InputDigest(%s) = %q, %v", in, d, err)
				}
				moved := in + ".away"
				if err := os.Rename(in, moved); err != nil {
					t.Fatal(err)
				}
				spec := parseIn(t, dir, tc.line) // a fit file is read as the spec is
				err = generates(spec)
				os.Rename(moved, in)
				if spec != nil && err == nil {
					t.Errorf("without %s the spec still generates: it is not an input", in)
				}
			}
		})
	}
}

// parseIn parses one unit line as a spec in dir; nil when the spec itself
// does not parse (a missing fit file).
func parseIn(t *testing.T, dir, line string) *wdl.Spec {
	t.Helper()
	path := filepath.Join(dir, "w.wdl")
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := wdl.ParseFile(path)
	if err != nil {
		return nil
	}
	return spec
}

func generates(spec *wdl.Spec) error {
	if spec == nil {
		return os.ErrNotExist
	}
	g, err := New(spec, 1)
	if err != nil {
		return err
	}
	_, err = g.Generate(func(*workload.Job) error { return nil })
	return err
}
