// Package plots draws the report's figures with gonum/plot, each as a PNG
// and an SVG: the GrenchMark defaults (Iosup's thesis §5.4) — CDFs of wait,
// run and response time, box and whiskers of wait per run, the X-bar control
// chart of the mean submission delay per run, the wait-versus-run scatter
// (slowdown fairness), the Pareto chart of jobs per site, the bi-histogram of
// the wait of two job types, utilization, goodput and throughput over time,
// the success rate per run — and the response-time breakdown.
//
// Each figure is a function of plain data that returns a Drawing, which
// Save writes to disk. Big samples are reduced before drawing (a CDF by its
// quantiles, a scatter by binning), and the figure's note says so. Any
// sample draws: empty ones are refused with NoData; undefined values are
// left out and counted; a log axis is used only where the values span
// decades, and counts the values it shows at LogFloor.
package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gmark/gmark/internal/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is a figure written to disk.
type Figure struct {
	Name  string `json:"name"`  // file name without extension
	Title string `json:"title"` // what it shows
	PNG   string `json:"png"`   // file names, relative to the directory
	SVG   string `json:"svg"`
	CSV   string `json:"csv,omitempty"`  // the data drawn (PlotData), beside the images
	PDF   string `json:"pdf,omitempty"`  // for a paper (SavePDF), when asked for
	Note  string `json:"note,omitempty"` // how the data were reduced, what is missing
}

// Size of every figure.
var (
	Width  = 8 * vg.Inch
	Height = 4 * vg.Inch
)

// Drawing is a figure drawn in memory, to be saved or rendered.
type Drawing struct {
	Title string
	Note  string // how the data were reduced, what is missing
	plot  *figure
}

// figure is a plot being drawn: a gonum plot that remembers what was added
// to it, so that its axes can be padded to the data (finish) and checked.
type figure struct {
	*plot.Plot
	items []plot.Plotter
}

// Add adds plotters to the plot, as plot.Plot.Add does.
func (f *figure) Add(ps ...plot.Plotter) {
	f.items = append(f.items, ps...)
	f.Plot.Add(ps...)
}

// drawing finishes f (see finish) as a Drawing.
func (f *figure) drawing(title, note string) *Drawing {
	f.finish()
	return &Drawing{Title: title, Note: note, plot: f}
}

// finish widens the axes to the whole of what is drawn: half a category
// each side of bars and boxes (their width is in points, which gonum's
// data range leaves out), then PadAxes; a bar chart keeps its value axis
// at 0.
func (f *figure) finish() {
	bars := false
	for _, it := range f.items {
		lo, hi, ok := categorySpan(it)
		if !ok {
			continue
		}
		if _, isBar := it.(*plotter.BarChart); isBar {
			bars = true
		}
		f.X.Min, f.X.Max = min(f.X.Min, lo), max(f.X.Max, hi)
	}
	PadAxes(f.Plot, bars)
}

// categorySpan is the x range a bar chart's or box plot's categories take,
// half a category each side of their centres.
func categorySpan(it plot.Plotter) (lo, hi float64, ok bool) {
	switch b := it.(type) {
	case *plotter.BarChart:
		if len(b.Values) == 0 || b.Horizontal {
			return 0, 0, false
		}
		return b.XMin - 0.5, b.XMin + float64(len(b.Values)-1) + 0.5, true
	case *plotter.BoxPlot:
		return b.Location - 0.5, b.Location + 0.5, true
	}
	return 0, 0, false
}

// Save writes the drawing as dir/name.png and dir/name.svg, and its data
// as dir/name.csv (PlotData), each through internal/outfile (a complete
// file or none; a link to a file is followed).
func (d *Drawing) Save(dir, name string) (Figure, error) {
	f := Figure{Name: name, Title: d.Title, PNG: name + ".png", SVG: name + ".svg", Note: d.Note}
	d.Saving(name, Width, Height)
	for _, file := range []string{f.PNG, f.SVG} {
		if err := saveAs(d.plot.Plot, filepath.Join(dir, file)); err != nil {
			return f, fmt.Errorf("plot %s: %w", file, err)
		}
	}
	file, err := saveData(d.plot, dir, name)
	if err != nil {
		return f, fmt.Errorf("data %s: %w", file, err)
	}
	f.CSV = file
	return f, nil
}

