package examples_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/sim/coresim"
	"github.com/gmark/gmark/wdl"
)

// lcgExamples writes the shipped examples into a directory with the LCG
// trace beside them, as examples/lcg-files.wdl expects it (the test skips
// without the trace).
func lcgExamples(t *testing.T) string {
	t.Helper()
	trace := testkit.LCG(t)
	dir := t.TempDir()
	if _, err := examples.WriteAll(dir, false); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(trace, filepath.Join(dir, "LCG.swf.gz")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// simulate generates the workload of spec (seed 1) and runs it through the
// bundled core on grid under policy, in simulated time, as 'gmark koala
// simulate' does with its defaults.
func simulate(t *testing.T, spec, gridPath, policy string) coresim.Summary {
	t.Helper()
	s, err := wdl.ParseFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := generator.New(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "w")
	if _, err := generator.WriteDir(s, gen, generator.DirOptions{Out: out, SpecPath: spec, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	g, err := grid.Load(gridPath)
	if err != nil {
		t.Fatal(err)
	}
	g.Scheduler.Policy, g.Scheduler.Seed = policy, 1
	sim, err := coresim.Simulate(g, out, coresim.Options{Warmup: 30 * time.Minute, Limit: 7 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return sim.Summary()
}

// killedAtLimit counts the jobs the grid's run-time limit killed.
func killedAtLimit(s coresim.Summary) int {
	n := 0
	for reason, k := range s.FailureReasons {
		if strings.Contains(reason, "run-time limit") {
			n += k
		}
	}
	return n
}

// The shipped Close-to-Files example does what it is for: on the LCG
// trace, WF and CF give different results, CF reading its files more
// quickly, without replication and with it, and every job finishes (none is
// killed at the grid's run-time limit).
func TestLCGFilesExampleTellsWFFromCF(t *testing.T) {
	dir := lcgExamples(t)
	spec := filepath.Join(dir, "lcg-files.wdl")
	for _, g := range []string{"das2.toml", "das2-replicated.toml"} {
		wf := simulate(t, spec, filepath.Join(dir, g), "WF")
		cf := simulate(t, spec, filepath.Join(dir, g), "CF")
		t.Logf("%s: WF mean FTT %.1f s, wait %.1f s; CF mean FTT %.1f s, wait %.1f s (%d jobs)", g, wf.MeanFTTS, wf.MeanWaitS, cf.MeanFTTS, cf.MeanWaitS, wf.Jobs)
		for _, s := range []coresim.Summary{wf, cf} {
			if s.Jobs < 1000 || s.Finished != s.Jobs || killedAtLimit(s) > 0 {
				t.Errorf("%s: %d jobs, %d finished, %d killed at the run-time limit (%v)", g, s.Jobs, s.Finished, killedAtLimit(s), s.FailureReasons)
			}
		}
		if !(cf.MeanFTTS < wf.MeanFTTS) || wf.MeanWaitS == cf.MeanWaitS || wf.MakespanS == cf.MakespanS {
			t.Errorf("%s: CF does not differ from WF: FTT %.1f against %.1f s, wait %.1f against %.1f s, makespan %.0f against %.0f s",
				g, cf.MeanFTTS, wf.MeanFTTS, cf.MeanWaitS, wf.MeanWaitS, cf.MakespanS, wf.MakespanS)
		}
	}
}

// traceLine finds the wl:trace lines of the documentation's examples.
var traceLine = regexp.MustCompile(`(?m)^1\s+wl:trace\s.*File=\S+$`)

// The documentation's own LCG example, run on the grid it names (DAS-2,
// whose run-time limit is 15 minutes), has its jobs finish: the limit kills
// none of them. (Without MaxRunTime=15m, 1,766 of its 3,241 jobs failed,
// 1,510 of them killed at the limit.)
func TestDocsLCGExampleFitsTheGridsLimit(t *testing.T) {
	dir := lcgExamples(t)
	for _, doc := range []string{"../docs/trace.md", "../docs/wdl.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		lines := traceLine.FindAllString(string(b), -1)
		n := 0
		for _, line := range lines {
			if !strings.Contains(line, "LCG.swf.gz") {
				continue
			}
			n++
			line = regexp.MustCompile(`File=[^,]*`).ReplaceAllString(line, "File=LCG.swf.gz")
			spec := filepath.Join(dir, "doc.wdl")
			if err := os.WriteFile(spec, []byte(line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s := simulate(t, spec, filepath.Join(dir, "das2.toml"), "CF")
			t.Logf("%s: %d jobs, %d finished, %d killed at the limit", doc, s.Jobs, s.Finished, killedAtLimit(s))
			if s.Jobs < 1000 || killedAtLimit(s) > s.Jobs/100 {
				t.Errorf("%s: %s\n%d jobs, %d finished, %d killed at the run-time limit", doc, line, s.Jobs, s.Finished, killedAtLimit(s))
			}
		}
		if n == 0 {
			t.Errorf("%s: no LCG replay example found", doc)
		}
	}
}
