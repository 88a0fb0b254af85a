package stats

import (
	"math"
	"testing"
)

// V1 of the reference (001-002-coalloc.md): the paper's means of the local
// and the global job sizes, E[S_l] = 6.95 on [1, 32] and E[S_g] = 10.44 on
// [4, 32], both at q = 0.9; the probabilities worked out by hand there.
func TestRSDPaperMeans(t *testing.T) {
	cases := []struct {
		lo, hi    int
		q, want   float64
		size      int
		prob, tol float64
	}{
		{1, 32, 0.9, 6.95, 1, 0.183, 0.0005},
		{1, 32, 0.9, 6.95, 32, 0.007, 0.0005},
		{4, 32, 0.9, 10.44, 4, 0.222, 0.0005},
		{4, 32, 0.9, 10.44, 16, 0.063, 0.0005},
	}
	for _, c := range cases {
		if m := RSDMean(c.lo, c.hi, c.q); math.Abs(m-c.want) > 0.005 {
			t.Errorf("RSD[%d,%d] q=%g: mean %.4f, the paper says %.2f", c.lo, c.hi, c.q, m, c.want)
		}
		w := RSDWeights(c.lo, c.hi, c.q)
		sum := 0.0
		for _, x := range w {
			sum += x
		}
		if p := w[c.size-c.lo] / sum; math.Abs(p-c.prob) > c.tol {
			t.Errorf("RSD[%d,%d]: P(%d) = %.4f, want %.3f", c.lo, c.hi, c.size, p, c.prob)
		}
	}
	// Degenerate: one size.
	if m := RSDMean(8, 8, 0.5); m != 8 {
		t.Errorf("RSD[8,8]: mean %g, want 8", m)
	}
}

// Sizes picked with the weights have the mean.
func TestRSDDraws(t *testing.T) {
	c, err := NewChoice(RSDWeights(1, 32, 0.9))
	if err != nil {
		t.Fatal(err)
	}
	r := NewStream(1, 0, "rsd")
	const n = 200000
	sum := 0.0
	for range n {
		sum += float64(1 + c.Pick(r))
	}
	// The standard deviation of a size is about 6.8: the mean of n is
	// within 5 standard errors (0.076) of 6.95.
	if m := sum / n; math.Abs(m-RSDMean(1, 32, 0.9)) > 0.08 {
		t.Errorf("mean of %d draws %.3f, want %.3f", n, m, RSDMean(1, 32, 0.9))
	}
}

// RSD as a distribution: its mean is RSDMean, its probabilities the
// normalized weights, and its draws those of a Choice over RSDWeights from
// the same stream (the core's local workloads draw so), size for size.
func TestRSDDistribution(t *testing.T) {
	for _, c := range []struct {
		lo, hi int
		q      float64
	}{{1, 32, 0.9}, {4, 32, 0.9}, {8, 8, 0.5}, {1, 64, 1}} {
		d, err := NewRSD(c.lo, c.hi, c.q)
		if err != nil {
			t.Fatal(err)
		}
		if m := d.Mean(); math.Abs(m-RSDMean(c.lo, c.hi, c.q)) > 1e-9 {
			t.Errorf("%v: mean %g, RSDMean %g", d, m, RSDMean(c.lo, c.hi, c.q))
		}
		w := RSDWeights(c.lo, c.hi, c.q)
		sum := 0.0
		for _, x := range w {
			sum += x
		}
		for i, x := range w {
			if p := d.Prob(float64(c.lo + i)); math.Abs(p-x/sum) > 1e-12 {
				t.Errorf("%v: P(%d) = %g, want %g", d, c.lo+i, p, x/sum)
			}
		}
		if d.Prob(float64(c.lo)-1) != 0 || d.Prob(float64(c.hi)+1) != 0 || d.Prob(float64(c.lo)+0.5) != 0 {
			t.Errorf("%v: mass outside its sizes", d)
		}
		ch, _ := NewChoice(w)
		r1, r2 := NewStream(7, 1, "rsd"), NewStream(7, 1, "rsd")
		for i := 0; i < 1000; i++ {
			if a, b := d.Rand(r1), float64(c.lo+ch.Pick(r2)); a != b {
				t.Fatalf("%v: draw %d is %g, the Choice's %g", d, i, a, b)
			}
		}
	}
}