// Render writes the drawing to w in a format of gonum/plot ("png", "svg",
// "pdf", …), laid out as WriteTo does.
func (d *Drawing) Render(w io.Writer, format string) error {
	return WriteTo(w, d.plot.Plot, Width, Height, format)
}

// SavePDF writes the drawing as dir/name.pdf (for a paper), as Save writes
// the PNG and SVG.
func (d *Drawing) SavePDF(dir, name string) (string, error) {
	file := name + ".pdf"
	d.Saving(name, Width, Height)
	return file, saveAs(d.plot.Plot, filepath.Join(dir, file))
}

func saveAs(p *plot.Plot, path string) error {
	out, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	if err := WriteTo(out, p, Width, Height, strings.TrimPrefix(filepath.Ext(path), ".")); err != nil {
		return err
	}
	return out.Commit()
}

func newPlot(title, x, y string) *figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	Style(p)
	return &figure{Plot: p}
}

// Series is one named sample (or curve) of a figure.
type Series struct {
	Label  string
	Values []float64
}

// MaxCurvePoints is the most points a CDF or time-series line is drawn with.
const MaxCurvePoints = 512

// LogFloor is the smallest value a log axis shows: smaller values (waits
// of zero, or negative ones from a clock of whole seconds) are drawn at it,
// and the figure's note counts them.
const LogFloor = 0.1

var errNoData = errors.New("no data")

// NoData tells whether an error from a figure function means there was
// nothing to draw.
func NoData(err error) bool { return errors.Is(err, errNoData) }

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// MaxValue bounds the values a figure draws: beyond ±1e15 (thirty million
// years in seconds) a value is no measurement, and gonum/plot's ticks do not
// survive ranges near the largest floats (they loop or panic).
const MaxValue = 1e15

// drawable tells whether a figure can draw x: a number within ±MaxValue.
func drawable(x float64) bool { return math.Abs(x) <= MaxValue }

// finite is v without the values it cannot draw (NaN, infinite, beyond
// MaxValue; v itself when it has none), and how many it left out.
func finite(v []float64) ([]float64, int) {
	bad := 0
	for _, x := range v {
		if !drawable(x) {
			bad++
		}
	}
	if bad == 0 {
		return v, 0
	}
	out := make([]float64, 0, len(v)-bad)
	for _, x := range v {
		if drawable(x) {
			out = append(out, x)
		}
	}
	return out, bad
}

func leftOutNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d undefined, infinite or out-of-range (beyond ±%g) values left out", n, MaxValue)
}

