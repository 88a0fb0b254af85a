package gwa

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/htmlpage"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/plots"
)

// PageFile is the trace toolbox's page in its figure directory.
const PageFile = "index.html"

// WritePage writes the trace toolbox's page of the analyses as to path:
// the analysis of `gmark trace stats` as tables (the summary a column per
// trace; every number through plots.Num), then the figures, each linking
// to its SVG and its data (CSV), with a table of contents; a static page
// in the style of gmark's report (internal/htmlpage) that opens from disk
// and prints. figs are the figure files, named relative to path's
// directory; command is the command line shown at the top (its program
// by its base name).
func WritePage(as []*Analysis, figs []plots.Figure, path string, command []string) error {
	return writePage(as, figs, nil, path, command)
}

// writePage is WritePage with links to the pages of each trace alone
// (subpages: directories beside path, each with its PageFile).
func writePage(as []*Analysis, figs []plots.Figure, subpages []string, path string, command []string) error {
	if len(as) == 0 {
		return fmt.Errorf("no trace to write a page of")
	}
	p := tracePage{Figures: slices.Clone(figs), Generated: time.Now().UTC(), Command: htmlpage.QuoteArgs(htmlpage.CleanCommand(command)),
		Script: htmlpage.Script, Style: htmlpage.Style, Subpages: subpages}
	var names []string
	summaries := make([][][2]string, len(as))
	for i, a := range as {
		sites := pageSites(a)
		n := min(len(sites), 20)
		p.Traces = append(p.Traces, traceSection{A: a, Dists: pageDists(a), Sites: sites[:n], MoreSites: sites[n:]})
		names = append(names, a.Trace.Name)
		summaries[i] = pageSummary(a)
	}
	p.Names = strings.Join(names, ", ")
	p.Summary = transpose(summaries)
	for i := range p.Figures { // the page names the traces once, at the top
		for _, name := range names {
			p.Figures[i].Title = strings.TrimPrefix(p.Figures[i].Title, name+": ")
		}
	}
	var b bytes.Buffer
	if err := traceTemplate.Execute(&b, p); err != nil {
		return err
	}
	return outfile.WriteFile(path, b.Bytes())
}

type tracePage struct {
	Traces    []traceSection
	Names     string // the traces', for the title
	Summary   []summaryLine
	Figures   []plots.Figure
	Generated time.Time
	Command   string
	Script    template.JS
	Style     template.CSS
	Subpages  []string // the directories of each trace's own page
}

// traceSection is what the page shows of one trace.
type traceSection struct {
	A         *Analysis
	Dists     []pageDist
	Sites     []pageSite // the 20 with the most jobs
	MoreSites []pageSite // the others, one click away
}

// summaryLine is a line of the summary: what, and its value per trace.
type summaryLine struct {
	Name   string
	Values []string
}

// transpose turns each trace's summary lines into lines of a value per
// trace, in the order the lines first appear ("–" where a trace has none).
func transpose(summaries [][][2]string) []summaryLine {
	var lines []summaryLine
	at := map[string]int{}
	for i, sum := range summaries {
		for _, kv := range sum {
			j, ok := at[kv[0]]
			if !ok {
				j = len(lines)
				at[kv[0]] = j
				lines = append(lines, summaryLine{Name: kv[0], Values: slices.Repeat([]string{"–"}, len(summaries))})
			}
			lines[j].Values[i] = kv[1]
		}
	}
	return lines
}

type pageDist struct {
	Name string
	S    *Summary
}

type pageSite struct {
	Name           string
	Jobs           int64
	CPUYears       float64
	MeanRun, MeanW Stat
}

// pnum is a number of the page: 4 significant digits, thousands grouped.
func pnum(v float64) string { return plots.Num(v, 4) }

// pstat is a statistic, or "–" when absent (the reason is on the page
// elsewhere, or in the JSON form).
func pstat(s Stat) string {
	if !s.OK() {
		return "–"
	}
	return pnum(s.Value)
}

func pshare(s Stat) string {
	if !s.OK() {
		return "–"
	}
	return plots.Num(100*s.Value, 3) + "%"
}

