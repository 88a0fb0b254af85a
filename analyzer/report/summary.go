package report

import (
	"html/template"
	"strconv"

	"github.com/gmark/gmark/analyzer/metrics"
)

// summaryGroup is a group of rows of the full summary table, which is
// transposed — a row per metric, a column per run — so that its 18
// metrics fit a 1280 px window and a printed page for any handful of runs
// (a table of a column per metric did not, even at 1920 px).
type summaryGroup struct {
	Name string
	Rows []summaryRow
}

// summaryRow is one metric, a cell per run.
type summaryRow struct {
	Name  string
	Cells []template.HTML
}

// fullSummary is the full summary table of runs, grouped.
func fullSummary(runs []*Run) []summaryGroup {
	type metric struct {
		name string
		cell func(m *metrics.RunMetrics) template.HTML
	}
	text := func(s string) template.HTML { return template.HTML(template.HTMLEscapeString(s)) }
	count := func(get func(m *metrics.RunMetrics) int) func(m *metrics.RunMetrics) template.HTML {
		return func(m *metrics.RunMetrics) template.HTML { return text(strconv.Itoa(get(m))) }
	}
	value := func(get func(m *metrics.RunMetrics) float64) func(m *metrics.RunMetrics) template.HTML {
		return func(m *metrics.RunMetrics) template.HTML { return text(num(get(m))) }
	}
	groups := []struct {
		name    string
		metrics []metric
	}{
		{"jobs", []metric{
			{"submitted", count(func(m *metrics.RunMetrics) int { return m.Jobs.Submitted })},
			{"succeeded", count(func(m *metrics.RunMetrics) int { return m.Jobs.Succeeded })},
			{"failed", count(func(m *metrics.RunMetrics) int { return m.Jobs.Failed })},
			{"cancelled", count(func(m *metrics.RunMetrics) int { return m.Jobs.Cancelled })},
			{"never started", count(func(m *metrics.RunMetrics) int { return m.Jobs.NeverStarted })},
			{"success rate", func(m *metrics.RunMetrics) template.HTML { return text(pct(m.SuccessRate)) }},
			{"co-allocated", count(func(m *metrics.RunMetrics) int { return m.CoAllocated })},
		}},
		{"wait (s)", []metric{
			{"mean [95% CI]", func(m *metrics.RunMetrics) template.HTML { return text(num(m.Wait.Mean)+" ") + ciHTML(m.Wait.MeanCI) }},
			{"median", value(func(m *metrics.RunMetrics) float64 { return m.Wait.P50 })},
			{"p95", value(func(m *metrics.RunMetrics) float64 { return m.Wait.P95 })},
		}},
		{"mean (s)", []metric{
			{"run", value(func(m *metrics.RunMetrics) float64 { return m.Run.Mean })},
			{"response", value(func(m *metrics.RunMetrics) float64 { return m.Response.Mean })},
		}},
		{"bounded slowdown", []metric{
			{"mean", value(func(m *metrics.RunMetrics) float64 { return m.BSlowdown.Mean })},
			{"p95", value(func(m *metrics.RunMetrics) float64 { return m.BSlowdown.P95 })},
		}},
		{"delivery", []metric{
			{"mean submission delay (ms)", value(func(m *metrics.RunMetrics) float64 { return m.Delay.Mean * 1e3 })},
			{"throughput (jobs/h)", value(func(m *metrics.RunMetrics) float64 { return m.Throughput })},
			{"goodput (processor-h)", value(func(m *metrics.RunMetrics) float64 { return m.Goodput / 3600 })},
			{"utilization", func(m *metrics.RunMetrics) template.HTML { return text(pct(m.Utilization)) }},
		}},
	}
	out := make([]summaryGroup, len(groups))
	for i, g := range groups {
		out[i].Name = g.name
		for _, mt := range g.metrics {
			row := summaryRow{Name: mt.name, Cells: make([]template.HTML, len(runs))}
			for j, r := range runs {
				row.Cells[j] = mt.cell(r.Metrics)
			}
			out[i].Rows = append(out[i].Rows, row)
		}
	}
	return out
}
