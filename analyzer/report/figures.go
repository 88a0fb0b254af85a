package report

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/plots"
	"github.com/gmark/gmark/stats/sampstat"
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

// Figures draws every figure of the report into dir, a few at a time.
func Figures(ctx context.Context, r *Report, dir string) (*FigureSet, error) {
	return FiguresAs(ctx, r, dir, false)
}

// FiguresAs is Figures, with each figure as PDF too when pdf is set.
func FiguresAs(ctx context.Context, r *Report, dir string, pdf bool) (*FigureSet, error) {
	if len(r.Runs) == 0 { // Build never makes one; a Report made by hand may be
		return nil, fmt.Errorf("the report has no run to draw")
	}
	fc := newFigureContext(r.Runs)
	specs := fc.figures()
	results, errs, err := drawAllAs(ctx, dir, specs, pdf)
	if err != nil {
		return nil, err
	}
	return figureSet(specs, results, errs, fc.runs), nil
}

// figureSet is what drawAll drew of specs, and why it did not draw the
// others (a figure with no data of runs says which).
func figureSet(specs []figureSpec, results []plots.Figure, errs []error, runs []*Run) *FigureSet {
	set := &FigureSet{}
	for i, f := range specs {
		switch {
		case errs[i] == nil:
			set.Figures = append(set.Figures, results[i])
		case plots.NoData(errs[i]):
			set.Missing = append(set.Missing, MissingFigure{Title: f.title, Reason: noData(f.what, runs)})
		default:
			set.Missing = append(set.Missing, MissingFigure{Title: f.title, Reason: errs[i].Error()})
		}
	}
	return set
}

// figureSpec is one figure of the report.
type figureSpec struct {
	title, name string
	what        string // the sample it is drawn from, for noData
	draw        func() (*plots.Drawing, error)
}

// drawAllAs draws the figures, at most four at a time, into dir, each as
// PDF too when pdf is set; it stops giving out figures when ctx is done.
func drawAllAs(ctx context.Context, dir string, specs []figureSpec, pdf bool) ([]plots.Figure, []error, error) {
	results := make([]plots.Figure, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), 4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = drawSafely(dir, specs[i].name, specs[i].draw, pdf)
			}
		}()
	}
	for i := range specs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results, errs, ctx.Err()
}

// figureContext is what every figure is drawn from: the runs, their labels
// and the unit of their durations.
type figureContext struct {
	runs   []*Run
	labels []string
	unit   string // "s", or "workload s" for runs reported in workload time
}

func newFigureContext(runs []*Run) *figureContext {
	fc := &figureContext{runs: runs, labels: make([]string, len(runs)), unit: "s"}
	for i, run := range runs {
		fc.labels[i] = run.Label
	}
	if runs[0].Metrics.Clocks.Jobs == metrics.Workload {
		fc.unit = "workload s"
	}
	return fc
}

// series is one sample of every run.
func (fc *figureContext) series(get func(*metrics.RunMetrics) []float64) []plots.Series {
	s := make([]plots.Series, len(fc.runs))
	for i, run := range fc.runs {
		s[i] = plots.Series{Label: run.Label, Values: get(run.Metrics)}
	}
	return s
}

// figures lists the report's figures in the order of the page.
func (fc *figureContext) figures() []figureSpec {
	var specs []figureSpec
	add := func(title, name, what string, draw func() (*plots.Drawing, error)) {
		specs = append(specs, figureSpec{title, name, what, draw})
	}
	for _, c := range []struct {
		name, what, sample string
		get                func(*metrics.RunMetrics) []float64
	}{
		{"cdf_wait", "wait time", "wait", func(m *metrics.RunMetrics) []float64 { return m.Samples.Wait }},
		{"cdf_run", "run time", "run", func(m *metrics.RunMetrics) []float64 { return m.Samples.Run }},
		{"cdf_response", "response time", "run", func(m *metrics.RunMetrics) []float64 { return m.Samples.Response }},
	} {
		add("CDF of the "+c.what, c.name, c.sample, func() (*plots.Drawing, error) {
			return plots.CDF("CDF of the "+c.what, c.what+" ("+fc.unit+")", fc.series(c.get), true)
		})
	}
	add("Wait time per run", "box_wait", "wait", fc.boxWait)
	add("X-bar chart of the mean submission delay", "xbar_delay", "delay", fc.xbarDelay)
	add("Wait time against run time (slowdown fairness)", "scatter_wait_run", "run", fc.scatterWaitRun)
	add("Pareto chart of jobs per site", "pareto_sites", "site", fc.paretoSites)
	add("Bi-histogram of the wait time of the two most common job types", "bihist_wait", "wait", fc.biHistogramWait)
	for _, t := range []struct {
		name, title, ylabel string
		get                 func(*metrics.RunMetrics) []float64
		scale               float64
		why                 string // why an empty series is empty, when not for want of time
		counts              bool   // a rate of events counted per bin (merged until a bin holds a few: mergeCounts)
	}{
		{"utilization", "Utilization over time", "utilization (%)", func(m *metrics.RunMetrics) []float64 { return m.Series.Utilization }, 100,
			"the system size is unknown: pass --processors N", false},
		{"goodput", "Goodput over time", "goodput (processors busy with successful jobs)", func(m *metrics.RunMetrics) []float64 { return m.Series.Goodput }, 1, "", false},
		{"throughput", "Throughput over time", "throughput (successful jobs per hour)", func(m *metrics.RunMetrics) []float64 { return m.Series.Throughput }, 1, "", true},
	} {
		add(t.title, t.name, "time", func() (*plots.Drawing, error) {
			return fc.timeSeries(t.title, t.ylabel, t.get, t.scale, t.why, t.counts)
		})
	}
	add("Success rate per run", "success_rate", "", fc.successRate)
	add("Response-time breakdown", "breakdown", "run", fc.breakdown)
	fc.grenchmarkFigures(add)
	fc.fidelityFigures(add)
	return specs
}

