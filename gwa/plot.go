package gwa

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gmark/gmark/analyzer/plots"
	"github.com/gmark/gmark/internal/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// The figures of the GWA report (thesis §3.3.5, Figs. 3.2-3.6), drawn with
// gonum/plot as PNG and SVG: utilization over time and in the busiest month,
// arrivals by hour of day and weekday, the CDFs of the six job
// characteristics (log x axis, as the thesis draws times), the top users by
// jobs and by CPU time, the busiest sites, running jobs per day and the
// cumulative number of jobs.

// The size of the toolbox's figures.
const (
	plotWidth  = 9 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// PlotAnalysis writes the figures of a into dir (created if needed), each
// as PNG and SVG with its data as CSV beside them (plots.PlotData), and
// returns them in order.
func PlotAnalysis(a *Analysis, dir string) ([]plots.Figure, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var figs []plots.Figure
	save := func(p *plot.Plot, name string) error {
		f := plots.Figure{Name: name, Title: p.Title.Text, PNG: name + ".png", SVG: name + ".svg", CSV: plots.CSVName(name)}
		for _, file := range []string{f.PNG, f.SVG} {
			if err := SavePlot(p, plotWidth, plotHeight, filepath.Join(dir, file)); err != nil {
				return err
			}
		}
		if err := plots.SavePlotData(p, filepath.Join(dir, f.CSV)); errors.Is(err, plots.ErrNoDataView) {
			f.CSV = "" // the figure without its data
		} else if err != nil {
			return err
		}
		figs = append(figs, f)
		return nil
	}
	for _, f := range analysisPlots(a) {
		p, err := f.make()
		if err != nil {
			return figs, fmt.Errorf("%s: %v", f.name, err)
		}
		if p == nil {
			continue // nothing to draw (e.g. no memory data)
		}
		if err := save(p, f.name); err != nil {
			return figs, err
		}
	}
	return figs, nil
}

// SavePlot writes p, w by h, to path in the format of its extension (.png,
// .svg, ...), as an output of package outfile: through a symbolic link,
// through a FIFO or a device, replacing a file only once the figure is
// whole, never over a directory. (gonum's Plot.Save creates the file
// itself, so it would replace a link or a FIFO with a file.)
//
// The figure is laid out as every gmark figure is (plots.WriteTo: margins,
// the legend outside the plot).
func SavePlot(p *plot.Plot, w, h vg.Length, path string) error {
	var buf bytes.Buffer
	if err := plots.WriteTo(&buf, p, w, h, strings.TrimPrefix(filepath.Ext(path), ".")); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return outfile.WriteFile(path, buf.Bytes())
}

func indexed(vals []float64, scale float64) plotter.XYs {
	xy := make(plotter.XYs, len(vals))
	for i, v := range vals {
		xy[i].X, xy[i].Y = float64(i), v*scale
	}
	return xy
}

// cumulative is the number of jobs submitted by each day's end, from 0 at
// the trace's start: day i's arrivals are counted at x = i+1, when they
// have all arrived (not at x = i, which would start the curve at day 0's
// count).
func cumulative[N int | int64](perDay []N) plotter.XYs {
	if len(perDay) == 0 {
		return nil
	}
	xy := make(plotter.XYs, 0, len(perDay)+1)
	xy = append(xy, plotter.XY{})
	c := 0.0
	for i, n := range perDay {
		c += float64(n)
		xy = append(xy, plotter.XY{X: float64(i + 1), Y: c})
	}
	return xy
}

// newPlot is a plot in gmark's figure style (plots.Style).
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	plots.Style(p)
	return p
}

func linePlot(title, x, y string, xy plotter.XYs) (*plot.Plot, error) {
	if len(xy) == 0 {
		return nil, nil
	}
	p := newPlot(title, x, y)
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = plots.Color(0), vg.Points(1.3)
	p.Add(l)
	p.Y.Min = 0
	plots.PadAxes(p, false)
	return p, nil
}

func barPlot(title, x, y string, labels []string, vals []float64) (*plot.Plot, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	p := newPlot(title, x, y)
	b, err := plotter.NewBarChart(plotter.Values(vals), vg.Points(math.Max(4, 400/float64(len(vals)))))
	if err != nil {
		return nil, err
	}
	b.Color, b.LineStyle.Width = plots.Color(0), 0
	p.Add(b)
	p.NominalX(labels...)
	// Half a category beside the outer bars, so that none is cut.
	p.X.Min, p.X.Max = -0.5, float64(len(vals))-0.5
	plots.PadAxes(p, true)
	return p, nil
}

