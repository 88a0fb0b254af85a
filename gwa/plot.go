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

	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/plots"
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
// as PNG and SVG with its data as CSV beside them (plots.SavePlotData),
// and returns them in order (PlotTraces adds the page).
func PlotAnalysis(a *Analysis, dir string) ([]plots.Figure, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return drawPlots(analysisPlots(a), dir)
}

// saveDrawing saves a drawing as dir/name.png and .svg at the toolbox's
// size, with the data it draws as dir/name.csv (none for a figure whose
// data cannot be read back), and returns the figure.
func saveDrawing(dir string, d *plots.Drawing, name string) (plots.Figure, error) {
	d.Saving(name, plotWidth, plotHeight)
	f := plots.Figure{Name: name, Title: d.Title, Note: d.Note, PNG: name + ".png", SVG: name + ".svg", CSV: plots.CSVName(name)}
	for _, file := range []string{f.PNG, f.SVG} {
		if err := SavePlot(d.Plot(), plotWidth, plotHeight, filepath.Join(dir, file)); err != nil {
			return f, err
		}
	}
	if err := plots.SavePlotData(d.Plot(), filepath.Join(dir, f.CSV)); errors.Is(err, plots.ErrNoDataView) {
		f.CSV = ""
	} else if err != nil {
		return f, err
	}
	return f, nil
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

// cumulative is the number of jobs submitted by each time, in days from
// the trace's start, from 0: exact (a step at each submit time) for a
// trace with its submit times kept, else at the end of each hour when the
// trace is short enough to have hourly counts, else of each day. A bin's
// arrivals are counted at its end, when they have all arrived (not at its
// start, which would start the curve at the first bin's count); a burst
// within a bin is drawn as a ramp over it, which is why the finest
// available resolution is taken.
func cumulative(ar Arrivals) plotter.XYs {
	switch {
	case ar.Times != nil:
		return cumulativeSteps(ar.Times)
	case ar.PerHour != nil:
		return cumulativeBins(ar.PerHour, 1.0/24)
	}
	return cumulativeBins(ar.PerDay, 1)
}

// cumulativeSteps is the staircase of sorted submit times (s): the count
// before and after each distinct time.
func cumulativeSteps(times []float64) plotter.XYs {
	if len(times) == 0 {
		return nil
	}
	xy := plotter.XYs{{}}
	for i := 0; i < len(times); {
		k := i
		for k < len(times) && times[k] == times[i] {
			k++
		}
		x := times[i] / 86400
		xy = append(xy, plotter.XY{X: x, Y: float64(i)}, plotter.XY{X: x, Y: float64(k)})
		i = k
	}
	return xy
}

func cumulativeBins(counts []int64, width float64) plotter.XYs {
	if len(counts) == 0 {
		return nil
	}
	xy := make(plotter.XYs, 0, len(counts)+1)
	xy = append(xy, plotter.XY{})
	c := 0.0
	for i, n := range counts {
		c += float64(n)
		xy = append(xy, plotter.XY{X: float64(i+1) * width, Y: c})
	}
	return xy
}

func linePlot(title, x, y string, xy plotter.XYs) (*plots.Drawing, error) {
	if len(xy) == 0 {
		return nil, nil
	}
	b := plots.NewBuilder(title, x, y)
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = plots.Color(0), vg.Points(1.3)
	b.Add(l)
	b.Plot().Y.Min = 0
	return b.Done(""), nil
}

func barPlot(title, x, y string, labels []string, vals []float64) (*plots.Drawing, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	b := plots.NewBuilder(title, x, y)
	bc, err := plotter.NewBarChart(plotter.Values(vals), vg.Points(math.Max(4, 400/float64(len(vals)))))
	if err != nil {
		return nil, err
	}
	bc.Color, bc.LineStyle.Width = plots.Color(0), 0
	b.Add(bc)
	b.Plot().NominalX(labels...)
	return b.Done(""), nil
}

// summaryCurve is a summary's CDF points as a curve of plots.
func summaryCurve(label string, s *Summary) plots.Curve {
	c := plots.Curve{Label: label}
	if s == nil {
		return c
	}
	for _, pt := range s.CDF {
		c.X, c.P = append(c.X, pt.Value), append(c.P, pt.P)
	}
	return c
}

// cdfPlot draws a summary's CDF on a log x axis (a linear one when the
// values span less than a decade); values ≤ 0 are drawn apart, at "= 0"
// left of the axis's break, and the note gives their share.
func cdfPlot(title, x string, s *Summary) (*plots.Drawing, error) {
	if s == nil || s.Count == 0 || len(s.CDF) == 0 {
		return nil, nil
	}
	d, err := plots.CDFCurves(title+" CDF ("+plots.Num(float64(s.Count), 20)+" values)", x, []plots.Curve{summaryCurve("", s)}, true)
	if plots.NoData(err) {
		return nil, nil
	}
	return d, err
}

// namedPlot is a figure of the trace toolbox: its file name and how to
// draw it (a nil plot when there is nothing to draw).
type namedPlot struct {
	name string
	make func() (*plots.Drawing, error)
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
	return append([]namedPlot{
		{"utilization_daily", func() (*plots.Drawing, error) {
			return linePlot(title+"utilization per day ("+plots.Num(float64(a.Utilization.Processors), 20)+" processors)", since, "utilization (%)",
				indexed(a.Utilization.Daily, 100))
		}},
		{"utilization_busiest_month", func() (*plots.Drawing, error) {
			return linePlot(title+"hourly utilization, busiest month "+a.Utilization.BusiestMonth, "hours from the month's first hour in the trace", "utilization (%)",
				indexed(a.Utilization.BusiestHourly, 100))
		}},
		{"arrivals_by_hour", func() (*plots.Drawing, error) {
			labels := make([]string, 24)
			vals := make([]float64, 24)
			for i := range labels {
				labels[i], vals[i] = strconv.Itoa(i), float64(a.Arrivals.ByHour[i])
			}
			return barPlot(title+"arrivals by hour of day ("+a.Trace.TimeZone+")", "hour of day", "jobs submitted", labels, vals)
		}},
		{"arrivals_by_weekday", func() (*plots.Drawing, error) {
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
		{"cdf_inter_arrival", func() (*plots.Drawing, error) {
			return cdfPlot(title+"inter-arrival time", "inter-arrival time (s)", a.Distributions.InterArrival)
		}},
		{"cdf_wait", func() (*plots.Drawing, error) {
			return cdfPlot(title+"wait time", "wait time (s)", a.Distributions.Wait)
		}},
		{"cdf_run_time", func() (*plots.Drawing, error) {
			return cdfPlot(title+"run time", "run time (s)", a.Distributions.RunTime)
		}},
		{"cdf_parallelism", func() (*plots.Drawing, error) {
			return cdfPlot(title+"parallelism", "processors per job", a.Distributions.Parallelism)
		}},
		{"cdf_memory", func() (*plots.Drawing, error) {
			return cdfPlot(title+"memory", "used memory per processor (KB)", a.Distributions.Memory)
		}},
		{"cdf_cpu_time", func() (*plots.Drawing, error) {
			return cdfPlot(title+"consumed CPU time", "average CPU time per processor (s)", a.Distributions.CPUTime)
		}},
		{"top_users_by_jobs", func() (*plots.Drawing, error) {
			var labels []string
			var vals []float64
			for _, u := range a.Users.TopByJob {
				labels, vals = append(labels, u.User), append(vals, float64(u.Jobs))
			}
			return barPlot(title+"top users by jobs", "user", "jobs", labels, vals)
		}},
		{"top_users_by_cpu", func() (*plots.Drawing, error) {
			var labels []string
			var vals []float64
			for _, u := range a.Users.TopByCPU {
				labels, vals = append(labels, u.User), append(vals, u.CPU/(365*86400))
			}
			return barPlot(title+"top users by CPU time", "user", "CPU-years", labels, vals)
		}},
		{"top_sites_by_jobs", func() (*plots.Drawing, error) {
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
				p.Plot().X.Tick.Label.Rotation = math.Pi / 2.5
				p.Plot().X.Tick.Label.XAlign, p.Plot().X.Tick.Label.YAlign = -1, -0.5
			}
			return p, err
		}},
		{"running_per_day", func() (*plots.Drawing, error) {
			vals := make([]float64, len(a.Utilization.RunningPerDay))
			for i, n := range a.Utilization.RunningPerDay {
				vals[i] = float64(n)
			}
			return linePlot(title+"jobs running per day (spike "+plots.Num(float64(a.Utilization.Spike), 20)+")", since, "jobs running", indexed(vals, 1))
		}},
		{"cumulative_jobs", func() (*plots.Drawing, error) {
			return linePlot(title+"cumulative jobs submitted", since, "jobs", cumulative(a.Arrivals))
		}},
	}, groupPlots(a, title)...)
}
