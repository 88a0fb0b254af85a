package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/htmlpage"
	"github.com/gmark/gmark/plots"
	"github.com/gmark/gmark/stats/sampstat"
)

// page is what the template renders.
type page struct {
	*Report
	Figures  *FigureSet
	FigDir   string
	Versions []string
	Script   template.JS  // htmlpage.Script
	Style    template.CSS // htmlpage.Style
}

func (r *Report) html(w io.Writer, figs *FigureSet) error {
	return pageTemplate.Execute(w, page{Report: r, Figures: figs, FigDir: FiguresDir, Script: htmlpage.Script, Style: htmlpage.Style})
}

// num formats a number for a table: 4 significant digits, 0 for a float
// residue near zero, "–" for unknown (plots.Num).
func num(v float64) string { return plots.Num(v, 4) }

// seconds formats a duration in a column of seconds: as num, but a
// duration under a millisecond (a submission delay beside run times) in
// plain decimals, "0.0003142", not "3.142e-4".
func seconds(v float64) string {
	if a := math.Abs(v); a >= plots.Zero && a < 1e-3 {
		return strconv.FormatFloat(v, 'f', 3-int(math.Floor(math.Log10(a))), 64)
	}
	return num(v)
}

// pval formats a p-value: 3 significant digits, and "< 0.0001" below that,
// where more digits only show how far the test's approximation reaches.
func pval(p float64) string {
	if p >= 0 && p < 1e-4 {
		return "< 0.0001"
	}
	return plots.Num(p, 3)
}

func pct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func ci(c [2]float64) string {
	if math.IsNaN(c[0]) {
		return ""
	}
	return "[" + num(c[0]) + ", " + num(c[1]) + "]"
}

// ciHTML is ci for the page: it may wrap between its bounds, never inside
// one (7.5e-5 cut at its minus).
func ciHTML(c [2]float64) template.HTML {
	if math.IsNaN(c[0]) {
		return ""
	}
	return template.HTML(`<span class="n">[` + num(c[0]) + `,</span> <span class="n">` + num(c[1]) + `]</span>`)
}

func nsTime(ns int64) string {
	if ns == 0 {
		return "–"
	}
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000 UTC")
}

// shellQuote renders a JSON array of arguments as a shell command line.
func shellQuote(argsJSON string) string {
	var args []string
	if json.Unmarshal([]byte(argsJSON), &args) != nil {
		return argsJSON
	}
	return quoteArgs(CleanCommand(args))
}

// quoteArgs renders arguments as a shell command line (htmlpage.QuoteArgs).
func quoteArgs(args []string) string { return htmlpage.QuoteArgs(args) }

// CleanCommand is a command line as a reader would type it
// (htmlpage.CleanCommand: the program by its base name, a temporary binary
// of go run or go test as "gmark").
func CleanCommand(args []string) []string { return htmlpage.CleanCommand(args) }

// modifiedNote says whether the tree gmark was built from had changes.
func modifiedNote(m *bool) string {
	switch {
	case m == nil:
		return ""
	case *m:
		return ", modified"
	}
	return ", clean"
}

