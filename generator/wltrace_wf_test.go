package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// wfTrace is a workflow trace in the layout of OpenDC and the Workflow
// Trace Archive: workflow 0 a diamond (1 -> 2, 1 -> 3, 2 3 -> 4) with its
// sink first; workflow 1 a single task; workflow 2 a task with two
// predecessors; lines of workflows 0 and 2 interleaved, and workflow 1,
// the earliest, late in the file.
const wfTrace = "WorkflowID, JobID, SubmitTime, RunTime, NProcs, ReqNProcs, Dependencies\n" +
	"0, 4, 16, 5, 1, 1, 2 3\n" +
	"0, 1, 16, 11, 2, 2, \n" +
	"2, 7, 20, 3, 1, 1, \n" +
	"0, 2, 17, 7.5, 1, 1, 1\n" +
	"2, 9, 20, 4, 1, 1, 7 8\n" +
	"0, 3, 18, 2, 4, 4, 1\n" +
	"1, 5, 12, 30, 1, 1, \n" +
	"2, 8, 21, -1, -1, 2, \n"

// workflowSummary is a composite job as a line: its id and submit time,
// then each task (id@submit run×procs) and the dependencies.
func workflowSummary(j *workload.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s@%s %s:", j.ID, j.Submit, j.Kind)
	for i := range j.Tasks {
		t := &j.Tasks[i]
		fmt.Fprintf(&b, " %s@%s %s×%d", t.ID, t.Submit, t.RunTime, t.Processors())
	}
	b.WriteString(" |")
	for _, d := range j.Deps {
		fmt.Fprintf(&b, " %s>%s", d.From, d.To)
	}
	return b.String()
}

func TestWorkflowTraceReplay(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "wf.gwf"), []byte(wfTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, other string
		want        []string
	}{
		{"every workflow, from the earliest task", "File=wf.gwf", []string{
			"1-0@0s composite: 1-0.0@0s 30s×1 |",
			"1-1@4s composite: 1-1.0@4s 11s×2 1-1.1@5s 7.5s×1 1-1.2@6s 2s×4 1-1.3@4s 5s×1 | 1-1.0>1-1.1 1-1.0>1-1.2 1-1.1>1-1.3 1-1.2>1-1.3",
			"1-2@8s composite: 1-2.0@8s 3s×1 1-2.1@9s 0s×2 1-2.2@8s 4s×1 | 1-2.0>1-2.2 1-2.1>1-2.2",
		}},
		// The filter leaves out task 3 of workflow 0 (2 s) and task 8 of
		// workflow 2 (no run time): their dependents no longer wait for
		// them.
		{"a run-time filter, scaled", "File=wf.gwf,MinRunTime=3s,SubmitScale=2,RunTimeScale=0.5", []string{
			"1-0@0s composite: 1-0.0@0s 15s×1 |",
			"1-1@8s composite: 1-1.0@8s 5.5s×2 1-1.1@10s 3.75s×1 1-1.2@8s 2.5s×1 | 1-1.0>1-1.1 1-1.1>1-1.2",
			"1-2@16s composite: 1-2.0@16s 1.5s×1 1-2.1@16s 2s×1 | 1-2.0>1-2.1",
		}},
		{"a window", "File=wf.gwf,From=17s,To=21s", []string{
			"1-0@0s composite: 1-0.0@0s 7.5s×1 1-0.1@1s 2s×4 |",
			"1-1@3s composite: 1-1.0@3s 3s×1 1-1.1@3s 4s×1 | 1-1.0>1-1.1",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jobs := generate(t, traceSpec(t, dir, "1", tc.other), 1)
			var got []string
			for i := range jobs {
				if err := jobs[i].Validate(); err != nil {
					t.Fatal(err)
				}
				got = append(got, workflowSummary(&jobs[i]))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("jobs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for i := range jobs {
				for k := range jobs[i].Tasks {
					if task := &jobs[i].Tasks[k]; task.Type != "swf" || task.App.Name != "swf" || task.Components[0].Site != workload.AnySite {
						t.Fatalf("task %+v", task)
					}
				}
			}
		})
	}
}

