// Package plots draws the report's figures with gonum/plot, each as a PNG
// and an SVG: the GrenchMark defaults (Iosup's thesis §5.4) — CDFs of wait,
// run and response time, box and whiskers of wait per run, the X-bar control
// chart of the mean submission delay per run, the wait-versus-run scatter
// (slowdown fairness), the Pareto chart of jobs per site, the bi-histogram of
// the wait of two job types, utilization, goodput and throughput over time,
// the success rate per run — and the response-time breakdown.
//
// Each figure is a function of plain data; All draws every figure of a set
// of runs. Big samples are reduced before drawing (a CDF by its quantiles, a
// scatter by binning), and the figure's note says so.
package plots

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is a figure written to disk.
type Figure struct {
	Name  string `json:"name"`  // file name without extension
	Title string `json:"title"` // what it shows
	PNG   string `json:"png"`   // file names, relative to the directory
	SVG   string `json:"svg"`
	Note  string `json:"note,omitempty"` // how the data were reduced, what is missing
}

// Size of every figure.
var (
	Width  = 8 * vg.Inch
	Height = 4 * vg.Inch
)

// Save writes p as dir/name.png and dir/name.svg.
func Save(p *plot.Plot, dir, name, title, note string) (Figure, error) {
	f := Figure{Name: name, Title: title, PNG: name + ".png", SVG: name + ".svg", Note: note}
	for _, file := range []string{f.PNG, f.SVG} {
		if err := p.Save(Width, Height, filepath.Join(dir, file)); err != nil {
			return f, fmt.Errorf("plot %s: %w", file, err)
		}
	}
	return f, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// Color is the i-th series colour.
func Color(i int) color.Color { return plotutil.Color(i) }

// Series is one named sample (or curve) of a figure.
type Series struct {
	Label  string
	Values []float64
}

// MaxCurvePoints is the most points a CDF or time-series line is drawn with.
const MaxCurvePoints = 512

// LogFloor is the smallest value a log axis shows: smaller values (waits
// of zero) are drawn at it.
const LogFloor = 0.1

// cdfPoints reduces a sorted sample to at most MaxCurvePoints points of its
// empirical CDF (its quantiles at evenly spaced probabilities).
func cdfPoints(sorted []float64, logX bool) plotter.XYs {
	n := len(sorted)
	k := min(n, MaxCurvePoints)
	pts := make(plotter.XYs, 0, k+1)
	for i := 0; i < k; i++ {
		idx := i * (n - 1) / max(k-1, 1)
		x := sorted[idx]
		if logX {
			x = max(x, LogFloor)
		}
		pts = append(pts, plotter.XY{X: x, Y: float64(idx+1) / float64(n)})
	}
	return pts
}

// CDF draws the empirical CDFs of sorted samples, one line per series.
func CDF(dir, name, title, xlabel string, series []Series, logX bool) (Figure, error) {
	p := newPlot(title, xlabel, "fraction of jobs (CDF)")
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Left = true
	note := ""
	any := false
	for i, s := range series {
		if len(s.Values) == 0 {
			continue
		}
		any = true
		if len(s.Values) > MaxCurvePoints {
			note = fmt.Sprintf("curves with more than %d jobs drawn through %d of their quantiles", MaxCurvePoints, MaxCurvePoints)
		}
		l, err := plotter.NewLine(cdfPoints(s.Values, logX))
		if err != nil {
			return Figure{}, err
		}
		l.Color = Color(i)
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(i / 7)
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	if !any {
		return Figure{}, errNoData
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		note = join(note, fmt.Sprintf("log scale; values below %g s drawn at %g s", LogFloor, LogFloor))
	}
	return Save(p, dir, name, title, note)
}

var errNoData = fmt.Errorf("no data")

// NoData tells whether an error from a figure function means there was
// nothing to draw.
func NoData(err error) bool { return err == errNoData }

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// quantileSketch reduces a sorted sample to 1001 of its quantiles, enough
// for a box plot's quartiles and whiskers.
func quantileSketch(sorted []float64) plotter.Values {
	if len(sorted) <= 1001 {
		return plotter.Values(slices.Clone(sorted))
	}
	v := make(plotter.Values, 1001)
	for i := range v {
		v[i] = sorted[i*(len(sorted)-1)/1000]
	}
	return v
}

// Box draws box and whiskers (Tukey: box at the quartiles, whiskers to the
// last values within 1.5 IQR, points beyond) per series, with the mean as a
// cross, as in the thesis's Fig. 5.10.
func Box(dir, name, title, ylabel string, series []Series, means []float64) (Figure, error) {
	p := newPlot(title, "run", ylabel)
	var names []string
	note := ""
	for i, s := range series {
		names = append(names, s.Label)
		if len(s.Values) == 0 {
			continue
		}
		vals := quantileSketch(s.Values)
		if len(s.Values) > len(vals) {
			note = "samples over 1001 values drawn from 1001 of their quantiles (quartiles and whiskers exact to 0.1%; fewer outside points)"
		}
		b, err := plotter.NewBoxPlot(vg.Points(30), float64(i), vals)
		if err != nil {
			return Figure{}, err
		}
		b.FillColor = color.RGBA{R: 0xdd, G: 0xe8, B: 0xf5, A: 0xff}
		b.GlyphStyle.Radius = vg.Points(1.5)
		p.Add(b)
		if i < len(means) && !math.IsNaN(means[i]) {
			sc, _ := plotter.NewScatter(plotter.XYs{{X: float64(i), Y: means[i]}})
			sc.Shape = draw.CrossGlyph{}
			sc.Color = color.RGBA{R: 0xc0, A: 0xff}
			sc.Radius = vg.Points(4)
			p.Add(sc)
			if i == 0 {
				p.Legend.Add("mean", sc)
			}
		}
	}
	if len(names) == 0 {
		return Figure{}, errNoData
	}
	p.NominalX(names...)
	return Save(p, dir, name, title, note)
}

// XBar draws an X-bar control chart: a value per run (the mean submission
// delay), the centre line μ and the control limits μ ± 3σ.
func XBar(dir, name, title, ylabel string, labels []string, values []float64, mu, sigma float64, note string) (Figure, error) {
	if len(values) == 0 {
		return Figure{}, errNoData
	}
	p := newPlot(title, "run", ylabel)
	pts := make(plotter.XYs, len(values))
	for i, v := range values {
		pts[i] = plotter.XY{X: float64(i), Y: v}
	}
	lp, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return Figure{}, err
	}
	lp.Color, sc.Color = Color(0), Color(0)
	sc.Shape = draw.CircleGlyph{}
	p.Add(lp, sc)
	p.Legend.Add("mean per run", lp, sc)
	x0, x1 := -0.5, float64(len(values))-0.5
	hline := func(y float64, label string, c color.Color, dashed bool) {
		l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
		l.Color = c
		if dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(label, l)
	}
	hline(mu, fmt.Sprintf("μ = %.4g", mu), color.Gray{Y: 0x40}, false)
	hline(mu+3*sigma, fmt.Sprintf("μ ± 3σ (σ = %.3g)", sigma), color.RGBA{R: 0xc0, A: 0xff}, true)
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: mu - 3*sigma}, {X: x1, Y: mu - 3*sigma}})
	l.Color = color.RGBA{R: 0xc0, A: 0xff}
	l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(l)
	p.NominalX(labels...)
	return Save(p, dir, name, title, note)
}