// pageSummary is the analysis's totals, one line each, as `gmark trace
// stats` prints them.
func pageSummary(a *Analysis) [][2]string {
	t, u, s, z := a.Totals, a.Utilization, a.Status, a.Size
	base := "none (times are relative)"
	if a.Trace.Start != "" {
		base = a.Trace.Start + " (" + a.Trace.TimeBase + ", " + a.Trace.TimeZone + ")"
	}
	jobs := pnum(float64(t.Jobs))
	if a.Trace.HeaderJobs > 0 {
		jobs += " (header MaxJobs " + pnum(float64(a.Trace.HeaderJobs)) + ")"
	}
	util := pshare(u.Average)
	if u.ProcessorsEstimated && u.Average.OK() {
		util += " (on the estimated system size: an upper bound)"
	}
	goodput := "–"
	if t.Goodput.OK() {
		goodput = pnum(t.Goodput.Value) + " CPU-years per year"
	}
	cpu := z.SequentialCPU + z.ParallelCPU
	share := func(v float64) string {
		if cpu == 0 {
			return "–"
		}
		return plots.Num(100*v/cpu, 3) + "%"
	}
	rows := [][2]string{
		{"format", strings.ToUpper(string(a.Trace.Format))},
		{"jobs", jobs},
		{"users, groups, sites", pnum(float64(t.Users)) + ", " + pnum(float64(t.Groups)) + ", " + pnum(float64(t.Sites))},
		{"processors", pnum(float64(t.Processors)) + " (" + u.ProcessorsSource + ")"},
		{"time base", base},
		{"span", human(t.Span) + " (submissions from " + pstat(t.FirstSubmit) + " s to " + pstat(t.LastSubmit) + " s; the last job ends at " + pstat(t.LastEnd) + " s)"},
		{"consumed", pnum(t.CPUYears) + " CPU-years; goodput " + goodput + "; utilization " + util},
		{"status", "completed " + pnum(float64(s.Completed)) + ", failed " + pnum(float64(s.Failed)) + ", cancelled " + pnum(float64(s.Cancelled)) +
			", partial " + pnum(float64(s.Partial)) + ", unknown " + pnum(float64(s.Unknown))},
		{"size", pnum(float64(z.SequentialJobs)) + " sequential (" + share(z.SequentialCPU) + " of CPU), " + pnum(float64(z.ParallelJobs)) + " parallel (" +
			share(z.ParallelCPU) + " of CPU), " + pnum(float64(z.UnknownSize)) + " unknown; a power of two: " + pshare(z.PowerOfTwoShare) + " of jobs, " +
			pshare(z.ParallelPowerOfTwoShare) + " of parallel jobs"},
		{"load", "at most " + pnum(float64(a.Arrivals.PeakDay)) + " jobs submitted in a day; at most " + pnum(float64(u.Spike)) + " running in a day" +
			busiest(u.BusiestMonth)},
		{"ranking", a.Ranking.String() + "; value " + plots.Num(a.Ranking.Value, 3) + " over " + pnum(float64(len(a.Ranking.KnownCategories()))) + " categories"},
	}
	// What the figures cannot be trusted for, and how the percentiles
	// were computed, as trace stats says it.
	for _, w := range a.Warnings {
		rows = append(rows, [2]string{"warning", w})
	}
	rows = append(rows, [2]string{"percentiles", a.Distributions.percentilesText()})
	if r := a.Read; r != nil {
		rows = append(rows, [2]string{"read", pnum(float64(r.Lines)) + " lines, " + pnum(float64(r.Records)) + " records, " + pnum(float64(r.Skipped)) + " skipped"})
	}
	return rows
}

func busiest(month string) string {
	if month == "" {
		return ""
	}
	return "; busiest month " + month
}

func pageDists(a *Analysis) []pageDist {
	d := a.Distributions
	var out []pageDist
	for _, r := range []pageDist{{"inter-arrival time (s)", d.InterArrival}, {"wait time (s)", d.Wait}, {"run time (s)", d.RunTime},
		{"processors per job", d.Parallelism}, {"memory per processor (KB)", d.Memory}, {"CPU time per processor (s)", d.CPUTime}} {
		if r.S != nil {
			out = append(out, r)
		}
	}
	return out
}

func pageSites(a *Analysis) []pageSite {
	out := make([]pageSite, len(a.Sites))
	for i, s := range a.Sites {
		name := s.Site
		if s.Name != "" {
			name = s.Name + " (" + s.Site + ")"
		}
		out[i] = pageSite{Name: name, Jobs: s.Jobs, CPUYears: s.CPU / (365 * 86400), MeanRun: s.MeanRun, MeanW: s.MeanWait}
	}
	return out
}

var traceTemplate = template.Must(template.New("trace").Funcs(template.FuncMap{
	"num": pnum, "stat": pstat, "share": pshare, "cpuyears": func(s float64) string { return pnum(s / (365 * 86400)) },
	"count": func(n int64) string { return pnum(float64(n)) }, "float": func(n int) float64 { return float64(n) },
	"pair": func(title string, us []UserShare) userTable { return userTable{title, us} },
}).Parse(traceHTML + usersHTML))

// userTable is a table of top users, with its title.
type userTable struct {
	Title string
	Users []UserShare
}