func (fc *figureContext) boxWait() (*plots.Drawing, error) {
	means := make([]float64, len(fc.runs))
	for i, run := range fc.runs {
		means[i] = run.Metrics.Wait.Mean
	}
	return plots.Box("Wait time per run (box and whiskers; × the mean)", "wait time ("+fc.unit+")",
		fc.series(func(m *metrics.RunMetrics) []float64 { return m.Samples.Wait }), means)
}

func (fc *figureContext) xbarDelay() (*plots.Drawing, error) {
	var vals []float64
	var labs []string
	for _, run := range fc.runs {
		if run.Metrics.Delay.N > 0 {
			vals = append(vals, run.Metrics.Delay.Mean*1e3)
			labs = append(labs, run.Label)
		}
	}
	if len(vals) == 0 {
		return nil, errors.New(noData("delay", fc.runs))
	}
	mu, sigma, note := xbarLimits(fc.runs, vals)
	return plots.XBar("X-bar control chart of the mean submission delay", "mean submission delay (ms)", labs, vals, mu, sigma, note)
}

func (fc *figureContext) scatterWaitRun() (*plots.Drawing, error) {
	var x, y []float64
	if len(fc.runs) == 1 { // no copy (16 MB a million jobs)
		x, y = fc.runs[0].Metrics.Samples.WaitRunPairs()
	} else {
		for _, run := range fc.runs {
			r, w := run.Metrics.Samples.WaitRunPairs()
			x, y = append(x, r...), append(y, w...)
		}
	}
	return plots.Scatter("Wait time against run time (slowdown fairness)", "run time ("+fc.unit+")", "wait time ("+fc.unit+")", x, y)
}