// MaxScatterPoints is the largest sample drawn point by point; a larger one
// is binned on a log grid and drawn as bubbles sized by their count (the
// thesis's Fig. 5.11 bubble plot).
const MaxScatterPoints = 5000

// Scatter draws y against x (wait against run time: slowdown fairness),
// log-log.
func Scatter(dir, name, title, xlabel, ylabel string, x, y []float64) (Figure, error) {
	if len(x) == 0 {
		return Figure{}, errNoData
	}
	p := newPlot(title, xlabel, ylabel)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	note := fmt.Sprintf("log-log; values below %g s drawn at %g s", LogFloor, LogFloor)
	if len(x) <= MaxScatterPoints {
		pts := make(plotter.XYs, len(x))
		for i := range x {
			pts[i] = plotter.XY{X: max(x[i], LogFloor), Y: max(y[i], LogFloor)}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return Figure{}, err
		}
		sc.Color = color.NRGBA{B: 0xb0, A: 0x90}
		sc.Radius = vg.Points(2)
		p.Add(sc)
		return Save(p, dir, name, title, note)
	}
	// Bin on a 40 × 40 log grid; one bubble per non-empty cell at the
	// cell's mean, area proportional to the count.
	const cells = 40
	xlo, xhi := logRange(x)
	ylo, yhi := logRange(y)
	type cell struct{ n, sx, sy float64 }
	grid := map[[2]int]*cell{}
	for i := range x {
		lx, ly := math.Log10(max(x[i], LogFloor)), math.Log10(max(y[i], LogFloor))
		cx := min(int((lx-xlo)/(xhi-xlo)*cells), cells-1)
		cy := min(int((ly-ylo)/(yhi-ylo)*cells), cells-1)
		c := grid[[2]int{cx, cy}]
		if c == nil {
			c = &cell{}
			grid[[2]int{cx, cy}] = c
		}
		c.n++
		c.sx += lx
		c.sy += ly
	}
	xyz := make(plotter.XYZs, 0, len(grid))
	maxN := 0.0
	for _, c := range grid {
		xyz = append(xyz, plotter.XYZ{X: math.Pow(10, c.sx/c.n), Y: math.Pow(10, c.sy/c.n), Z: c.n})
		maxN = max(maxN, c.n)
	}
	slices.SortFunc(xyz, func(a, b plotter.XYZ) int { return int(b.Z - a.Z) })
	sc, err := plotter.NewScatter(xyz)
	if err != nil {
		return Figure{}, err
	}
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		r := vg.Points(1 + 6*math.Sqrt(xyz[i].Z/maxN))
		return draw.GlyphStyle{Color: color.NRGBA{R: 0x20, G: 0x40, B: 0xb0, A: 0x80}, Radius: r, Shape: draw.CircleGlyph{}}
	}
	p.Add(sc)
	note = join(note, fmt.Sprintf("%d jobs binned on a 40×40 log grid: each bubble is the jobs of one cell, its area proportional to their number (largest: %.0f)", len(x), maxN))
	return Save(p, dir, name, title, note)
}

