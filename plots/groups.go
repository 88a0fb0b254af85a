package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
// confidence interval [Lo, Hi] (NaN: none) and, when N is given, the
// number of values it is over (repetitions, runs; 0: not known).
type Points struct {
	Label  string
	X, Y   []float64
	Lo, Hi []float64
	N      []int
}

// MinIntervalN is the fewest values a point's interval may be over to be
// drawn: a Student t interval over two values has one degree of freedom
// (t = 12.7) and shows how few they are more than where the mean lies.
const MinIntervalN = 3

// Domain is the range of values a metric can take (a utilization's [0,
// 1], a wait's [0, ∞)); the zero Domain is every value.
type Domain struct{ Lo, Hi float64 }

// Unbounded is every value; NonNegative the values ≥ 0; Fraction [0, 1];
// Percent [0, 100].
var (
	Unbounded   = Domain{math.Inf(-1), math.Inf(1)}
	NonNegative = Domain{0, math.Inf(1)}
	Fraction    = Domain{0, 1}
	Percent     = Domain{0, 100}
)

func (d Domain) bounds() (lo, hi float64) {
	if d == (Domain{}) {
		return math.Inf(-1), math.Inf(1)
	}
	return d.Lo, d.Hi
}

func (d Domain) String() string {
	lo, hi := d.bounds()
	b := func(v float64) string {
		switch {
		case math.IsInf(v, 1):
			return "∞"
		case math.IsInf(v, -1):
			return "−∞"
		}
		return Num(v, 6)
	}
	left, right := "[", "]"
	if math.IsInf(lo, -1) {
		left = "("
	}
	if math.IsInf(hi, 1) {
		right = ")"
	}
	return left + b(lo) + ", " + b(hi) + right
}

// Intervals say what the error bars of ErrorLines are: What they are
// ("95% confidence intervals of the mean"), Of what N counts
// ("repetitions"), and the Domain of the metric, where the bars are cut.
type Intervals struct {
	What, Of string
	Domain   Domain
}

// ErrorLines draws, per series, its points joined by a line (in order of
// x) with their confidence intervals as error bars, the i-th series in the
// i-th colour and marker shape (Glyph). Every point is drawn at its own x,
// its bar too (the bars are translucent, so that one over another shows);
// an x axis of a few levels is marked at them (LevelTicks), one of whole
// numbers at whole numbers. An interval over fewer than MinIntervalN
// values is not drawn, and one that reaches past the metric's domain is
// cut at its edge: the note says which and how many. Points with an
// undefined x or y are left out and counted. iv, when given, says what
// the intervals are (the first is used).
func ErrorLines(title, xlabel, ylabel string, series []Points, iv ...Intervals) (*Drawing, error) {
	in := Intervals{What: "95% confidence intervals", Of: "values"}
	if len(iv) > 0 {
		in.Domain = iv[0].Domain
		in.What = cmp.Or(iv[0].What, in.What)
		in.Of = cmp.Or(iv[0].Of, in.Of)
	}
	p := newPlot(title, xlabel, ylabel)
	var levels []float64
	for _, s := range series {
		if len(s.X) != len(s.Y) || len(s.Lo) != len(s.Y) || len(s.Hi) != len(s.Y) || s.N != nil && len(s.N) != len(s.Y) {
			return nil, fmt.Errorf("series %s: %d x, %d y, %d lower, %d upper values and %d counts", s.Label, len(s.X), len(s.Y), len(s.Lo), len(s.Hi), len(s.N))
		}
		for k, x := range s.X {
			if drawable(x) && drawable(s.Y[k]) {
				levels = append(levels, x)
			}
		}
	}
	drawn := false
	var st barStats
	for i, s := range series {
		pts, bars := errorPoints(s, in.Domain, &st)
		if len(pts) == 0 {
			continue
		}
		drawn = true
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = Color(i), vg.Points(1.3), Dashes(i)
		sc.Color, sc.Shape, sc.Radius = Color(i), Glyph(i), vg.Points(2.8)
		p.Add(l, sc)
		if len(bars.XYs) > 0 {
			eb, err := plotter.NewYErrorBars(bars)
			if err != nil {
				return nil, err
			}
			eb.Color, eb.Width, eb.CapWidth = translucent(Color(i), 0xb0), vg.Points(1.2), vg.Points(7)
			p.Add(eb)
		}
		p.Legend.Add(s.Label, l, sc)
	}
	if !drawn {
		return nil, errNoData
	}
	slices.Sort(levels)
	if t := levelTicker(slices.Compact(levels)); t != nil {
		p.X.Tick.Marker = t
	}
	return p.drawing(title, join(st.note(in), leftOutNote(st.bad))), nil
}

