// Package dagtest computes what package dag computes by other algorithms,
// for tests: longest paths by depth-first search with memoization over the
// successors (dag goes forward over a topological order of the
// predecessors), levels by relaxation until nothing changes, and the
// makespan on an unbounded machine by simulating it event by event. A test
// checks dag.Analyze against Check on every graph it has.
package dagtest

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/gmark/gmark/dag"
)

// Metrics are the independent results.
type Metrics struct {
	Depth, Width int
	CriticalPath float64
	TotalWork    float64
	Unbounded    float64
}

// Compute computes the metrics of an acyclic graph (preds as dag takes
// it) without package dag.
func Compute(preds [][]int32, tasks []dag.Task) Metrics {
	n := len(preds)
	succs := make([][]int32, n)
	for i, ps := range preds {
		for _, p := range ps {
			succs[p] = append(succs[p], int32(i))
		}
	}
	run := make([]float64, n)
	var m Metrics
	for i, t := range tasks {
		if t.Run > 0 {
			run[i] = t.Run
		}
		m.TotalWork += run[i]
	}
	// Longest path starting at each task, by DFS over successors.
	memo := make([]float64, n)
	done := make([]bool, n)
	var from func(i int32) float64
	from = func(i int32) float64 {
		if done[i] {
			return memo[i]
		}
		best := 0.0
		for _, s := range succs[i] {
			best = math.Max(best, from(s))
		}
		memo[i], done[i] = best+run[i], true
		return memo[i]
	}
	for i := range n {
		m.CriticalPath = math.Max(m.CriticalPath, from(int32(i)))
	}
	// Levels by relaxation.
	level := make([]int, n)
	for i := range level {
		level[i] = 1
	}
	for changed := true; changed; {
		changed = false
		for i, ps := range preds {
			for _, p := range ps {
				if level[p]+1 > level[i] {
					level[i], changed = level[p]+1, true
				}
			}
		}
	}
	count := map[int]int{}
	for _, l := range level {
		count[l]++
		m.Depth = max(m.Depth, l)
		m.Width = max(m.Width, count[l])
	}
	m.Unbounded = simulate(preds, succs, tasks, run)
	return m
}

// simulate runs the workflow on a machine with a processor per task, by
// events: a task starts when its release time has come and its last
// predecessor has ended.
func simulate(preds, succs [][]int32, tasks []dag.Task, run []float64) float64 {
	q := &events{}
	left := make([]int, len(preds))
	for i, ps := range preds {
		left[i] = len(ps)
		if left[i] == 0 {
			heap.Push(q, event{t: tasks[i].Release, task: int32(i), start: true})
		}
	}
	end := 0.0
	for q.Len() > 0 {
		e := heap.Pop(q).(event)
		if e.start {
			heap.Push(q, event{t: e.t + run[e.task], task: e.task})
			continue
		}
		end = math.Max(end, e.t)
		for _, s := range succs[e.task] {
			if left[s]--; left[s] == 0 {
				heap.Push(q, event{t: math.Max(e.t, tasks[s].Release), task: s, start: true})
			}
		}
	}
	return end
}

type event struct {
	t     float64
	task  int32
	start bool
}

type events []event

func (h events) Len() int           { return len(h) }
func (h events) Less(a, b int) bool { return h[a].t < h[b].t }
func (h events) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *events) Push(x any)        { *h = append(*h, x.(event)) }
func (h *events) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Check compares dag.Analyze on the graph with Compute: nil when they
// agree (times within 1e-9 relative).
func Check(preds [][]int32, tasks []dag.Task) error {
	got, err := dag.Analyze(preds, tasks)
	if err != nil {
		return err
	}
	want := Compute(preds, tasks)
	switch {
	case got.Depth != want.Depth:
		return fmt.Errorf("depth %d, the relaxation gives %d", got.Depth, want.Depth)
	case got.Width != want.Width:
		return fmt.Errorf("width %d, the relaxation gives %d", got.Width, want.Width)
	case !close(got.CriticalPath, want.CriticalPath):
		return fmt.Errorf("critical path %g, the depth-first search gives %g", got.CriticalPath, want.CriticalPath)
	case !close(got.TotalWork, want.TotalWork):
		return fmt.Errorf("total work %g, the sum gives %g", got.TotalWork, want.TotalWork)
	case !close(got.Unbounded, want.Unbounded):
		return fmt.Errorf("unbounded makespan %g, the simulation gives %g", got.Unbounded, want.Unbounded)
	}
	// The path dag reports is a path, and its run times add up to its length.
	sum := 0.0
	for k, t := range got.Path {
		if tasks[t].Run > 0 {
			sum += tasks[t].Run
		}
		if k > 0 && !isPred(preds[t], got.Path[k-1]) {
			return fmt.Errorf("critical path: task %d does not depend on task %d before it", t, got.Path[k-1])
		}
	}
	if !close(sum, got.CriticalPath) {
		return fmt.Errorf("critical path's tasks run %g s in all, not its length %g", sum, got.CriticalPath)
	}
	return nil
}

func isPred(ps []int32, p int32) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}

func close(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
