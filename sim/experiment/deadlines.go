package experiment

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/gmark/gmark/plots"
)

// Ballier et al.'s figures (docs/deadlines.md) in the report: for runs of
// central's core model with start deadlines or local workloads, the
// aggregates carry these metrics too, the text has a table of them and
// the page a figure of each against the load.

var deadlineMetrics = []metric{
	{"deadlines.global_success", "global success", func(m *Metrics) float64 { return m.Deadlines.GlobalSuccess }, plots.Fraction},
	{"deadlines.local_response_s", "local response (s)", func(m *Metrics) float64 { return m.Deadlines.LocalResponseS }, plots.NonNegative},
	{"deadlines.local_kill_rate", "local kill rate", func(m *Metrics) float64 { return m.Deadlines.LocalKillRate }, plots.Fraction},
	{"deadlines.wasted_processor_s", "wasted processor time (s)", func(m *Metrics) float64 { return m.Deadlines.WastedProcessorS }, plots.NonNegative},
	{"deadlines.lost_processor_s", "lost processor time (s)", func(m *Metrics) float64 { return m.Deadlines.LostProcessorS }, plots.NonNegative},
	{"deadlines.total_utilization", "total utilization", func(m *Metrics) float64 { return m.Deadlines.TotalUtil }, plots.Fraction},
	{"deadlines.global_utilization", "global utilization", func(m *Metrics) float64 { return m.Deadlines.GlobalUtil }, plots.Fraction},
	{"deadlines.local_utilization", "local utilization", func(m *Metrics) float64 { return m.Deadlines.LocalUtil }, plots.Fraction},
	{"deadlines.wasted_utilization", "wasted utilization", func(m *Metrics) float64 { return m.Deadlines.WastedUtil }, plots.Fraction},
}

// deadlineFigureMetrics are drawn against the load (the paper's Figs. 2-9
// plot the first three).
var deadlineFigureMetrics = []string{"deadlines.global_success", "deadlines.local_response_s", "deadlines.local_kill_rate",
	"deadlines.wasted_processor_s", "deadlines.total_utilization"}

func allDeadlines(ms []*Metrics) bool {
	for _, m := range ms {
		if m.Deadlines == nil {
			return false
		}
	}
	return len(ms) > 0
}

func (e *ExperimentReport) hasDeadlines() bool {
	for _, a := range e.Aggregates {
		if _, ok := a.Stats["deadlines.global_success"]; ok {
			return true
		}
	}
	return false
}

// writeDeadlines is the table of the deadline metrics' means, when any
// aggregate has them.
func (e *ExperimentReport) writeDeadlines(w io.Writer) error {
	if !e.hasDeadlines() {
		return nil
	}
	fmt.Fprintln(w, "\nstart deadlines (Ballier et al.; means over repetitions ± sample standard deviation):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tarch\tload %\treps\tglobal success\tlocal response s\tlocal kill rate\twasted proc-s\tlost proc-s\tU total\tU global\tU local\tU wasted\t")
	for _, a := range e.Aggregates {
		s := a.Stats
		if _, has := s["deadlines.global_success"]; !has {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%.3f ± %.3f\t%.1f\t%.4f\t%.0f\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", a.Scenario, a.Arch, num(a.Load), a.Runs, a.Planned,
			s["deadlines.global_success"].Mean, s["deadlines.global_success"].SD, s["deadlines.local_response_s"].Mean,
			s["deadlines.local_kill_rate"].Mean, s["deadlines.wasted_processor_s"].Mean, s["deadlines.lost_processor_s"].Mean,
			s["deadlines.total_utilization"].Mean, s["deadlines.global_utilization"].Mean, s["deadlines.local_utilization"].Mean,
			s["deadlines.wasted_utilization"].Mean)
	}
	return tw.Flush()
}