// count is n things, in the plural but for one.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// translucent is c with alpha a.
func translucent(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// barStats count, over a figure's points, those left out (bad), those
// drawn without an interval because it is over too few values (few, the
// fewest and most of those values) or has none (none), and the bars cut
// at the domain's edges.
type barStats struct {
	bad, none, few, cut, bars int
	fewMin, fewMax            int
}

// note says what the bars are and what the figure leaves out of them.
func (st barStats) note(in Intervals) string {
	var parts []string
	switch {
	case st.bars > 0:
		parts = append(parts, "bars: "+in.What)
	case st.few > 0 && st.none == 0:
		n, of := strconv.Itoa(st.fewMax), in.Of
		if st.fewMin != st.fewMax {
			n = strconv.Itoa(st.fewMin) + " to " + n
		} else if st.fewMax == 1 {
			of = strings.TrimSuffix(of, "s")
		}
		return fmt.Sprintf("no %s: each point is over %s %s, fewer than the %d an interval needs", in.What, n, of, MinIntervalN)
	case st.few+st.none > 0:
		parts = append(parts, "no "+in.What)
	}
	if st.bars > 0 && st.few > 0 {
		parts = append(parts, fmt.Sprintf("none at the %s over fewer than %d %s", count(st.few, "point"), MinIntervalN, in.Of))
	}
	if st.none > 0 {
		parts = append(parts, count(st.none, "point")+" without an interval")
	}
	if st.cut > 0 {
		parts = append(parts, fmt.Sprintf("%s cut at the bounds of the metric's values, %s", count(st.cut, "bar"), in.Domain))
	}
	return strings.Join(parts, "; ")
}

// yErrors are points with their error bars, for plotter.NewYErrorBars.
type yErrors struct {
	plotter.XYs
	plotter.YErrors
}

// errorPoints are the drawable points of s, sorted by x, and those of
// them with an interval over at least MinIntervalN values, cut to dom;
// st counts what is left out.
func errorPoints(s Points, dom Domain, st *barStats) (pts plotter.XYs, bars yErrors) {
	idx := make([]int, 0, len(s.X))
	for k := range s.X {
		if drawable(s.X[k]) && drawable(s.Y[k]) {
			idx = append(idx, k)
		} else {
			st.bad++
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(s.X[a], s.X[b]) })
	dlo, dhi := dom.bounds()
	for _, k := range idx {
		xy := plotter.XY{X: s.X[k], Y: s.Y[k]}
		pts = append(pts, xy)
		l, h := s.Lo[k], s.Hi[k]
		switch {
		case s.N != nil && s.N[k] > 0 && s.N[k] < MinIntervalN:
			if st.few == 0 {
				st.fewMin, st.fewMax = s.N[k], s.N[k]
			}
			st.few++
			st.fewMin, st.fewMax = min(st.fewMin, s.N[k]), max(st.fewMax, s.N[k])
			continue
		case !drawable(l) || !drawable(h) || l > s.Y[k] || h < s.Y[k]:
			st.none++
			continue
		}
		// Cut at the domain's edges, never past the point itself (a mean
		// outside its domain, from values outside it, keeps its bar's end).
		if cl, ch := max(l, min(dlo, s.Y[k])), min(h, max(dhi, s.Y[k])); cl != l || ch != h {
			st.cut++
			l, h = cl, ch
		}
		st.bars++
		bars.XYs = append(bars.XYs, xy)
		bars.YErrors = append(bars.YErrors, struct{ Low, High float64 }{s.Y[k] - l, h - s.Y[k]})
	}
	return pts, bars
}
