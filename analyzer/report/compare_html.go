package report

import (
	"html/template"
	"io"

	"github.com/gmark/gmark/internal/htmlpage"
)

// The comparison's page follows the report's conventions (htmlpage): the
// shared style and script, a table of contents, print styles, every
// number through plots.Num, tables that fit a 1280 px window — transposed,
// a row per metric and a column per group or run, as the report's full
// summary is — with the fuller tables one click away in a <details>, and
// each figure's data as CSV beside it, linked from its caption.

// comparePage is what the comparison's template renders.
type comparePage struct {
	*Comparison
	Figures *FigureSet
	FigDir  string
	Script  template.JS  // htmlpage.Script
	Style   template.CSS // htmlpage.Style
}

// html writes the comparison's page, its figures being figs.
func (c *Comparison) html(w io.Writer, figs *FigureSet) error {
	return compareTemplate.Execute(w, comparePage{Comparison: c, Figures: figs, FigDir: FiguresDir, Script: htmlpage.Script, Style: htmlpage.Style})
}

// IntervalHTML is a value's interval for a cell: it may wrap between its
// bounds, never inside one; "" for none.
func (c *Comparison) IntervalHTML(m CompareMetric, v GroupValue) template.HTML {
	ci := c.interval(m, v)
	if ci == "" {
		return ""
	}
	lo, hi := num(v.CI[0]), num(v.CI[1])
	if m.Percent {
		lo, hi = pct(v.CI[0]), pct(v.CI[1])
	}
	return template.HTML(`<span class="n">[` + template.HTMLEscapeString(lo) + `,</span> <span class="n">` + template.HTMLEscapeString(hi) + `]</span>`)
}

// Spread is how a group's value was found, for the full table: the
// interval's method, and the standard deviation over the runs when there
// are several.
func (c *Comparison) Spread(m CompareMetric, v GroupValue) string {
	s := v.CIMethod
	if s == jobsCI {
		s = "over the run's jobs" // the table's note says how
	}
	if v.Runs > 1 {
		sd := num(v.Std)
		if m.Percent {
			sd = pct(v.Std)
		}
		if s != "" {
			s += "; "
		}
		s += "sd " + sd
	}
	return or(s, "–")
}

var compareTemplate = template.Must(template.New("compare").Funcs(template.FuncMap{
	"quote": quoteArgs, "shell": shellQuote, "num": num,
}).Parse(compareHTML))

const compareHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gmark comparison by {{.By}}</title>
<script>{{.Script}}</script>
<style>{{.Style}}
.sw { display: inline-block; width: .9em; height: .9em; margin-right: .4em; vertical-align: -.1em; border-radius: 2px; }
.ci { font-size: .85em; color: #555; }
@media print { .sw { print-color-adjust: exact; -webkit-print-color-adjust: exact; } }
</style>
</head>
<body>
<h1>gmark comparison by {{.By}}</h1>
<p>{{len .Runs}} runs in {{len .Groups}} groups, from {{range $i, $d := .DBs}}{{if $i}}, {{end}}<code>{{$d}}</code>{{end}};
generated {{.Generated.Format "2006-01-02 15:04:05 UTC"}}.{{if .Command}} Made by <code>{{quote .Command}}</code>.{{end}}
Durations in {{.Unit}}; formulas in <code>docs/metrics.md</code>.</p>
{{range .Notes}}<p class="note">Note: {{.}}.</p>{{end}}
<nav class="toc" id="contents"><h2>Contents</h2><ol>
<li><a href="#summary">Groups</a></li><li><a href="#runs">Runs</a></li><li><a href="#figures">Figures</a></li><li><a href="#provenance">Provenance</a></li></ol>
{{if .Figures.Figures}}<p>Figures</p><ol class="figs">{{range .Figures.Figures}}<li><a href="#fig-{{.Name}}">{{.Title}}</a></li>{{end}}</ol>{{end}}</nav>

<h2 id="summary">Groups</h2>
<div class="scroll"><table class="compact">
<tr><th class="l">{{.By}}</th>{{range .Groups}}<th><span class="sw" style="background: {{.Color}}"></span>{{.Key}}</th>{{end}}</tr>
<tr><td class="l">runs</td>{{range .Groups}}<td>{{len .Runs}}</td>{{end}}</tr>
{{range $i, $m := .Metrics}}<tr><td class="l">{{$.Header $m}}</td>{{range $.Groups}}{{$v := index .Values $i}}<td>{{$.Number $m $v}}{{with $.IntervalHTML $m $v}}<br><span class="ci">{{.}}</span>{{end}}</td>{{end}}</tr>
{{end}}</table></div>
<details id="summary-full"><summary>The full table: each group's runs, and how each value and interval was found</summary>
<div class="scroll"><table class="full">
<tr><th class="l">{{.By}}</th><th class="l">runs</th></tr>
{{range .Groups}}<tr><td class="l"><span class="sw" style="background: {{.Color}}"></span>{{.Key}}</td><td class="l">{{range $i, $r := .Runs}}{{if $i}}, {{end}}<code class="id">{{$r}}</code>{{end}}</td></tr>
{{end}}</table>
<table class="full">
<tr><th class="l" rowspan="2">metric</th>{{range .Groups}}<th class="group" colspan="3"><span class="sw" style="background: {{.Color}}"></span>{{.Key}}</th>{{end}}</tr>
<tr>{{range .Groups}}<th>value</th><th>95% CI</th><th class="l">method</th>{{end}}</tr>
{{range $i, $m := .Metrics}}<tr><td class="l">{{$.Header $m}}</td>{{range $.Groups}}{{$v := index .Values $i}}<td>{{$.Number $m $v}}</td><td class="w">{{or ($.IntervalHTML $m $v) "–"}}</td><td class="l">{{$.Spread $m $v}}</td>{{end}}</tr>
{{end}}</table></div>
<p class="note">Over the run's jobs: the run's own interval, bootstrap or normal approximation as in its report. Student t over n runs:
the interval of the mean of the runs' values; sd is their standard deviation.</p></details>
<p class="note">With several runs, a group's value is the mean of its runs' values, with the 95% Student t interval over the runs in
brackets; with one run, the run's value (as its own report shows it), with the 95% interval over its jobs for a mean or a median.
No interval: the value is the same in every run, or there is none. Each group keeps its colour in every figure.</p>

<h2 id="runs">Runs</h2>
<div class="scroll"><table>
<tr><th class="l">run</th><th class="l">store</th><th class="l">{{.By}}</th><th class="l">seed</th></tr>
{{range .Runs}}<tr><td class="l"><code class="id">{{.Name}}</code></td><td class="l"><code>{{.DB}}</code></td><td class="l">{{.Group}}</td><td class="l">{{or .Seed "–"}}</td></tr>
{{end}}</table></div>
<div class="scroll"><table class="compact">
<tr><th class="l">run</th>{{range .Runs}}<th><code>{{.Name}}</code></th>{{end}}</tr>
{{range $i, $m := .Metrics}}<tr><td class="l">{{$.Header $m}}</td>{{range $.Runs}}<td>{{$.Number $m ($.RunValue . $i)}}</td>{{end}}</tr>
{{end}}</table></div>
<details id="runs-full"><summary>The full table of runs: each value with its 95% interval over the run's jobs</summary>
<div class="scroll"><table class="full">
<tr><th class="l">run</th>{{range .Runs}}<th><code>{{.Name}}</code></th>{{end}}</tr>
{{range $i, $m := .Metrics}}<tr><td class="l">{{$.Header $m}}</td>{{range $.Runs}}{{$v := $.RunValue . $i}}<td class="w">{{$.Number $m $v}}{{with $.IntervalHTML $m $v}}<br><span class="ci">{{.}}</span>{{end}}</td>{{end}}</tr>
{{end}}</table></div></details>

<h2 id="figures">Figures</h2>
<p class="note">Each figure links to its SVG; its data, as drawn, are in the CSV beside it. A group's runs are pooled in the CDFs and box plots.</p>
{{range .Figures.Figures}}<figure id="fig-{{.Name}}"><a href="{{$.FigDir}}/{{.SVG}}"><img src="{{$.FigDir}}/{{.PNG}}" alt="{{.Title}}" width="768" height="384"></a>
<figcaption><b>{{.Title}}</b>{{if .Note}}. {{.Note}}{{end}}. <a href="{{$.FigDir}}/{{.SVG}}">SVG</a>{{if .PDF}} · <a href="{{$.FigDir}}/{{.PDF}}">PDF</a>{{end}}{{if .CSV}} · <a href="{{$.FigDir}}/{{.CSV}}" download>data (CSV)</a>{{end}}</figcaption></figure>
{{end}}{{range .Figures.Missing}}<p class="note">Not drawn: <b>{{.Title}}</b>: {{.Reason}}.</p>{{end}}

<h2 id="provenance">Provenance</h2>
<div class="scroll"><table><tr><th class="l">run</th><th class="l">command line</th><th class="l">gmark</th><th class="l">target</th></tr>
{{range .Runs}}{{$r := .}}{{range .Run.Provenance}}<tr><td class="l"><code class="id">{{$r.Name}}</code>{{if .Seq}} (resume {{.Seq}}){{end}}</td><td class="l"><code>{{shell .CommandLine}}</code></td>
<td class="l">{{.GmarkVersion}} ({{or .GmarkRevision "revision unknown"}})</td><td class="l long">{{.Target}} <code>{{.TargetConfig}}</code></td></tr>
{{end}}{{end}}</table></div>
</body>
</html>
`