// CDF draws the empirical CDFs of samples, one line per series, on a log
// x axis when logX and the values span decades (see scale: zeros on a log
// axis are drawn apart, at "= 0").
func CDF(title, xlabel string, series []Series, logX bool) (*Drawing, error) {
	note := ""
	dropped := 0
	samples := make([][]float64, len(series))
	curves := make([]Curve, len(series))
	for i, s := range series {
		v, bad := finite(s.Values)
		dropped += bad
		if !slices.IsSorted(v) {
			v = slices.Clone(v)
			slices.Sort(v)
		}
		samples[i] = v
		if len(v) > MaxCurvePoints {
			note = fmt.Sprintf("curves with more than %d jobs drawn through %d of their quantiles", MaxCurvePoints, MaxCurvePoints)
		}
		curves[i] = sampleCurve(s.Label, v)
	}
	sc := scaleOf(logX, samples...)
	d, err := drawCurves(title, xlabel, "fraction of jobs (CDF)", curves, sc)
	if err != nil {
		return nil, err
	}
	d.Note = join(join(note, sc.note("x", samples...)), leftOutNote(dropped))
	return d, nil
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
func Box(title, ylabel string, series []Series, means []float64) (*Drawing, error) {
	p := newPlot(title, "run", ylabel)
	var names []string
	note := ""
	drawn, dropped := false, 0
	for i, s := range series {
		names = append(names, s.Label)
		v, bad := finite(s.Values)
		dropped += bad
		if len(v) == 0 {
			continue
		}
		if !slices.IsSorted(v) {
			v = slices.Clone(v)
			slices.Sort(v)
		}
		drawn = true
		vals := quantileSketch(v)
		if len(v) > len(vals) {
			note = "samples over 1001 values drawn from 1001 of their quantiles (quartiles and whiskers exact to 0.1%; fewer outside points)"
		}
		b, err := plotter.NewBoxPlot(vg.Points(30), float64(i), vals)
		if err != nil {
			return nil, err
		}
		b.FillColor = BoxFill
		b.GlyphStyle.Radius = vg.Points(1.5)
		p.Add(b)
		if i < len(means) && drawable(means[i]) {
			sc, err := plotter.NewScatter(plotter.XYs{{X: float64(i), Y: means[i]}})
			if err != nil {
				return nil, err
			}
			sc.Shape = draw.CrossGlyph{}
			sc.Color = Accent
			sc.Radius = vg.Points(4)
			p.Add(sc)
			if i == 0 {
				p.Legend.Add("mean", sc)
			}
		}
	}
	if !drawn {
		return nil, errNoData
	}
	p.NominalX(names...)
	return p.drawing(title, join(note, leftOutNote(dropped))), nil
}

// XBar draws an X-bar control chart: a value per run (the mean submission
// delay), the centre line μ and the control limits μ ± 3σ.
func XBar(title, ylabel string, labels []string, values []float64, mu, sigma float64, note string) (*Drawing, error) {
	if len(values) == 0 {
		return nil, errNoData
	}
	if len(labels) != len(values) {
		return nil, fmt.Errorf("%d labels for %d values", len(labels), len(values))
	}
	for i, v := range values {
		if !drawable(v) {
			return nil, fmt.Errorf("the value of %s is %g: not a number within ±%g", labels[i], v, MaxValue)
		}
	}
	if !drawable(mu) {
		return nil, fmt.Errorf("the centre line μ is %g: not a number within ±%g", mu, MaxValue)
	}
	if !drawable(3 * sigma) {
		sigma, note = 0, join(note, "σ undefined: control limits drawn at μ")
	}
	p := newPlot(title, "run", ylabel)
	pts := make(plotter.XYs, len(values))
	for i, v := range values {
		pts[i] = plotter.XY{X: float64(i), Y: v}
	}
	lp, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	lp.Color, sc.Color = Color(0), Color(0)
	sc.Shape = draw.CircleGlyph{}
	p.Add(lp, sc)
	p.Legend.Add("mean per run", lp, sc)
	x0, x1 := -0.5, float64(len(values))-0.5
	limit := Accent
	for _, h := range []struct {
		y      float64
		label  string
		c      color.Color
		dashed bool
	}{
		{mu, "μ = " + Num(mu, 4), Neutral, false},
		{mu + 3*sigma, "μ ± 3σ (σ = " + Num(sigma, 3) + ")", limit, true},
		{mu - 3*sigma, "", limit, true},
	} {
		l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: h.y}, {X: x1, Y: h.y}})
		if err != nil {
			return nil, err
		}
		l.Color = h.c
		if h.dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		if h.label != "" {
			p.Legend.Add(h.label, l)
		}
	}
	p.NominalX(labels...)
	return p.drawing(title, note), nil
}

// MaxScatterPoints is the largest sample drawn point by point; a larger one
// is binned on a grid and drawn as bubbles sized by their count (the
// thesis's Fig. 5.11 bubble plot).
const MaxScatterPoints = 5000

// Scatter draws y against x (wait against run time: slowdown fairness),
// each axis on a log scale when its values span decades (see scale).
func Scatter(title, xlabel, ylabel string, x, y []float64) (*Drawing, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("%d x values for %d y values", len(x), len(y))
	}
	// Only the pairs with both values finite are drawn (copied only when
	// some are not: a million pairs are 16 MB).
	n := 0
	for i := range x {
		if drawable(x[i]) && drawable(y[i]) {
			n++
		}
	}
	dropped := len(x) - n
	if dropped > 0 {
		fx, fy := make([]float64, 0, n), make([]float64, 0, n)
		for i := range x {
			if drawable(x[i]) && drawable(y[i]) {
				fx, fy = append(fx, x[i]), append(fy, y[i])
			}
		}
		x, y = fx, fy
	}
	if len(x) == 0 {
		return nil, errNoData
	}
	p := newPlot(title, xlabel, ylabel)
	sx, sy := scaleOf(true, x), scaleOf(true, y)
	note := join(join(sx.note("x", x), sy.note("y", y)), leftOutNote(dropped))
	if len(x) <= MaxScatterPoints {
		pts := make(plotter.XYs, len(x))
		for i := range x {
			pts[i] = plotter.XY{X: sx.at(x[i]), Y: sy.at(y[i])}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = color.NRGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0x90} // Color(0), translucent
		sc.Radius = vg.Points(2)
		p.Add(sc)
		sx.apply(p, &p.X)
		sy.apply(p, &p.Y)
		return p.drawing(title, note), nil
	}
	// Bin on a 40 × 40 grid (of the logarithms on a log axis); one bubble
	// per non-empty cell at the cell's mean, area proportional to the count.
	const cells = 40
	tx, ty := sx.transform(), sy.transform()
	xlo, xhi := tx.span(x)
	ylo, yhi := ty.span(y)
	type cell struct{ n, sx, sy float64 }
	grid := map[[2]int]*cell{}
	for i := range x {
		lx, ly := tx.fwd(x[i]), ty.fwd(y[i])
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
		xyz = append(xyz, plotter.XYZ{X: tx.inv(c.sx / c.n), Y: ty.inv(c.sy / c.n), Z: c.n})
		maxN = max(maxN, c.n)
	}
	slices.SortFunc(xyz, func(a, b plotter.XYZ) int { return int(b.Z - a.Z) })
	sc, err := plotter.NewScatter(xyz)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		r := vg.Points(1 + 6*math.Sqrt(xyz[i].Z/maxN))
		return draw.GlyphStyle{Color: color.NRGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0x80}, Radius: r, Shape: draw.CircleGlyph{}}
	}
	p.Add(sc)
	sx.apply(p, &p.X)
	sy.apply(p, &p.Y)
	note = join(note, fmt.Sprintf("%d jobs binned on a 40×40 grid: each bubble is the jobs of one cell, its area proportional to their number (largest: %.0f)", len(x), maxN))
	return p.drawing(title, note), nil
}

