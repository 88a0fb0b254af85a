package metrics

import (
	"encoding/json"
	"math"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/dag"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/stats/sampstat"
)

// Workflow is one composite job's figures, in the report's clock:
// its response time (its first task's submission to its last task's end),
// its critical path (the longest path of dependencies, each task counted
// for the time it ran), the slowdown against it (response / critical
// path) and the critical-path efficiency (critical path / response: 1 when
// the workflow lost no time waiting).
type Workflow struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Tasks        int     `json:"tasks"`
	Response     float64 `json:"response_s"`
	CriticalPath float64 `json:"critical_path_s"`
	Slowdown     float64 `json:"slowdown"`
	Efficiency   float64 `json:"critical_path_efficiency"`
}

// WorkflowMetrics are the workflow figures of a run: over its composite
// jobs that succeeded with every task's times known and whose dependencies
// are recorded.
type WorkflowMetrics struct {
	Workflows    int              `json:"workflows"`
	Response     sampstat.Summary `json:"response_s"`
	CriticalPath sampstat.Summary `json:"critical_path_s"`
	Slowdown     sampstat.Summary `json:"slowdown"`
	Efficiency   sampstat.Summary `json:"critical_path_efficiency"`
	// Left out counts the composite jobs left out, and why.
	LeftOut map[string]int `json:"left_out,omitempty"`
	// PerWorkflow lists the workflows (at most MaxWorkflowsListed).
	PerWorkflow []Workflow `json:"per_workflow"`
}

// MaxWorkflowsListed bounds WorkflowMetrics.PerWorkflow.
const MaxWorkflowsListed = 1000

// loadDAGs reads the dependencies of the run's composite jobs.
func (rd *RunData) loadDAGs(st *store.Store) error {
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		if !j.Composite() {
			continue
		}
		evs, err := st.Events(rd.ID, j.ID)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Kind != record.EventDAG { // its dependencies: the store's rows do not hold them
				continue
			}
			var p struct {
				Deps [][2]string `json:"deps"`
			}
			if json.Unmarshal([]byte(e.Payload), &p) == nil {
				if rd.DAGs == nil {
					rd.DAGs = map[string][][2]string{}
				}
				rd.DAGs[j.ID] = p.Deps
			}
		}
	}
	return nil
}

// workflows computes the workflow metrics, times scaled by f, and the
// per-job samples the gate resamples (NaN for jobs that are no workflow
// of the metrics), in the order of the top-level jobs' samples (at: the
// sample index of each composite job).
func workflows(rd *RunData, f float64, at map[string]int, n int) (*WorkflowMetrics, []float64, []float64) {
	if len(at) == 0 {
		return nil, nil, nil
	}
	tasks := map[string][]*Job{}
	for i := range rd.Jobs {
		if j := &rd.Jobs[i]; j.Parent != "" {
			tasks[j.Parent] = append(tasks[j.Parent], j)
		}
	}
	m := &WorkflowMetrics{LeftOut: map[string]int{}}
	slow, eff := nanSlice(n), nanSlice(n)
	var resp, cps, sls, effs []float64
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		k, ok := at[j.ID]
		if !ok {
			continue
		}
		w, why := workflowOf(j, tasks[j.ID], rd.DAGs, f)
		if why != "" {
			m.LeftOut[why]++
			continue
		}
		m.Workflows++
		resp, cps, sls, effs = append(resp, w.Response), append(cps, w.CriticalPath), append(sls, w.Slowdown), append(effs, w.Efficiency)
		slow[k], eff[k] = w.Slowdown, w.Efficiency
		if len(m.PerWorkflow) < MaxWorkflowsListed {
			m.PerWorkflow = append(m.PerWorkflow, w)
		}
	}
	if len(m.LeftOut) == 0 {
		m.LeftOut = nil
	}
	m.Response, m.CriticalPath = sampstat.Summarize(resp), sampstat.Summarize(cps)
	m.Slowdown, m.Efficiency = sampstat.Summarize(sls), sampstat.Summarize(effs)
	if m.PerWorkflow == nil {
		m.PerWorkflow = []Workflow{}
	}
	return m, slow, eff
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// workflowOf is the figures of one composite job, or why it has none.
func workflowOf(j *Job, tasks []*Job, dags map[string][][2]string, f float64) (Workflow, string) {
	deps, ok := dags[j.ID]
	switch {
	case j.State != Succeeded:
		return Workflow{}, "did not succeed"
	case !ok:
		return Workflow{}, "dependencies not recorded (run before gmark recorded them)"
	case len(tasks) == 0:
		return Workflow{}, "no task recorded"
	}
	index := make(map[string]int32, len(tasks))
	dt := make([]dag.Task, len(tasks))
	first, last := int64(0), int64(0)
	for i, t := range tasks {
		if t.StartNS == 0 || t.EndNS < t.StartNS {
			return Workflow{}, "a task's times unknown"
		}
		index[t.ID] = int32(i)
		dt[i] = dag.Task{Run: sec(t.EndNS-t.StartNS) * f, Start: math.NaN()}
		if first == 0 || t.SubmitNS < first {
			first = t.SubmitNS
		}
		last = max(last, t.EndNS)
	}
	preds := make([][]int32, len(tasks))
	for _, d := range deps {
		from, ok1 := index[d[0]]
		to, ok2 := index[d[1]]
		if !ok1 || !ok2 {
			return Workflow{}, "a dependency names a task not recorded"
		}
		preds[to] = append(preds[to], from)
	}
	dm, err := dag.Analyze(preds, dt)
	if err != nil {
		return Workflow{}, "dependencies that are no DAG"
	}
	w := Workflow{ID: j.ID, Type: j.Type, Tasks: len(tasks), Response: sec(last-first) * f, CriticalPath: dm.CriticalPath,
		Slowdown: math.NaN(), Efficiency: math.NaN()}
	if w.CriticalPath > 0 && w.Response > 0 {
		w.Slowdown, w.Efficiency = w.Response/w.CriticalPath, w.CriticalPath/w.Response
	}
	return w, ""
}
