package plots

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// rendered checks that d renders in each format (PNG and SVG when none).
func rendered(t *testing.T, d *Drawing, formats ...string) {
	t.Helper()
	if len(formats) == 0 {
		formats = []string{"png", "svg"}
	}
	for _, format := range formats {
		var b bytes.Buffer
		if err := d.Render(&b, format); err != nil || b.Len() == 0 {
			t.Errorf("%s %s: %v, %d bytes", d.Title, format, err, b.Len())
		}
	}
}

// Samples with no spread made gonum/plot panic ("Values
// must be greater than 0 for a log scale"). Every figure draws degenerate
// samples, and a log axis says how many values it shows at LogFloor.
func TestFiguresOfDegenerateSamples(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct {
		name   string
		values []float64
		note   string // the CDF's note contains it
	}{
		{"one value", []float64{3}, "every value on the x axis is 3 s"},
		{"one zero", []float64{0}, "every value on the x axis is 0 s"},
		{"every value zero", []float64{0, 0, 0, 0}, "every value on the x axis is 0 s"},
		{"every value equal, below 1", []float64{0.5, 0.5, 0.5}, "every value on the x axis is 0.5 s"},
		{"every value equal, large", []float64{300, 300}, "every value on the x axis is 300 s"},
		{"zeros and a spread", []float64{0, 0, 0, 5, 50, 500}, `split: 3 of 6 values (3 = 0, 50%) drawn apart at "= 0"`},
		{"negatives and a spread", []float64{-0.4, -0.4, 0.05, 2, 20}, `split: 2 of 5 values (2 < 0, 40%) drawn apart at "≤ 0", left of the break; 1 of 5 values between 0 and 0.1 s drawn at 0.1 s`},
		{"below the floor only", []float64{0, 0.01, 0.02}, ""},
		{"undefined values", []float64{nan, 1, inf, 2, math.Inf(-1)}, "3 undefined, infinite or out-of-range (beyond ±1e+15) values left out"},
		{"only undefined values", []float64{nan, inf}, ""},
		{"beyond MaxValue", []float64{-2e15, 1, 2, 3e15}, "2 undefined, infinite or out-of-range"},
		{"huge range", []float64{-math.MaxFloat64, 0, math.MaxFloat64}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			allBad := true
			for _, v := range c.values {
				if drawable(v) {
					allBad = false
				}
			}
			s := []Series{{Label: "R1", Values: c.values}, {Label: "R2"}}
			f, err := CDF("CDF", "wait (s)", s, true)
			switch {
			case allBad:
				if !NoData(err) {
					t.Fatalf("CDF of no finite value: %v", err)
				}
			case err != nil:
				t.Fatalf("CDF: %v", err)
			default:
				rendered(t, f)
				if !strings.Contains(f.Note, c.note) {
					t.Errorf("CDF note %q, want %q", f.Note, c.note)
				}
			}
			draws := []func() (*Drawing, error){
				func() (*Drawing, error) { return Box("box", "wait (s)", s, []float64{nan, inf}) },
				func() (*Drawing, error) { return Scatter("sc", "run (s)", "wait (s)", c.values, c.values) },
				func() (*Drawing, error) { return BiHistogram("bh", "wait (s)", s[0], s[0]) },
				func() (*Drawing, error) {
					x := make([]float64, len(c.values))
					for i := range x {
						x[i] = float64(i)
					}
					return Lines("l", "t", "y", [][]float64{x, nil}, s, 0)
				},
				func() (*Drawing, error) {
					return Bars("b", "y", []string{"R1", "R2"}, []float64{c.values[0], nan}, 100)
				},
				func() (*Drawing, error) {
					return XBar("x", "y", []string{"R1"}, c.values[:1], c.values[0], nan, "")
				},
				func() (*Drawing, error) {
					return Grouped("g", "site", "y", []string{"A"}, []Series{{Label: "R1", Values: c.values[:1]}, {Label: "R2", Values: []float64{nan}}})
				},
			}
			for i, draw := range draws {
				f, err := draw()
				if err == nil {
					rendered(t, f)
				} else if !allBad && !NoData(err) && !strings.Contains(err.Error(), "not a number") {
					t.Errorf("figure %d: %v", i, err)
				}
			}
		})
	}
}

