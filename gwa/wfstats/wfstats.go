// Package wfstats is the workflow analysis of a trace that holds workflows
// (GWF's workflow variant, WfFormat, the WTA's parquet): per workflow its
// tasks, depth, width, critical path, total work, makespans that respect
// its dependencies (as the trace ran it, and as a machine with unbounded
// processors would), its parallelism over time and its files; over the
// trace, their distributions; and their figures. The graph algorithms are
// package dag's; docs/trace.md has the definitions.
package wfstats

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gmark/gmark/dag"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/stats/sampstat"
)

// Workflow is the analysis of one workflow. Times are seconds from its
// submission (its earliest task's).
type Workflow struct {
	ID     string  `json:"id"`
	Submit float64 `json:"submit_s"`
	dag.Metrics
	Files Files `json:"files"`
	// Parallelism is the number of tasks running over time, as the trace
	// ran the workflow.
	Parallelism []dag.Step `json:"parallelism"`
}

// Files are a workflow's files, when the trace gives them (WfFormat): a
// file read by its tasks and written by none is an input of the workflow,
// one written and read by none an output, one written and read an
// intermediate file. Sizes of unknown files are not added.
type Files struct {
	Known        bool  `json:"known"`
	Count        int   `json:"count"`
	Input        int64 `json:"input_bytes"`
	Output       int64 `json:"output_bytes"`
	Intermediate int64 `json:"intermediate_bytes"`
	UnknownSize  int   `json:"unknown_size"`
}

// Dist summarizes one value over the workflows (type 7 percentiles).
type Dist struct {
	Name  string  `json:"name"`
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// Summary is the workflow analysis of a trace.
type Summary struct {
	Workflows int `json:"workflows"`
	Tasks     int `json:"tasks"`
	// Early counts the tasks the trace started before a predecessor ended;
	// UnknownRun the tasks of unknown run time (counted as running for no
	// time).
	Early      int    `json:"started_before_parent_ended"`
	UnknownRun int    `json:"unknown_run_time"`
	Dists      []Dist `json:"distributions"`
	// PerWorkflow are the workflows, in submit order.
	PerWorkflow []Workflow `json:"per_workflow"`
}

// Analyze analyses the workflows of a trace's records (as a workflow
// reader returns them). A record without a workflow is a workflow of its
// own.
func Analyze(recs []gwa.Record) (*Summary, error) {
	wfs, err := gwa.GroupWorkflows(recs)
	if err != nil {
		return nil, err
	}
	s := &Summary{Workflows: len(wfs), PerWorkflow: make([]Workflow, 0, len(wfs))}
	for i := range wfs {
		w, err := analyzeOne(&wfs[i])
		if err != nil {
			return nil, err
		}
		s.Tasks += w.Tasks
		s.Early += w.Early
		s.UnknownRun += w.UnknownRun
		s.PerWorkflow = append(s.PerWorkflow, w)
	}
	s.Dists = s.distributions()
	return s, nil
}

// Graph is a workflow's graph and times for package dag: times from its
// submission.
func Graph(w *gwa.WorkflowJob) ([][]int32, []dag.Task) {
	preds := make([][]int32, len(w.Tasks))
	tasks := make([]dag.Task, len(w.Tasks))
	for k := range w.Tasks {
		r := &w.Tasks[k]
		for _, p := range w.Preds[k] {
			preds[k] = append(preds[k], int32(p))
		}
		tasks[k] = dag.Task{Run: r.RunTime, Release: r.SubmitTime - w.Submit, Start: math.NaN()}
		if _, ok := r.KnownRunTime(); !ok {
			tasks[k].Run = -1
		}
		if r.WaitTime != gwa.Missing {
			tasks[k].Start = r.SubmitTime + r.WaitTime - w.Submit
		}
	}
	return preds, tasks
}

func analyzeOne(w *gwa.WorkflowJob) (Workflow, error) {
	preds, tasks := Graph(w)
	m, err := dag.Analyze(preds, tasks)
	if err != nil {
		return Workflow{}, fmt.Errorf("workflow %s: %v", w.ID, err)
	}
	start, end, _ := dag.Times(preds, tasks)
	out := Workflow{ID: w.ID, Submit: w.Submit, Metrics: m, Parallelism: dag.Profile(start, end)}
	if out.Parallelism == nil {
		out.Parallelism = []dag.Step{}
	}
	out.Files = files(w.Tasks)
	return out, nil
}

// files classifies a workflow's files by who reads and writes them.
func files(tasks []gwa.Record) Files {
	type use struct {
		size          int64
		read, written bool
	}
	seen := map[string]*use{}
	var order []string
	for i := range tasks {
		for _, f := range tasks[i].Files {
			u := seen[f.Name]
			if u == nil {
				u = &use{size: f.Size}
				seen[f.Name] = u
				order = append(order, f.Name)
			}
			if f.Output {
				u.written = true
			} else {
				u.read = true
			}
		}
	}
	fs := Files{Known: len(seen) > 0, Count: len(seen)}
	for _, name := range order {
		u := seen[name]
		if u.size < 0 {
			fs.UnknownSize++
			continue
		}
		switch {
		case u.written && u.read:
			fs.Intermediate += u.size
		case u.written:
			fs.Output += u.size
		default:
			fs.Input += u.size
		}
	}
	return fs
}

// distributions are the summaries over the workflows.
func (s *Summary) distributions() []Dist {
	type col struct {
		name string
		v    func(*Workflow) (float64, bool)
	}
	cols := []col{
		{"tasks", func(w *Workflow) (float64, bool) { return float64(w.Tasks), true }},
		{"depth", func(w *Workflow) (float64, bool) { return float64(w.Depth), true }},
		{"width", func(w *Workflow) (float64, bool) { return float64(w.Width), true }},
		{"critical path s", func(w *Workflow) (float64, bool) { return w.CriticalPath, true }},
		{"total work s", func(w *Workflow) (float64, bool) { return w.TotalWork, true }},
		{"makespan as ran s", func(w *Workflow) (float64, bool) { return w.AsRan, true }},
		{"makespan unbounded s", func(w *Workflow) (float64, bool) { return w.Unbounded, true }},
		{"peak parallelism", func(w *Workflow) (float64, bool) { return float64(w.PeakParallelism), true }},
		{"mean parallelism", func(w *Workflow) (float64, bool) { return w.MeanParallelism, w.AsRan > 0 }},
		{"input bytes", func(w *Workflow) (float64, bool) { return float64(w.Files.Input), w.Files.Known }},
		{"output bytes", func(w *Workflow) (float64, bool) { return float64(w.Files.Output), w.Files.Known }},
		{"intermediate bytes", func(w *Workflow) (float64, bool) { return float64(w.Files.Intermediate), w.Files.Known }},
	}
	var out []Dist
	for _, c := range cols {
		var xs []float64
		for i := range s.PerWorkflow {
			if v, ok := c.v(&s.PerWorkflow[i]); ok {
				xs = append(xs, v)
			}
		}
		if len(xs) == 0 {
			continue
		}
		out = append(out, summarize(c.name, xs))
	}
	return out
}

func summarize(name string, xs []float64) Dist {
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return Dist{Name: name, Count: len(xs), Mean: sum / float64(len(xs)), Min: xs[0], Max: xs[len(xs)-1],
		P50: sampstat.Quantile(xs, 0.5), P90: sampstat.Quantile(xs, 0.9), P99: sampstat.Quantile(xs, 0.99)}
}

// Dist returns the named distribution, and whether the trace has it.
func (s *Summary) Dist(name string) (Dist, bool) {
	for _, d := range s.Dists {
		if d.Name == name {
			return d, true
		}
	}
	return Dist{}, false
}

// WriteText writes the analysis as trace stats prints it: the
// distributions, and each workflow when there are at most maxListed.
func (s *Summary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "  workflows:    %d workflows, %d tasks; makespans respect the dependencies (docs/trace.md)\n", s.Workflows, s.Tasks)
	if s.Early > 0 {
		fmt.Fprintf(w, "                %d tasks started, as the trace says, before a predecessor ended\n", s.Early)
	}
	if s.UnknownRun > 0 {
		fmt.Fprintf(w, "                %d tasks of unknown run time, counted as running for no time\n", s.UnknownRun)
	}
	fmt.Fprintf(w, "    %-22s %8s %10s %10s %10s %10s %10s\n", "per workflow", "count", "mean", "median", "p90", "p99", "max")
	for _, d := range s.Dists {
		fmt.Fprintf(w, "    %-22s %8d %10s %10s %10s %10s %10s\n", d.Name, d.Count, num(d.Mean), num(d.P50), num(d.P90), num(d.P99), num(d.Max))
	}
	if len(s.PerWorkflow) > maxListed {
		return
	}
	fmt.Fprintf(w, "    %-22s %8s %6s %6s %12s %12s %12s %12s\n", "workflow", "tasks", "depth", "width", "crit. path s", "work s", "as ran s", "unbounded s")
	for _, wf := range s.PerWorkflow {
		fmt.Fprintf(w, "    %-22s %8d %6d %6d %12s %12s %12s %12s\n", clip(wf.ID, 22), wf.Tasks, wf.Depth, wf.Width, num(wf.CriticalPath), num(wf.TotalWork), num(wf.AsRan), num(wf.Unbounded))
	}
}

// maxListed is the most workflows the text lists one by one.
const maxListed = 20

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case v == math.Trunc(v) && math.Abs(v) < 1e9:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

func clip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
