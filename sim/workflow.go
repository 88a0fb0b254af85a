package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gmark/gmark/dag"
	"github.com/gmark/gmark/stats/sampstat"
	"github.com/gmark/gmark/workload"
)

// Workflows: a composite job is a DAG of unitary tasks. Each task is a job
// of its own to the architecture; the engine holds it back until its
// parents have ended. A task without parents arrives with its workflow (at
// the composite job's submit time); another arrives when the last of its
// parents ends, at that instant. The release is the engine's, on the one
// path every job's end takes (finish, HostedEnd), so every architecture
// sees the same dependency wait. A task that cannot run (rejected at
// arrival, refused or failed in the core) takes every task that depends
// on it, directly or not, with it: they never arrive, and the workflow
// fails. That is what gmark's live executor does (submitter.DAG, without
// retries): the simulator has no failure to retry, since a run killed by a
// cluster failure or an expired lease starts again.

// workflow is a composite job in the system.
type workflow struct {
	id      string
	typ     string
	submit  time.Duration
	tasks   []*Job
	src     []workload.Job // the tasks as the workload gave them (hosted: the core reads them)
	preds   [][]int32
	succs   [][]int32
	waiting []int32 // per task: parents that have not ended
	open    int     // tasks not final (ended, rejected, failed or skipped)
	failed  int     // tasks rejected or failed
	skipped int     // tasks that never arrived: a parent failed
	last    time.Duration
}

// convertComposite turns a composite job into a workflow and returns its
// first task, which stands for it in the source's order: the engine
// arrives the tasks without parents when it comes (arriveSource). The
// tasks may come in any order the dependencies allow.
func (s *Sim) convertComposite(w *workload.Job, seq int) (*Job, error) {
	if w.Submit < 0 {
		return nil, fmt.Errorf("job %s: submitted before the start (%v)", w.ID, w.Submit)
	}
	if len(w.Tasks) == 0 {
		return nil, fmt.Errorf("job %s: composite job without tasks", w.ID)
	}
	n := len(w.Tasks)
	wf := &workflow{id: w.ID, typ: w.Type, submit: w.Submit, tasks: make([]*Job, n),
		preds: make([][]int32, n), waiting: make([]int32, n), open: n}
	index := make(map[string]int32, n)
	for k := range w.Tasks {
		index[w.Tasks[k].ID] = int32(k)
	}
	for _, d := range w.Deps {
		from, ok1 := index[d.From]
		to, ok2 := index[d.To]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("job %s: dependency %s -> %s names an unknown task", w.ID, d.From, d.To)
		}
		wf.preds[to] = append(wf.preds[to], from)
	}
	if _, err := dag.Order(wf.preds); err != nil {
		var ce *dag.CycleError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("job %s: dependency cycle: %s", w.ID, ce.Names(func(i int32) string { return w.Tasks[i].ID }))
		}
		return nil, fmt.Errorf("job %s: %v", w.ID, err)
	}
	wf.succs = dag.Successors(wf.preds)
	limit, what := s.maxProcs, "the largest cluster of topology %q has"
	if s.hosted {
		limit, what = s.top.Processors(), "the clusters of topology %q have in all"
	}
	if s.hosted {
		wf.src = make([]workload.Job, n)
	}
	for k := range w.Tasks {
		t := &w.Tasks[k]
		if t.Kind != workload.Unitary {
			return nil, fmt.Errorf("job %s: task %s is not unitary", w.ID, t.ID)
		}
		if p := t.Processors(); p > limit {
			return nil, fmt.Errorf("job %s: task %s asks for %d processors, more than "+what+" (%d): the workflow could never end",
				w.ID, t.ID, p, s.top.Name, limit)
		}
		task := *t // a task without a user is its workflow's user's
		if task.User == "" {
			task.User = w.User
		}
		if s.hosted {
			wf.src[k] = cloneTask(&task)
		}
		j, err := s.convert(&task, seq)
		if err != nil {
			return nil, err
		}
		j.Submit, j.wf, j.task = w.Submit, wf, int32(k)
		j.state = jobWaiting
		wf.waiting[k] = int32(len(wf.preds[k]))
		wf.tasks[k] = j
	}
	return wf.tasks[0], nil // it stands for the workflow until it arrives (arriveSource)
}