// Pareto draws the Pareto chart of jobs per site (load-balancing fairness):
// each site's share of the jobs as bars, largest first, and the cumulative
// share against the ideal (every site the same share).
func Pareto(title string, sites []string, counts []int) (*Drawing, error) {
	if len(sites) != len(counts) {
		return nil, fmt.Errorf("%d sites for %d counts", len(sites), len(counts))
	}
	total := 0
	for _, c := range counts {
		if c < 0 {
			return nil, fmt.Errorf("a negative count of jobs (%d)", c)
		}
		total += c
	}
	if total == 0 {
		return nil, errNoData
	}
	idx := make([]int, len(sites))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return counts[b] - counts[a] })
	p := newPlot(title, "sites, by number of jobs", "share of the jobs (%)")
	p.Y.Min, p.Y.Max = -2, 100 // below 0: the cumulative line's start, off the frame
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
		return nil, err
	}
	bars.Color = Color(5)
	bars.LineStyle.Width = 0
	if step > 1 {
		bars.Width = vg.Points(4)
	}
	p.Add(bars)
	p.Legend.Add("share of the jobs", bars)
	// The cumulative shares start from 0 at the left edge of the first bar
	// and reach each bar's group's share at its right edge (bar g is drawn
	// at x = g, one bar per step ranks).
	cum := plotter.XYs{{X: -0.5, Y: 0}}
	ideal := plotter.XYs{{X: -0.5, Y: 0}}
	acc := 0
	for r := 0; r < n; r++ {
		acc += counts[idx[r]]
		if (r+1)%step == 0 || r == n-1 {
			x := float64(r/step) + 0.5
			cum = append(cum, plotter.XY{X: x, Y: 100 * float64(acc) / float64(total)})
			ideal = append(ideal, plotter.XY{X: x, Y: 100 * float64(r+1) / float64(n)})
		}
	}
	lc, err := plotter.NewLine(cum)
	if err != nil {
		return nil, err
	}
	lc.Color, lc.Width = Accent, vg.Points(1.5)
	li, err := plotter.NewLine(ideal)
	if err != nil {
		return nil, err
	}
	li.Color, li.Dashes = Neutral, []vg.Length{vg.Points(4), vg.Points(3)}
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
	return p.drawing(title, note), nil
}

// nthOfTwo is the value of rank k (from 0) of the union of two sorted
// samples: what sorting their concatenation would put at k.
func nthOfTwo(a, b []float64, k int) float64 {
	i, j := 0, 0
	for {
		switch {
		case i == len(a):
			return b[j+k]
		case j == len(b):
			return a[i+k]
		}
		x, y := a[i], b[j]
		if k == 0 {
			return min(x, y)
		}
		if x <= y {
			i++
		} else {
			j++
		}
		k--
	}
}

// BiHistogram draws the histograms of two samples, the first upwards and the
// second downwards, on the same bins (batch-size fairness, Fig. 5.12): at
// most 30 bins of a round width (1, 2, 2.5 or 5 times a power of ten)
// from a multiple of it, so that the bins' edges are round values, each
// bar filling its bin on an axis of the values marked at round values.
func BiHistogram(title, xlabel string, up, down Series) (*Drawing, error) {
	uv, badU := finite(up.Values)
	dv, badD := finite(down.Values)
	if len(uv) == 0 || len(dv) == 0 {
		return nil, errNoData
	}
	// The bins span the least value to the 99th percentile of both (the
	// top 1% would squash the rest), read off the two sorted samples.
	if !slices.IsSorted(uv) {
		uv = slices.Clone(uv)
		slices.Sort(uv)
	}
	if !slices.IsSorted(dv) {
		dv = slices.Clone(dv)
		slices.Sort(dv)
	}
	hi := nthOfTwo(uv, dv, int(0.99*float64(len(uv)+len(dv)-1)))
	lo, w, bins := histogramBins(min(uv[0], dv[0]), hi, 30)
	histogram := func(v []float64, sign float64) *histBars {
		h := &histBars{Width: w}
		for i := range bins {
			h.XYs = append(h.XYs, plotter.XY{X: lo + (float64(i)+0.5)*w})
		}
		for _, x := range v {
			if x > hi {
				continue
			}
			h.XYs[max(0, min(int((x-lo)/w), bins-1))].Y += sign
		}
		return h
	}
	bu, bd := histogram(uv, 1), histogram(dv, -1)
	p := newPlot(title, xlabel, "jobs (second type downwards)")
	bu.Color, bd.Color = Color(0), Color(1)
	p.Add(bu, bd)
	p.Legend.Add(fmt.Sprintf("%s (%d jobs)", up.Label, len(uv)), bu)
	p.Legend.Add(fmt.Sprintf("%s (%d jobs)", down.Label, len(dv)), bd)
	note := fmt.Sprintf("%s of %s from %s; values above the 99th percentile (%s) left out", count(bins, "bin"), Num(w, 3), Num(lo, 6), Num(hi, 4))
	return p.drawing(title, join(note, leftOutNote(badU+badD))), nil
}