func (fc *figureContext) paretoSites() (*plots.Drawing, error) {
	count := map[string]int{}
	for _, run := range fc.runs {
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
	return plots.Pareto("Jobs per site (load-balancing fairness)", sites, counts)
}

// biHistogramWait compares the waits of the two most common job types.
func (fc *figureContext) biHistogramWait() (*plots.Drawing, error) {
	by := fc.runs[0].Metrics.Samples.WaitByType // one run: no copy
	if len(fc.runs) > 1 {
		by = map[string][]float64{}
		for _, run := range fc.runs {
			for t, w := range run.Metrics.Samples.WaitByType {
				by[t] = append(by[t], w...)
			}
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
	switch len(types) {
	case 0:
		return nil, errors.New(noData("wait", fc.runs))
	case 1:
		return nil, fmt.Errorf("the jobs that started are of one type (%s)", types[0])
	}
	return plots.BiHistogram("Wait time of job types "+types[0]+" (up) and "+types[1]+" (down)", "wait time ("+fc.unit+")",
		plots.Series{Label: types[0], Values: by[types[0]]}, plots.Series{Label: types[1], Values: by[types[1]]})
}

// timeSeries draws a series of every run over time, in minutes, or hours
// when a run lasted more than three; a rate of counted events (counts)
// through bins merged so that each holds a few (mergeCounts).
func (fc *figureContext) timeSeries(title, ylabel string, get func(*metrics.RunMetrics) []float64, scale float64, why string, counts bool) (*plots.Drawing, error) {
	var xs [][]float64
	var ss []plots.Series
	hours := false
	for _, run := range fc.runs {
		if run.Metrics.Makespan > 3*3600 {
			hours = true
		}
	}
	div, xl := 60.0, "minutes since the first submission"
	if hours {
		div, xl = 3600, "hours since the first submission"
	}
	if fc.runs[0].Metrics.Clocks.Span == metrics.Workload {
		xl += " (workload time)"
	}
	var notes []string
	for _, run := range fc.runs {
		v := get(run.Metrics)
		ts := run.Metrics.Series
		mid := make([]float64, len(ts.T)) // the middle of each bin, s
		for k, t := range ts.T {
			mid[k] = t + ts.BinSeconds/2
		}
		if counts && len(v) == len(mid) {
			var k int
			if v, mid, k = mergeCounts(v, ts.T, ts.BinSeconds); k > 1 {
				notes = append(notes, fmt.Sprintf("%s: %d bins of %s s merged into each point", run.Label, k, plots.Num(ts.BinSeconds, 3)))
			}
		}
		x := make([]float64, len(mid))
		for k := range mid {
			x[k] = mid[k] / div
		}
		sv := make([]float64, len(v))
		for k := range v {
			sv[k] = v[k] * scale
		}
		xs = append(xs, x)
		ss = append(ss, plots.Series{Label: run.Label, Values: sv})
	}
	f, err := plots.Lines(title, xl, ylabel, xs, ss, 0)
	if err == nil && len(notes) > 0 {
		f.Note = join(fmt.Sprintf("a point holds about %d of the events counted (a bin of one or none would draw spikes, not a rate)", minEventsPerBin), join(strings.Join(notes, ", "), f.Note))
	}
	if plots.NoData(err) && why != "" && slices.ContainsFunc(fc.runs, lasted) {
		return f, errors.New(why)
	}
	return f, err
}

// minEventsPerBin is how many events (jobs that succeeded) a point of a
// rate over time is over at the least, on average: a bin of 0 or 1 job
// draws a row of spikes between 0 and 3,600/bin per hour, not a rate.
const minEventsPerBin = 8

// minRateBins is the fewest points mergeCounts leaves a series with.
const minRateBins = 8

// mergeCounts merges the bins of a rate of counted events (rate per hour
// per bin, at the bins' starts t, of width bin seconds) k by k, the
// smallest k that puts minEventsPerBin events in a merged bin on average
// while leaving minRateBins of them: each merged bin's rate is its
// events over its span (a last, partial group over its own span), drawn
// at the span's middle. It returns the rates, the middles and k.
func mergeCounts(rate, t []float64, bin float64) ([]float64, []float64, int) {
	events := 0.0
	for _, r := range rate {
		events += r * bin / 3600
	}
	n := len(rate)
	want := max(min(int(events/minEventsPerBin), n), min(minRateBins, n), 1)
	k := (n + want - 1) / want
	var outR, outX []float64
	for i := 0; i < n; i += max(k, 1) {
		end := min(i+max(k, 1), n)
		sum := 0.0
		for _, r := range rate[i:end] {
			sum += r
		}
		outR, outX = append(outR, sum/float64(end-i)), append(outX, t[i]+float64(end-i)*bin/2)
	}
	return outR, outX, max(k, 1)
}

func (fc *figureContext) successRate() (*plots.Drawing, error) {
	vals := make([]float64, len(fc.runs))
	for i, run := range fc.runs {
		vals[i] = 100 * run.Metrics.SuccessRate // NaN (no bar) for a run of no jobs
	}
	return plots.Bars("Success rate per run", "successful jobs (% of submitted)", fc.labels, vals, 100)
}

// breakdown stacks the mean of each phase of the response time per run.
func (fc *figureContext) breakdown() (*plots.Drawing, error) {
	var names []string
	idx := map[string]int{}
	for _, run := range fc.runs {
		for _, ph := range run.Metrics.Breakdown.Phases {
			if _, ok := idx[ph.Name]; !ok {
				idx[ph.Name] = len(names)
				names = append(names, ph.Name)
			}
		}
	}
	parts := make([]plots.Series, len(names))
	for i, n := range names {
		parts[i] = plots.Series{Label: n, Values: make([]float64, len(fc.runs))}
	}
	for r, run := range fc.runs {
		for _, ph := range run.Metrics.Breakdown.Phases {
			parts[idx[ph.Name]].Values[r] = max(0, ph.Mean)
		}
	}
	return plots.Stacked("Mean response time, by phase", "seconds ("+fc.unit+")", fc.labels, parts)
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

// drawSafely draws a figure and saves it as dir/name.png and .svg, turning a panic of the plotting library into
// the figure's error: one figure that cannot be drawn must not cost the
// page (and the exit status) of every other. The causes of the panics seen
// are fixed in plots; this is the net under them.
func drawSafely(dir, name string, draw func() (*plots.Drawing, error), pdf bool) (f plots.Figure, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in the plotting code (a bug in gmark; please report it): %v", r)
		}
	}()
	d, err := draw()
	if err != nil {
		return plots.Figure{}, err
	}
	if f, err = d.Save(dir, name); err != nil || !pdf {
		return f, err
	}
	f.PDF, err = d.SavePDF(dir, name)
	return f, err
}

// noData says why a figure drawn from the sample what ("wait", "run",
// "delay", "site", "time" or "") has nothing to draw.
func noData(what string, runs []*Run) string {
	var jobs, started, completed int
	for _, r := range runs {
		jobs += r.Metrics.Jobs.Submitted
		started += r.Metrics.Wait.N
		completed += r.Metrics.Run.N
	}
	switch {
	case jobs == 0:
		return "the runs have no jobs"
	case what == "wait" && started == 0:
		return "no job started"
	case what == "run" && completed == 0:
		return "no job ran to its end"
	case what == "delay":
		return "no submission delay was recorded"
	case what == "site":
		return "no job started on a known site"
	case what == "time" && !slices.ContainsFunc(runs, lasted):
		return "the runs last no time: no job ended after the first submission"
	}
	return "no data"
}

// lasted tells whether a run lasted some time: a time series of it has
// bins.
func lasted(r *Run) bool { return r.Metrics.Makespan > 0 }
