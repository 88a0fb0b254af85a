package plots

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Curve is the empirical CDF of one sample: at each X (ascending), the
// fraction P of the sample's values that are ≤ X.
type Curve struct {
	Label string
	X, P  []float64
}

// sampleCurve reduces a sorted sample to at most MaxCurvePoints points of
// its empirical CDF (its quantiles at evenly spaced probabilities), and
// the exact fraction of values ≤ 0, where a split log axis puts its break.
func sampleCurve(label string, sorted []float64) Curve {
	n := len(sorted)
	c := Curve{Label: label}
	if n == 0 {
		return c
	}
	k := min(n, MaxCurvePoints)
	last := -1
	add := func(idx int) {
		if idx > last {
			c.X, c.P = append(c.X, sorted[idx]), append(c.P, float64(idx+1)/float64(n))
			last = idx
		}
	}
	z, _ := slices.BinarySearch(sorted, 1e-300) // values ≤ 0 come first
	for i := 0; i < k; i++ {
		idx := i * (n - 1) / max(k-1, 1)
		if z > 0 && idx >= z-1 && last < z-1 {
			add(z - 1)
		}
		add(idx)
	}
	return c
}

// CDFCurves draws empirical CDFs given as points (a trace's summary), one
// line per curve, on a log x axis when logX and the values span decades;
// values ≤ 0 on a log axis are drawn apart, at "= 0" (see scale).
func CDFCurves(title, xlabel string, curves []Curve, logX bool) (*Drawing, error) {
	var xs [][]float64
	var shares, empty []string
	for _, c := range curves {
		if len(c.X) == 0 {
			empty = append(empty, c.Label)
		}
		if len(c.X) != len(c.P) {
			return nil, fmt.Errorf("curve %s: %d values for %d fractions", c.Label, len(c.X), len(c.P))
		}
		v, _ := finite(c.X)
		xs = append(xs, v)
		if z := zeroShare(c); z > 0 {
			shares = append(shares, fmt.Sprintf("%s%s%%", labelPrefix(c.Label, len(curves)), Num(100*z, 3)))
		}
	}
	sc := scaleOf(logX, xs...)
	d, err := drawCurves(title, xlabel, "fraction (CDF)", curves, sc)
	if err != nil {
		return nil, err
	}
	switch {
	case sc.log && sc.zeros:
		d.Note = fmt.Sprintf("x on a log scale, split: the values ≤ 0 (%s) drawn apart at %q, left of the break", strings.Join(shares, ", "), sc.zeroLabel())
	case sc.log:
		d.Note = "x on a log scale"
	}
	if len(empty) > 0 && len(curves) > 1 {
		d.Note = join(d.Note, "no values for "+strings.Join(empty, ", "))
	}
	if sc.log && sc.floored {
		d.Note = join(d.Note, fmt.Sprintf("values between 0 and %g drawn at %g", LogFloor, LogFloor))
	}
	return d, nil
}

func labelPrefix(label string, n int) string {
	if n <= 1 || label == "" {
		return ""
	}
	return label + ": "
}

// zeroShare is the fraction of c's values that are ≤ 0.
func zeroShare(c Curve) float64 {
	z := 0.0
	for i, x := range c.X {
		if x <= 0 {
			z = max(z, c.P[i])
		}
	}
	return z
}

// drawCurves draws CDF curves as steps on the scale sc; on a split log
// axis, each curve's share of values ≤ 0 is a bar at "= 0".
func drawCurves(title, xlabel, ylabel string, curves []Curve, sc scale) (*Drawing, error) {
	p := newPlot(title, xlabel, ylabel)
	p.Y.Min, p.Y.Max = 0, 1
	drawn := false
	type stem struct {
		i     int
		share float64
	}
	var stems []stem
	for i, c := range curves {
		var pts plotter.XYs
		prev := 0.0
		for k, x := range c.X {
			if !drawable(x) || !(c.P[k] >= 0) {
				continue
			}
			at := sc.at(x)
			if len(pts) == 0 {
				pts = append(pts, plotter.XY{X: at, Y: 0})
			}
			pts = append(pts, plotter.XY{X: at, Y: prev}, plotter.XY{X: at, Y: c.P[k]})
			prev = c.P[k]
		}
		if len(pts) == 0 {
			continue
		}
		drawn = true
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = Color(i), vg.Points(1.5), Dashes(i)
		p.Add(l)
		if c.Label != "" {
			p.Legend.Add(c.Label, l)
		}
		if z := zeroShare(c); sc.log && sc.zeros && z > 0 {
			stems = append(stems, stem{i, z})
		}
	}
	if !drawn {
		return nil, errNoData
	}
	// The "= 0" bars, tallest first so that none hides a shorter one.
	slices.SortStableFunc(stems, func(a, b stem) int {
		switch {
		case a.share > b.share:
			return -1
		case a.share < b.share:
			return 1
		}
		return 0
	})
	for _, s := range stems {
		l, err := plotter.NewLine(plotter.XYs{{X: sc.zeroAt(), Y: 0}, {X: sc.zeroAt(), Y: s.share}})
		if err != nil {
			return nil, err
		}
		r, g, b, _ := Color(s.i).RGBA()
		l.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x70}
		l.Width = vg.Points(8)
		p.Add(l)
	}
	sc.apply(p, &p.X)
	return p.drawing(title, ""), nil
}
