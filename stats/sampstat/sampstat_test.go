package sampstat

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestQuantile(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.25, 1.75}, {0.5, 2.5}, {0.75, 3.25}, {0.95, 3.85}, {1, 4}} {
		if got := Quantile(x, c.p); !near(got, c.want, 1e-12) {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("quantile of nothing")
	}
}

func TestSummarize(t *testing.T) {
	x := []float64{5, 1, 4, 2, 3}
	s := Summarize(x)
	if s.N != 5 || s.Mean != 3 || s.P50 != 3 || s.Min != 1 || s.Max != 5 || !near(s.Std, math.Sqrt(2.5), 1e-12) {
		t.Errorf("%+v", s)
	}
	if s.CIMethod != "bootstrap" || !(s.MeanCI[0] <= 3 && 3 <= s.MeanCI[1]) || s.MeanCI[0] < 1 || s.MeanCI[1] > 5 {
		t.Errorf("mean CI %v", s.MeanCI)
	}
	// Deterministic: the same data, the same interval.
	if s2 := Summarize([]float64{5, 1, 4, 2, 3}); s2.MeanCI != s.MeanCI || s2.MedianCI != s.MedianCI {
		t.Error("bootstrap not reproducible")
	}
	// Large samples use the normal approximation.
	big := make([]float64, BootstrapMax+1)
	for i := range big {
		big[i] = float64(i % 100)
	}
	if b := Summarize(big); b.CIMethod != "normal" || !(b.MeanCI[0] < b.Mean && b.Mean < b.MeanCI[1]) || !(b.MedianCI[0] <= b.P50 && b.P50 <= b.MedianCI[1]) {
		t.Errorf("big: %+v", b)
	}
	if e := Summarize(nil); e.N != 0 || !math.IsNaN(e.Mean) {
		t.Errorf("empty: %+v", e)
	}
}

func TestMannWhitney(t *testing.T) {
	x := make([]float64, 10)
	y := make([]float64, 10)
	for i := range x {
		x[i], y[i] = float64(i+1), float64(i+11)
	}
	// Every y above every x: U = 100, mean 50, variance 100/12 × 21 = 175,
	// z = (100 − 50 − ½)/√175.
	r := MannWhitneyGreater(x, y)
	if r.U != 100 || !near(r.Z, 49.5/math.Sqrt(175), 1e-12) || !near(r.P, 9.13e-5, 1e-6) || r.Effect != 1 {
		t.Errorf("%+v", r)
	}
	// The other way: no evidence.
	if r := MannWhitneyGreater(y, x); r.U != 0 || r.P < 0.99 {
		t.Errorf("reversed %+v", r)
	}
	// Identical samples full of ties: U = n²/2, p about ½.
	z := []float64{0, 0, 0, 0, 0, 1, 1, 1, 2, 3}
	if r := MannWhitneyGreater(z, z); r.U != 50 || r.P < 0.5 {
		t.Errorf("tied %+v", r)
	}
	// Every value the same: no variance, no evidence.
	c := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	if r := MannWhitneyGreater(c, c); r.P != 1 {
		t.Errorf("constant %+v", r)
	}
	// Ties across the samples: x = 0×5, 1×5; y = 1×5, 2×5.
	x2 := []float64{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}
	y2 := []float64{1, 1, 1, 1, 1, 2, 2, 2, 2, 2}
	r = MannWhitneyGreater(x2, y2)
	// Pairs with y > x: 5×10 (y=2) + 5×5 (y=1 over x=0) = 75, ties 5×5 → +12.5.
	if r.U != 87.5 {
		t.Errorf("U with ties %v, want 87.5", r.U)
	}
	// Tie correction: groups 5 (0s), 10 (1s), 5 (2s): Σ(t³−t) = 120+990+120.
	v := 100.0 / 12 * (21 - 1230.0/(20*19))
	if !near(r.Z, (87.5-50-0.5)/math.Sqrt(v), 1e-12) {
		t.Errorf("z %v, want %v", r.Z, (87.5-50-0.5)/math.Sqrt(v))
	}
}

func TestTwoProportion(t *testing.T) {
	// 95/100 against 80/100: pooled 0.875, se = √(0.875×0.125×0.02) = 0.04677.
	z, p := TwoProportionLess(95, 100, 80, 100)
	if !near(z, -0.15/math.Sqrt(0.875*0.125*0.02), 1e-9) || p > 0.001 {
		t.Errorf("z %v p %v", z, p)
	}
	if _, p := TwoProportionLess(100, 100, 100, 100); p != 1 {
		t.Errorf("all successful: p %v", p)
	}
}

// The t interval by hand: t(3, 0.975) = 3.182446, t(1, 0.975) = 12.706205,
// t(29, 0.95) = 1.699127 (the tables of any statistics text).
func TestMeanCI(t *testing.T) {
	for _, c := range []struct {
		name          string
		mean, sd      float64
		n             int
		level, lo, hi float64
	}{
		{"four values", 10, 2, 4, 0.95, 10 - 3.182446, 10 + 3.182446},
		{"two values", 0, 1, 2, 0.95, -12.706205 / math.Sqrt2, 12.706205 / math.Sqrt2},
		{"90%, thirty", 5, 3, 30, 0.90, 5 - 1.699127*3/math.Sqrt(30), 5 + 1.699127*3/math.Sqrt(30)},
		{"no spread", 7, 0, 5, 0.95, 7, 7},
		{"one value", 7, 0, 1, 0.95, math.NaN(), math.NaN()},
		{"none", math.NaN(), math.NaN(), 0, 0.95, math.NaN(), math.NaN()},
	} {
		got := MeanCI(c.mean, c.sd, c.n, c.level)
		for i, want := range []float64{c.lo, c.hi} {
			if math.IsNaN(want) != math.IsNaN(got[i]) || !math.IsNaN(want) && math.Abs(got[i]-want) > 1e-5 {
				t.Errorf("%s: interval %v, want [%v, %v]", c.name, got, c.lo, c.hi)
				break
			}
		}
	}
}
