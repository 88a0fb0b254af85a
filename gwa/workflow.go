package gwa

import (
	"fmt"
	"slices"
	"sort"

	"github.com/gmark/gmark/dag"
)

// topoOrder orders tasks 0..n-1 (n = len(preds), preds[i] the predecessors
// of task i, each an index of a task) so that every task comes after its
// predecessors, keeping the given order where the dependencies allow
// (dag.Order). When the graph has a cycle, order is nil and cycle is one
// of its cycles, from its first task in the given order, each task a
// predecessor of the next and the last of the first.
func topoOrder(preds [][]int32) (order, cycle []int32) {
	order, err := dag.Order(preds)
	if ce, ok := err.(*dag.CycleError); ok {
		return nil, ce.Cycle
	}
	return order, nil
}

// WorkflowJob is one workflow of a workflow trace: its tasks, ordered so
// that each comes after its predecessors, and its dependencies.
type WorkflowJob struct {
	ID string
	// Tasks are the workflow's records; of the tasks whose predecessors
	// are all before them, the first in the trace comes first.
	Tasks []Record
	// Preds[i] are the positions in Tasks of task i's predecessors, each
	// below i.
	Preds [][]int
	// Submit is the earliest submit time of the tasks.
	Submit float64
}

// GroupWorkflows groups the records of a workflow trace (as the workflow
// reader returns them, perhaps filtered) into workflows, ordered by their
// submit time (ties: the order of their first task). A dependency on a
// task that is not among recs (one a filter left out) is dropped. A record
// with no WorkflowID is a workflow of its own. Two tasks of a workflow
// with one JobID, or a cycle, are errors (the reader refuses both, so they
// come only from another source).
func GroupWorkflows(recs []Record) ([]WorkflowJob, error) {
	var wfs []WorkflowJob
	index := map[string]int{}
	for i := range recs {
		rec := &recs[i]
		w, ok := index[rec.WorkflowID]
		if !ok || rec.WorkflowID == "" {
			w = len(wfs)
			index[rec.WorkflowID] = w
			wfs = append(wfs, WorkflowJob{ID: rec.WorkflowID, Submit: rec.SubmitTime})
		}
		wf := &wfs[w]
		wf.Tasks = append(wf.Tasks, *rec)
		wf.Submit = min(wf.Submit, rec.SubmitTime)
	}
	for w := range wfs {
		if err := wfs[w].order(); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(wfs, func(a, b int) bool { return wfs[a].Submit < wfs[b].Submit })
	return wfs, nil
}

// order puts the tasks in dependency order and fills Preds.
func (wf *WorkflowJob) order() error {
	pos := make(map[string]int, len(wf.Tasks))
	for k := range wf.Tasks {
		id := wf.Tasks[k].JobID
		if _, dup := pos[id]; dup {
			return fmt.Errorf("workflow %s: two tasks %s", truncate([]byte(wf.ID)), truncate([]byte(id)))
		}
		pos[id] = k
	}
	preds := make([][]int32, len(wf.Tasks))
	for k := range wf.Tasks {
		for _, d := range wf.Tasks[k].Dependencies {
			if p, ok := pos[d]; ok && p != k {
				preds[k] = append(preds[k], int32(p))
			} else if ok {
				return fmt.Errorf("workflow %s: task %s depends on itself", truncate([]byte(wf.ID)), truncate([]byte(d)))
			}
		}
		slices.Sort(preds[k])
		preds[k] = slices.Compact(preds[k])
	}
	order, cycle := topoOrder(preds)
	if cycle != nil {
		return fmt.Errorf("workflow %s: a dependency cycle through task %s", truncate([]byte(wf.ID)), truncate([]byte(wf.Tasks[cycle[0]].JobID)))
	}
	newPos := make([]int, len(order))
	tasks := make([]Record, len(order))
	for k, i := range order {
		newPos[i] = k
		tasks[k] = wf.Tasks[i]
	}
	wf.Preds = make([][]int, len(order))
	for k, i := range order {
		for _, p := range preds[i] {
			wf.Preds[k] = append(wf.Preds[k], newPos[p])
		}
		sort.Ints(wf.Preds[k])
	}
	wf.Tasks = tasks
	return nil
}