// histBars are a histogram's bars, each filling its bin: bin i centred at
// XYs[i].X, Width wide, from 0 to XYs[i].Y (down for a negative count).
// (plotter.Histogram draws its bars from the bottom of the plot, so it
// cannot draw the downward half; a bar chart's bars are a width in points
// at category positions, not their bins.) The figure's data lists each
// bin's middle and count.
type histBars struct {
	plotter.XYs
	Width float64
	Color color.Color
}

// Plot implements plot.Plotter.
func (h *histBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, b := range h.XYs {
		if b.Y == 0 {
			continue
		}
		x0, x1 := trX(b.X-h.Width/2), trX(b.X+h.Width/2)
		y0, y1 := trY(0), trY(b.Y)
		c.FillPolygon(h.Color, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
	}
}

// DataRange implements plot.DataRanger: the bins' span, and 0 to the
// largest count (or down to the most negative).
func (h *histBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, b := range h.XYs {
		xmin, xmax = min(xmin, b.X-h.Width/2), max(xmax, b.X+h.Width/2)
		ymin, ymax = min(ymin, b.Y), max(ymax, b.Y)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer: the legend's swatch.
func (h *histBars) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(h.Color, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}

// histogramBins are the bins of a histogram of values from lo to hi: the
// round width w (1, 2, 2.5 or 5 times a power of ten) that covers them in
// at most max bins, from the multiple of w at or below lo.
func histogramBins(lo, hi float64, most int) (start, w float64, bins int) {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) || lo+span/float64(most) == lo { // every value equal (or a range a float cannot split)
		w = 1
		if a := math.Abs(lo); a > 0 && lo+a/10 != lo {
			w = math.Pow(10, math.Floor(math.Log10(a)))
		}
		return math.Floor(lo/w) * w, w, 1
	}
	p := math.Pow(10, math.Floor(math.Log10(span/float64(most))))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		w = m * p
		start = math.Floor(lo/w) * w
		if bins = int(math.Ceil((hi-start)/w - 1e-9)); bins <= most {
			break
		}
	}
	return start, w, max(bins, 1)
}

// Lines draws time series, one line per series, x values shared per series;
// points with an undefined x or y are left out.
func Lines(title, xlabel, ylabel string, xs [][]float64, series []Series, ymin float64) (*Drawing, error) {
	if len(xs) != len(series) {
		return nil, fmt.Errorf("%d x series for %d series", len(xs), len(series))
	}
	p := newPlot(title, xlabel, ylabel)
	drawn, dropped := false, 0
	for i, s := range series {
		if len(s.Values) == 0 { // e.g. utilization with the system size unknown
			continue
		}
		if len(xs[i]) != len(s.Values) {
			return nil, fmt.Errorf("series %s: %d x values for %d values", s.Label, len(xs[i]), len(s.Values))
		}
		pts := make(plotter.XYs, 0, len(s.Values))
		for k, v := range s.Values {
			x := xs[i][k]
			if !drawable(v) || !drawable(x) {
				dropped++
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: v})
		}
		if len(pts) == 0 {
			continue
		}
		drawn = true
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = Color(i), vg.Points(1.3)
		l.Dashes = Dashes(i)
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	if !drawn {
		return nil, errNoData
	}
	p.Y.Min = min(p.Y.Min, ymin)
	return p.drawing(title, leftOutNote(dropped)), nil
}

// Bars draws one bar per label; an undefined value (NaN) gets no bar, and
// the note names it.
func Bars(title, ylabel string, labels []string, values []float64, ymax float64) (*Drawing, error) {
	if len(labels) != len(values) {
		return nil, fmt.Errorf("%d labels for %d values", len(labels), len(values))
	}
	vals := make(plotter.Values, len(values))
	var undefined []string
	for i, v := range values {
		if !drawable(v) {
			undefined = append(undefined, labels[i])
			continue
		}
		vals[i] = v
	}
	if len(undefined) == len(values) {
		return nil, errNoData
	}
	p := newPlot(title, "run", ylabel)
	b, err := plotter.NewBarChart(vals, vg.Points(max(6, min(40, 400/float64(len(values))))))
	if err != nil {
		return nil, err
	}
	b.Color = Color(0)
	b.LineStyle.Width = 0
	p.Add(b)
	p.NominalX(labels...)
	p.Y.Min = min(p.Y.Min, 0)
	if ymax > 0 {
		p.Y.Max = max(p.Y.Max, ymax)
	}
	note := ""
	if len(undefined) > 0 {
		note = "no value (no bar) for " + strings.Join(undefined, ", ")
	}
	return p.drawing(title, note), nil
}

// Stacked draws stacked bars: per label, the parts named in parts (one
// value per label each, none negative).
func Stacked(title, ylabel string, labels []string, parts []Series) (*Drawing, error) {
	if len(labels) == 0 || len(parts) == 0 {
		return nil, errNoData
	}
	for _, s := range parts {
		if len(s.Values) != len(labels) {
			return nil, fmt.Errorf("part %s: %d values for %d labels", s.Label, len(s.Values), len(labels))
		}
		for i, v := range s.Values {
			if !(v >= 0) || !drawable(v) {
				return nil, fmt.Errorf("part %s of %s is %v: a stacked bar needs values from 0 to %g", s.Label, labels[i], v, MaxValue)
			}
		}
	}
	p := newPlot(title, "run", ylabel)
	w := vg.Points(max(8, min(40, 400/float64(len(labels)))))
	var below *plotter.BarChart
	for i, s := range parts {
		b, err := plotter.NewBarChart(plotter.Values(s.Values), w)
		if err != nil {
			return nil, err
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
	return p.drawing(title, ""), nil
}

// Grouped draws grouped bars: per label on the x axis, one bar per series
// side by side (e.g. per site, a bar per way of running). A value that is
// not drawable gets no bar, and the note says which.
func Grouped(title, xlabel, ylabel string, labels []string, series []Series) (*Drawing, error) {
	if len(labels) == 0 || len(series) == 0 {
		return nil, errNoData
	}
	p := newPlot(title, xlabel, ylabel)
	w := vg.Points(max(4, min(30, 300/float64(len(labels)*len(series)))))
	var undefined []string
	drawn := false
	for i, s := range series {
		if len(s.Values) != len(labels) {
			return nil, fmt.Errorf("series %s: %d values for %d labels", s.Label, len(s.Values), len(labels))
		}
		vals := make(plotter.Values, len(s.Values))
		var none []string
		for k, v := range s.Values {
			if !drawable(v) {
				none = append(none, s.Label+" "+labels[k])
				continue
			}
			vals[k] = v
		}
		if len(none) == len(s.Values) { // no bar at all: no bar chart of zeros on the axis
			undefined = append(undefined, s.Label+" (any)")
			continue
		}
		undefined, drawn = append(undefined, none...), true
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		b.Color = Color(i)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(i)-float64(len(series)-1)/2)
		p.Add(b)
		p.Legend.Add(s.Label, b)
	}
	if !drawn {
		return nil, errNoData
	}
	p.NominalX(labels...)
	p.Y.Min = min(p.Y.Min, 0)
	// Room for the outer groups' bars, beside their centres.
	p.X.Min, p.X.Max = -0.6, float64(len(labels))-0.4
	note := ""
	if len(undefined) > 0 {
		note = "no value (no bar) for " + strings.Join(undefined, ", ")
	}
	return p.drawing(title, note), nil
}