// logRange is the range of log10(max(v, LogFloor)), widened a little at the
// top so the largest value falls in the last cell.
func logRange(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, a := range v {
		a = math.Log10(max(a, LogFloor))
		lo, hi = min(lo, a), max(hi, a)
	}
	return lo, hi + 1e-9
}

// Pareto draws the Pareto chart of jobs per site (load-balancing fairness):
// each site's share of the jobs as bars, largest first, and the cumulative
// share against the ideal (every site the same share).
func Pareto(dir, name, title string, sites []string, counts []int) (Figure, error) {
	if len(sites) == 0 {
		return Figure{}, errNoData
	}
	idx := make([]int, len(sites))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return counts[b] - counts[a] })
	total := 0
	for _, c := range counts {
		total += c
	}
	p := newPlot(title, "sites, by number of jobs", "share of the jobs (%)")
	p.Y.Min, p.Y.Max = 0, 100
	p.Legend.Left = true
	n := len(sites)
	step := max(1, (n+39)/40) // at most 40 bars: every step-th rank
	vals := plotter.Values{}
	var names []string
	for r := 0; r < n; r += step {
		vals = append(vals, 100*float64(counts[idx[r]])/float64(total))
		names = append(names, sites[idx[r]])
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(max(4, min(30, 400/float64(len(vals))))))
	if err != nil {
		return Figure{}, err
	}
	bars.Color = color.RGBA{R: 0x70, G: 0x98, B: 0xc8, A: 0xff}
	bars.LineStyle.Width = 0
	if step > 1 {
		bars.Width = vg.Points(4)
	}
	p.Add(bars)
	p.Legend.Add("share of the jobs", bars)
	cum, ideal := make(plotter.XYs, 0, len(vals)), make(plotter.XYs, 0, len(vals))
	acc := 0
	for r := 0; r < n; r++ {
		acc += counts[idx[r]]
		if r%step == 0 {
			x := float64(r / step)
			cum = append(cum, plotter.XY{X: x, Y: 100 * float64(acc) / float64(total)})
			ideal = append(ideal, plotter.XY{X: x, Y: 100 * float64(r+1) / float64(n)})
		}
	}
	lc, _ := plotter.NewLine(cum)
	lc.Color, lc.Width = color.RGBA{R: 0xc0, A: 0xff}, vg.Points(1.5)
	li, _ := plotter.NewLine(ideal)
	li.Color, li.Dashes = color.Gray{Y: 0x40}, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(lc, li)
	p.Legend.Add("cumulative share", lc)
	p.Legend.Add("ideal cumulative share", li)
	if len(names) <= 20 {
		p.NominalX(names...)
	} else {
		p.X.Label.Text = fmt.Sprintf("%d sites, by number of jobs (every %d-th rank)", n, step)
	}
	note := ""
	if step > 1 {
		note = fmt.Sprintf("%d sites: bars drawn at every %d-th rank", n, step)
	}
	return Save(p, dir, name, title, note)
}

