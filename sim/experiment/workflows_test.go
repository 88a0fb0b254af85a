package experiment

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

// The shipped workflow experiment (examples/sim/workflows.toml: composite
// jobs with the DAGs and run times of three WfFormat instances, among
// unitary jobs) at a fifth of its span, every run: each run's workflows
// all finish (the cool-down), none slower than its critical path allows,
// and the report has their table; a run computed twice is the same, byte
// for byte.
func TestWorkflowsExample(t *testing.T) {
	e, err := Load(filepath.Join("..", "..", "examples", "sim", "workflows.toml"), Options{Scale: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "sim.db")
	sum, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 1})
	if err != nil || sum.Ran != e.NumRuns() || sum.Failed != 0 {
		t.Fatalf("%+v %v", sum, err)
	}
	rep, err := ReadReport(db, []string{"workflows"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Experiments[0].Runs {
		w := r.Metrics.Workflows
		if w == nil || w.Arrived < 10 || w.Finished != w.Arrived || w.Failed != 0 || w.TasksSkipped != 0 {
			t.Fatalf("run %d (%s): workflows %+v: want them all finished", r.Index+1, r.Arch, w)
		}
		if w.Slowdown.N != w.Finished || w.Slowdown.Mean < 1 || w.Response.Mean < w.CriticalPath.Mean {
			t.Errorf("run %d (%s): slowdown %+v, response %+v, critical path %+v", r.Index+1, r.Arch, w.Slowdown, w.Response, w.CriticalPath)
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "workflows (composite jobs; means over repetitions):") {
		t.Errorf("no workflow table in the report:\n%s", text.String())
	}
	r, err := e.Run(e.NumRuns() - 1)
	if err != nil {
		t.Fatal(err)
	}
	a, errA := Compute(context.Background(), e, r)
	b, errB := Compute(context.Background(), e, r)
	if errA != nil || errB != nil || a.Result != b.Result || !strings.Contains(a.Result, `"workflows":{`) {
		t.Errorf("two computations of %s differ or have no workflows (%v %v):\n%s\n%s", r, errA, errB, a.Result, b.Result)
	}
}

// A composite job offers its tasks' work, and is submitted where its first
// task is (before, its work counted 0: a workload of workflows could not
// be brought to a load).
func TestWorkOfComposite(t *testing.T) {
	task := func(site string, procs int, run time.Duration) workload.Job {
		return workload.Job{Kind: workload.Unitary, RunTime: run, Components: []workload.Component{{Site: site, Count: procs}}}
	}
	wf := workload.Job{Kind: workload.Composite, Tasks: []workload.Job{task("fs1", 2, 10*time.Second), task("fs0", 4, 5*time.Second)}}
	if w := workOf(&wf); w != 40 {
		t.Errorf("work %v; want 2×10 + 4×5 = 40 processor-seconds", w)
	}
	if site, ok := siteOf(&wf); !ok || site != "fs1" {
		t.Errorf("site %q %v; want fs1", site, ok)
	}
	if _, ok := siteOf(&workload.Job{Kind: workload.Composite}); ok {
		t.Error("a composite job without tasks has a site")
	}
}
