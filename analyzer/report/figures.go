package report

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/plots"
	"github.com/gmark/gmark/analyzer/sampstat"
)

// FiguresDir is the report's sub-directory of figures.
const FiguresDir = "figures"

// MissingFigure is a default figure that could not be drawn, and why.
type MissingFigure struct {
	Title  string `json:"title"`
	Reason string `json:"reason"`
}

// FigureSet is what Figures drew.
type FigureSet struct {
	Figures []plots.Figure
	Missing []MissingFigure
}

// Figures draws every figure of the report into dir, two at a time.
func Figures(ctx context.Context, r *Report, dir string) (*FigureSet, error) {
	type job struct {
		title string
		draw  func() (plots.Figure, error)
	}
	runs := r.Runs
	labels := make([]string, len(runs))
	for i, run := range runs {
		labels[i] = run.Label
	}
	series := func(get func(*metrics.RunMetrics) []float64) []plots.Series {
		s := make([]plots.Series, len(runs))
		for i, run := range runs {
			s[i] = plots.Series{Label: run.Label, Values: get(run.Metrics)}
		}
		return s
	}
	unit := func(m *metrics.RunMetrics) string {
		if m.TimeBase == "workload" {
			return "workload s"
		}
		return "s"
	}(runs[0].Metrics)
	var jobs []job
	add := func(title string, draw func() (plots.Figure, error)) { jobs = append(jobs, job{title, draw}) }

	for _, c := range []struct {
		name, what string
		get        func(*metrics.RunMetrics) []float64
	}{
		{"cdf_wait", "wait time", func(m *metrics.RunMetrics) []float64 { return m.Samples.Wait }},
		{"cdf_run", "run time", func(m *metrics.RunMetrics) []float64 { return m.Samples.Run }},
		{"cdf_response", "response time", func(m *metrics.RunMetrics) []float64 { return m.Samples.Response }},
	} {
		add("CDF of the "+c.what, func() (plots.Figure, error) {
			return plots.CDF(dir, c.name, "CDF of the "+c.what, c.what+" ("+unit+")", series(c.get), true)
		})
	}
	add("Wait time per run", func() (plots.Figure, error) {
		means := make([]float64, len(runs))
		for i, run := range runs {
			means[i] = run.Metrics.Wait.Mean
		}
		return plots.Box(dir, "box_wait", "Wait time per run (box and whiskers; × the mean)", "wait time ("+unit+")",
			series(func(m *metrics.RunMetrics) []float64 { return m.Samples.Wait }), means)
	})
	add("X-bar chart of the mean submission delay", func() (plots.Figure, error) {
		var vals []float64
		var labs []string
		for _, run := range runs {
			if run.Metrics.Delay.N > 0 {
				vals = append(vals, run.Metrics.Delay.Mean*1e3)
				labs = append(labs, run.Label)
			}
		}
		if len(vals) == 0 {
			return plots.Figure{}, fmt.Errorf("no submission delays recorded")
		}
		mu, sigma, note := xbarLimits(runs, vals)
		return plots.XBar(dir, "xbar_delay", "X-bar control chart of the mean submission delay", "mean submission delay (ms)", labs, vals, mu, sigma, note)
	})
	add("Wait time against run time (slowdown fairness)", func() (plots.Figure, error) {
		var x, y []float64
		for _, run := range runs {
			x = append(x, run.Metrics.Samples.PairRun...)
			y = append(y, run.Metrics.Samples.PairWait...)
		}
		return plots.Scatter(dir, "scatter_wait_run", "Wait time against run time (slowdown fairness)", "run time ("+unit+")", "wait time ("+unit+")", x, y)
	})
	add("Pareto chart of jobs per site", func() (plots.Figure, error) {
		count := map[string]int{}
		for _, run := range runs {
			for s, n := range run.Metrics.Samples.JobsPerSite {
				count[s] += n
			}
		}
		var sites []string
		for s := range count {
			sites = append(sites, s)
		}
		sort.Strings(sites)
		counts := make([]int, len(sites))
		for i, s := range sites {
			counts[i] = count[s]
		}
		return plots.Pareto(dir, "pareto_sites", "Jobs per site (load-balancing fairness)", sites, counts)
	})
	add("Bi-histogram of the wait time of the two most common job types", func() (plots.Figure, error) {
		by := map[string][]float64{}
		for _, run := range runs {
			for t, w := range run.Metrics.Samples.WaitByType {
				by[t] = append(by[t], w...)
			}
		}
		var types []string
		for t := range by {
			types = append(types, t)
		}
		slices.SortFunc(types, func(a, b string) int {
			if len(by[a]) != len(by[b]) {
				return len(by[b]) - len(by[a])
			}
			if a < b {
				return -1
			}
			return 1
		})
		if len(types) < 2 {
			return plots.Figure{}, fmt.Errorf("the runs have one job type")
		}
		return plots.BiHistogram(dir, "bihist_wait", "Wait time of job types "+types[0]+" (up) and "+types[1]+" (down)", "wait time ("+unit+")",
			plots.Series{Label: types[0], Values: by[types[0]]}, plots.Series{Label: types[1], Values: by[types[1]]})
	})
	timeSeries := func(name, title, ylabel string, get func(*metrics.RunMetrics) []float64, scale float64, why string) {
		add(title, func() (plots.Figure, error) {
			var xs [][]float64
			var ss []plots.Series
			hours := false
			for _, run := range runs {
				if run.Metrics.Makespan > 3*3600 {
					hours = true
				}
			}
			div, xl := 60.0, "minutes since the first submission"
			if hours {
				div, xl = 3600, "hours since the first submission"
			}
			for _, run := range runs {
				v := get(run.Metrics)
				x := make([]float64, len(run.Metrics.Series.T))
				for k, t := range run.Metrics.Series.T {
					x[k] = (t + run.Metrics.Series.BinSeconds/2) / div
				}
				sv := make([]float64, len(v))
				for k := range v {
					sv[k] = v[k] * scale
				}
				xs = append(xs, x)
				ss = append(ss, plots.Series{Label: run.Label, Values: sv})
			}
			f, err := plots.Lines(dir, name, title, xl, ylabel, xs, ss, 0)
			if plots.NoData(err) && why != "" {
				return f, fmt.Errorf("%s", why)
			}
			return f, err
		})
	}
	timeSeries("utilization", "Utilization over time", "utilization (%)", func(m *metrics.RunMetrics) []float64 { return m.Series.Utilization }, 100,
		"the system size is unknown: pass --processors N")
	timeSeries("goodput", "Goodput over time", "goodput (processors busy with successful jobs)", func(m *metrics.RunMetrics) []float64 { return m.Series.Goodput }, 1, "")
	timeSeries("throughput", "Throughput over time", "throughput (successful jobs per hour)", func(m *metrics.RunMetrics) []float64 { return m.Series.Throughput }, 1, "")
	add("Success rate per run", func() (plots.Figure, error) {
		vals := make([]float64, len(runs))
		for i, run := range runs {
			vals[i] = 100 * nz(run.Metrics.SuccessRate)
		}
		return plots.Bars(dir, "success_rate", "Success rate per run", "successful jobs (% of submitted)", labels, vals, 100)
	})
	add("Response-time breakdown", func() (plots.Figure, error) {
		var names []string
		idx := map[string]int{}
		for _, run := range runs {
			for _, ph := range run.Metrics.Breakdown.Phases {
				if _, ok := idx[ph.Name]; !ok {
					idx[ph.Name] = len(names)
					names = append(names, ph.Name)
				}
			}
		}
		parts := make([]plots.Series, len(names))
		for i, n := range names {
			parts[i] = plots.Series{Label: n, Values: make([]float64, len(runs))}
		}
		for r, run := range runs {
			for _, ph := range run.Metrics.Breakdown.Phases {
				parts[idx[ph.Name]].Values[r] = max(0, ph.Mean)
			}
		}
		return plots.Stacked(dir, "breakdown", "Mean response time, by phase", "seconds ("+unit+")", labels, parts)
	})

	set := &FigureSet{}
	results := make([]plots.Figure, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), 4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = jobs[i].draw()
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, j := range jobs {
		switch {
		case errs[i] == nil:
			set.Figures = append(set.Figures, results[i])
		case plots.NoData(errs[i]):
			set.Missing = append(set.Missing, MissingFigure{Title: j.title, Reason: "no data"})
		default:
			set.Missing = append(set.Missing, MissingFigure{Title: j.title, Reason: errs[i].Error()})
		}
	}
	return set, nil
}

// xbarLimits gives the X-bar chart's centre line and σ: with two or more
// runs, the mean and standard deviation of the runs' means (the thesis's
// Fig. 5.6); with one run, its mean and the standard error of its mean.
func xbarLimits(runs []*Run, meansMS []float64) (mu, sigma float64, note string) {
	if len(meansMS) >= 2 {
		s := sampstat.Summarize(slices.Clone(meansMS))
		return s.Mean, s.Std, fmt.Sprintf("μ and σ of the %d runs' mean delays", len(meansMS))
	}
	for _, run := range runs {
		if d := run.Metrics.Delay; d.N > 0 {
			return d.Mean * 1e3, d.Std * 1e3 / math.Sqrt(float64(d.N)), "one run: σ is the standard error of its mean delay"
		}
	}
	return 0, 0, ""
}

func nz(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