// floats reads b as little-endian float64s (any bit pattern: NaN, ±Inf,
// subnormals, the largest values).
func floats(b []byte) []float64 {
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// FuzzFigures draws every figure from arbitrary samples: each figure is
// drawn or refused with an error, never a panic.
func FuzzFigures(f *testing.F) {
	enc := func(v ...float64) []byte {
		b := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	f.Add(enc(0, 0, 0), enc(1, 2, 3), uint8(2))
	f.Add(enc(0.5), enc(0.5), uint8(1))
	f.Add(enc(-0.4, 0, 7, 3000), enc(math.NaN(), math.Inf(1)), uint8(40))
	f.Add(enc(-math.MaxFloat64, math.MaxFloat64), enc(math.SmallestNonzeroFloat64), uint8(0))
	f.Fuzz(func(t *testing.T, a, b []byte, sites uint8) {
		x, y := floats(a), floats(b)
		if len(x) > 6000 || len(y) > 6000 {
			return
		}
		// SVG only: the axes, ticks and scales (where gonum/plot panics
		// or loops) are the same for every format, and rasterizing a PNG
		// under the fuzzer's coverage instrumentation costs seconds.
		check := func(f *Drawing, err error) {
			if err == nil {
				rendered(t, f, "svg")
			}
		}
		sx, sy := Series{Label: "R1", Values: x}, Series{Label: "R2", Values: y}
		check(CDF("t", "x", []Series{sx, sy}, true))
		check(Box("t", "y", []Series{sx, sy}, y))
		n := min(len(x), len(y))
		check(Scatter("t", "x", "y", x[:n], y[:n]))
		check(BiHistogram("t", "x", sx, sy))
		check(Lines("t", "x", "y", [][]float64{x[:n]}, []Series{{Label: "R1", Values: y[:n]}}, 0))
		labels := make([]string, len(x))
		counts := make([]int, len(x))
		for i := range labels {
			labels[i] = "R" + string(rune('a'+i%26))
			counts[i] = int(uint64(math.Float64bits(x[i])) % 1000)
		}
		check(Bars("t", "y", labels, x, 100))
		if len(x) > 0 {
			sigma := math.NaN()
			if len(y) > 0 {
				sigma = y[0]
			}
			check(XBar("t", "y", labels, x, x[0], sigma, ""))
		}
		sites8 := min(int(sites), len(labels))
		check(Pareto("t", labels[:sites8], counts[:sites8]))
		check(Stacked("t", "y", labels, []Series{{Label: "a", Values: x}}))
		check(Grouped("t", "x", "y", labels[:n], []Series{{Label: "a", Values: x[:n]}, {Label: "b", Values: y[:n]}}))
	})
}

// Grouped bars: one bar per series and label; mismatched lengths are an
// error, nothing to draw is NoData, an undefined value is named.
func TestGrouped(t *testing.T) {
	d, err := Grouped("jobs per site", "site", "jobs", []string{"A", "B", "C"},
		[]Series{{Label: "static", Values: []float64{17, 16, 17}}, {Label: "placeholder", Values: []float64{22, 5, math.NaN()}}})
	if err != nil {
		t.Fatal(err)
	}
	rendered(t, d)
	if !strings.Contains(d.Note, "placeholder C") {
		t.Errorf("note %q", d.Note)
	}
	if _, err := Grouped("t", "x", "y", []string{"A"}, []Series{{Label: "s", Values: []float64{1, 2}}}); err == nil || NoData(err) {
		t.Errorf("mismatch: %v", err)
	}
	for _, c := range []struct {
		labels []string
		series []Series
	}{{nil, []Series{{Label: "s"}}}, {[]string{"A"}, nil}, {[]string{"A"}, []Series{{Label: "s", Values: []float64{math.Inf(1)}}}}} {
		if _, err := Grouped("t", "x", "y", c.labels, c.series); !NoData(err) {
			t.Errorf("%v %v: %v", c.labels, c.series, err)
		}
	}
}
