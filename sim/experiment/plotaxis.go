package experiment

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gmark/gmark/plots"
	"github.com/gmark/gmark/stats/sampstat"
)

// A study's x-axis is often not the load: Ballier et al. draw the global
// success against L_p, the deadline or the local load, with the global
// load fixed. Each of those values is a scenario of its own (its settings
// or its workload differ), so an experiment file may say, in [plot], what
// its x-axis is and, in each scenario's plot, where the scenario goes on
// it and on which line:
//
//	[plot]
//	x = "local load U_l (%)"
//	[[scenario]]
//	name = "wait-10-Ul-30"
//	plot = { x = 30, line = "Wait-10" }
//
// The report then draws each metric against that x, one line per line
// name (and per architecture and load level, when there are several),
// instead of against the load.

// PlotAxis is an experiment's [plot] table.
type PlotAxis struct {
	X       string   `json:"x"`                 // the x-axis label
	Load    string   `json:"load,omitempty"`    // what the legends call the load level ("": load)
	Metrics []string `json:"metrics,omitempty"` // the metrics drawn (none: those the report draws against the load)
}

// Placement is where a scenario's results go on its experiment's figures.
type Placement struct {
	X    float64 `json:"x"`
	Line string  `json:"line,omitempty"`
}

// plotSpec is a [plot] table as written.
type plotSpec struct {
	X       string    `toml:"x"`
	Load    string    `toml:"load"`
	Metrics *[]string `toml:"metrics"`
}

// placementSpec is a scenario's plot as written.
type placementSpec struct {
	X    *float64 `toml:"x"`
	Line string   `toml:"line"`
}

// maxLabel bounds an axis label or a line name.
const maxLabel = 100

// plot checks [plot] and the scenarios' plot settings together: with
// [plot], every scenario is placed, at a finite x, and no two at the same
// point of one line; without it, none is.
func (p *parser) plot(f *fileSpec, e *Experiment) *PlotAxis {
	var axis *PlotAxis
	if f.Plot != nil {
		axis = &PlotAxis{X: f.Plot.X, Load: f.Plot.Load}
		if label := strings.TrimSpace(f.Plot.X); label == "" || len(label) > maxLabel || strings.ContainsAny(label, "\r\n") {
			p.errorf("plot.x", "plot.x %q: the x-axis label is required: 1 to %d characters on one line", excerpt(f.Plot.X), maxLabel)
		}
		if len(f.Plot.Load) > maxLabel || strings.ContainsAny(f.Plot.Load, "\r\n") {
			p.errorf("plot.load", "plot.load %q: the name of the load level in the legends: at most %d characters, on one line", excerpt(f.Plot.Load), maxLabel)
		}
		if f.Plot.Metrics != nil {
			known := metricKeys()
			for _, m := range *f.Plot.Metrics {
				if !slices.Contains(known, m) {
					p.errorf("plot.metrics", "plot.metrics: %q is not a metric of the report (%s)", excerpt(m), strings.Join(known, ", "))
				}
			}
			axis.Metrics = *f.Plot.Metrics
		}
		if len(f.Scenarios) == 0 {
			p.errorf("plot", "[plot] places scenarios on an x-axis, and the file has no [[scenario]]: add scenarios with plot = { x = ... }")
		}
	}
	type point struct {
		line string
		x    float64
	}
	seen := map[point]string{}
	for i, s := range f.Scenarios {
		at := fmt.Sprintf("scenario[%d]", i)
		sc := e.scenario(s.Name)
		switch {
		case s.Plot == nil && axis != nil:
			p.errorf(at, "scenario %q has no plot: with [plot], every scenario says where it goes on the x-axis (plot = { x = 0.7, line = \"RPP\" })", excerpt(s.Name))
		case s.Plot != nil && axis == nil:
			p.errorf(at+".plot", "scenario %q: plot without [plot]: name the x-axis first ([plot] x = \"L_p\")", excerpt(s.Name))
		case s.Plot == nil:
		case s.Plot.X == nil:
			p.errorf(at+".plot", "scenario %q: plot.x is required: where the scenario goes on the x-axis", excerpt(s.Name))
		case math.IsNaN(*s.Plot.X) || math.IsInf(*s.Plot.X, 0) || math.Abs(*s.Plot.X) > plots.MaxValue:
			p.errorf(at+".plot", "scenario %q: plot.x = %g: must be a finite number of at most %g in magnitude", excerpt(s.Name), *s.Plot.X, plots.MaxValue)
		case len(s.Plot.Line) > maxLabel || strings.ContainsAny(s.Plot.Line, "\r\n"):
			p.errorf(at+".plot", "scenario %q: plot.line %q: at most %d characters, on one line", excerpt(s.Name), excerpt(s.Plot.Line), maxLabel)
		default:
			pt := point{s.Plot.Line, *s.Plot.X}
			if other, ok := seen[pt]; ok {
				p.errorf(at+".plot", "scenario %q is at the same point as scenario %q (line %q, x = %g): one of them would hide the other", excerpt(s.Name), excerpt(other), s.Plot.Line, pt.x)
			}
			seen[pt] = s.Name
			if sc != nil {
				sc.Plot = &Placement{X: *s.Plot.X, Line: s.Plot.Line}
			}
		}
	}
	return axis
}

