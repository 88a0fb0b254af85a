package experiment

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/gmark/gmark/plots"
	"github.com/gmark/gmark/sim"
)

// The workflow figures (docs/sim.md, Workflows) in the report: for runs
// whose workloads have composite jobs, the aggregates carry these metrics
// too, and the text has a table of them.

// WorkflowMetrics are a run's workflow figures: sim.WorkflowResult
// without its list of workflows.
type WorkflowMetrics struct {
	Arrived      int      `json:"arrived"`
	Finished     int      `json:"finished"`
	Failed       int      `json:"failed"`
	TasksSkipped int      `json:"tasks_skipped"`
	Response     sim.Dist `json:"response_s"`
	CriticalPath sim.Dist `json:"critical_path_s"`
	Slowdown     sim.Dist `json:"slowdown"`
	Efficiency   sim.Dist `json:"critical_path_efficiency"`
}

func workflowMetricsOf(r *sim.WorkflowResult) *WorkflowMetrics {
	if r == nil {
		return nil
	}
	return &WorkflowMetrics{Arrived: r.Arrived, Finished: r.Finished, Failed: r.Failed, TasksSkipped: r.TasksSkipped,
		Response: r.Response, CriticalPath: r.CriticalPath, Slowdown: r.Slowdown, Efficiency: r.Efficiency}
}

var workflowMetrics = []metric{
	{"workflows.finished_percent", "workflows finished %", func(m *Metrics) float64 {
		return 100 * float64(m.Workflows.Finished) / float64(max(1, m.Workflows.Arrived))
	}, plots.Percent},
	{"workflows.response_s", "workflow response (s)", func(m *Metrics) float64 { return m.Workflows.Response.Mean }, plots.NonNegative},
	{"workflows.critical_path_s", "critical path (s)", func(m *Metrics) float64 { return m.Workflows.CriticalPath.Mean }, plots.NonNegative},
	{"workflows.slowdown", "slowdown against the critical path", func(m *Metrics) float64 { return m.Workflows.Slowdown.Mean }, slowdownDomain},
	{"workflows.p95_slowdown", "p95 slowdown against the critical path", func(m *Metrics) float64 { return m.Workflows.Slowdown.P95 }, slowdownDomain},
	{"workflows.critical_path_efficiency", "critical-path efficiency", func(m *Metrics) float64 { return m.Workflows.Efficiency.Mean }, plots.Fraction},
}

func allWorkflows(ms []*Metrics) bool {
	for _, m := range ms {
		if m.Workflows == nil {
			return false
		}
	}
	return len(ms) > 0
}

// writeWorkflows is the table of the workflow metrics' means, when any
// aggregate has them.
func (e *ExperimentReport) writeWorkflows(w io.Writer) error {
	any := false
	for _, a := range e.Aggregates {
		_, ok := a.Stats["workflows.slowdown"]
		any = any || ok
	}
	if !any {
		return nil
	}
	fmt.Fprintln(w, "\nworkflows (composite jobs; means over repetitions):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tarch\tload %\treps\tfinished %\tresponse s\tcritical path s\tslowdown\tp95 slowdown\tCP efficiency\t")
	for _, a := range e.Aggregates {
		s := a.Stats
		if _, ok := s["workflows.slowdown"]; !ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%.1f\t", a.Scenario, a.Arch, num(a.Load), a.Runs, a.Planned, s["workflows.finished_percent"].Mean)
		if s["workflows.finished_percent"].Max == 0 { // no workflow finished: no figures
			fmt.Fprintln(tw, "-\t-\t-\t-\t-\t")
			continue
		}
		fmt.Fprintf(tw, "%.0f\t%.0f\t%.2f\t%.2f\t%.3f\t\n", s["workflows.response_s"].Mean, s["workflows.critical_path_s"].Mean,
			s["workflows.slowdown"].Mean, s["workflows.p95_slowdown"].Mean, s["workflows.critical_path_efficiency"].Mean)
	}
	return tw.Flush()
}
