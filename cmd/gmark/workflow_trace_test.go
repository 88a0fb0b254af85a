package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

// workflowTraceE2E is a workflow trace in OpenDC's and the Workflow Trace
// Archive's layout. Every task of a workflow is submitted at the same
// time, so only the dependencies keep a task from starting with its
// predecessors: workflow 10 a diamond (a -> b, a -> c, b c -> d), written
// sink first; 20 a task with two predecessors; 30 one task; 40 a chain
// written backwards, and one of its tasks asking for a whole cluster.
const workflowTraceE2E = "WorkflowID,JobID,SubmitTime,RunTime,NProcs,ReqNProcs,Dependencies\n" +
	"10,d,100,1,1,1,b c\n" +
	"10,a,100,2,1,1,\n" +
	"10,b,100,1,1,1,a\n" +
	"10,c,100,2,2,2,a\n" +
	"20,x,100,1,1,1,\n" +
	"20,y,100,2,1,1,\n" +
	"20,z,100,1,1,1,x y\n" +
	"30,s,103,1,1,1,\n" +
	"40,r,105,1,1,1,q\n" +
	"40,q,105,1,4,4,p\n" +
	"40,p,105,1,1,1,\n"

// A workflow trace replayed by wl:trace runs on the bundled core
// as composite jobs, and no task starts (or is even submitted) before
// every one of its predecessors has ended.
func TestWorkflowTraceOnBundledCore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"wf.gwf":    workflowTraceE2E,
		"wf.wdl":    "1\twl:trace\tsingle\t1\t*:?\t-\tFile=wf.gwf\n",
		"grid.toml": "name = \"two\"\n[scheduler]\npolicy = \"WF\"\nscan_interval = \"1s\"\nplace_on_submit = true\n[[cluster]]\nname = \"A\"\nprocessors = 4\n[[cluster]]\nname = \"B\"\nprocessors = 4\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := run(t, dir, "generate", "wf.wdl", "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	jobs, err := workload.ReadAll(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	var deps []workload.Dependency
	tasks := 0
	for _, j := range jobs {
		if j.Kind != workload.Composite {
			t.Fatalf("job %s is %s, want a composite job per workflow", j.ID, j.Kind)
		}
		deps = append(deps, j.Deps...)
		tasks += len(j.Tasks)
	}
	if len(jobs) != 4 || tasks != 11 || len(deps) != 8 {
		t.Fatalf("%d jobs, %d tasks, %d dependencies; want 4, 11, 8", len(jobs), tasks, len(deps))
	}

	stdout, stderr, code := run(t, dir, "submit", "w", "--target", "koala", "--grid", "grid.toml", "--db", "results.db", "--speedup", "10", "-q")
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s\n%s", code, stdout, stderr)
	}
	m := runLineRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no run id in %q", stdout)
	}
	st, err := store.OpenReadOnly(filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Jobs(m[1])
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]store.Job{}
	for _, r := range rows {
		byID[r.JobID] = r
	}
	for _, j := range jobs {
		if r := byID[j.ID]; r.State != store.Succeeded {
			t.Errorf("composite job %s: %q (%s)", j.ID, r.State, r.Reason)
		}
		for _, task := range j.Tasks {
			r, ok := byID[task.ID]
			if !ok || r.State != store.Succeeded || r.ParentID != j.ID || r.StartNS == 0 || r.EndNS < r.StartNS {
				t.Errorf("task %s: %+v", task.ID, r)
			}
		}
	}
	for _, d := range deps {
		from, to := byID[d.From], byID[d.To]
		if to.SubmitNS < from.EndNS || to.StartNS < from.EndNS {
			t.Errorf("task %s submitted at %d and started at %d, before its predecessor %s ended at %d",
				d.To, to.SubmitNS, to.StartNS, d.From, from.EndNS)
		}
	}
}
