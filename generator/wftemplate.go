package generator

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// A unit of type wf:PATH has a workflow as its template: every job is a
// composite job of the workflow's DAG (a WfFormat instance, or any trace of
// one workflow gmark reads), its tasks running the swf application for
// their run times. TaskScale=K puts K copies of the DAG side by side in
// each job (K times the tasks and the width, the same depth and critical
// path); RunTimeScale=S multiplies the run times.

// wfTemplate is a workflow read as a template.
type wfTemplate struct {
	dag   DAG
	runs  []float64 // per task of one copy, s; -1 unknown
	cores []int     // per task of one copy; 0 unknown
	scale float64
}

// maxTemplateTasks bounds a template's tasks after TaskScale.
const maxTemplateTasks = workload.MaxTasks

// prepareTemplate reads a unit's workflow template and makes the DAG
// shape its jobs have.
func prepareTemplate(u *wdl.Unit) (*DAGShape, *wfTemplate, wdl.ErrorList) {
	o := u.Options
	var errs wdl.ErrorList
	k := 1
	if v, ok, err := o.Int("TaskScale", 1, maxTemplateTasks); err != nil {
		errs = append(errs, err.(*wdl.Error))
	} else if ok {
		k = v
	}
	t := &wfTemplate{scale: 1}
	if v, ok, err := o.Float("RunTimeScale", 0, maxTraceScale); err != nil {
		errs = append(errs, err.(*wdl.Error))
	} else if ok {
		if !(v > 0) {
			opt, _ := o.Get("RunTimeScale")
			errs = append(errs, wdl.Errorf(opt.Pos, "RunTimeScale must be > 0"))
		}
		t.scale = v
	}
	path := specRelative(u.Template, u.Pos.File)
	if err := t.read(path); err != nil {
		return nil, nil, append(errs, wdl.Errorf(u.Cols.Type, "wf:%s: %v", wdl.Excerpt(u.Template), err))
	}
	n := len(t.runs)
	if n*k > maxTemplateTasks {
		return nil, nil, append(errs, wdl.Errorf(u.Cols.Type, "wf:%s: %d tasks × TaskScale %d is more than %d, a composite job's most", wdl.Excerpt(u.Template), n, k, maxTemplateTasks))
	}
	if k > 1 {
		t.replicate(k)
	}
	h := t.dag.Height()
	shape := &DAGShape{Name: "wf", Doc: "the DAG of the workflow " + u.Template, DefaultN: wdl.Range{Min: n * k, Max: n * k},
		DefaultL: wdl.Range{Min: h, Max: h}, MaxN: maxTemplateTasks,
		heights: func(int) (int, int) { return h, h },
		make:    func(*rand.Rand, int, int, dagParams) (DAG, error) { return t.dag, nil }}
	return shape, t, errs
}

// read reads the template: a trace of exactly one workflow.
func (t *wfTemplate) read(path string) error {
	r, err := gwa.Open(path, gwa.ReadOptions{Strict: true})
	if err != nil {
		return err
	}
	defer r.Close()
	var recs []gwa.Record
	if _, err := gwa.ForEach(r, func(rec *gwa.Record) error {
		recs = append(recs, *rec)
		return nil
	}); err != nil {
		return err
	}
	wfs, err := gwa.GroupWorkflows(recs)
	if err != nil {
		return err
	}
	if len(wfs) != 1 {
		return fmt.Errorf("%d workflows: a template is one workflow (one WfFormat instance)", len(wfs))
	}
	w := &wfs[0]
	t.dag = DAG{N: len(w.Tasks)}
	for k, ps := range w.Preds {
		for _, p := range ps {
			t.dag.Edges = append(t.dag.Edges, [2]int{p, k})
		}
	}
	for i := range w.Tasks {
		rt, ok := w.Tasks[i].KnownRunTime()
		if !ok {
			rt = -1
		}
		t.runs = append(t.runs, rt)
		t.cores = append(t.cores, int(math.Max(0, math.Min(w.Tasks[i].Procs(), workload.MaxProcessors))))
	}
	return nil
}

// replicate makes k copies of the DAG side by side.
func (t *wfTemplate) replicate(k int) {
	n, orig := t.dag.N, t.dag.Edges
	edges := make([][2]int, 0, len(orig)*k)
	runs, cores := make([]float64, 0, n*k), make([]int, 0, n*k)
	for c := 0; c < k; c++ {
		for _, e := range orig {
			edges = append(edges, [2]int{e[0] + c*n, e[1] + c*n})
		}
		runs, cores = append(runs, t.runs...), append(cores, t.cores...)
	}
	t.dag = DAG{N: n * k, Edges: edges}
	t.runs, t.cores = runs, cores
}

// fill gives task k of a job its template values: its run time (scaled)
// and, when the template says, its cores.
func (t *wfTemplate) fill(task *workload.Job, k int) error {
	if rt := t.runs[k]; rt >= 0 {
		d, err := wdl.RunTimes.Duration(rt * t.scale)
		if err != nil {
			return fmt.Errorf("task %d: run time: %v", k, err)
		}
		task.RunTime, task.ZeroRunTime = d, d == 0
	} else {
		task.RunTime, task.ZeroRunTime = 0, false
	}
	if c := t.cores[k]; c > 0 && len(task.Components) == 1 {
		task.Components[0].Count = c
	}
	return nil
}
