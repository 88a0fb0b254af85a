package generator

import (
	"path/filepath"
	"slices"

	"github.com/gmark/gmark/wdl"
)

// Inputs are the files besides the spec that generating it reads: its
// includes (fit files), the traces its wl:trace units replay (File=), the
// workflows of its wf:PATH units and the grid files its units take their
// size from (Grid=), each once, in the order the spec names them. What
// identifies a spec's workload must cover them: the same spec over another
// trace is another workload.
func Inputs(spec *wdl.Spec) []string {
	var out []string
	add := func(path string) {
		if path != "" && !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	for _, inc := range spec.Includes {
		add(inc)
	}
	for _, u := range spec.Units {
		if u.Template != "" {
			add(specRelative(u.Template, u.Pos.File))
		}
		for _, opt := range u.Options.All() { // All: reading them here marks nothing used
			if opt.Value != "" && (opt.Key == "Grid" || u.Workload && u.Type == "trace" && opt.Key == "File") {
				add(specRelative(opt.Value, opt.Pos.File))
			}
		}
	}
	return out
}

// InputDigest is the SHA-256 of an input file, or of a directory of them
// (a WfFormat directory, a WTA trace's tables; see traceDigest).
func InputDigest(path string) (string, error) { return traceDigest(path) }

// specRelative is a path a spec names, which is relative to the spec's
// file unless it is absolute.
func specRelative(path, specFile string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(specFile), path)
}
