package experiment

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/workload"
)

// The shipped workflow experiment (examples/sim/workflows.toml: composite
// jobs with the DAGs and run times of three WfFormat instances, among
// unitary jobs) at a fifth of its span, every run: each run's workflows
// all finish (the cool-down), none slower than its critical path allows,
// and the report has their table; a run computed twice is the same, byte
// for byte.
func TestWorkflowsExample(t *testing.T) {
	t.Parallel()
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

// The report's workflow table: a run whose workflows all failed has no
// figures ("-", not a slowdown of 0); runs without workflows have no
// table.
func TestWorkflowTable(t *testing.T) {
	done := &WorkflowMetrics{Arrived: 2, Finished: 2, Response: sim.Dist{N: 2, Mean: 30}, CriticalPath: sim.Dist{N: 2, Mean: 20},
		Slowdown: sim.Dist{N: 2, Mean: 1.5, P95: 1.9}, Efficiency: sim.Dist{N: 2, Mean: 0.7}}
	failed := &WorkflowMetrics{Arrived: 3, Failed: 3, TasksSkipped: 6}
	cases := []struct {
		name string
		wf   *WorkflowMetrics
		want string
	}{
		{"finished", done, "default  sep-c      30   1/1       100.0          30               20      1.50          1.90          0.700\n"},
		{"all failed", failed, "default  sep-c      30   1/1         0.0           -                -         -             -              -\n"},
		{"no workflows", nil, ""},
	}
	for _, c := range cases {
		e := &ExperimentReport{Aggregates: aggregate([]RunRow{{Scenario: "default", Arch: "sep-c", Load: 30, Rep: 1, Metrics: &Metrics{Workflows: c.wf}}})}
		var b bytes.Buffer
		if err := e.writeWorkflows(&b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); c.want == "" && got != "" || !strings.HasSuffix(got, c.want) {
			t.Errorf("%s:\n%s\nwant the row\n%s", c.name, got, c.want)
		}
	}
}