func prettyJSON(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

type distRow struct {
	Name string
	S    sampstat.Summary
}

func dists(m *metrics.RunMetrics) []distRow {
	u := " (s)"
	if m.Clocks.Jobs == metrics.Workload {
		u = " (workload s)"
	}
	rows := []distRow{{"wait" + u, m.Wait}, {"run time" + u, m.Run}, {"response time" + u, m.Response},
		{"slowdown", m.Slowdown}, {"bounded slowdown (τ = " + num(m.TauS) + " s)", m.BSlowdown}, {"submission delay (ms)", scaled(m.Delay, 1e3)}}
	if c := m.Coallocation; c != nil {
		rows = append(rows, distRow{"co-allocation overhead" + u, c.Overhead})
	}
	return rows
}

// scaled is s in a unit f times smaller (the submission delay, measured
// in seconds, in ms as the summary line and the X-bar chart give it: in
// seconds its values printed as 3.142e-4).
func scaled(s sampstat.Summary, f float64) sampstat.Summary {
	for _, v := range []*float64{&s.Mean, &s.Std, &s.Min, &s.P25, &s.P50, &s.P75, &s.P90, &s.P95, &s.P99, &s.Max,
		&s.MeanCI[0], &s.MeanCI[1], &s.MedianCI[0], &s.MedianCI[1]} {
		*v *= f
	}
	return s
}

func seed(p store.Provenance) string {
	if p.Seed == nil {
		return "–"
	}
	return fmt.Sprint(*p.Seed)
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"num": num, "seconds": seconds, "pval": pval, "pct": pct, "ci": ciHTML, "nsTime": nsTime, "shell": shellQuote, "quote": quoteArgs, "pretty": prettyJSON, "modified": modifiedNote,
	"dists": dists, "seed": seed, "fullSummary": fullSummary, "hours": func(s float64) string { return num(s / 3600) },
	"ms": func(s float64) string { return num(s * 1e3) },
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	},
}).Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gmark report{{range .Runs}} {{.Label}}{{end}}</title>
<script>{{.Script}}</script>
<style>{{.Style}}</style>
</head>
<body>
<h1>gmark report</h1>
<p>Store <code>{{.DB}}</code>, {{len .Runs}} run(s), generated {{.Generated.Format "2006-01-02 15:04:05 UTC"}}.
{{if .Command}}Made by <code>{{quote .Command}}</code>.{{end}}
Times are in seconds; formulas in <code>docs/metrics.md</code>.</p>
<nav class="toc" id="contents"><h2>Contents</h2><ol>
<li><a href="#runs">Runs</a></li><li><a href="#summary">Summary</a></li><li><a href="#distributions">Distributions</a></li><li><a href="#failures">Failures</a></li>
<li><a href="#groups">Per type, site, user</a></li><li><a href="#operational">Composite jobs</a></li><li><a href="#breakdown">Breakdown and the core</a></li>
{{if .HasFidelity}}<li><a href="#fidelity">Replay fidelity</a></li>{{end}}<li><a href="#figures">Figures</a></li><li><a href="#provenance">Provenance</a></li></ol>
{{if .Figures.Figures}}<p>Figures</p><ol class="figs">{{range .Figures.Figures}}<li><a href="#fig-{{.Name}}">{{.Title}}</a></li>{{end}}</ol>{{end}}</nav>

<h2 id="runs">Runs</h2>
<div class="scroll"><table>
<tr><th class="l">label</th><th class="l">run</th><th class="l">project / scenario</th><th class="l">target</th><th class="l">status</th><th class="l">speedup, time base</th><th>jobs</th><th>tasks</th><th class="l">first submission</th><th>makespan (s)</th><th class="l">system size</th></tr>
{{range .Runs}}{{$m := .Metrics}}<tr><td class="l">{{.Label}}</td><td class="l"><code class="id">{{$m.RunID}}</code></td><td class="l">{{$m.Project}} / {{$m.Scenario}}</td><td class="l">{{$m.Target}}</td><td class="l">{{$m.Status}}</td>
<td class="l">{{num $m.Speedup}}, {{$m.TimeBase}}</td><td>{{$m.Jobs.Submitted}}</td><td>{{$m.Tasks.Submitted}}</td><td class="l">{{nsTime $m.StartNS}}</td><td class="w">{{if $m.NoSpan}}{{$m.NoSpan}}{{else}}{{num $m.Makespan}}{{if eq $m.Clocks.Span "workload"}} ({{num $m.WallSpan}} wall){{end}}{{end}}</td>
<td class="l long">{{if $m.Processors}}{{$m.Processors}} processors ({{$m.ProcessorsSource}}){{else}}unknown{{end}}</td></tr>
{{end}}</table></div>
{{range .Runs}}{{if .Metrics.Notes}}<p class="note"><b>{{.Label}}:</b> {{range .Metrics.Notes}}{{.}}. {{end}}</p>{{end}}{{end}}

