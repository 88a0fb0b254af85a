package experiment

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"

	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/plots"
)

// WriteDir writes the report into dir: report.txt, report.json, the
// figures (PNG and SVG: throughput over time per site for each way of
// running; jobs, units and idle time per site, the ways side by side) and
// index.html, a static page that shows them. It returns the page's path.
func (r *Report) WriteDir(dir string) (string, error) {
	if err := outfile.CheckDir(dir, "the report"); err != nil {
		return "", err
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
	figs, err := r.figures(dir)
	if err != nil {
		return "", err
	}
	var html bytes.Buffer
	if err := pageTemplate.Execute(&html, htmlPage{Report: r, Text: txt.String(), Figures: figs}); err != nil {
		return "", err
	}
	index := filepath.Join(dir, "index.html")
	return index, outfile.WriteFile(index, html.Bytes())
}

// figures draws and saves the report's figures.
func (r *Report) figures(dir string) ([]plots.Figure, error) {
	var out []plots.Figure
	save := func(d *plots.Drawing, err error, name string) error {
		if plots.NoData(err) {
			return nil
		}
		if err != nil {
			return err
		}
		f, err := d.Save(dir, name)
		out = append(out, f)
		return err
	}
	for _, res := range r.Runs {
		d, err := throughputLines(r.Name, res)
		if err := save(d, err, "throughput_"+res.Mode); err != nil {
			return nil, err
		}
	}
	if len(r.Runs) == 0 {
		return out, nil
	}
	var sites []string
	for _, s := range r.Runs[0].Sites {
		sites = append(sites, s.Site)
	}
	for _, m := range []struct {
		name, label string
		value       func(SiteResult) float64
	}{
		{"jobs", "jobs run", func(s SiteResult) float64 { return float64(s.Jobs) }},
		{"units", "units of work done", func(s SiteResult) float64 { return s.Units }},
		{"idle", "idle (placeholder-seconds of the makespan)", func(s SiteResult) float64 { return s.Idle }},
	} {
		var series []plots.Series
		for _, res := range r.Runs {
			v := make([]float64, len(res.Sites))
			for i, s := range res.Sites {
				v[i] = m.value(s)
			}
			series = append(series, plots.Series{Label: res.Mode, Values: v})
		}
		d, err := plots.Grouped(fmt.Sprintf("%s: %s per site", r.Name, m.label), "site", m.label, sites, series)
		if err := save(d, err, m.name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// throughputLines is a run's throughput over time: per site and in all,
// the units of the jobs that ended in each interval over its length,
// drawn at the interval's middle.
func throughputLines(name string, res *Result) (*plots.Drawing, error) {
	n := len(res.Sites) + 1
	xs := make([][]float64, n)
	series := make([]plots.Series, n)
	for i, s := range res.Sites {
		series[i].Label = s.Site
	}
	series[n-1].Label = "all"
	for _, iv := range res.Intervals {
		mid, w := (iv.Start+iv.End)/2, iv.End-iv.Start
		for i, u := range iv.Units {
			xs[i], series[i].Values = append(xs[i], mid), append(series[i].Values, u/w)
		}
		xs[n-1], series[n-1].Values = append(xs[n-1], mid), append(series[n-1].Values, iv.Throughput)
	}
	title := fmt.Sprintf("%s, %s: throughput per %.0f s interval", name, res.Mode, intervalOf(res))
	return plots.Lines(title, "time (s)", "units/s", xs, series, 0)
}

func intervalOf(res *Result) float64 {
	if len(res.Intervals) == 0 {
		return 0
	}
	return res.Intervals[0].End - res.Intervals[0].Start
}

type htmlPage struct {
	Report  *Report
	Text    string
	Figures []plots.Figure
}

var pageTemplate = template.Must(template.New("placeholder").Funcs(template.FuncMap{"pct": func(x float64) float64 { return 100 * x }}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>gmark placeholder experiment {{.Report.Name}}</title>
<style>body{font-family:sans-serif;margin:2em}pre{font-size:12px;overflow-x:auto}figure{margin:1em 0}table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}</style></head>
<body><h1>Placeholder experiment {{.Report.Name}}</h1>
<table><tr><th>way</th><th>makespan (s)</th><th>load imbalance</th><th>jobs</th><th>units</th><th>units/s</th></tr>
{{range .Report.Runs}}<tr><td>{{.Mode}}</td><td>{{printf "%.0f" .Makespan}}</td><td>{{printf "%.1f%%" (pct .Imbalance)}}</td><td>{{.Jobs}}</td><td>{{printf "%.2f" .Units}}</td><td>{{printf "%.4f" .Throughput}}</td></tr>
{{end}}</table>
{{if .Report.Ratio}}<p>Makespan static / placeholder: {{printf "%.2f" .Report.Ratio}}.</p>{{end}}
<p>The numbers: <a href="report.txt">report.txt</a>, <a href="report.json">report.json</a>. The measures are defined in gmark's docs/placeholder.md.</p>
{{range .Figures}}<figure><img src="{{.PNG}}" alt="{{.Title}}" width="768"><figcaption>{{.Title}}{{if .Note}} ({{.Note}}){{end}} · <a href="{{.SVG}}">SVG</a>{{if .CSV}} · <a href="{{.CSV}}" download>data (CSV)</a>{{end}}</figcaption></figure>
{{end}}<h2>Tables</h2><pre>{{.Text}}</pre>
</body></html>
`))