// cloneTask copies a task with its own slices: the source may reuse the
// workload job's memory for the next one.
func cloneTask(t *workload.Job) workload.Job {
	c := *t
	c.Components = slices.Clone(t.Components)
	c.Files = slices.Clone(t.Files)
	c.Outputs = slices.Clone(t.Outputs)
	c.App.Params = slices.Clone(t.App.Params)
	return c
}

// arriveSource arrives a job from the source: a unitary job, or a
// workflow's tasks without parents, in task order.
func (s *Sim) arriveSource(j *Job) {
	wf := j.wf
	if wf == nil {
		s.cur = &s.w
		s.arrive(j)
		return
	}
	s.wfAcc.arrived++
	s.unreleased += len(wf.tasks)
	for k, t := range wf.tasks {
		if wf.waiting[k] == 0 && t.state == jobWaiting {
			s.arriveTask(t)
		}
	}
}

// arriveTask arrives a task whose parents have all ended (or that has
// none), now.
func (s *Sim) arriveTask(t *Job) {
	if t.state != jobWaiting {
		return // skipped since its release was scheduled
	}
	wf := t.wf
	s.unreleased--
	t.state = jobQueued
	t.Submit = s.now
	if wf.src != nil {
		wf.src[t.task].Submit = s.now
		s.cur = &wf.src[t.task]
	}
	s.arrive(t)
	s.cur = &s.w
}

// taskEnded follows the end of a task, at time at: released (ok) or
// failed (rejected, refused, failed in the core). The tasks it releases
// arrive now, by an engine event, so that they come after what the end
// set off.
func (s *Sim) taskEnded(j *Job, ok bool, at time.Duration) {
	wf := j.wf
	wf.open--
	wf.last = max(wf.last, at)
	if ok {
		for _, c := range wf.succs[j.task] {
			if wf.waiting[c]--; wf.waiting[c] == 0 {
				s.push(event{at: s.now, kind: evRelease, j: wf.tasks[c]})
			}
		}
	} else {
		wf.failed++
		s.skipDescendants(wf, j.task)
	}
	if wf.open == 0 {
		s.workflowDone(wf)
	}
}

// skipDescendants marks every task downstream of task i as never to run:
// it counts as a job of the run that did not finish, and an observer that
// listens for dropped jobs is told of it (submitted now, never started),
// as the live executor records such a task failed.
func (s *Sim) skipDescendants(wf *workflow, i int32) {
	stack := slices.Clone(wf.succs[i])
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t := wf.tasks[c]
		if t.state != jobWaiting {
			continue
		}
		t.state = jobSkipped
		t.Seq, t.Submit = s.arrived, s.now
		wf.skipped++
		wf.open--
		s.unreleased--
		s.arrived++
		s.wfAcc.skipped++
		s.dropped(t)
		stack = append(stack, wf.succs[c]...)
	}
}

// workflowDone measures a workflow whose tasks are all final.
func (s *Sim) workflowDone(wf *workflow) {
	a := &s.wfAcc
	if wf.failed > 0 {
		a.failed++
		return
	}
	tasks := make([]dag.Task, len(wf.tasks))
	for k, t := range wf.tasks {
		tasks[k] = dag.Task{Run: sec(t.End - t.Start), Start: math.NaN()}
	}
	m, err := dag.Analyze(wf.preds, tasks)
	if err != nil { // convertComposite checked the order
		panic(fmt.Sprintf("sim: workflow %s: %v", wf.id, err))
	}
	w := Workflow{ID: wf.id, Type: wf.typ, Tasks: len(wf.tasks), Submit: sec(wf.submit), End: sec(wf.last),
		Response: sec(wf.last - wf.submit), CriticalPath: m.CriticalPath}
	if w.CriticalPath > 0 && w.Response > 0 {
		w.Slowdown, w.Efficiency = w.Response/w.CriticalPath, w.CriticalPath/w.Response
		a.slowdown = append(a.slowdown, w.Slowdown)
		a.efficiency = append(a.efficiency, w.Efficiency)
	}
	a.finished++
	a.response = append(a.response, w.Response)
	a.critical = append(a.critical, w.CriticalPath)
	if len(a.list) < MaxWorkflowsListed {
		a.list = append(a.list, w)
	}
}