<h2 id="summary">Summary</h2>
<table class="compact">
<tr><th class="l">run</th><th>jobs</th><th>success rate</th><th>mean wait [95% CI]</th><th>median wait</th><th>p95 wait</th><th>mean response</th>
<th>p95 bounded slowdown</th><th>throughput (jobs/h)</th><th>utilization</th></tr>
{{range .Runs}}{{$m := .Metrics}}<tr><td class="l">{{.Label}}</td><td>{{$m.Jobs.Submitted}}</td><td>{{pct $m.SuccessRate}}</td><td class="w">{{num $m.Wait.Mean}} {{ci $m.Wait.MeanCI}}</td>
<td>{{num $m.Wait.P50}}</td><td>{{num $m.Wait.P95}}</td><td>{{num $m.Response.Mean}}</td><td>{{num $m.BSlowdown.P95}}</td><td>{{num $m.Throughput}}</td><td>{{pct $m.Utilization}}</td></tr>
{{end}}</table>
<details id="summary-full"><summary>The full summary table: every count and metric, grouped, a column per run</summary>
<div class="scroll"><table class="full">
<tr><th class="l" colspan="2"></th>{{range .Runs}}<th>{{.Label}}</th>{{end}}</tr>
{{range fullSummary .Runs}}{{$g := .}}{{range $i, $r := .Rows}}<tr>{{if eq $i 0}}<th class="l" rowspan="{{len $g.Rows}}">{{$g.Name}}</th>{{end}}<td class="l">{{$r.Name}}</td>{{range $r.Cells}}<td class="w">{{.}}</td>{{end}}</tr>
{{end}}{{end}}</table></div></details>
<p class="note">Jobs are the workload's top-level jobs (unitary and composite); a job that never started counts in the rates, not in the
wait or run statistics. Wait, run and response of completed jobs (succeeded or failed). Confidence intervals: percentile bootstrap
({{"1000"}} resamples) up to 20,000 values, normal approximation beyond.</p>

<h2 id="distributions">Distributions</h2>
{{range .Runs}}{{$m := .Metrics}}
<h3>{{.Label}} <code>{{$m.RunID}}</code></h3>
<div class="scroll"><table>
<tr><th class="l">metric</th><th>n</th><th>mean</th><th>95% CI of the mean</th><th>std</th><th>min</th><th>p25</th><th>median</th><th>95% CI of the median</th><th>p75</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr>
{{range dists $m}}<tr><td class="l">{{.Name}}</td><td>{{.S.N}}</td><td>{{num .S.Mean}}</td><td class="w">{{ci .S.MeanCI}}</td><td>{{num .S.Std}}</td><td>{{num .S.Min}}</td><td>{{num .S.P25}}</td>
<td>{{num .S.P50}}</td><td class="w">{{ci .S.MedianCI}}</td><td>{{num .S.P75}}</td><td>{{num .S.P90}}</td><td>{{num .S.P95}}</td><td>{{num .S.P99}}</td><td>{{num .S.Max}}</td></tr>
{{end}}</table></div>
<p class="note">{{if $m.NoSpan}}{{$m.NoSpan}}: no makespan, throughput or utilization; goodput {{num $m.Goodput}} processor-seconds.{{else}}Makespan {{num $m.Makespan}} s; throughput {{num $m.Throughput}} successful jobs per hour; goodput {{num $m.Goodput}} processor-seconds
({{num $m.GoodputRate}} processors on average); utilization {{pct $m.Utilization}}.{{end}}</p>
{{end}}

<h2 id="failures">Failures</h2>
{{range .Runs}}{{$m := .Metrics}}
<h3>{{.Label}}: success rate {{pct $m.SuccessRate}}, failure rate {{pct $m.FailureRate}}</h3>
{{if $m.Failures}}<table><tr><th class="l">state</th><th class="l">reason</th><th>jobs</th><th>share of the submitted</th></tr>
{{range $m.Failures}}<tr><td class="l">{{.State}}</td><td class="l">{{.Reason}}</td><td>{{.Count}}</td><td>{{pct .Rate}}</td></tr>
{{end}}</table>{{else}}<p>Every job succeeded.</p>{{end}}
{{end}}

