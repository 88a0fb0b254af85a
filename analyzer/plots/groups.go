package plots

import (
	"fmt"
	"image/color"
	"math"
	"reflect"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The figures of a comparison (gmark report --compare): groups of runs side
// by side, the i-th group in the i-th colour (Color) in every figure.

// Fill is the i-th series colour, lightened for the inside of a box.
func Fill(i int) color.Color {
	r, g, b, _ := Color(i).RGBA()
	light := func(c uint32) uint8 { return uint8((c>>8)*2/5 + 0xff*3/5) }
	return color.RGBA{R: light(r), G: light(g), B: light(b), A: 0xff}
}

// Hex is the i-th series colour as #rrggbb, for the tables of an HTML page.
func Hex(i int) string {
	r, g, b, _ := Color(i).RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// GroupBox draws box and whiskers (Tukey, as Box) per series, the i-th box
// filled with the i-th colour, with the mean (means[i], when drawable) as a
// cross (dark grey, in no group's colour); xlabel names what the series are (groups of runs).
func GroupBox(title, xlabel, ylabel string, series []Series, means []float64) (*Drawing, error) {
	d, err := Box(title, ylabel, series, means)
	if err != nil {
		return nil, err
	}
	d.plot.X.Label.Text = xlabel
	for _, it := range d.plot.items {
		if b, ok := it.(*plotter.BoxPlot); ok {
			k := int(b.Location)
			b.FillColor = Fill(k)
			b.BoxStyle.Color = Color(k)
		} else if sc, ok := it.(*plotter.Scatter); ok { // the means: not in a group's colour
			sc.Color = Neutral
		}
	}
	return d, nil
}

// Points are the values of one series at x positions, each with a
// confidence interval [Lo, Hi] (NaN: none).
type Points struct {
	Label  string
	X, Y   []float64
	Lo, Hi []float64
}

// ErrorLines draws, per series, its points joined by a line (in order of
// x) with their confidence intervals as error bars, the i-th series in the
// i-th colour. When several series share x values, each is shifted
// sideways by a small fraction of the x range so that their bars do not
// hide each other; the note says so. Points with an undefined x or y are
// left out and counted.
func ErrorLines(title, xlabel, ylabel string, series []Points) (*Drawing, error) {
	p := newPlot(title, xlabel, ylabel)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		if len(s.X) != len(s.Y) || len(s.Lo) != len(s.Y) || len(s.Hi) != len(s.Y) {
			return nil, fmt.Errorf("series %s: %d x, %d y, %d lower and %d upper values", s.Label, len(s.X), len(s.Y), len(s.Lo), len(s.Hi))
		}
		for _, x := range s.X {
			if drawable(x) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	shift := 0.0
	if len(series) > 1 && sharedX(series) {
		shift = 0.025 * max(hi-lo, 1)
	}
	drawn, dropped, noCI := false, 0, 0
	for i, s := range series {
		dx := shift * (float64(i) - float64(len(series)-1)/2)
		pts, bars, bad, missing := errorPoints(s, dx)
		dropped, noCI = dropped+bad, noCI+missing
		if len(pts) == 0 {
			continue
		}
		drawn = true
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = Color(i), vg.Points(1.3), Dashes(i)
		sc.Color, sc.Shape, sc.Radius = Color(i), draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(l, sc)
		p.shifted(dx, l, sc)
		if len(bars.XYs) > 0 {
			eb, err := plotter.NewYErrorBars(bars)
			if err != nil {
				return nil, err
			}
			eb.Color, eb.Width, eb.CapWidth = Color(i), vg.Points(1), vg.Points(6)
			p.Add(eb)
			p.shifted(dx, eb)
		}
		p.Legend.Add(s.Label, l, sc)
	}
	if !drawn {
		return nil, errNoData
	}
	note := "bars: 95% confidence intervals"
	if shift > 0 {
		note += fmt.Sprintf("; series shifted sideways by up to %s so that their bars do not overlap", Num(shift*float64(len(series)-1)/2, 2))
	}
	if noCI > 0 {
		note += fmt.Sprintf("; %d points without an interval", noCI)
	}
	return p.drawing(title, join(note, leftOutNote(dropped))), nil
}

// shifted records that the plotters ps are drawn dx to the right of
// their data, for the figure's CSV.
func (f *figure) shifted(dx float64, ps ...any) {
	if dx == 0 {
		return
	}
	if f.shift == nil {
		f.shift = map[uintptr]float64{}
	}
	for _, p := range ps {
		f.shift[reflect.ValueOf(p).Pointer()] = dx
	}
}

// sharedX tells whether two series have a point at the same x.
func sharedX(series []Points) bool {
	seen := map[float64]int{}
	for i, s := range series {
		for _, x := range slices.Compact(slices.Sorted(slices.Values(s.X))) {
			if j, ok := seen[x]; ok && j != i {
				return true
			}
			seen[x] = i
		}
	}
	return false
}

// yErrors are points with their error bars, for plotter.NewYErrorBars.
type yErrors struct {
	plotter.XYs
	plotter.YErrors
}

// errorPoints are the drawable points of s (x shifted by dx), sorted by x,
// and those of them with an interval; it counts the points left out and
// those drawn without an interval.
func errorPoints(s Points, dx float64) (pts plotter.XYs, bars yErrors, bad, noCI int) {
	idx := make([]int, 0, len(s.X))
	for k := range s.X {
		if drawable(s.X[k]) && drawable(s.Y[k]) {
			idx = append(idx, k)
		} else {
			bad++
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case s.X[a] < s.X[b]:
			return -1
		case s.X[a] > s.X[b]:
			return 1
		}
		return 0
	})
	for _, k := range idx {
		xy := plotter.XY{X: s.X[k] + dx, Y: s.Y[k]}
		pts = append(pts, xy)
		l, h := s.Lo[k], s.Hi[k]
		if !drawable(l) || !drawable(h) || l > s.Y[k] || h < s.Y[k] {
			noCI++
			continue
		}
		bars.XYs = append(bars.XYs, xy)
		bars.YErrors = append(bars.YErrors, struct{ Low, High float64 }{s.Y[k] - l, h - s.Y[k]})
	}
	return pts, bars, bad, noCI
}
