package gwa

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/gmark/gmark/plots"
)

// The toolbox over several traces (the thesis's Fig. 3.3 overlays several
// grids in one figure): each figure draws every trace, trace k in the k-th
// colour of plots in every figure, and a page, index.html, shows
// them with their captions. Each trace's own figures go to a directory of
// their own.

// traceLabels are the traces' names, made distinct.
func traceLabels(as []*Analysis) []string {
	labels := make([]string, len(as))
	seen := map[string]int{}
	for i, a := range as {
		l := a.Trace.Name
		if l == "" {
			l = "trace " + strconv.Itoa(i+1)
		}
		seen[l]++
		if seen[l] > 1 {
			l += " (" + strconv.Itoa(seen[l]) + ")"
		}
		labels[i] = l
	}
	return labels
}

// overlayPlots are the figures that draw every trace of as.
func overlayPlots(as []*Analysis) []namedPlot {
	labels := traceLabels(as)
	out := []namedPlot{}
	for _, q := range []struct {
		name, title, x string
		get            func(*Analysis) *Summary
	}{
		{"cdf_inter_arrival", "inter-arrival time", "inter-arrival time (s)", func(a *Analysis) *Summary { return a.Distributions.InterArrival }},
		{"cdf_wait", "wait time", "wait time (s)", func(a *Analysis) *Summary { return a.Distributions.Wait }},
		{"cdf_run_time", "run time", "run time (s)", func(a *Analysis) *Summary { return a.Distributions.RunTime }},
		{"cdf_parallelism", "parallelism", "processors per job", func(a *Analysis) *Summary { return a.Distributions.Parallelism }},
		{"cdf_memory", "memory", "used memory per processor (KB)", func(a *Analysis) *Summary { return a.Distributions.Memory }},
		{"cdf_cpu_time", "consumed CPU time", "average CPU time per processor (s)", func(a *Analysis) *Summary { return a.Distributions.CPUTime }},
	} {
		out = append(out, namedPlot{q.name, func() (*plots.Drawing, error) {
			curves := make([]plots.Curve, len(as))
			for i, a := range as {
				curves[i] = summaryCurve(labels[i], q.get(a))
			}
			d, err := plots.CDFCurves("CDF of the "+q.title, q.x, curves, true)
			if plots.NoData(err) {
				return nil, nil
			}
			return d, err
		}})
	}
	days := "days since each trace's start"
	out = append(out,
		namedPlot{"cumulative_jobs", func() (*plots.Drawing, error) {
			d, err := overlayXY("Cumulative jobs submitted, from 0 at each trace's start", days, "share of the trace's jobs (%)", labels, as, func(a *Analysis) plotter.XYs {
				xy := cumulative(a.Arrivals)
				for i := range xy {
					xy[i].Y = 100 * xy[i].Y / max(xy[len(xy)-1].Y, 1)
				}
				return xy
			})
			if d != nil {
				var n []string
				for i, a := range as {
					n = append(n, fmt.Sprintf("%s %s", labels[i], plots.Num(float64(a.Totals.Jobs), 10)))
				}
				d.Note = "jobs in all: " + strings.Join(n, ", ")
			}
			return d, err
		}},
		namedPlot{"utilization_daily", func() (*plots.Drawing, error) {
			return overlayLines("Utilization per day", days, "utilization (%)", labels, as, func(a *Analysis) []float64 {
				y := make([]float64, len(a.Utilization.Daily))
				for i, v := range a.Utilization.Daily {
					y[i] = 100 * v
				}
				return y
			})
		}},
		namedPlot{"running_per_day", func() (*plots.Drawing, error) {
			return overlayLines("Jobs running per day", days, "jobs running", labels, as, func(a *Analysis) []float64 {
				return floats(a.Utilization.RunningPerDay)
			})
		}},
		namedPlot{"arrivals_by_hour", func() (*plots.Drawing, error) {
			return overlayLines("Arrivals by hour of day (each trace's time zone)", "hour of day", "share of the trace's jobs (%)", labels, as, func(a *Analysis) []float64 {
				y := floats(a.Arrivals.ByHour[:])
				share(y)
				return y
			})
		}},
		namedPlot{"top_users_cumulative", func() (*plots.Drawing, error) {
			d, err := overlayLines("Cumulative share of the jobs of the top users", "users, by rank (0: none)", "share of the trace's jobs (%)", labels, as, func(a *Analysis) []float64 {
				y := []float64{0}
				for _, u := range a.Users.TopByJob {
					y = append(y, y[len(y)-1]+100*float64(u.Jobs)/float64(max(a.Totals.Jobs, 1)))
				}
				return y
			})
			if d != nil {
				d.Plot().X.Tick.Marker = plots.WholeTicks{} // ranks: no rank 2.5
			}
			return d, err
		}},
	)
	return out
}