const usersHTML = `{{define "sites"}}<div class="scroll"><table><tr><th class="l">site</th><th>jobs</th><th>CPU-years</th><th>mean run time (s)</th><th>mean wait (s)</th></tr>
{{range .}}<tr><td class="l">{{.Name}}</td><td>{{count .Jobs}}</td><td>{{num .CPUYears}}</td><td>{{stat .MeanRun}}</td><td>{{stat .MeanW}}</td></tr>
{{end}}</table></div>{{end}}
{{define "users"}}{{if .Users}}<h3>{{.Title}}</h3>
<table><tr><th class="l">user</th><th>jobs</th><th>share of the jobs</th><th>CPU-years</th><th>share of the CPU time</th></tr>
{{range .Users}}<tr><td class="l">{{.User}}</td><td>{{count .Jobs}}</td><td>{{share .JobShare}}</td><td>{{cpuyears .CPU}}</td><td>{{share .CPUShare}}</td></tr>
{{end}}</table>{{end}}{{end}}`

const traceHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gmark trace analysis: {{.Names}}</title>
<script>{{.Script}}</script>
<style>{{.Style}}</style>
</head>
<body>
<h1>Trace analysis: {{.Names}}</h1>
<p>Generated {{.Generated.Format "2006-01-02 15:04:05 UTC"}}{{if .Command}} by <code>{{.Command}}</code>{{end}}. The GWA analysis
(docs/trace.md); times in seconds.</p>
<nav class="toc" id="contents"><h2>Contents</h2><ol>
<li><a href="#summary">Summary</a></li><li><a href="#distributions">Distributions</a></li><li><a href="#users">Top users</a></li>
<li><a href="#sites">Sites</a></li><li><a href="#figures">Figures</a></li></ol>
{{if .Figures}}<p>Figures</p><ol class="figs">{{range .Figures}}<li><a href="#fig-{{.Name}}">{{.Title}}</a></li>{{end}}</ol>{{end}}</nav>

<h2 id="summary">Summary</h2>
<div class="scroll"><table>
<tr><th class="l"></th>{{range .Traces}}<th class="l">{{.A.Trace.Name}}</th>{{end}}</tr>
{{range .Summary}}<tr><th class="l">{{.Name}}</th>{{range .Values}}<td class="l">{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{$many := gt (len .Traces) 1}}
<h2 id="distributions">Distributions</h2>
{{range .Traces}}{{if $many}}<h3>{{.A.Trace.Name}}</h3>{{end}}
<div class="scroll"><table>
<tr><th class="l">of the jobs</th><th>n</th><th>missing</th><th>mean</th><th>std</th><th>min</th><th>p25</th><th>median</th><th>p75</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr>
{{range .Dists}}<tr><td class="l">{{.Name}}</td><td>{{count .S.Count}}</td><td>{{count .S.Missing}}</td>{{if .S.Count}}<td>{{stat .S.Mean}}</td><td>{{stat .S.Std}}</td><td>{{stat .S.Min}}</td>
<td>{{stat .S.P25}}</td><td>{{stat .S.Median}}</td><td>{{stat .S.P75}}</td><td>{{stat .S.P90}}</td><td>{{stat .S.P95}}</td><td>{{stat .S.P99}}</td><td>{{stat .S.Max}}</td>{{else}}<td class="l" colspan="10">no values</td>{{end}}</tr>
{{end}}</table></div>
{{end}}
<h2 id="users">Top users</h2>
{{range .Traces}}{{if $many}}<h3>{{.A.Trace.Name}}</h3>{{end}}
<p>{{num (float .A.Users.Count)}} users in all.</p>
{{template "users" (pair "by jobs" .A.Users.TopByJob)}}{{template "users" (pair "by CPU time" .A.Users.TopByCPU)}}
{{end}}
<h2 id="sites">Sites</h2>
{{range .Traces}}{{if $many}}<h3>{{.A.Trace.Name}}</h3>{{end}}
{{if .Sites}}<p>{{len .Sites}}{{if .MoreSites}} of {{len .A.Sites}}{{end}} sites, by jobs.</p>{{template "sites" .Sites}}
{{if .MoreSites}}<details><summary>The other {{len .MoreSites}} sites</summary>{{template "sites" .MoreSites}}</details>{{end}}
{{else}}<p class="note">The trace names no site.</p>{{end}}
{{end}}
<h2 id="figures">Figures</h2>
<p class="note">Each figure links to its SVG; its data, as drawn, are in the CSV beside it. A figure with no data (no wait or memory values) is not drawn.{{if gt (len .Traces) 1}} The traces are in the same colour in every figure.{{end}}</p>
{{if .Subpages}}<p>Each trace alone: {{range $i, $s := .Subpages}}{{if $i}}, {{end}}<a href="{{$s}}/index.html">{{$s}}</a>{{end}}.</p>{{end}}
{{range .Figures}}<figure id="fig-{{.Name}}"><a href="{{.SVG}}"><img src="{{.PNG}}" alt="{{.Title}}" width="864" height="432"></a>
<figcaption><b>{{.Title}}</b>{{if .Note}}. {{.Note}}{{end}}. <a href="{{.SVG}}">SVG</a>{{if .CSV}} · <a href="{{.CSV}}" download>data (CSV)</a>{{end}}</figcaption></figure>
{{end}}
</body>
</html>
`