<h2 id="groups">Per job type, site and user</h2>
{{range .Runs}}{{$m := .Metrics}}
<h3>{{.Label}}</h3>
{{range $name, $g := dict "job type" $m.ByType "site (each job counted on every site it ran on)" $m.BySite "user" $m.ByUser}}{{if $g}}
<div class="scroll"><table><tr><th class="l">{{$name}}</th><th>jobs</th><th>succeeded</th><th>success rate</th><th>mean wait</th><th>median wait</th><th>p95 wait</th><th>mean run</th><th>mean bounded slowdown</th><th>processor-s</th></tr>
{{range $g}}<tr><td class="l">{{.Key}}</td><td>{{.Jobs}}</td><td>{{.Succeeded}}</td><td>{{pct .SuccessRate}}</td><td>{{num .MeanWait}}</td><td>{{num .P50Wait}}</td><td>{{num .P95Wait}}</td><td>{{num .MeanRun}}</td><td>{{num .MeanBSld}}</td><td>{{num .ProcSeconds}}</td></tr>
{{end}}</table></div>{{end}}{{end}}
{{end}}

<h2 id="operational">Composite jobs and bags of tasks (operational level)</h2>
{{range .Runs}}{{$r := .}}{{$m := .Metrics}}{{with $m.Composite}}
<h3>{{$r.Label}}</h3>
<div class="scroll"><table><tr><th class="l">type</th><th>jobs</th><th>succeeded</th><th>success rate</th><th>tasks</th><th>failed tasks</th><th>task retries</th><th>mean makespan</th><th>median makespan</th><th>p95 makespan</th></tr>
{{range .ByType}}<tr><td class="l">{{.Type}}</td><td>{{.Jobs}}</td><td>{{.Succeeded}}</td><td>{{pct .SuccessRate}}</td><td>{{.Tasks}}</td><td>{{.FailedTasks}}</td><td>{{.Retries}}</td><td>{{num .Makespan.Mean}}</td><td>{{num .Makespan.P50}}</td><td>{{num .Makespan.P95}}</td></tr>
{{end}}{{with .All}}<tr><th class="l">all</th><th>{{.Jobs}}</th><th>{{.Succeeded}}</th><th>{{pct .SuccessRate}}</th><th>{{.Tasks}}</th><th>{{.FailedTasks}}</th><th>{{.Retries}}</th><th>{{num .Makespan.Mean}}</th><th>{{num .Makespan.P50}}</th><th>{{num .Makespan.P95}}</th></tr>{{end}}
</table></div>
<p>Sub-jobs: wait mean {{num .TaskWait.Mean}} s (median {{num .TaskWait.P50}}), run mean {{num .TaskRun.Mean}} s, response mean {{num .TaskResponse.Mean}} s,
bounded slowdown mean {{num .TaskBSlowdown.Mean}} (p95 {{num .TaskBSlowdown.P95}}).</p>
{{else}}<p class="note">{{.Label}}: no composite jobs.</p>{{end}}
{{with $m.Workflows}}<table><tr><th class="l">workflows ({{.Workflows}}), against their critical paths</th><th>mean</th><th>median</th><th>p95</th></tr>
<tr><td class="l">response (s)</td><td>{{num .Response.Mean}}</td><td>{{num .Response.P50}}</td><td>{{num .Response.P95}}</td></tr>
<tr><td class="l">critical path (s)</td><td>{{num .CriticalPath.Mean}}</td><td>{{num .CriticalPath.P50}}</td><td>{{num .CriticalPath.P95}}</td></tr>
<tr><td class="l">slowdown vs critical path</td><td>{{num .Slowdown.Mean}}</td><td>{{num .Slowdown.P50}}</td><td>{{num .Slowdown.P95}}</td></tr>
<tr><td class="l">critical-path efficiency</td><td>{{num .Efficiency.Mean}}</td><td>{{num .Efficiency.P50}}</td><td>{{num .Efficiency.P95}}</td></tr>
</table><p class="note">A workflow's critical path is its longest path of dependencies, each task counted for the time it ran; its slowdown the response time over it, its efficiency the critical path over the response.</p>{{end}}{{end}}

