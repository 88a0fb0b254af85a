// Package dag computes the shape of a workflow's task graph and how long it
// takes: depth, width, critical path, total work, and the makespan that
// respects the dependencies, as a trace ran the workflow and as a machine
// with unbounded processors would run it. It knows nothing of trace
// formats: a graph is its tasks' predecessor lists, by index.
//
// Definitions (docs/trace.md, "Workflow analysis"): a task's level is 1
// for a task without predecessors, else one more than its predecessors'
// highest; the depth is the highest level, the width the most tasks on one
// level. The critical path is the path of greatest total run time. A task
// with an unknown (negative) run time counts as running for no time.
package dag

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"
)

// CycleError is a graph that is not acyclic. Cycle holds one cycle, from
// its task of lowest index, each task a predecessor of the next and the
// last of the first (a task depending on itself is a cycle of one).
type CycleError struct {
	Cycle []int32
}

func (e *CycleError) Error() string {
	parts := make([]string, 0, len(e.Cycle)+1)
	for _, t := range e.Cycle {
		parts = append(parts, fmt.Sprint(t))
	}
	if len(e.Cycle) > 0 {
		parts = append(parts, fmt.Sprint(e.Cycle[0]))
	}
	return "dependency cycle: " + strings.Join(parts, " -> ")
}

// Names is the cycle with the tasks named by name, e.g. "a -> b -> a"; a
// cycle longer than 12 tasks is cut in the middle.
func (e *CycleError) Names(name func(int32) string) string {
	ids := make([]string, 0, len(e.Cycle)+1)
	for _, t := range e.Cycle {
		ids = append(ids, name(t))
	}
	ids = append(ids, ids[0])
	if len(ids) > 12 {
		ids = append(ids[:10], "…", ids[len(ids)-1])
	}
	return strings.Join(ids, " -> ")
}

// Check tells whether preds is a graph of len(preds) tasks: every
// predecessor an index of a task. It does not look for cycles (Order
// does).
func Check(preds [][]int32) error {
	n := int32(len(preds))
	for i, ps := range preds {
		for _, p := range ps {
			if p < 0 || p >= n {
				return fmt.Errorf("task %d: predecessor %d is not a task (0 to %d)", i, p, n-1)
			}
		}
	}
	return nil
}

// Order orders the tasks so that each comes after its predecessors; of the
// tasks whose predecessors are all placed, the one of lowest index goes
// next, so a graph whose tasks are already in order keeps it. A graph
// with a cycle is a *CycleError. preds must pass Check.
func Order(preds [][]int32) ([]int32, error) {
	n := len(preds)
	waiting := make([]int32, n)
	succs := Successors(preds)
	ready := &minHeap{}
	for i, ps := range preds {
		waiting[i] = int32(len(ps))
		if len(ps) == 0 {
			*ready = append(*ready, int32(i))
		}
	}
	heap.Init(ready)
	order := make([]int32, 0, n)
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int32)
		order = append(order, i)
		for _, s := range succs[i] {
			if waiting[s]--; waiting[s] == 0 {
				heap.Push(ready, s)
			}
		}
	}
	if len(order) == n {
		return order, nil
	}
	return nil, &CycleError{Cycle: findCycle(preds, waiting)}
}

// findCycle returns a cycle among the tasks left waiting by Order: each
// of them waits for some task left, so walking back along predecessors
// that are left meets a task twice.
func findCycle(preds [][]int32, waiting []int32) []int32 {
	at := make([]int, len(preds))
	for i := range at {
		at[i] = -1
	}
	v := int32(slices.IndexFunc(waiting, func(w int32) bool { return w > 0 }))
	var walk []int32
	for at[v] < 0 {
		at[v] = len(walk)
		walk = append(walk, v)
		for _, p := range preds[v] {
			if waiting[p] > 0 {
				v = p
				break
			}
		}
	}
	// The walk went against the dependencies: reverse it and start at
	// the cycle's lowest index.
	loop := slices.Clone(walk[at[v]:])
	slices.Reverse(loop)
	first := slices.Index(loop, slices.Min(loop))
	return slices.Concat(loop[first:], loop[:first])
}