// scenario is the scenario of that name (nil: none).
func (e *Experiment) scenario(name string) *Scenario {
	for _, sc := range e.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}

// metricKeys are the keys of every aggregated metric.
func metricKeys() []string {
	var out []string
	for _, m := range append(append(slices.Clone(metrics), deadlineMetrics...), workflowMetrics...) {
		out = append(out, m.key)
	}
	return out
}

// ciPoints are the means of key over the aggregates, at x(a), with their
// 95% Student t intervals over the repetitions (none for one) and the
// number of repetitions each is over (ErrorLines draws none over fewer
// than three).
func ciPoints(label, key string, aggs []Aggregate, x func(Aggregate) float64) plots.Points {
	pts := plots.Points{Label: label}
	for _, a := range aggs {
		st, ok := a.Stats[key]
		if a.Runs == 0 || !ok {
			continue
		}
		ci := sampstat.MeanCI(st.Mean, st.SD, a.Runs, 0.95)
		pts.X, pts.Y = append(pts.X, x(a)), append(pts.Y, st.Mean)
		pts.Lo, pts.Hi = append(pts.Lo, ci[0]), append(pts.Hi, ci[1])
		pts.N = append(pts.N, a.Runs)
	}
	return pts
}

// placedFigures draws each metric against the experiment's own x-axis:
// the mean over repetitions of each placed scenario at its x, one line per
// line name, architecture and load level (the last two named only when
// the experiment has several).
func placedFigures(e *ExperimentReport, dir string, keys []string) ([]plots.Figure, error) {
	if len(e.Plot.Metrics) > 0 {
		keys = e.Plot.Metrics
	}
	// The lines and their aggregates, once for every metric.
	type lineKey struct {
		line, arch string
		load       float64
	}
	var lines []lineKey
	byLine := map[lineKey][]Aggregate{}
	archs, loads := map[string]bool{}, map[float64]bool{}
	for _, a := range e.Aggregates {
		pl, ok := e.Placements[a.Scenario]
		if !ok {
			continue
		}
		archs[a.Arch], loads[a.Load] = true, true
		k := lineKey{pl.Line, a.Arch, a.Load}
		if _, seen := byLine[k]; !seen {
			lines = append(lines, k)
		}
		byLine[k] = append(byLine[k], a)
	}
	labels := make([]string, len(lines))
	for i, lk := range lines {
		var name []string
		if lk.line != "" {
			name = append(name, lk.line)
		}
		if len(archs) > 1 {
			name = append(name, lk.arch)
		}
		if len(loads) > 1 || len(name) == 0 {
			name = append(name, cmp.Or(e.Plot.Load, "load")+" "+num(lk.load)+"%")
		}
		labels[i] = strings.Join(name, ", ")
	}
	placedX := func(a Aggregate) float64 { return e.Placements[a.Scenario].X }
	var out []plots.Figure
	for _, key := range keys {
		series := make([]plots.Points, len(lines))
		for i, lk := range lines {
			series[i] = ciPoints(labels[i], key, byLine[lk], placedX)
		}
		var err error
		out, err = appendFigure(out, dir, e.Name+"_"+strings.ReplaceAll(key, ".", "-"), fmt.Sprintf("%s: %s against %s", e.Name, metricLabel(key), e.Plot.X), e.Plot.X, key, series)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
