package xval

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// genWorkload writes the test workload with mean gap between arrivals
// into a workload directory and returns it.
func genWorkload(t *testing.T, gap string, seed uint64) string {
	t.Helper()
	src, err := os.ReadFile("testdata/xval.wdl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	specPath := filepath.Join(dir, "xval.wdl")
	if err := os.WriteFile(specPath, bytes.ReplaceAll(src, []byte("GAP"), []byte(gap)), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := wdl.ParseFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := generator.New(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "wl")
	if _, err := generator.WriteDir(spec, gen, generator.DirOptions{Out: out, SpecPath: specPath, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return out
}

func loadGrid(t *testing.T) *grid.Grid {
	t.Helper()
	g, err := grid.Load("testdata/grid.toml")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCompare runs the same workloads (300 rigid jobs, three seeds, ~50%
// and ~90% of the grid) through the bundled core and through sim's central
// and checks the agreement docs/sim.md reports, with tolerances from the
// differences between the models (see there).
func TestCompare(t *testing.T) {
	g := loadGrid(t)
	for _, tc := range []struct {
		name  string
		gap   string
		scan  time.Duration
		light bool
	}{
		{"50% scan 1m", "27s", time.Minute, true},
		{"90% scan 1m", "15s", time.Minute, false},
		{"50% scan 1s", "27s", time.Second, true},
		{"90% scan 1s", "15s", time.Second, false},
	} {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s seed %d", tc.name, seed), func(t *testing.T) {
				gc := *g
				gc.Scheduler.ScanInterval.Duration = tc.scan
				c, err := Compare(genWorkload(t, tc.gap, seed), &gc, Options{Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				c.WriteMarkdown(&b)
				t.Logf("\n%s", b.String())
				checkRows(t, c, tc.scan, tc.light)
			})
		}
	}
}

func checkRows(t *testing.T, c *Comparison, scan time.Duration, light bool) {
	t.Helper()
	if len(c.Rows) != 3 || c.Rows[0].Name != RowCore || c.Rows[1].Name != RowSimScan || c.Rows[2].Name != RowSimLive {
		t.Fatalf("rows %+v", c.Rows)
	}
	if len(c.Unmapped) != 0 {
		t.Errorf("unmapped %q: the test grid has nothing the simulator lacks", c.Unmapped)
	}
	core := c.Rows[0]
	for _, r := range c.Rows {
		// Nothing fails and nothing is cut off: every job of every run ends.
		if r.Jobs != 300 || r.Finished != 300 || r.Completion != 1 {
			t.Errorf("%s: %d of %d jobs finished (%.3f)", r.Name, r.Finished, r.Jobs, r.Completion)
		}
		// The same work on the same processors: the last end moves only
		// with the order and the cluster of the last jobs.
		if d := math.Abs(r.Makespan - core.Makespan); d > 0.1*core.Makespan {
			t.Errorf("%s: makespan %.0f s against the core's %.0f s", r.Name, r.Makespan, core.Makespan)
		}
		// Mean execution time (ART − AWT): the same jobs, split between
		// speeds 1 and 2 by the same Worst-Fit on slightly different views.
		exec, coreExec := r.ART-r.AWT, core.ART-core.AWT
		if math.Abs(exec-coreExec) > 0.1*coreExec {
			t.Errorf("%s: mean execution %.1f s against the core's %.1f s", r.Name, exec, coreExec)
		}
		// At light load the queues are short: what separates the models
		// is when a placement is tried, at most one scan interval apart,
		// and the order of the few jobs that queue behind a large one
		// (2% of the mean execution time, ~5 s).
		if tol := scan.Seconds() + 0.02*coreExec; light && math.Abs(r.AWT-core.AWT) > tol {
			t.Errorf("%s: AWT %.1f s against the core's %.1f s, beyond %.1f s", r.Name, r.AWT, core.AWT, tol)
		}
	}
	// sim's central never lets a job overtake the head of its queue and,
	// with P = scan, sees freed processors only at the reports: at the
	// core's default scan interval it waits at least as long as the core,
	// which backfills its whole queue each scan and places arrivals on live
	// counts. (With a 1 s scan the two tie at light load.)
	if s := c.Rows[1]; scan >= time.Minute && s.AWT < core.AWT {
		t.Errorf("sim with P = scan waits %.1f s, less than the core's %.1f s", s.AWT, core.AWT)
	}
}

// TestCompareEdges: an empty workload, a missing directory, a grid whose
// cluster takes the grid's name.
func TestCompareEdges(t *testing.T) {
	g := loadGrid(t)
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, workload.JobsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Compare(empty, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if r.Jobs != 0 || r.Finished != 0 || r.Completion != 0 || r.AWT != 0 || r.Makespan != 0 {
			t.Errorf("empty workload: %+v", r)
		}
	}
	if _, err := Compare(filepath.Join(empty, "missing"), g, Options{}); err == nil {
		t.Error("a missing workload directory gave no error")
	}
	gc := *g
	gc.Name = "c1"
	if _, err := Compare(empty, &gc, Options{}); err == nil || !strings.Contains(err.Error(), "grid's name") {
		t.Errorf("cluster named as the grid: %v", err)
	}
}

// TestCompareUnmapped: the thesis's W30 on the DAS-2 grid has what the
// simulator does not model (background load, files, co-allocated jobs),
// and the comparison says so.
func TestCompareUnmapped(t *testing.T) {
	g, err := grid.Load("../../examples/das2.toml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := wdl.ParseFile("../../examples/koala-w30.wdl")
	if err != nil {
		t.Fatal(err)
	}
	gen, err := generator.New(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "w30")
	if _, err := generator.WriteDir(spec, gen, generator.DirOptions{Out: dir, SpecPath: "../../examples/koala-w30.wdl", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	c, err := Compare(dir, g, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	c.WriteMarkdown(&b)
	t.Logf("\n%s", b.String())
	all := strings.Join(c.Unmapped, "\n")
	for _, want := range []string{"fs0: background", "fs4: background", "3 files", "policy CF", "max_runtime",
		"jobs of several components"} {
		if !strings.Contains(all, want) {
			t.Errorf("unmapped lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "name a cluster") || strings.Contains(all, "deadline") {
		t.Errorf("W30's jobs are non-fixed and have no deadline:\n%s", all)
	}
	for _, r := range c.Rows {
		if r.Jobs != 200 {
			t.Errorf("%s: %d jobs, want W30's 200", r.Name, r.Jobs)
		}
	}
}

// TestTopology maps the shipped grids and lists what the simulator lacks.
func TestTopology(t *testing.T) {
	for _, tc := range []struct {
		file       string
		processors int
		unmapped   []string // substrings, in order
	}{
		{"testdata/grid.toml", 128, nil},
		{"../../examples/das2.toml", 384, []string{"fs0: background load 30–40%", "fs1: background", "fs2: background",
			"fs3: background", "fs4: background", "3 files", "policy CF", "max_runtime 15m0s"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			g, err := grid.Load(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			top, unmapped, err := Topology(g)
			if err != nil {
				t.Fatal(err)
			}
			if top.Processors() != tc.processors || top.Clusters != len(g.Clusters) {
				t.Errorf("%d processors in %d clusters, want %d in %d", top.Processors(), top.Clusters, tc.processors, len(g.Clusters))
			}
			for i := range g.Clusters {
				k, ok := top.Index(g.Clusters[i].Name)
				if !ok || top.Nodes[k].Processors != g.Clusters[i].Processors || top.Nodes[k].Speed != g.Clusters[i].Speed {
					t.Errorf("cluster %s: %+v", g.Clusters[i].Name, top.Nodes[k])
				}
			}
			if len(unmapped) != len(tc.unmapped) {
				t.Fatalf("unmapped %q, want %d lines", unmapped, len(tc.unmapped))
			}
			for i, want := range tc.unmapped {
				if !strings.Contains(unmapped[i], want) {
					t.Errorf("unmapped[%d] = %q, want %q in it", i, unmapped[i], want)
				}
			}
		})
	}
}
