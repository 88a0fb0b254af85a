package wfstats

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/dag/dagtest"
	"github.com/gmark/gmark/gwa"
)

// The hand-computed graph of package dag's tests, as a trace in GWF's
// workflow variant: a(3) -> b(2), c(4); b, c -> d(1); c -> e(5); d, e ->
// f(2): depth 4, width 2, critical path 14, work 17. Workflow w2 is one
// task submitted 100 s later; w3 a chain of two whose second task waited
// 3 s after its parent (as ran 1 + 3 + 1 = 5, unbounded 2).
const handTrace = `WorkflowID,JobID,SubmitTime,WaitTime,RunTime,NProcs,ReqNProcs,Dependencies
w1,a,0,-1,3,1,1,
w1,b,0,-1,2,1,1,a
w1,c,0,-1,4,1,1,a
w1,d,0,-1,1,1,1,b c
w1,e,0,-1,5,1,1,c
w1,f,0,-1,2,1,1,d e
w2,x,100,-1,7,1,1,
w3,p,200,0,1,1,1,
w3,q,200,4,1,1,1,p
`

func read(t *testing.T, text string) []gwa.Record {
	t.Helper()
	r, err := gwa.NewReader(strings.NewReader(text), gwa.ReadOptions{Name: "t.wf.gwf", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	cr, recs := Collect(r)
	for {
		if _, err := cr.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	return recs()
}

func TestHandComputed(t *testing.T) {
	s, err := Analyze(read(t, handTrace))
	if err != nil {
		t.Fatal(err)
	}
	if s.Workflows != 3 || s.Tasks != 9 || len(s.PerWorkflow) != 3 {
		t.Fatalf("%d workflows, %d tasks", s.Workflows, s.Tasks)
	}
	for _, tc := range []struct {
		id                                 string
		tasks, depth, width, peak          int
		cp, work, asRan, unbounded, submit float64
	}{
		{"w1", 6, 4, 2, 2, 14, 17, 14, 14, 0},
		{"w2", 1, 1, 1, 1, 7, 7, 7, 7, 100},
		{"w3", 2, 2, 1, 1, 2, 2, 5, 2, 200},
	} {
		var w *Workflow
		for i := range s.PerWorkflow {
			if s.PerWorkflow[i].ID == tc.id {
				w = &s.PerWorkflow[i]
			}
		}
		if w == nil {
			t.Fatalf("no workflow %s", tc.id)
		}
		if w.Tasks != tc.tasks || w.Depth != tc.depth || w.Width != tc.width || w.PeakParallelism != tc.peak || w.CriticalPath != tc.cp ||
			w.TotalWork != tc.work || w.AsRan != tc.asRan || w.Unbounded != tc.unbounded || w.Submit != tc.submit {
			t.Errorf("%s: %+v", tc.id, *w)
		}
	}
	if d, ok := s.Dist("critical path s"); !ok || d.Count != 3 || d.Max != 14 || d.Min != 2 || d.P50 != 7 {
		t.Errorf("critical path distribution %+v", d)
	}
	if _, ok := s.Dist("input bytes"); ok {
		t.Error("a distribution of file sizes for a trace without files")
	}
	// The independent computation agrees on every workflow.
	wfs, _ := gwa.GroupWorkflows(read(t, handTrace))
	for i := range wfs {
		preds, tasks := Graph(&wfs[i])
		if err := dagtest.Check(preds, tasks); err != nil {
			t.Errorf("%s: %v", wfs[i].ID, err)
		}
	}
}

func TestFilesAndWfFormat(t *testing.T) {
	r, err := gwa.Open(filepath.Join("..", "wfformat", "testdata", "diamond-1.5.json"), gwa.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cr, recs := Collect(r)
	gwa.ForEach(cr, func(*gwa.Record) error { return nil })
	s, err := Analyze(recs())
	if err != nil {
		t.Fatal(err)
	}
	w := s.PerWorkflow[0]
	// split 0.5+4.25; work 20 and 25.75 from 5 and 6; merge 4 from 32.5.
	want := Files{Known: true, Count: 6, Input: 4000000, Output: 2500, Intermediate: 4002500}
	if w.Files != want || w.CriticalPath != 34 || w.AsRan != 36.5 || w.Unbounded != 34 || w.TotalWork != 54 || w.Width != 2 || w.Depth != 3 {
		t.Errorf("%+v", w)
	}
	if len(w.Parallelism) == 0 || w.Parallelism[len(w.Parallelism)-1].Running != 0 {
		t.Errorf("parallelism %v", w.Parallelism)
	}
}

func TestDegenerate(t *testing.T) {
	s, err := Analyze(nil)
	if err != nil || s.Workflows != 0 || len(s.Dists) != 0 {
		t.Fatalf("no records: %+v %v", s, err)
	}
	// Unknown run times count as 0 and are counted.
	s, err = Analyze(read(t, "WorkflowID,JobID,SubmitTime,RunTime,NProcs,ReqNProcs,Dependencies\nw,a,0,-1,1,1,\nw,b,0,-1,1,1,a\n"))
	if err != nil || s.UnknownRun != 2 || s.PerWorkflow[0].CriticalPath != 0 || s.PerWorkflow[0].AsRan != 0 {
		t.Errorf("%+v %v", s, err)
	}
	if d, ok := s.Dist("mean parallelism"); ok {
		t.Errorf("a mean parallelism over a makespan of 0: %+v", d)
	}
	var b strings.Builder
	s.WriteText(&b)
	if !strings.Contains(b.String(), "2 tasks of unknown run time") {
		t.Errorf("text %q", b.String())
	}
}

func TestPlot(t *testing.T) {
	s, err := Analyze(read(t, handTrace))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	figs, err := Plot(s, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range figs {
		names[f.Name] = true
		for _, file := range []string{f.PNG, f.SVG, f.CSV} {
			if fi, err := os.Stat(filepath.Join(dir, file)); err != nil || fi.Size() == 0 {
				t.Errorf("%s: %v", file, err)
			}
		}
	}
	for _, n := range []string{"workflow_critical_path_vs_work", "workflow_width", "workflow_parallelism"} {
		if !names[n] {
			t.Errorf("no figure %s among %v", n, names)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "workflow_width.csv"))
	if !strings.Contains(string(csv), "2") {
		t.Errorf("width data %q", csv)
	}
	if figs, err := Plot(&Summary{}, t.TempDir(), ""); err != nil || len(figs) != 0 {
		t.Errorf("no workflows: %v %v", figs, err)
	}
}
