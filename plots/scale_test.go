package plots

import (
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// Zeros on a log axis are drawn apart, at a tick labelled "= 0"
// past a break, and the note says how many; the CDF's "= 0" bar reaches
// their share. A quickstart's waits: 86% are 0.
func TestLogAxisSplitsZeros(t *testing.T) {
	waits := make([]float64, 100)
	for i := 86; i < 100; i++ {
		waits[i] = float64(i-85) * 7
	}
	runs := make([]float64, 100)
	for i := range runs {
		runs[i] = float64(1 + i%40)
	}
	cases := []struct {
		name     string
		draw     func() (*Drawing, error)
		axis     func(*plot.Plot) *plot.Axis
		label    string
		note     string
		stemTall float64 // the CDF's "= 0" bar, 0 for none
	}{
		{"CDF", func() (*Drawing, error) { return CDF("wait", "wait (s)", []Series{{Label: "R1", Values: waits}}, true) },
			func(p *plot.Plot) *plot.Axis { return &p.X }, "= 0", `split: 86 of 100 values (86 = 0, 86%) drawn apart at "= 0"`, 0.86},
		{"CDF, negatives", func() (*Drawing, error) {
			return CDF("wait", "wait (s)", []Series{{Label: "R1", Values: append([]float64{-1}, waits[1:]...)}}, true)
		}, func(p *plot.Plot) *plot.Axis { return &p.X }, "≤ 0", `(85 = 0, 1 < 0, 86%) drawn apart at "≤ 0"`, 0.86},
		{"scatter", func() (*Drawing, error) { return Scatter("wait vs run", "run (s)", "wait (s)", runs, waits) },
			func(p *plot.Plot) *plot.Axis { return &p.Y }, "= 0", `y on a log scale, split: 86 of 100 values (86 = 0, 86%)`, 0},
		{"curves", func() (*Drawing, error) {
			return CDFCurves("wait", "wait (s)", []Curve{{Label: "A", X: []float64{0, 10, 100}, P: []float64{0.5, 0.9, 1}}, {Label: "B", X: []float64{1, 1000}, P: []float64{0.2, 1}}}, true)
		}, func(p *plot.Plot) *plot.Axis { return &p.X }, "= 0", `the values ≤ 0 (A: 50%) drawn apart at "= 0"`, 0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := c.draw()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(d.Note, c.note) {
				t.Errorf("note %q, want %q", d.Note, c.note)
			}
			ax := c.axis(d.plot.Plot)
			var zero, first float64
			for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
				if tk.Label == c.label {
					zero = tk.Value
				} else if first == 0 && tk.Value > zero && zero > 0 {
					first = tk.Value
				}
			}
			if zero == 0 {
				t.Fatalf("no tick labelled %q", c.label)
			}
			if !(zero > ax.Min && first >= 4*zero) {
				t.Errorf("the %q tick at %g: axis from %g, the next tick at %g (want ≥ 4×)", c.label, zero, ax.Min, first)
			}
			breaks, tallest := 0, 0.0
			for _, it := range d.plot.items {
				if _, ok := it.(axisBreak); ok {
					breaks++
				}
				if l, ok := it.(*plotter.Line); ok && len(l.XYs) == 2 && l.XYs[0].X == zero && l.XYs[1].X == zero {
					tallest = max(tallest, l.XYs[1].Y)
				}
			}
			if breaks != 1 {
				t.Errorf("%d axis breaks, want 1", breaks)
			}
			if tallest != c.stemTall {
				t.Errorf("the \"= 0\" bar reaches %g, want %g", tallest, c.stemTall)
			}
			for _, p := range d.Problems() {
				t.Error(p)
			}
			if dir := os.Getenv("GMARK_FIGURES_OUT"); dir != "" {
				if _, err := d.Save(dir, "split_"+strings.ReplaceAll(c.name, " ", "")); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	// No zeros: no split.
	d, err := CDF("run", "run (s)", []Series{{Label: "R1", Values: runs}}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range d.plot.items {
		if _, ok := it.(axisBreak); ok {
			t.Error("a break on an axis with no zeros")
		}
	}
}

// CDFCurves at the edges: no curve, no point, lengths that differ, one
// point, only zeros, only negatives, undefined values.
func TestCDFCurvesEdges(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name   string
		curves []Curve
		err    string // "" for a drawing; "no data" for NoData
		note   string
	}{
		{"no curve", nil, "no data", ""},
		{"no point", []Curve{{Label: "A"}}, "no data", ""},
		{"lengths differ", []Curve{{Label: "A", X: []float64{1, 2}, P: []float64{1}}}, "2 values for 1 fractions", ""},
		{"one point", []Curve{{Label: "A", X: []float64{5}, P: []float64{1}}}, "", ""},
		{"only zeros", []Curve{{Label: "A", X: []float64{0}, P: []float64{1}}}, "", ""},
		{"only negatives", []Curve{{Label: "A", X: []float64{-3, -1}, P: []float64{0.5, 1}}}, "", ""},
		{"undefined values", []Curve{{Label: "A", X: []float64{nan, 0, 10, 1000}, P: []float64{0.1, 0.3, 0.5, 1}}}, "", `the values ≤ 0 (30%)`},
		{"one curve empty", []Curve{{Label: "A", X: []float64{0, 50}, P: []float64{0.4, 1}}, {Label: "B"}}, "", "no values for B"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := CDFCurves("CDF", "x", c.curves, true)
			switch {
			case c.err == "no data":
				if !NoData(err) {
					t.Fatalf("%v, want NoData", err)
				}
				return
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%v, want %q", err, c.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if !strings.Contains(d.Note, c.note) {
				t.Errorf("note %q, want %q", d.Note, c.note)
			}
			rendered(t, d)
			for _, p := range d.Problems() {
				t.Error(p)
			}
		})
	}
}