// A broken workflow trace is refused when the spec is loaded, at the File=
// value, with the trace's own file:line.
func TestWorkflowTraceReplayErrors(t *testing.T) {
	dir := t.TempDir()
	cyc := "WorkflowID,JobID,SubmitTime,Dependencies\n1,a,0,\n1,b,0,a c\n1,c,0,b\n"
	if err := os.WriteFile(filepath.Join(dir, "cyc.gwf"), []byte(cyc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(traceSpec(t, dir, "1", "File=cyc.gwf"), 1)
	want := filepath.Join(dir, "replay.wdl") + ":1:32: File: " + filepath.Join(dir, "cyc.gwf") + ":3: field 4: workflow 1 has a dependency cycle: b -> c -> b (lines 3, 4)"
	if err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	// Without Strict, the broken workflow is left out.
	if err := os.WriteFile(filepath.Join(dir, "mixed.gwf"), []byte(cyc+"2,x,5,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := generate(t, traceSpec(t, dir, "1", "File=mixed.gwf,Strict=false"), 1)
	if len(jobs) != 1 || len(jobs[0].Tasks) != 1 {
		t.Fatalf("%d jobs: %+v", len(jobs), jobs)
	}
}

// A generated workload of composite jobs, written as a workflow trace
// (gmark generate --format wf) and replayed by wl:trace, gives the same
// jobs: the same DAGs, run times, sizes and submit times (from the first
// job's), unitary jobs becoming workflows of one task.
func TestWorkflowRoundTrip(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "dags.wdl")
	src := "1\tcomposite\t4\tforkjoin\tsingle\t1\t*:?\tPoisson(30s)\tN=5-9,L=3-4,AppsWithWeights=hello,RunTime=U(1s,10s)\n" +
		"2\tcomposite\t3\tsamepred\tsingle\t1\t*:?\tPoisson(30s)\tStartAt=5s,N=6-12,L=3-5,MeanPred=2,AppsWithWeights=hello,RunTime=U(1s,10s)\n" +
		"3\tcomposite\t2\tbot\tsingle\t1\t*:?\tPoisson(30s)\tN=3,AppsWithWeights=hello\n" +
		"4\tunitary\t3\tswf\tsingle\t2\t*:2\tPoisson(20s)\tRunTime=C(4s)\n"
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := wdl.ParseFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := New(spec, 7)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "w")
	if _, err := WriteDir(spec, gen, DirOptions{Out: out, SpecPath: specPath, Seed: 7, Traces: []string{"wf", "gwf"}}); err != nil {
		t.Fatal(err)
	}
	orig, err := workload.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	// The file as gwa reads it: one workflow per job.
	r, err := gwa.Open(filepath.Join(out, "workload.wf.gwf"), gwa.ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var recs []gwa.Record
	if _, err := gwa.ForEach(r, func(rec *gwa.Record) error { recs = append(recs, *rec); return nil }); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if wfs, err := gwa.GroupWorkflows(recs); err != nil || len(wfs) != len(orig) {
		t.Fatalf("%d workflows (%v), %d jobs", len(wfs), err, len(orig))
	}

	replay := generate(t, traceSpec(t, out, "1", "File=workload.wf.gwf"), 1)
	if len(replay) != len(orig) {
		t.Fatalf("%d jobs replayed, %d generated", len(replay), len(orig))
	}
	close := func(a, b time.Duration) bool { return (a - b).Abs() <= time.Microsecond }
	deps := 0
	for i := range orig {
		o, g := &orig[i], &replay[i]
		tasks := o.Tasks
		if o.Kind == workload.Unitary {
			tasks = []workload.Job{*o}
		}
		if g.Kind != workload.Composite || len(g.Tasks) != len(tasks) || !close(g.Submit, o.Submit-orig[0].Submit) {
			t.Fatalf("job %d: %s\nfrom %s", i, workflowSummary(g), workflowSummary(o))
		}
		for k := range tasks {
			if !close(g.Tasks[k].RunTime, tasks[k].RunTime) || g.Tasks[k].Processors() != tasks[k].Processors() {
				t.Fatalf("job %d task %d: %s×%d, generated %s×%d", i, k, g.Tasks[k].RunTime, g.Tasks[k].Processors(), tasks[k].RunTime, tasks[k].Processors())
			}
		}
		// Tasks keep their order (the generator's is a topological one),
		// so the edges match by position.
		edges := func(j *workload.Job) []string {
			pos := map[string]int{}
			for k := range j.Tasks {
				pos[j.Tasks[k].ID] = k
			}
			var e []string
			for _, d := range j.Deps {
				e = append(e, fmt.Sprintf("%d>%d", pos[d.From], pos[d.To]))
			}
			slices.Sort(e)
			return e
		}
		if a, b := edges(g), edges(o); !slices.Equal(a, b) {
			t.Fatalf("job %d: edges %v, generated %v", i, a, b)
		}
		deps += len(o.Deps)
	}
	if deps < 10 {
		t.Fatalf("only %d dependencies in the generated workload: not a test of DAGs", deps)
	}
}
