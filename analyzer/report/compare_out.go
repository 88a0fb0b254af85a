package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/plots"
	"github.com/gmark/gmark/internal/outfile"
)

// WriteComparison compares the runs of o.DBs grouped by o.By, in o.Format:
// an HTML page into o.Dir (and a line saying where on w), or text, JSON or
// CSV on w. Bad usage found before the work (a format, a directory, a
// store, a run or a field the runs do not have) is a *StoreError.
func WriteComparison(ctx context.Context, w io.Writer, o CompareOptions) error {
	if !slices.Contains(CompareFormats, o.Format) {
		return &StoreError{fmt.Sprintf("--format %q: with --compare, want %s", o.Format, strings.Join(CompareFormats, ", "))}
	}
	if o.Format == "html" {
		if err := CheckDir(o.Dir); err != nil {
			return &StoreError{"-o: " + err.Error()}
		}
	} else {
		o.Log = nil
	}
	start := time.Now()
	c, err := BuildComparison(ctx, o)
	if err != nil {
		return err
	}
	switch o.Format {
	case "text":
		return c.WriteText(w)
	case "json":
		return c.WriteJSON(w)
	case "csv":
		return c.WriteCSV(w)
	}
	index, err := c.WriteHTML(ctx, o.Dir, o.Options)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "comparison written to %s (%s)\n", index, time.Since(start).Round(time.Millisecond))
	return err
}

// value formats a group's value with its interval.
func (c *Comparison) value(m CompareMetric, v GroupValue) string {
	if ci := c.interval(m, v); ci != "" {
		return c.number(m, v) + " " + ci
	}
	return c.number(m, v)
}

// number formats a group's value.
func (c *Comparison) number(m CompareMetric, v GroupValue) string {
	if m.Percent {
		return pct(v.Value)
	}
	return num(v.Value)
}

// interval formats a group's interval, "[lo, hi]", or "" for none or one
// of no width (the value is the same in every run).
func (c *Comparison) interval(m CompareMetric, v GroupValue) string {
	if v.CIMethod == "" || math.IsNaN(v.CI[0]) || v.CI[1]-v.CI[0] <= 1e-9*math.Abs(v.Value) {
		return ""
	}
	f := num
	if m.Percent {
		f = pct
	}
	return "[" + f(v.CI[0]) + ", " + f(v.CI[1]) + "]"
}

// header is a metric's column heading, with its unit.
func (c *Comparison) header(m CompareMetric) string {
	switch m.Unit {
	case "":
		return m.Title
	case "s":
		return m.Title + " (" + c.Unit + ")"
	}
	return m.Title + " (" + m.Unit + ")"
}

// runValue is a run's value of the i-th metric, as its report shows it.
func (c *Comparison) runValue(r *CompareRun, i int) GroupValue {
	m := compareMetrics()[i]
	return groupValue(m, oneRun(r))
}

// oneRun is r's metrics, as the runs of a group of one.
func oneRun(r *CompareRun) []*metrics.RunMetrics { return []*metrics.RunMetrics{r.Run.Metrics} }