// cdfPlot draws a summary's CDF as a step line on a log x axis (a linear
// one when the values span less than a decade); values <= 0 cannot be
// drawn on it and are left out (the curve starts at their share).
func cdfPlot(title, x string, s *Summary) (*plot.Plot, error) {
	if s == nil || s.Count == 0 {
		return nil, nil
	}
	var xy plotter.XYs
	for _, pt := range s.CDF {
		if pt.Value <= 0 {
			continue
		}
		if len(xy) > 0 {
			xy = append(xy, plotter.XY{X: pt.Value, Y: xy[len(xy)-1].Y})
		}
		xy = append(xy, plotter.XY{X: pt.Value, Y: pt.P})
	}
	if len(xy) < 2 {
		if len(xy) == 1 {
			xy = append(xy, plotter.XY{X: xy[0].X * 1.01, Y: xy[0].Y})
		} else {
			return nil, nil
		}
	}
	p := newPlot(title+" CDF ("+strconv.FormatInt(s.Count, 10)+" values)", x, "P(X ≤ x)")
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = plots.Color(0), vg.Points(1.5)
	p.Add(l)
	p.Y.Min, p.Y.Max = 0, 1
	if p.X.Max < 10*p.X.Min { // less than a decade: a log axis would show one tick
		plots.PadAxes(p, false)
		return p, nil
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plots.LogTicks{}
	// A little room beyond the values on the log axis (a factor), and
	// on the linear one.
	p.X.Min, p.X.Max = p.X.Min/1.25, p.X.Max*1.25
	plots.PadAxes(p, false)
	return p, nil
}

// namedPlot is a figure of the trace toolbox: its file name and how to
// draw it (a nil plot when there is nothing to draw).
type namedPlot struct {
	name string
	make func() (*plot.Plot, error)
}

// analysisPlots are the figures of a, in the order PlotAnalysis writes them.
func analysisPlots(a *Analysis) []namedPlot {
	title := a.Trace.Name
	if title != "" {
		title += ": "
	}
	since := "days since the trace start"
	if a.Trace.Start != "" {
		since = "days since " + a.Trace.Start
	}
	return []namedPlot{
		{"utilization_daily", func() (*plot.Plot, error) {
			return linePlot(title+"utilization per day ("+strconv.Itoa(a.Utilization.Processors)+" processors)", since, "utilization (%)",
				indexed(a.Utilization.Daily, 100))
		}},
		{"utilization_busiest_month", func() (*plot.Plot, error) {
			return linePlot(title+"hourly utilization, busiest month "+a.Utilization.BusiestMonth, "hours from the month's first hour in the trace", "utilization (%)",
				indexed(a.Utilization.BusiestHourly, 100))
		}},
		{"arrivals_by_hour", func() (*plot.Plot, error) {
			labels := make([]string, 24)
			vals := make([]float64, 24)
			for i := range labels {
				labels[i], vals[i] = strconv.Itoa(i), float64(a.Arrivals.ByHour[i])
			}
			return barPlot(title+"arrivals by hour of day ("+a.Trace.TimeZone+")", "hour of day", "jobs submitted", labels, vals)
		}},
		{"arrivals_by_weekday", func() (*plot.Plot, error) {
			labels := []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
			if a.Trace.UnixStartTime == 0 {
				labels = []string{"day 0", "day 1", "day 2", "day 3", "day 4", "day 5", "day 6"}
			}
			vals := make([]float64, 7)
			for i := range vals {
				vals[i] = float64(a.Arrivals.ByWeekday[i])
			}
			return barPlot(title+"arrivals by day of week", "day of week", "jobs submitted", labels, vals)
		}},
		{"cdf_inter_arrival", func() (*plot.Plot, error) {
			return cdfPlot(title+"inter-arrival time", "inter-arrival time (s)", a.Distributions.InterArrival)
		}},
		{"cdf_wait", func() (*plot.Plot, error) {
			return cdfPlot(title+"wait time", "wait time (s)", a.Distributions.Wait)
		}},
		{"cdf_run_time", func() (*plot.Plot, error) {
			return cdfPlot(title+"run time", "run time (s)", a.Distributions.RunTime)
		}},
		{"cdf_parallelism", func() (*plot.Plot, error) {
			return cdfPlot(title+"parallelism", "processors per job", a.Distributions.Parallelism)
		}},
		{"cdf_memory", func() (*plot.Plot, error) {
			return cdfPlot(title+"memory", "used memory per processor (KB)", a.Distributions.Memory)
		}},
		{"cdf_cpu_time", func() (*plot.Plot, error) {
			return cdfPlot(title+"consumed CPU time", "average CPU time per processor (s)", a.Distributions.CPUTime)
		}},
		{"top_users_by_jobs", func() (*plot.Plot, error) {
			var labels []string
			var vals []float64
			for _, u := range a.Users.TopByJob {
				labels, vals = append(labels, u.User), append(vals, float64(u.Jobs))
			}
			return barPlot(title+"top users by jobs", "user", "jobs", labels, vals)
		}},
		{"top_users_by_cpu", func() (*plot.Plot, error) {
			var labels []string
			var vals []float64
			for _, u := range a.Users.TopByCPU {
				labels, vals = append(labels, u.User), append(vals, u.CPU/(365*86400))
			}
			return barPlot(title+"top users by CPU time", "user", "CPU-years", labels, vals)
		}},
		{"top_sites_by_jobs", func() (*plot.Plot, error) {
			var labels []string
			var vals []float64
			for _, s := range a.Sites[:min(len(a.Sites), 20)] {
				l := s.Site
				if s.Name != "" {
					l = s.Name
				}
				labels, vals = append(labels, l), append(vals, float64(s.Jobs))
			}
			p, err := barPlot(title+"top sites by jobs", "", "jobs", labels, vals)
			if p != nil {
				p.X.Tick.Label.Rotation = math.Pi / 2.5
				p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
			}
			return p, err
		}},
		{"running_per_day", func() (*plot.Plot, error) {
			vals := make([]float64, len(a.Utilization.RunningPerDay))
			for i, n := range a.Utilization.RunningPerDay {
				vals[i] = float64(n)
			}
			return linePlot(title+"jobs running per day (spike "+strconv.FormatInt(a.Utilization.Spike, 10)+")", since, "jobs running", indexed(vals, 1))
		}},
		{"cumulative_jobs", func() (*plot.Plot, error) {
			return linePlot(title+"cumulative jobs submitted", since, "jobs", cumulative(a.Arrivals.PerDay))
		}},
	}
}