func floats[N int64 | float64](v []N) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// share turns counts into percentages of their sum.
func share(v []float64) {
	t := 0.0
	for _, x := range v {
		t += x
	}
	for i := range v {
		if t > 0 {
			v[i] *= 100 / t
		}
	}
}

// overlayLines draws a series of every trace, the k-th value at x = k.
func overlayLines(title, x, y string, labels []string, as []*Analysis, get func(*Analysis) []float64) (*plots.Drawing, error) {
	return overlayXY(title, x, y, labels, as, func(a *Analysis) plotter.XYs { return indexed(get(a), 1) })
}

// overlayXY is overlayLines for series with their own x values (the
// cumulative jobs: hourly for short traces, daily for long ones).
func overlayXY(title, x, y string, labels []string, as []*Analysis, get func(*Analysis) plotter.XYs) (*plots.Drawing, error) {
	xs := make([][]float64, len(as))
	series := make([]plots.Series, len(as))
	for i, a := range as {
		xy := get(a)
		xs[i] = make([]float64, len(xy))
		v := make([]float64, len(xy))
		for k, p := range xy {
			xs[i][k], v[k] = p.X, p.Y
		}
		series[i] = plots.Series{Label: labels[i], Values: v}
	}
	d, err := plots.Lines(title, x, y, xs, series, 0)
	if plots.NoData(err) {
		return nil, nil
	}
	return d, err
}

// drawPlots draws figs into dir (PNG, SVG and CSV at the toolbox's size)
// and returns them for the page.
func drawPlots(figs []namedPlot, dir string) ([]plots.Figure, error) {
	var out []plots.Figure
	for _, f := range figs {
		d, err := f.make()
		if err != nil {
			return out, fmt.Errorf("%s: %v", f.name, err)
		}
		if d == nil {
			continue // nothing to draw (e.g. no memory data)
		}
		fig, err := saveDrawing(dir, d, f.name)
		if err != nil {
			return out, err
		}
		out = append(out, fig)
	}
	return out, nil
}

// PlotTraces draws the toolbox's figures of one trace or more into dir
// (created if needed), with a page, index.html (WritePage), that shows
// them with their captions and the traces' analyses: for one trace, its
// figures; for several, the figures that overlay them all, and each
// trace's own figures and page in a directory of its own (1_NAME, 2_NAME,
// …). It returns the figures of dir's page. command is the command line
// the page shows.
func PlotTraces(as []*Analysis, dir string, command []string) ([]plots.Figure, error) {
	if len(as) == 0 {
		return nil, fmt.Errorf("no trace to draw")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if len(as) == 1 {
		figs, err := drawPlots(analysisPlots(as[0]), dir)
		if err != nil {
			return figs, err
		}
		return figs, WritePage(as, figs, filepath.Join(dir, PageFile), command)
	}
	labels := traceLabels(as)
	figs, err := drawPlots(overlayPlots(as), dir)
	if err != nil {
		return figs, err
	}
	var subs []string
	for i, a := range as {
		sub := strconv.Itoa(i+1) + "_" + strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || r == ' ' {
				return '_'
			}
			return r
		}, labels[i])
		if _, err := PlotTraces([]*Analysis{a}, filepath.Join(dir, sub), command); err != nil {
			return figs, err
		}
		subs = append(subs, sub)
	}
	return figs, writePage(as, figs, subs, filepath.Join(dir, PageFile), command)
}