// WriteText writes the comparison as text: the groups (one row each, a
// mean over several runs with its 95% interval in brackets) and the runs.
func (c *Comparison) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("comparison by %s of %d runs in %d groups (%s)\n", c.By, len(c.Runs), len(c.Groups), strings.Join(c.DBs, ", "))
	for _, n := range c.Notes {
		ew.printf("note: %s\n", n)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{c.By, "runs"}
	for _, m := range c.Metrics {
		head = append(head, c.header(m))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, g := range c.Groups {
		row := []string{g.Key, fmt.Sprint(len(g.Runs))}
		for i, m := range c.Metrics {
			row = append(row, c.value(m, g.Values[i]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ew.printf("\nruns\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tstore\t"+c.By+"\tseed\t"+strings.Join(head[2:], "\t"))
	for _, r := range c.Runs {
		row := []string{r.Name, r.DB, r.Group, or(r.Seed, "–")}
		for i := range c.Metrics {
			row = append(row, c.value(c.Metrics[i], c.runValue(r, i)))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ew.printf("\nWith several runs, a group's value is the mean of its runs' values, with the 95%% Student t interval over\n" +
		"the runs in brackets; with one run, the run's value, with the 95%% interval over its jobs for a mean or a median.\n" +
		"No brackets: the value is the same in every run, or there is no interval.\n")
	return ew.err
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// WriteJSON writes the comparison as JSON (unknown values as null).
func (c *Comparison) WriteJSON(w io.Writer) error {
	b, err := MarshalJSON(c)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteCSV writes the groups' and the runs' values in long form:
// kind,name,group,metric,value,ci_low,ci_high,ci_method,runs.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"kind", "name", "group", "metric", "value", "ci_low", "ci_high", "ci_method", "runs"})
	f := func(v float64) string { return plots.Num(v, 10) }
	row := func(kind, name, group string, v GroupValue) {
		_ = cw.Write([]string{kind, name, group, v.Metric, f(v.Value), f(v.CI[0]), f(v.CI[1]), v.CIMethod, fmt.Sprint(v.Runs)})
	}
	for _, g := range c.Groups {
		for _, v := range g.Values {
			row("group", g.Key, g.Key, v)
		}
	}
	for _, r := range c.Runs {
		for _, m := range compareMetrics() {
			row("run", r.Name, r.Group, groupValue(m, oneRun(r)))
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteHTML writes the comparison's page (index.html) and figures into
// dir, as Report.WriteHTML does a report's.
func (c *Comparison) WriteHTML(ctx context.Context, dir string, opts Options) (string, error) {
	figDir := filepath.Join(dir, FiguresDir)
	for _, d := range []string{dir, figDir} {
		if err := CheckDir(d); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return "", err
	}
	opts.logf("drawing the figures")
	figs, err := CompareFigures(ctx, c, figDir)
	if err != nil {
		return "", err
	}
	var page bytes.Buffer
	if err := compareTemplate.Execute(&page, comparePage{Comparison: c, Figures: figs, FigDir: FiguresDir}); err != nil {
		return "", err
	}
	index := filepath.Join(dir, "index.html")
	return index, outfile.WriteFile(index, page.Bytes())
}

type comparePage struct {
	*Comparison
	Figures *FigureSet
	FigDir  string
}

var compareTemplate = template.Must(template.New("compare").Funcs(template.FuncMap{
	"quote": quoteArgs, "shell": shellQuote, "pretty": prettyJSON, "num": num, "pct": pct,
}).Parse(compareHTML))

const compareHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gmark comparison by {{.By}}</title>
<script>
(function () {
  var errors = 0, root = document.documentElement;
  window.addEventListener("error", function () { errors++; root.setAttribute("data-errors", errors); }, true);
  window.addEventListener("load", function () {
    var imgs = document.images, ok = 0;
    for (var i = 0; i < imgs.length; i++) { if (imgs[i].complete && imgs[i].naturalWidth > 0) { ok++; } }
    root.setAttribute("data-images", imgs.length);
    root.setAttribute("data-images-loaded", ok);
    root.setAttribute("data-errors", errors);
    root.setAttribute("data-ready", "1");
  });
})();
</script>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .9em; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: right; vertical-align: top; }
th { background: #f3f5f8; } td.l, th.l { text-align: left; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85em; }
pre { background: #f6f8fa; padding: .6em; white-space: pre-wrap; word-break: break-all; }
figure img { max-width: 100%; border: 1px solid #eee; } figcaption, .note { font-size: .9em; color: #555; }
.sw { display: inline-block; width: .9em; height: .9em; margin-right: .4em; vertical-align: -.1em; border-radius: 2px; }
nav a { margin-right: 1em; } .ci { font-size: .85em; color: #555; white-space: nowrap; } td { white-space: nowrap; } td.runs { white-space: normal; min-width: 12em; }
.wide { overflow-x: auto; }
</style>
</head>
<body>
<h1>gmark comparison by {{.By}}</h1>
<p>{{len .Runs}} runs in {{len .Groups}} groups, from {{range $i, $d := .DBs}}{{if $i}}, {{end}}<code>{{$d}}</code>{{end}};
generated {{.Generated.Format "2006-01-02 15:04:05 UTC"}}.{{if .Command}} Made by <code>{{quote .Command}}</code>.{{end}}
Durations in {{.Unit}}; formulas in <code>docs/metrics.md</code>.</p>
{{range .Notes}}<p class="note">Note: {{.}}.</p>{{end}}
<nav><a href="#summary">Groups</a><a href="#runs">Runs</a><a href="#figures">Figures</a><a href="#provenance">Provenance</a></nav>

<h2 id="summary">Groups</h2>
<div class="wide"><table>
<tr><th class="l">{{.By}}</th><th class="l">runs</th>{{range .Metrics}}<th>{{$.Header .}}</th>{{end}}</tr>
{{range .Groups}}{{$g := .}}<tr><td class="l"><span class="sw" style="background: {{.Color}}"></span>{{.Key}}</td><td class="l runs">{{range $i, $r := .Runs}}{{if $i}}, {{end}}{{$r}}{{end}}</td>
{{range $i, $m := $.Metrics}}{{$v := index $g.Values $i}}<td>{{$.Number $m $v}}{{with $.Interval $m $v}}<br><span class="ci">{{.}}</span>{{end}}</td>{{end}}</tr>
{{end}}</table></div>
<p class="note">With several runs, a group's value is the mean of its runs' values, with the 95% Student t interval over the runs in
brackets; with one run, the run's value (as its own report shows it), with the 95% interval over its jobs for a mean or a median.
No interval: the value is the same in every run, or there is none. Each group keeps its colour in every figure.</p>

<h2 id="runs">Runs</h2>
<div class="wide"><table>
<tr><th class="l">run</th><th class="l">store</th><th class="l">{{.By}}</th><th class="l">seed</th>{{range .Metrics}}<th>{{$.Header .}}</th>{{end}}</tr>
{{range .Runs}}{{$r := .}}<tr><td class="l"><code>{{.Name}}</code></td><td class="l"><code>{{.DB}}</code></td><td class="l">{{.Group}}</td><td class="l">{{or .Seed "–"}}</td>
{{range $i, $m := $.Metrics}}{{$v := $.RunValue $r $i}}<td>{{$.Number $m $v}}{{with $.Interval $m $v}}<br><span class="ci">{{.}}</span>{{end}}</td>{{end}}</tr>
{{end}}</table></div>

<h2 id="figures">Figures</h2>
<p class="note">Each figure links to its SVG. A group's runs are pooled in the CDFs and box plots.</p>
{{range .Figures.Figures}}<figure id="fig-{{.Name}}"><a href="{{$.FigDir}}/{{.SVG}}"><img src="{{$.FigDir}}/{{.PNG}}" alt="{{.Title}}" width="768" height="384"></a>
<figcaption><b>{{.Title}}</b>{{if .Note}}. {{.Note}}{{end}}. <a href="{{$.FigDir}}/{{.SVG}}">SVG</a></figcaption></figure>
{{end}}{{range .Figures.Missing}}<p class="note">Not drawn: <b>{{.Title}}</b>: {{.Reason}}.</p>{{end}}

<h2 id="provenance">Provenance</h2>
<table><tr><th class="l">run</th><th class="l">command line</th><th class="l">gmark</th><th class="l">target</th></tr>
{{range .Runs}}{{$r := .}}{{range .Run.Provenance}}<tr><td class="l"><code>{{$r.Name}}</code>{{if .Seq}} (resume {{.Seq}}){{end}}</td><td class="l"><code>{{shell .CommandLine}}</code></td>
<td class="l">{{.GmarkVersion}} ({{or .GmarkRevision "revision unknown"}})</td><td class="l">{{.Target}} <code>{{.TargetConfig}}</code></td></tr>
{{end}}{{end}}</table>
</body>
</html>
`

// Header is a metric's column heading (for the page).
func (c *Comparison) Header(m CompareMetric) string { return c.header(m) }

// Number formats a value (for the page).
func (c *Comparison) Number(m CompareMetric, v GroupValue) string { return c.number(m, v) }

// Interval formats a value's interval, or "" (for the page).
func (c *Comparison) Interval(m CompareMetric, v GroupValue) string { return c.interval(m, v) }

// RunValue is a run's value of the i-th metric (for the page).
func (c *Comparison) RunValue(r *CompareRun, i int) GroupValue { return c.runValue(r, i) }
