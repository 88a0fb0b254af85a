package report

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
)

// shellWords splits a line as /bin/sh does for what QuoteArgs writes:
// words apart by one blank, a word in single quotes taken as it is, '\”
// a quote within one.
func shellWords(line string) ([]string, bool) {
	if line == "" {
		return nil, true
	}
	var words []string
	var w strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted = true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
		case c == ' ':
			words = append(words, w.String())
			w.Reset()
		default:
			w.WriteByte(c)
		}
	}
	words = append(words, w.String())
	return words, !quoted
}

// FuzzReproduce: the commands --reproduce makes from a run's records,
// whatever the records hold (a store written by anyone: the provenance's
// digest only says it was not changed since). Every file is placed under
// DIR/inputs, whatever its path; the commands are gmark's, a generation
// then a rerun; and the script's lines read back, through the shell's
// quoting, as the same arguments.
func FuzzReproduce(f *testing.F) {
	f.Add("/home/u/w", "spec.wdl", "../grids/das2.toml", "/etc/targets.toml",
		`["gmark","submit","w","--target","koala"]`, `{"workers":7,"speedup":2,"has_tail":true,"tail_ns":5000000000}`,
		`{"grid":"g.toml","policy":"CF","endpoint":"http://127.0.0.1:1","seed":5}`, `{"core":{"scan_interval":"1s"}}`, `{"jdf":["koala"],"traces":["swf"]}`, "koala")
	f.Add("relative", "/../../x", "", "a b/c'd", `["gmark","koala","simulate"]`, `{"speedup":-1e308,"tail_ns":-9223372036854775808,"has_tail":true}`,
		`{"seed":18446744073709551615,"warmup":"1h"}`, `null`, `{"jdf":[""]}`, "local")
	// A spec named "../../x" from the root directory (which is /x) was
	// named so in the rerun, from DIR/inputs: it read the machine's /x.
	f.Add("/", "../../../../../etc/passwd", "/", ".", `["gmark","run"]`, `{`, `[]`, `1`, `{"traces":["x y"]}`, "")
	f.Fuzz(func(t *testing.T, wd, spec, grid, targets, cmdline, settings, target, sched, manifest, targetName string) {
		p := store.Provenance{WorkingDir: wd, SpecPath: spec, CommandLine: cmdline, TargetConfig: target, Scheduler: sched,
			Manifest: manifest, Target: targetName, Inputs: []store.Input{{Role: store.InputSpec, Path: spec, Stored: true},
				{Role: store.InputGrid, Path: grid, Stored: true}, {Role: store.InputTargets, Path: targets}}}
		dir := "/R"
		under := filepath.Join(dir, "inputs")
		lay := newLayout(p, under)
		for _, path := range []string{wd, spec, grid, targets} {
			if got := lay.place(path); !within(got, under) {
				t.Fatalf("%q placed at %q, outside %s", path, got, under)
			}
		}
		r := &Reproduction{RunID: "r1", Dir: dir, WorkDir: lay.place(wd)}
		r.commands(p, store.Run{Settings: settings, Target: targetName}, lay)
		if len(r.Commands) != 2 || r.Commands[0][0] != "gmark" || r.Commands[0][1] != "generate" || r.Commands[1][0] != "gmark" {
			t.Fatalf("commands %q", r.Commands)
		}
		// The spec, as the rerun names it from its working directory.
		if a := r.Commands[0][2]; a != "" && !within(filepath.Join(r.WorkDir, a), under) && !(filepath.IsAbs(a) && within(a, under)) {
			t.Fatalf("the spec %q is read from %q, outside %s", spec, a, under)
		}
		for _, c := range r.Commands {
			for i := 0; i+1 < len(c); i++ {
				if (c[i] == "--grid" || c[i] == "--targets" || c[i] == "-o" || c[i] == "--db") && !within(c[i+1], dir) {
					t.Fatalf("%s %q is outside %s", c[i], c[i+1], dir)
				}
			}
			if strings.ContainsRune(strings.Join(c, ""), 0) {
				continue // a NUL cannot be an argument: the shell drops it
			}
			words, ok := shellWords(quoteArgs(c))
			if !ok || !slices.Equal(words, c) {
				t.Fatalf("%q written as %s reads back as %q", c, quoteArgs(c), words)
			}
		}
	})
}
