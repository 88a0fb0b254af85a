package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/htmlpage"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/plots"
)

// ReadReport opens the store read-only and builds the report of the named
// experiments (every experiment for none).
func ReadReport(db string, names []string) (*Report, error) {
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if len(names) == 0 {
		names = nil
	}
	return BuildReport(st, names)
}

// WriteReport reads the report of the named experiments of the store db
// (every experiment for none) and writes it to w in format (text or json),
// or, with dir, into that directory (WriteReportDir), saying so on w.
func WriteReport(db string, names []string, format, dir string, w io.Writer) error {
	if err := storeExists(db); err != nil {
		return err
	}
	rep, err := ReadReport(db, names)
	switch {
	case err != nil:
		return err
	case dir == "" && format == "json":
		return rep.WriteJSON(w)
	case dir == "":
		return rep.WriteText(w)
	}
	index, err := WriteReportDir(rep, dir)
	if err == nil {
		_, err = fmt.Fprintf(w, "report written to %s\n", index)
	}
	return err
}

// figureMetrics are the metrics drawn against the load, one line per
// architecture, for each scenario.
var figureMetrics = []string{"utilization", "awt_s", "asd", "goodput_cpu_years", "jf_percent", "delegations_per_job", "hops_per_delegated", "workload_management_messages"}

// ErrBadOutput is returned by WriteReportDir for a path that cannot be a
// directory.
var ErrBadOutput = errors.New("bad output directory")

// WriteReportDir writes the report into dir: report.txt, report.json, the
// figures of each scenario (metric vs load per architecture, the means
// over repetitions; PNG and SVG), the operational graphics of each
// (scenario, architecture, load) (jobs and messages over time, the means
// over repetitions) and index.html, a static page that shows them. It
// returns the page's path.
func WriteReportDir(r *Report, dir string) (string, error) {
	if err := outfile.CheckDir(dir, "the report"); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadOutput, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var txt, js bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		return "", err
	}
	if err := r.WriteJSON(&js); err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{"report.txt": txt.Bytes(), "report.json": js.Bytes()} {
		if err := outfile.WriteFile(filepath.Join(dir, name), b); err != nil {
			return "", err
		}
	}
	page := htmlPage{Report: r, Text: txt.String(), Script: htmlpage.Script, Style: htmlpage.Style}
	for _, e := range r.Experiments {
		figs, err := experimentFigures(&e, dir)
		if err != nil {
			return "", err
		}
		page.Figures = append(page.Figures, figs...)
		if figs, err = seriesFigures(&e, dir); err != nil {
			return "", err
		}
		page.Figures = append(page.Figures, figs...)
	}
	var html bytes.Buffer
	if err := pageTemplate.Execute(&html, page); err != nil {
		return "", err
	}
	index := filepath.Join(dir, "index.html")
	return index, outfile.WriteFile(index, html.Bytes())
}