// Successors are the tasks that list each task as a predecessor, in index
// order.
func Successors(preds [][]int32) [][]int32 {
	succs := make([][]int32, len(preds))
	for i, ps := range preds {
		for _, p := range ps {
			succs[p] = append(succs[p], int32(i))
		}
	}
	return succs
}

type minHeap []int32

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(a, b int) bool { return h[a] < h[b] }
func (h minHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Task is what the analysis needs of one task. Times are seconds from the
// workflow's submission.
type Task struct {
	// Run is the run time; negative when unknown (counted as 0).
	Run float64
	// Release is when the task may start at the earliest: its submission
	// (0 for a task submitted with its workflow).
	Release float64
	// Start is when the task started as the trace ran it; NaN when the
	// trace does not say.
	Start float64
}

// Metrics are the shape and times of one workflow.
type Metrics struct {
	Tasks int `json:"tasks"`
	Edges int `json:"edges"`
	// Depth is the number of levels; Width the most tasks on one level.
	Depth int `json:"depth"`
	Width int `json:"width"`
	// CriticalPath is the greatest total run time of a path, and
	// CriticalTasks the number of tasks on it (Path, by index, from its
	// first task).
	CriticalPath  float64 `json:"critical_path_s"`
	CriticalTasks int     `json:"critical_path_tasks"`
	Path          []int32 `json:"-"`
	// TotalWork is the sum of the run times.
	TotalWork float64 `json:"total_work_s"`
	// Unbounded is the makespan on a machine with a processor for every
	// task: each task starts when it is released and its predecessors
	// have ended; from the workflow's submission (time 0) to its last end.
	Unbounded float64 `json:"makespan_unbounded_s"`
	// AsRan is the makespan as the trace ran the workflow: each task
	// starts when the trace says (Start), or, when it does not, when it
	// is released and its predecessors have ended; from time 0 to the
	// last end. StartsKnown counts the tasks whose start the trace gives.
	AsRan       float64 `json:"makespan_as_ran_s"`
	StartsKnown int     `json:"starts_known"`
	// Early counts the tasks that the trace started before one of their
	// predecessors ended (a trace that does not respect its own graph).
	Early int `json:"started_before_parent_ended"`
	// UnknownRun counts the tasks whose run time is unknown.
	UnknownRun int `json:"unknown_run_time"`
	// PeakParallelism is the most tasks running at once as the workflow
	// ran, MeanParallelism the total work over the as-ran makespan (0
	// when that makespan is 0).
	PeakParallelism int     `json:"peak_parallelism"`
	MeanParallelism float64 `json:"mean_parallelism"`
}

// Analyze computes the metrics of the graph preds (which must pass Check)
// with the tasks' times; a cycle is a *CycleError.
func Analyze(preds [][]int32, tasks []Task) (Metrics, error) {
	if len(tasks) != len(preds) {
		return Metrics{}, fmt.Errorf("%d tasks for a graph of %d", len(tasks), len(preds))
	}
	order, err := Order(preds)
	if err != nil {
		return Metrics{}, err
	}
	n := len(preds)
	m := Metrics{Tasks: n}
	level := make([]int32, n)
	path := make([]float64, n) // longest run-time path ending at the task, itself included
	via := make([]int32, n)    // the predecessor that path comes through, -1 for none
	unb := make([]float64, n)  // end on the unbounded machine
	ran := make([]float64, n)  // end as ran
	start := make([]float64, n)
	var levels []int
	for _, i := range order {
		run := runTime(tasks[i].Run, &m)
		m.TotalWork += run
		m.Edges += len(preds[i])
		lv, best, from := int32(1), 0.0, int32(-1)
		ready, readyRan := tasks[i].Release, tasks[i].Release
		for _, p := range preds[i] {
			lv = max(lv, level[p]+1)
			if path[p] > best || from < 0 {
				best, from = path[p], p
			}
			ready = max(ready, unb[p])
			readyRan = max(readyRan, ran[p])
		}
		level[i], path[i], via[i] = lv, best+run, from
		if int(lv) > len(levels) {
			levels = append(levels, 0)
		}
		levels[lv-1]++
		unb[i] = ready + run
		s := tasks[i].Start
		if math.IsNaN(s) {
			s = readyRan
		} else {
			m.StartsKnown++
			if s < readyRan-1e-9 && len(preds[i]) > 0 && earlyStart(s, preds[i], ran) {
				m.Early++
			}
		}
		start[i], ran[i] = s, s+run
	}
	m.Depth = len(levels)
	for _, c := range levels {
		m.Width = max(m.Width, c)
	}
	end := int32(-1)
	for i := range n {
		if end < 0 || path[i] > path[end] {
			end = int32(i)
		}
		m.Unbounded = max(m.Unbounded, unb[i])
		m.AsRan = max(m.AsRan, ran[i])
	}
	for t := end; t >= 0; t = via[t] {
		m.Path = append(m.Path, t)
	}
	slices.Reverse(m.Path)
	if end >= 0 {
		m.CriticalPath = path[end]
	}
	m.CriticalTasks = len(m.Path)
	m.PeakParallelism = peak(start, ran)
	if m.AsRan > 0 {
		m.MeanParallelism = m.TotalWork / m.AsRan
	}
	return m, nil
}

// earlyStart tells whether a task started at s before one of its
// predecessors ended.
func earlyStart(s float64, preds []int32, end []float64) bool {
	for _, p := range preds {
		if s < end[p]-1e-9 {
			return true
		}
	}
	return false
}

// runTime is a task's run time for the analysis: an unknown one counts as
// 0, and is counted.
func runTime(r float64, m *Metrics) float64 {
	if r < 0 || math.IsNaN(r) {
		m.UnknownRun++
		return 0
	}
	return r
}

// Step is one step of a parallelism profile: from At on, Running tasks
// run (until the next step).
type Step struct {
	At      float64 `json:"t"`
	Running int     `json:"running"`
}

// Profile is the number of tasks running over time, for tasks running
// [start[i], end[i]): a step at every time the number changes, the last
// one at 0 tasks. Tasks of no duration do not run.
func Profile(start, end []float64) []Step {
	type ev struct {
		t float64
		d int
	}
	evs := make([]ev, 0, 2*len(start))
	for i := range start {
		if end[i] > start[i] {
			evs = append(evs, ev{start[i], 1}, ev{end[i], -1})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return a.d - b.d // ends before starts at one time
	})
	var steps []Step
	run := 0
	for k := 0; k < len(evs); {
		t := evs[k].t
		for ; k < len(evs) && evs[k].t == t; k++ {
			run += evs[k].d
		}
		if len(steps) > 0 && steps[len(steps)-1].Running == run {
			continue
		}
		steps = append(steps, Step{At: t, Running: run})
	}
	return steps
}

// peak is the most tasks running at once.
func peak(start, end []float64) int {
	p := 0
	for _, s := range Profile(start, end) {
		p = max(p, s.Running)
	}
	return p
}

// Times are the tasks' starts and ends as the trace ran them (the rule of
// Metrics.AsRan: a task without a start starts when it is released and its
// predecessors have ended), for a parallelism profile.
func Times(preds [][]int32, tasks []Task) (start, end []float64, err error) {
	order, err := Order(preds)
	if err != nil {
		return nil, nil, err
	}
	start, end = make([]float64, len(preds)), make([]float64, len(preds))
	var scratch Metrics
	for _, i := range order {
		s := tasks[i].Start
		if math.IsNaN(s) {
			s = tasks[i].Release
			for _, p := range preds[i] {
				s = max(s, end[p])
			}
		}
		start[i], end[i] = s, s+runTime(tasks[i].Run, &scratch)
	}
	return start, end, nil
}