// BiHistogram draws the histograms of two samples, the first upwards and the
// second downwards, on the same bins (batch-size fairness, Fig. 5.12).
func BiHistogram(dir, name, title, xlabel string, up, down Series) (Figure, error) {
	if len(up.Values) == 0 || len(down.Values) == 0 {
		return Figure{}, errNoData
	}
	all := append(slices.Clone(up.Values), down.Values...)
	slices.Sort(all)
	hi := all[int(0.99*float64(len(all)-1))] // the top 1% would squash the rest
	lo := all[0]
	if hi <= lo {
		hi = lo + 1
	}
	const bins = 30
	w := (hi - lo) / bins
	count := func(v []float64) plotter.Values {
		c := make(plotter.Values, bins)
		for _, x := range v {
			if x > hi {
				continue
			}
			c[min(int((x-lo)/w), bins-1)]++
		}
		return c
	}
	cu, cd := count(up.Values), count(down.Values)
	for i := range cd {
		cd[i] = -cd[i]
	}
	p := newPlot(title, xlabel, "jobs (second type downwards)")
	bw := vg.Points(360 / bins)
	bu, err := plotter.NewBarChart(cu, bw)
	if err != nil {
		return Figure{}, err
	}
	bd, err := plotter.NewBarChart(cd, bw)
	if err != nil {
		return Figure{}, err
	}
	bu.Color, bd.Color = Color(0), Color(1)
	bu.LineStyle.Width, bd.LineStyle.Width = 0, 0
	p.Add(bu, bd)
	p.Legend.Add(fmt.Sprintf("%s (%d jobs)", up.Label, len(up.Values)), bu)
	p.Legend.Add(fmt.Sprintf("%s (%d jobs)", down.Label, len(down.Values)), bd)
	p.X.Tick.Marker = binTicks{lo: lo, w: w, n: bins}
	return Save(p, dir, name, title, fmt.Sprintf("%d bins of %.3g s from %.3g s; values above the 99th percentile (%.3g s) left out", bins, w, lo, hi))
}

// binTicks labels bar positions (0 … n−1) with the bins' lower edges.
type binTicks struct {
	lo, w float64
	n     int
}

func (b binTicks) Ticks(_, _ float64) []plot.Tick {
	var t []plot.Tick
	step := max(1, b.n/6)
	for i := 0; i <= b.n; i++ {
		label := ""
		if i%step == 0 {
			label = fmt.Sprintf("%.3g", b.lo+float64(i)*b.w)
		}
		t = append(t, plot.Tick{Value: float64(i) - 0.5, Label: label})
	}
	return t
}

// Lines draws time series, one line per series, x values shared per series.
func Lines(dir, name, title, xlabel, ylabel string, xs [][]float64, series []Series, ymin float64) (Figure, error) {
	p := newPlot(title, xlabel, ylabel)
	any := false
	for i, s := range series {
		if len(s.Values) == 0 {
			continue
		}
		any = true
		pts := make(plotter.XYs, len(s.Values))
		for k, v := range s.Values {
			pts[k] = plotter.XY{X: xs[i][k], Y: v}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return Figure{}, err
		}
		l.Color, l.Width = Color(i), vg.Points(1.3)
		l.Dashes = plotutil.Dashes(i / 7)
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	if !any {
		return Figure{}, errNoData
	}
	p.Y.Min = ymin
	return Save(p, dir, name, title, "")
}

// Bars draws one bar per label.
func Bars(dir, name, title, ylabel string, labels []string, values []float64, ymax float64) (Figure, error) {
	if len(values) == 0 {
		return Figure{}, errNoData
	}
	p := newPlot(title, "run", ylabel)
	b, err := plotter.NewBarChart(plotter.Values(values), vg.Points(max(6, min(40, 400/float64(len(values))))))
	if err != nil {
		return Figure{}, err
	}
	b.Color = Color(0)
	b.LineStyle.Width = 0
	p.Add(b)
	p.NominalX(labels...)
	p.Y.Min = 0
	if ymax > 0 {
		p.Y.Max = ymax
	}
	return Save(p, dir, name, title, "")
}

// Stacked draws stacked bars: per label, the parts named in parts (one
// value per label each).
func Stacked(dir, name, title, ylabel string, labels []string, parts []Series) (Figure, error) {
	if len(labels) == 0 || len(parts) == 0 {
		return Figure{}, errNoData
	}
	p := newPlot(title, "run", ylabel)
	w := vg.Points(max(8, min(40, 400/float64(len(labels)))))
	var below *plotter.BarChart
	for i, s := range parts {
		b, err := plotter.NewBarChart(plotter.Values(s.Values), w)
		if err != nil {
			return Figure{}, err
		}
		b.Color = Color(i)
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(s.Label, b)
	}
	p.NominalX(labels...)
	p.Y.Min = 0
	return Save(p, dir, name, title, "")
}

// MkdirAll creates dir.
func MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }
