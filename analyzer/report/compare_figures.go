package report

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/plots"
)

// The figures of a comparison: per group (its runs' jobs pooled) the CDFs
// and box plots of wait, run time, response time and bounded slowdown;
// and, when runs of a group differ in seed or in load, mean wait, response
// and bounded slowdown against it with 95% confidence intervals. The i-th
// group has the i-th colour in every figure.

// sampleDef is a per-job sample drawn per group.
type sampleDef struct {
	name, what, sample string
	log                bool
	get                func(*metrics.RunMetrics) []float64
	mean               func(*metrics.RunMetrics) float64
	ci                 func(*metrics.RunMetrics) [2]float64
	unit               bool         // in seconds
	domain             plots.Domain // the values it can take (its intervals are cut there)
}

// bsldDomain is the bounded slowdown's values: max(1, …).
var bsldDomain = plots.Domain{Lo: 1, Hi: math.Inf(1)}

func compareSamples() []sampleDef {
	return []sampleDef{
		{"wait", "wait time", "wait", true, func(m *metrics.RunMetrics) []float64 { return m.Samples.Wait },
			func(m *metrics.RunMetrics) float64 { return m.Wait.Mean }, func(m *metrics.RunMetrics) [2]float64 { return m.Wait.MeanCI }, true, plots.NonNegative},
		{"run", "run time", "run", true, func(m *metrics.RunMetrics) []float64 { return m.Samples.Run },
			func(m *metrics.RunMetrics) float64 { return m.Run.Mean }, func(m *metrics.RunMetrics) [2]float64 { return m.Run.MeanCI }, true, plots.NonNegative},
		{"response", "response time", "run", true, func(m *metrics.RunMetrics) []float64 { return m.Samples.Response },
			func(m *metrics.RunMetrics) float64 { return m.Response.Mean }, func(m *metrics.RunMetrics) [2]float64 { return m.Response.MeanCI }, true, plots.NonNegative},
		{"bsld", "bounded slowdown", "run", true, func(m *metrics.RunMetrics) []float64 { return m.Samples.BSlowdown },
			func(m *metrics.RunMetrics) float64 { return m.BSlowdown.Mean }, func(m *metrics.RunMetrics) [2]float64 { return m.BSlowdown.MeanCI }, false, bsldDomain},
	}
}

func (s sampleDef) label(unit string) string {
	if s.unit {
		return s.what + " (" + unit + ")"
	}
	return s.what
}

// compareFigures lists the comparison's figures in the order of the page.
func (c *Comparison) compareFigures() []figureSpec {
	var specs []figureSpec
	add := func(title, name, what string, draw func() (*plots.Drawing, error)) {
		specs = append(specs, figureSpec{title, name, what, draw})
	}
	by := "per " + c.By
	for _, s := range compareSamples() {
		title := "CDF of the " + s.what + " " + by
		add(title, "cmp_cdf_"+s.name, s.sample, func() (*plots.Drawing, error) {
			return plots.CDF(title, s.label(c.Unit), c.pooled(s.get), s.log)
		})
	}
	for _, s := range compareSamples() {
		if s.name == "run" {
			continue
		}
		title := "The " + s.what + " " + by + " (box and whiskers; × the mean)"
		add(title, "cmp_box_"+s.name, s.sample, func() (*plots.Drawing, error) {
			return plots.GroupBox(title, c.By, s.label(c.Unit), c.pooled(s.get), c.pooledMeans(s.get))
		})
	}
	for _, x := range c.axes() {
		for _, s := range compareSamples() {
			if s.name == "run" {
				continue
			}
			title := "Mean " + s.what + " against the " + x.name + ", " + by
			add(title, "cmp_"+s.name+"_vs_"+x.name, s.sample, func() (*plots.Drawing, error) {
				what := "95% confidence intervals of each run's mean, over its jobs"
				if x.level != nil {
					what = "95% confidence intervals of the mean over a level's runs (Student t; of a level of one run, over its jobs)"
				}
				return plots.ErrorLines(title, x.label, "mean "+s.label(c.Unit), c.points(s, x), plots.Intervals{What: what, Of: "runs", Domain: s.domain})
			})
		}
	}
	return specs
}

// pooled is the sample of each group: its runs' values together.
func (c *Comparison) pooled(get func(*metrics.RunMetrics) []float64) []plots.Series {
	out := make([]plots.Series, len(c.Groups))
	for i, g := range c.Groups {
		out[i].Label = g.Key
		for _, m := range c.groupRuns(g) {
			out[i].Values = append(out[i].Values, get(m)...)
		}
	}
	return out
}

// pooledMeans are the means of the pooled samples (NaN for none).
func (c *Comparison) pooledMeans(get func(*metrics.RunMetrics) []float64) []float64 {
	s := c.pooled(get)
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = math.NaN()
		n, sum := 0, 0.0
		for _, x := range v.Values {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				n, sum = n+1, sum+x
			}
		}
		if n > 0 {
			out[i] = sum / float64(n)
		}
	}
	return out
}