<h2 id="breakdown">Response-time breakdown and the bundled core</h2>
{{range .Runs}}{{$m := .Metrics}}
<h3>{{.Label}}</h3>
{{if $m.Breakdown.Phases}}<table><tr><th class="l">phase (mean over {{$m.Breakdown.Jobs}} jobs)</th><th>seconds</th></tr>
{{range $m.Breakdown.Phases}}<tr><td class="l">{{.Name}}</td><td>{{seconds .Mean}}</td></tr>{{end}}</table>
<p class="note">From {{$m.Breakdown.Source}}.</p>{{else}}<p class="note">{{$m.Breakdown.Source}}.</p>{{end}}
{{with $m.Core}}<table><tr><th class="l">the core's figures</th><th>mean</th><th>median</th><th>p95</th><th>max</th></tr>
<tr><td class="l">placement time (s)</td><td>{{num .Placement.Mean}}</td><td>{{num .Placement.P50}}</td><td>{{num .Placement.P95}}</td><td>{{num .Placement.Max}}</td></tr>
<tr><td class="l">file transfer time, estimated (s)</td><td>{{num .Transfer.Mean}}</td><td>{{num .Transfer.P50}}</td><td>{{num .Transfer.P95}}</td><td>{{num .Transfer.Max}}</td></tr>
<tr><td class="l">claiming tries</td><td>{{num .ClaimTries.Mean}}</td><td>{{num .ClaimTries.P50}}</td><td>{{num .ClaimTries.P95}}</td><td>{{num .ClaimTries.Max}}</td></tr>
</table>
<p>{{.Jobs}} jobs; failed placement tries {{.PlacementTries}}, re-placements {{.Replacements}}, restarts {{.Restarts}};
wasted processor time {{num .WastedProcSeconds}} processor-s ({{.WastedSource}}); core time scale {{num .TimeScale}}.
{{with .Utilization}}The core's accounting over {{num .Seconds}} s: background {{pct .Background}}, grid jobs {{pct .Grid}}, wasted {{pct .Wasted}}, gained {{pct .Gained}}, in use {{pct .Total}}.{{end}}</p>
{{with .Deadlines}}<table><tr><th class="l">start deadlines and local jobs (the core's count)</th><th></th></tr>
<tr><td class="l">global jobs started at their deadline</td><td>{{.GlobalStarted}} of {{.GlobalJobs}} ({{pct .GlobalSuccess}})</td></tr>
<tr><td class="l">local jobs killed, of those that ended</td><td>{{.LocalKilled}} ({{pct .LocalKillRate}}); {{.LocalJobs}} submitted, {{.LocalFinished}} finished</td></tr>
<tr><td class="l">local response time, mean (s)</td><td>{{num .LocalResponseS}} ({{.LocalFinished}} finished)</td></tr>
<tr><td class="l">processor-s wasted (held idle until the start) / lost (killed local jobs)</td><td>{{num .WastedProcessorS}} / {{num .LostProcessorS}}</td></tr>
<tr><td class="l">utilization: total = local + global + wasted</td><td>{{pct .TotalUtil}} = {{pct .LocalUtil}} + {{pct .GlobalUtil}} + {{pct .WastedUtil}}</td></tr>
</table>{{end}}{{end}}
{{end}}

{{if .HasFidelity}}<h2 id="fidelity">Replay fidelity: each trace replay against its original window</h2>
<p class="note">Two-sample Kolmogorov–Smirnov tests (docs/report.md): D is the largest distance between the empirical CDFs of the original
window's jobs and the replayed ones, p its asymptotic p-value (a small p: the replay's distribution differs from the original's).
The original's times are the trace's as recorded; the replay's are in workload time. The utilization's test compares the bins of the
two time series as samples: bins are not independent, so its p-value is indicative only. The figures are in the <a href="#figures">figures</a> section.</p>
{{range .Runs}}{{$r := .}}{{if .FidelityNote}}<p class="note"><b>{{.Label}}:</b> {{.FidelityNote}}.</p>{{end}}
{{range .Fidelity}}<h3>{{$r.Label}} unit {{.Unit}}</h3>
<p>Trace <code>{{.Trace}}</code> (SHA-256 <code>{{.TraceSHA256}}</code>), {{.Selection}}; the window starts {{num .Origin}} s into the trace and
lasts {{num .WindowS}} workload s; {{.OriginalJobs}} original jobs, {{.ReplayedJobs}} replayed{{if .WarmJobs}} ({{.WarmJobs}} warm jobs
{{if .WarmIncluded}}included{{else}}left out{{end}}){{end}}.</p>
<div class="scroll"><table><tr><th class="l">metric</th><th>n original</th><th>n replayed</th><th>KS D</th><th>p</th><th>median original</th><th>median replayed</th><th>mean original</th><th>mean replayed</th><th class="l">unit</th></tr>
{{range .Tests}}<tr><td class="l">{{.Metric}}</td><td>{{.NOriginal}}</td><td>{{.NReplayed}}</td><td>{{num .D}}</td><td>{{pval .P}}</td><td>{{num .MedianOriginal}}</td><td>{{num .MedianReplayed}}</td><td>{{num .MeanOriginal}}</td><td>{{num .MeanReplayed}}</td><td class="l">{{.Unit}}</td></tr>
{{end}}</table></div>
{{range .Notes}}<p class="note">{{.}}.</p>{{end}}
{{end}}{{end}}{{end}}

<h2 id="figures">Figures</h2>
<p class="note">Each figure links to its SVG; its data, as drawn, are in the CSV beside it. Runs are labelled as in the <a href="#runs">runs table</a>.</p>
{{range .Figures.Figures}}<figure id="fig-{{.Name}}"><a href="{{$.FigDir}}/{{.SVG}}"><img src="{{$.FigDir}}/{{.PNG}}" alt="{{.Title}}" width="768" height="384"></a>
<figcaption><b>{{.Title}}</b>{{if .Note}}. {{.Note}}{{end}}. <a href="{{$.FigDir}}/{{.SVG}}">SVG</a>{{if .PDF}} · <a href="{{$.FigDir}}/{{.PDF}}">PDF</a>{{end}}{{if .CSV}} · <a href="{{$.FigDir}}/{{.CSV}}" download>data (CSV)</a>{{end}}</figcaption></figure>
{{end}}{{range .Figures.Missing}}<p class="note">Not drawn: <b>{{.Title}}</b>: {{.Reason}}.</p>{{end}}

<h2 id="provenance">Provenance</h2>
{{range .Runs}}{{$m := .Metrics}}
<h3>{{.Label}} <code>{{$m.RunID}}</code></h3>
<p>Submitter settings: <code>{{.Settings}}</code></p>
{{range .Provenance}}<table>
<tr><th class="l" colspan="2">record {{.Seq}} ({{if eq .Seq 0}}the run{{else}}resume {{.Seq}}{{end}}), {{nsTime .RecordedNS}}</th></tr>
<tr><td class="l">command line</td><td class="l"><code>{{shell .CommandLine}}</code></td></tr>
<tr><td class="l">working directory</td><td class="l"><code>{{.WorkingDir}}</code></td></tr>
<tr><td class="l">gmark, Go</td><td class="l">{{.GmarkVersion}} (revision {{or .GmarkRevision "unknown"}}{{modified .GmarkModified}}), {{.GoVersion}}</td></tr>
<tr><td class="l">host, OS/arch, user</td><td class="l">{{.Host}}, {{.OSArch}}, {{.User}}</td></tr>
<tr><td class="l">workload</td><td class="l"><code>{{.WorkloadDir}}</code> (workload.jsonl SHA-256 <code>{{.WorkloadSHA256}}</code>)</td></tr>
<tr><td class="l">spec</td><td class="l"><code>{{.SpecPath}}</code> (SHA-256 <code>{{.SpecSHA256}}</code>), seed {{seed .}}</td></tr>
<tr><td class="l">target</td><td class="l">{{.Target}} <pre>{{pretty .TargetConfig}}</pre></td></tr>
{{if .Scheduler}}<tr><td class="l">scheduler parameters</td><td class="l"><pre>{{pretty .Scheduler}}</pre></td></tr>{{end}}
{{range .Inputs}}<tr><td class="l">input: {{.Role}}</td><td class="l"><code>{{.Path}}</code> ({{.Size}} bytes, SHA-256 <code>{{.SHA256}}</code>{{if not .Stored}}; not in the store{{end}})</td></tr>
{{end}}
<tr><td class="l">digest</td><td class="l"><code>{{.Digest}}</code></td></tr>
</table>{{end}}
{{end}}
</body>
</html>
`
