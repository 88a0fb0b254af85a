package plots

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// scale is how an axis draws its values. A log axis needs values > 0 and a
// range that is not a single point (gonum/plot panics otherwise), and only
// helps when the values span decades: so an axis is logarithmic when its
// largest value is at least ten times its smallest positive one (values
// below LogFloor counting as LogFloor); otherwise it is linear and shows
// zeros and negatives as they are.
//
// A log axis cannot show a zero, and zeros are common (waits of jobs that
// started at once: most of a quick local run's). Rather than pile them on
// the axis's first tick, where they read as small positive values, a log
// axis with values ≤ 0 is split: they are drawn at a separate place left
// of (below) the log range, its tick labelled "= 0" ("≤ 0" when some are
// negative, from a clock of whole seconds), past a break drawn across the
// plot; the figure's note counts them.
type scale struct {
	log     bool
	lo, hi  float64 // the range of the positive values drawn (after LogFloor) on a log axis; of all on a linear one
	floored bool    // a log axis draws positive values below LogFloor at it
	zeros   bool    // a log axis draws values ≤ 0 at zeroAt, past a break
	neg     bool    // some of those are < 0
}

// scaleOf chooses the scale of an axis of the values; wantLog asks for a
// log axis where the values allow one.
func scaleOf(wantLog bool, values ...[]float64) scale {
	lo, hi, minPos := math.Inf(1), math.Inf(-1), math.Inf(1)
	for _, v := range values {
		for _, x := range v {
			lo, hi = min(lo, x), max(hi, x)
			if x > 0 {
				minPos = min(minPos, x)
			}
		}
	}
	if !wantLog || !(hi > 0) || hi < 10*max(minPos, LogFloor) {
		return scale{lo: lo, hi: hi}
	}
	return scale{log: true, lo: max(minPos, LogFloor), hi: hi, floored: minPos < LogFloor, zeros: lo <= 0, neg: lo < 0}
}

// decade is the power of ten where a log axis's range of positive values
// starts.
func (s scale) decade() float64 { return math.Pow(10, math.Floor(math.Log10(s.lo))) }

// zeroAt is where a split log axis draws the values ≤ 0: a quarter of the
// first decade, past the break at half of it.
func (s scale) zeroAt() float64 { return s.decade() / 4 }

// at is where v is drawn.
func (s scale) at(v float64) float64 {
	switch {
	case !s.log:
		return v
	case v <= 0 && s.zeros:
		return s.zeroAt()
	}
	return max(v, LogFloor)
}

// zeroLabel labels the place of the values ≤ 0 on a split log axis.
func (s scale) zeroLabel() string {
	if s.neg {
		return "≤ 0"
	}
	return "= 0"
}

// apply sets ax, an axis of f, to the scale; call it after adding every
// plotter, which would widen the range. A log axis spans the decades of
// the values, from half the lowest one's start, so that values at its
// start (those drawn at LogFloor) are off the axis line and their tick is
// labelled; a split one starts an eighth of it, left of the values ≤ 0,
// and gets its break.
func (s scale) apply(f *figure, ax *plot.Axis) {
	if !s.log {
		return
	}
	ax.Scale = plot.LogScale{}
	lt := LogTicks{}
	if s.floored { // the tick at LogFloor says that it holds the values below it
		lt.Floor = LogFloor
	}
	ax.Min = s.decade() / 2
	if s.zeros {
		lt.Zero, lt.ZeroLabel = s.zeroAt(), s.zeroLabel()
		ax.Min = s.decade() / 8
		f.Add(axisBreak{at: s.decade() / 2, x: ax == &f.X})
	}
	ax.Tick.Marker = lt
	// A quarter more than the largest value, so that it is not drawn on
	// the frame.
	ax.Max = min(max(math.Pow(10, math.Ceil(math.Log10(s.hi))), 1.25*s.hi), math.MaxFloat64)
	if ax.Max <= ax.Min {
		ax.Max = 10 * ax.Min
	}
}

// note says how the axis shows the values: for a log axis, how many are
// drawn at "= 0" past the break and how many at LogFloor, so that zeros are
// counted rather than hidden.
func (s scale) note(axis string, values ...[]float64) string {
	if !s.log {
		if s.lo == s.hi {
			return fmt.Sprintf("every value on the %s axis is %s s", axis, Num(s.lo, 4))
		}
		return ""
	}
	n, tiny, zero, neg := 0, 0, 0, 0
	for _, v := range values {
		n += len(v)
		for _, x := range v {
			switch {
			case x < 0:
				neg++
			case x == 0:
				zero++
			case x < LogFloor:
				tiny++
			}
		}
	}
	note := axis + " on a log scale"
	if zero+neg > 0 {
		var parts []string
		if zero > 0 {
			parts = append(parts, fmt.Sprintf("%d = 0", zero))
		}
		if neg > 0 {
			parts = append(parts, fmt.Sprintf("%d < 0", neg))
		}
		note += fmt.Sprintf(", split: %s of %d values (%s, %s%%) drawn apart at \"%s\", left of the break", Num(float64(zero+neg), 10), n,
			strings.Join(parts, ", "), Num(100*float64(zero+neg)/float64(n), 3), s.zeroLabel())
	}
	if tiny > 0 {
		note += fmt.Sprintf("; %d of %d values between 0 and %g s drawn at %g s", tiny, n, LogFloor, LogFloor)
	}
	return note
}

// axisBreak marks the split of a log axis: a dashed line across the plot
// between the values ≤ 0 and the log range, and a double slash on the
// axis line.
type axisBreak struct {
	at float64
	x  bool // on the x axis; else the y axis
}

// Plot implements plot.Plotter.
func (b axisBreak) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	ls := draw.LineStyle{Color: color.Gray{Y: 0x90}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}}
	slash := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	d := vg.Points(3)
	if b.x {
		x := trX(b.at)
		c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
		y := c.Min.Y - plt.X.Padding
		for _, dx := range []vg.Length{-d / 2, d / 2} {
			c.StrokeLine2(slash, x+dx-d/2, y-d, x+dx+d/2, y+d)
		}
		return
	}
	y := trY(b.at)
	c.StrokeLine2(ls, c.Min.X, y, c.Max.X, y)
	x := c.Min.X - plt.Y.Padding
	for _, dy := range []vg.Length{-d / 2, d / 2} {
		c.StrokeLine2(slash, x-d, y+dy-d/2, x+d, y+dy+d/2)
	}
}

// transform maps an axis's values to the space its grid cells are equal
// in: the logarithms of where they are drawn on a log axis, the values on
// a linear one.
type transform struct{ s scale }

func (s scale) transform() transform { return transform{s} }

func (t transform) fwd(v float64) float64 {
	if t.s.log {
		return math.Log10(t.s.at(v))
	}
	return v
}

func (t transform) inv(v float64) float64 {
	if t.s.log {
		return math.Pow(10, v)
	}
	return v
}

// span is the range of the transformed values, widened a little at the
// top so the largest value falls in the last cell, and to a width of 1
// when they are all equal.
func (t transform) span(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, a := range v {
		a = t.fwd(a)
		lo, hi = min(lo, a), max(hi, a)
	}
	if hi-lo < 1e-9*max(1, math.Abs(lo)) {
		return lo, lo + 1
	}
	return lo, hi + 1e-9*(hi-lo)
}