// xAxis is what a group's runs are drawn against: their seed or their load.
type xAxis struct {
	name, label string
	get         func(*CompareRun) (float64, bool)
	// level is the key of the runs drawn as one point (their mean, with
	// its t interval over them); "" draws each run on its own.
	level func(*CompareRun) string
}

// axes are the x axes the runs vary along. The load: when a group has runs
// of two workloads or more, each workload (by its digest) is a load level,
// at the mean utilization of its runs. The seed: when a group has runs of
// two seeds or more, and every group's runs are of one workload (else the
// seed is not all that differs between them).
func (c *Comparison) axes() []xAxis {
	seed := xAxis{"seed", "seed", func(r *CompareRun) (float64, bool) { return numeric(r.Seed) }, nil}
	load := xAxis{"load", "load: utilization by the workload's jobs (%, mean over its runs)", func(r *CompareRun) (float64, bool) {
		return 100 * r.Load, !math.IsNaN(r.Load) && !math.IsInf(r.Load, 0)
	}, func(r *CompareRun) string { return r.Workload }}
	varies := func(g *CompareGroup, x xAxis, key func(*CompareRun) string) bool {
		levels := map[string]bool{}
		for _, r := range c.Runs {
			if _, ok := x.get(r); ok && r.Group == g.Key {
				levels[key(r)] = true
			}
		}
		return len(levels) >= 2
	}
	var seeds, workloads bool
	for _, g := range c.Groups {
		seeds = seeds || varies(g, seed, func(r *CompareRun) string { return r.Seed })
		workloads = workloads || varies(g, load, load.level)
	}
	var out []xAxis
	switch {
	case seeds && workloads:
		c.addNote("no figure against the seed: a group's runs are of several workloads, so the seed is not all that differs between them")
	case seeds:
		out = append(out, seed)
	}
	if workloads {
		out = append(out, load)
	}
	return out
}

func (c *Comparison) addNote(n string) {
	if !slices.Contains(c.Notes, n) {
		c.Notes = append(c.Notes, n)
	}
}

// points are each group's mean of s against x, with 95% intervals: per
// run its mean and the interval over its jobs; per level, the mean over
// the level's runs and its t interval (one run: its own).
func (c *Comparison) points(s sampleDef, x xAxis) []plots.Points {
	out := make([]plots.Points, len(c.Groups))
	for i, g := range c.Groups {
		p := &out[i]
		p.Label = g.Key
		levels := map[string][]*CompareRun{}
		var order []string
		for k, r := range c.Runs {
			if _, ok := x.get(r); !ok || r.Group != g.Key {
				continue
			}
			key := fmt.Sprint(k)
			if x.level != nil {
				key = x.level(r)
			}
			if levels[key] == nil {
				order = append(order, key)
			}
			levels[key] = append(levels[key], r)
		}
		for _, key := range order {
			runs := levels[key]
			xs, ms := make([]float64, len(runs)), make([]*metrics.RunMetrics, len(runs))
			for k, r := range runs {
				xs[k], _ = x.get(r)
				ms[k] = r.Run.Metrics
			}
			gv := groupValue(compareMetric{CompareMetric: CompareMetric{Name: s.name}, get: s.mean, ci: s.ci}, ms)
			p.X, p.Y = append(p.X, mean(xs)), append(p.Y, gv.Value)
			p.Lo, p.Hi = append(p.Lo, gv.CI[0]), append(p.Hi, gv.CI[1])
			n := 0 // one run's interval is over its jobs
			if gv.Runs > 1 {
				n = gv.Runs // a t interval over the runs: none over two
			}
			p.N = append(p.N, n)
		}
	}
	return out
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// CompareFigures draws every figure of the comparison into dir, each as
// PDF too when pdf is set.
func CompareFigures(ctx context.Context, c *Comparison, dir string, pdf bool) (*FigureSet, error) {
	if len(c.Runs) == 0 {
		return nil, fmt.Errorf("the comparison has no run to draw")
	}
	specs := c.compareFigures()
	results, errs, err := drawAllAs(ctx, dir, specs, pdf)
	if err != nil {
		return nil, err
	}
	runs := make([]*Run, len(c.Runs))
	for i, r := range c.Runs {
		runs[i] = r.Run
	}
	return figureSet(specs, results, errs, runs), nil
}

// FigureProblems draws the comparison's figures in memory and lists what
// breaks gmark's figure style in each (Drawing.Problems: data on or past
// the plot area's edge, too few ticks, the legend over the data), as
// "figure: problem"; drawn names the figures drawn.
func (c *Comparison) FigureProblems() (drawn, problems []string) {
	for _, f := range c.compareFigures() {
		d, err := f.draw()
		if err != nil {
			continue
		}
		drawn = append(drawn, f.name)
		for _, p := range d.Problems() {
			problems = append(problems, f.name+": "+p)
		}
	}
	return drawn, problems
}