// experimentFigures draws, per scenario and metric, the mean over
// repetitions against the load with its 95% confidence interval, one line
// per architecture; or, for an experiment of one architecture, one line
// per scenario; or, for one with a [plot], against its own x-axis.
func experimentFigures(e *ExperimentReport, dir string) ([]plots.Figure, error) {
	var out []plots.Figure
	var scenarios []string
	for _, a := range e.Aggregates {
		if !slices.Contains(scenarios, a.Scenario) {
			scenarios = append(scenarios, a.Scenario)
		}
	}
	keys := figureMetrics
	if e.hasDeadlines() {
		keys = append(slices.Clone(keys), deadlineFigureMetrics...)
	}
	if e.Plot != nil && len(e.Placements) > 0 {
		return placedFigures(e, dir, keys)
	}
	if arch, ok := oneArch(e); ok && len(scenarios) > 1 {
		return scenarioFigures(e, dir, arch, scenarios, keys)
	}
	for _, sc := range scenarios {
		for _, key := range keys {
			var series []plots.Points
			for _, arch := range archsOf(e, sc) {
				series = append(series, ciPoints(arch, key, aggregatesOf(e, sc, arch), byLoad))
			}
			var err error
			out, err = appendFigure(out, dir, strings.Join([]string{e.Name, sc, strings.ReplaceAll(key, ".", "-")}, "_"),
				fmt.Sprintf("%s, scenario %s: %s", e.Name, sc, metricLabel(key)), "load (%)", key, series)
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// oneArch is the architecture of an experiment that has only one.
func oneArch(e *ExperimentReport) (string, bool) {
	arch := ""
	for _, a := range e.Aggregates {
		if arch != "" && a.Arch != arch {
			return "", false
		}
		arch = a.Arch
	}
	return arch, arch != ""
}

// scenarioFigures draws, for an experiment of one architecture (a policy
// study of the core, say), each metric against the load with one line per
// scenario: the scenarios side by side on one figure.
func scenarioFigures(e *ExperimentReport, dir, arch string, scenarios, keys []string) ([]plots.Figure, error) {
	var out []plots.Figure
	for _, key := range keys {
		var series []plots.Points
		for _, sc := range scenarios {
			series = append(series, ciPoints(sc, key, aggregatesOf(e, sc, arch), byLoad))
		}
		var err error
		out, err = appendFigure(out, dir, e.Name+"_"+strings.ReplaceAll(key, ".", "-"), fmt.Sprintf("%s (%s): %s", e.Name, arch, metricLabel(key)), "load (%)", key, series)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendFigure draws series of the metric key as lines through their
// points with their intervals (plots.ErrorLines: none over fewer than
// three repetitions, each cut at the metric's domain), saves the figure
// as dir/name and appends it to out; series with nothing to draw add
// nothing.
func appendFigure(out []plots.Figure, dir, name, title, xlabel, key string, series []plots.Points) ([]plots.Figure, error) {
	m := metricOf(key)
	d, err := plots.ErrorLines(title, xlabel, m.label, series,
		plots.Intervals{What: "95% confidence intervals of the mean (Student t)", Of: "repetitions", Domain: m.domain})
	if plots.NoData(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := d.Save(dir, name)
	if err != nil {
		return nil, err
	}
	return append(out, f), nil
}

// aggregatesOf are the aggregates of a scenario and an architecture.
func aggregatesOf(e *ExperimentReport, scenario, arch string) []Aggregate {
	var out []Aggregate
	for _, a := range e.Aggregates {
		if a.Scenario == scenario && a.Arch == arch {
			out = append(out, a)
		}
	}
	return out
}

func byLoad(a Aggregate) float64 { return a.Load }

func archsOf(e *ExperimentReport, scenario string) []string {
	var out []string
	for _, a := range e.Aggregates {
		if a.Scenario == scenario && !slices.Contains(out, a.Arch) {
			out = append(out, a.Arch)
		}
	}
	return out
}

func metricLabel(key string) string { return metricOf(key).label }

// metricOf is the aggregated metric of that key (one of any value,
// labelled with its key, for a key no metric has).
func metricOf(key string) metric {
	for _, m := range append(append(slices.Clone(metrics), deadlineMetrics...), workflowMetrics...) {
		if m.key == key {
			return m
		}
	}
	return metric{key: key, label: key, domain: plots.Unbounded}
}

// htmlPage is what the page's template renders: the page takes the
// style and the load markers of gmark's other pages (internal/htmlpage),
// which the Chromium check reads.
type htmlPage struct {
	Report  *Report
	Text    string
	Figures []plots.Figure
	Script  template.JS
	Style   template.CSS
}

var pageTemplate = template.Must(template.New("sim").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>gmark sim report</title>
<script>{{.Script}}</script>
<style>{{.Style}}
pre.table { white-space: pre; word-break: normal; font-size: 12px; }</style></head>
<body><h1>gmark sim report</h1>
{{range .Report.Experiments}}<p>Experiment <b>{{.Name}}</b>: {{.Finished}} of {{.Planned}} runs finished; topology {{.Topology}} ({{.Processors}} processors); definition {{.Digest}}.</p>{{end}}
<p>The numbers: <a href="report.txt">report.txt</a>, <a href="report.json">report.json</a>. The metrics are defined in gmark's docs/sim.md.</p>
{{range .Figures}}<figure><img src="{{.PNG}}" alt="{{.Title}}" width="768"><figcaption>{{.Title}}{{if .Note}} ({{.Note}}){{end}} · <a href="{{.SVG}}">SVG</a>{{if .CSV}} · <a href="{{.CSV}}" download>data (CSV)</a>{{end}}</figcaption></figure>
{{end}}<h2>Tables</h2><pre class="table">{{.Text}}</pre>
</body></html>
`))