// wfAccum gathers the workflows' figures as they end.
type wfAccum struct {
	arrived, finished, failed, skipped int
	response, critical                 []float64
	slowdown, efficiency               []float64
	list                               []Workflow
}

// MaxWorkflowsListed bounds WorkflowResult.PerWorkflow.
const MaxWorkflowsListed = 1000

// Workflow is one workflow's figures (seconds): its response time (its
// last task's end − its submission), its critical path (the longest path
// of dependencies, each task counted for the time its last run took, as
// gmark report counts it), the slowdown against it (response / critical
// path) and the critical-path efficiency (critical path / response); the
// last two are 0 when the critical path or the response is 0.
type Workflow struct {
	ID           string  `json:"id"`
	Type         string  `json:"type,omitempty"`
	Tasks        int     `json:"tasks"`
	Submit       float64 `json:"submit_s"`
	End          float64 `json:"end_s"`
	Response     float64 `json:"response_s"`
	CriticalPath float64 `json:"critical_path_s"`
	Slowdown     float64 `json:"slowdown"`
	Efficiency   float64 `json:"critical_path_efficiency"`
}

// WorkflowResult is a run's figures of its composite jobs (the job
// figures of the Result are over their tasks).
type WorkflowResult struct {
	Arrived  int `json:"arrived"`  // submitted within the run
	Finished int `json:"finished"` // every task finished within the run
	Failed   int `json:"failed"`   // a task was rejected or failed: the tasks depending on it never ran
	// TasksSkipped counts the tasks that never ran because a parent
	// failed; they count among the Result's jobs, as not finished.
	TasksSkipped int `json:"tasks_skipped"`
	// Over the finished workflows (Slowdown and Efficiency over those
	// with a critical path and a response above 0).
	Response     Dist `json:"response_s"`
	CriticalPath Dist `json:"critical_path_s"`
	Slowdown     Dist `json:"slowdown"`
	Efficiency   Dist `json:"critical_path_efficiency"`
	// PerWorkflow lists the first MaxWorkflowsListed finished workflows,
	// in the order they finished.
	PerWorkflow []Workflow `json:"per_workflow"`
}

// Dist is a summary of a sample; all 0 for an empty one.
type Dist struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Max  float64 `json:"max"`
}

func distOf(x []float64) Dist {
	if len(x) == 0 {
		return Dist{}
	}
	x = slices.Clone(x)
	slices.Sort(x)
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	return Dist{N: len(x), Mean: sum / float64(len(x)), P50: sampstat.Quantile(x, 0.5), P95: sampstat.Quantile(x, 0.95), Max: x[len(x)-1]}
}

// workflowResult is the run's workflow figures; nil for a run without
// composite jobs (so its Result, and digest, are what they were).
func (s *Sim) workflowResult() *WorkflowResult {
	a := &s.wfAcc
	if a.arrived == 0 {
		return nil
	}
	r := &WorkflowResult{Arrived: a.arrived, Finished: a.finished, Failed: a.failed, TasksSkipped: a.skipped,
		Response: distOf(a.response), CriticalPath: distOf(a.critical), Slowdown: distOf(a.slowdown),
		Efficiency: distOf(a.efficiency), PerWorkflow: a.list}
	if r.PerWorkflow == nil {
		r.PerWorkflow = []Workflow{}
	}
	return r
}
