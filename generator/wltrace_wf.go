package generator

import (
	"fmt"
	"strconv"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// A wl:trace unit over the workflow variant of GWF replays each workflow
// as one composite job: its tasks are unitary jobs made like the jobs of
// any trace (fillTask), in dependency order, and its dependencies are the
// trace's. Tasks of one workflow may be anywhere in the trace, so a replay
// reads its selection whole before the first job (the reader holds the
// trace whole anyway, to check its graphs).

// workflowReplay is one replay of a workflow trace.
type workflowReplay struct {
	wfs  []gwa.WorkflowJob
	next int
}

// startWorkflows reads the replay's selection whole when the trace is a
// workflow trace.
func (s *traceSource) startWorkflows() error {
	if !gwa.HasWorkflows(s.r.Header().Format) {
		return nil
	}
	var recs []gwa.Record
	_, err := gwa.ForEach(s.r, func(rec *gwa.Record) error {
		recs = append(recs, *rec)
		return nil
	})
	// The selection starts at its earliest task, which need not be the
	// first in the file (Select rebases on the first): no task before 0.
	start := 0.0
	for i := range recs {
		start = min(start, recs[i].SubmitTime)
	}
	for i := range recs {
		recs[i].SubmitTime -= start
	}
	var wfs []gwa.WorkflowJob
	if err == nil {
		wfs, err = groupWorkflows(recs)
	}
	if err != nil {
		s.r.Close()
		s.r = nil
		return err
	}
	s.wf = &workflowReplay{wfs: wfs}
	return nil
}

// groupWorkflows groups a selection into workflows, each within the
// limits of a composite job. A task whose predecessor the selection left
// out does not wait for it (gwa.GroupWorkflows).
func groupWorkflows(recs []gwa.Record) ([]gwa.WorkflowJob, error) {
	wfs, err := gwa.GroupWorkflows(recs)
	if err != nil {
		return nil, err
	}
	for _, w := range wfs {
		deps := 0
		for _, ps := range w.Preds {
			deps += len(ps)
		}
		if len(w.Tasks) > workload.MaxTasks || deps > workload.MaxDeps {
			return nil, fmt.Errorf("workflow %q has %d tasks and %d dependencies; a composite job has at most %d and %d",
				wdl.Excerpt(w.ID), len(w.Tasks), deps, workload.MaxTasks, workload.MaxDeps)
		}
	}
	return wfs, nil
}

// nextWorkflow makes j the composite job of the replay's next workflow;
// false after the last.
func (s *traceSource) nextWorkflow(j *workload.Job) (bool, error) {
	rp, p := s.wf, s.p
	if rp.next >= len(rp.wfs) {
		return false, nil
	}
	w := &rp.wfs[rp.next]
	rp.next++
	s.nextID(j)
	j.Kind, j.Type, j.SiteType = workload.Composite, "workflow", ""
	j.WallTime, j.RunTime, j.ZeroRunTime = 0, 0, false
	j.Components, j.Files = j.Components[:0], j.Files[:0]
	j.App = workload.App{Params: j.App.Params[:0]}
	if cap(j.Tasks) < len(w.Tasks) {
		j.Tasks = make([]workload.Job, len(w.Tasks))
	}
	j.Tasks = j.Tasks[:len(w.Tasks)]
	for k := range w.Tasks {
		t := &j.Tasks[k]
		if err := s.fillTask(t, &w.Tasks[k]); err != nil {
			return false, fmt.Errorf("%s: workflow %q, task %q: %v", p.path, wdl.Excerpt(w.ID), wdl.Excerpt(w.Tasks[k].JobID), err)
		}
		t.ID, t.Unit, t.Index = j.ID+"."+strconv.Itoa(k), p.unit.ID, k
		if k == 0 || t.Submit < j.Submit {
			j.Submit = t.Submit
		}
	}
	j.User, j.Group = j.Tasks[0].User, j.Tasks[0].Group
	attachFiles(j.Tasks, w.Tasks, p.taskFile)
	j.Deps = j.Deps[:0]
	for k, ps := range w.Preds {
		for _, pk := range ps {
			j.Deps = append(j.Deps, workload.Dependency{From: j.Tasks[pk].ID, To: j.Tasks[k].ID})
		}
	}
	return true, nil
}

// Which of a workflow task's files (a WfFormat trace's) the replay gives
// it, TaskFiles=: its outputs always, and of its inputs those another
// task of the workflow writes ("intermediate", the default: the bundled
// core holds them where their writer ran, so Close-to-Files has them to
// act on), every one ("all": the workflow's own inputs must then be in
// the grid's [[file]] tables, or the task cannot be placed), or none.
const (
	taskFilesIntermediate = "intermediate"
	taskFilesAll          = "all"
	taskFilesNone         = "none"
)

// taskFiles reads TaskFiles=.
func (r *traceOptions) taskFiles() string {
	opt, ok := r.o.Get("TaskFiles")
	if !ok {
		return taskFilesIntermediate
	}
	switch v := opt.Value; v {
	case taskFilesIntermediate, taskFilesAll, taskFilesNone:
		return v
	}
	r.add(wdl.Errorf(opt.Pos, "TaskFiles: %q is not intermediate, all or none", wdl.Excerpt(opt.Value)))
	return taskFilesNone
}

// attachFiles gives the tasks their trace files: a file of unknown size
// counts as empty.
func attachFiles(tasks []workload.Job, recs []gwa.Record, mode string) {
	if mode == taskFilesNone {
		return
	}
	written := map[string]bool{}
	for i := range recs {
		for _, f := range recs[i].Files {
			if f.Output {
				written[f.Name] = true
			}
		}
	}
	for i := range recs {
		t := &tasks[i]
		t.Outputs = t.Outputs[:0]
		for _, f := range recs[i].Files {
			file := workload.File{Name: f.Name, Size: max(f.Size, 0)}
			switch {
			case f.Output:
				t.Outputs = append(t.Outputs, file)
			case mode == taskFilesAll || written[f.Name]:
				t.Files = append(t.Files, file)
			}
		}
	}
}
