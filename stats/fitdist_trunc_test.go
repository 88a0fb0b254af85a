package stats

import (
	"math"
	"testing"
)

// Truncated is its model below Max, renormalized: draws below Max, a CDF
// of 1 at Max, quantiles that invert the CDF, the mean and variance of
// its draws, and Beyond the mass left out; a model with no mass below Max
// is refused.
func TestTruncated(t *testing.T) {
	for _, of := range []Distribution{
		Exponential{Rate: 0.01},
		Pow2{Of: HyperGamma{Weights: []float64{0.4, 0.6}, Shapes: []float64{157, 8.58}, Scales: []float64{0.046, 1.27}}},
		Spliced{Low: mustEmpirical([]float64{0, 1}, []float64{3, 1}), LowShare: 0.01, High: Pow2{Of: Weibull{Shape: 4.25, Scale: 7.86}}},
	} {
		max := of.Quantile(0.97)
		tr, err := NewTruncated(of, max)
		if err != nil {
			t.Fatal(err)
		}
		if b := tr.Beyond(); math.Abs(b-(1-of.CDF(max))) > 1e-12 || b <= 0 {
			t.Errorf("%v: beyond %g", tr, b)
		}
		if tr.CDF(max) != 1 || tr.Prob(max) != 0 {
			t.Errorf("%v: CDF(max) %g, Prob(max) %g", tr, tr.CDF(max), tr.Prob(max))
		}
		for _, p := range []float64{0.1, 0.5, 0.9, 0.999} {
			if q := tr.Quantile(p); q > max || math.Abs(tr.CDF(q)-p) > 1e-6 && of.Prob(q) > 0 {
				t.Errorf("%v: Quantile(%g) = %g, CDF there %g", tr, p, q, tr.CDF(q))
			}
		}
		r := NewStream(1, 1, "trunc")
		n, sum, sum2 := 100000, 0.0, 0.0
		for range n {
			v := tr.Rand(r)
			if v >= max {
				t.Fatalf("%v: drew %g ≥ %g", tr, v, max)
			}
			sum += v
			sum2 += v * v
		}
		mean := sum / float64(n)
		sd := math.Sqrt(sum2/float64(n) - mean*mean)
		if m := tr.Mean(); math.Abs(m-mean) > 4*sd/math.Sqrt(float64(n)) {
			t.Errorf("%v: mean %g, draws' mean %g ± %g", tr, m, mean, sd/math.Sqrt(float64(n)))
		}
		if v := tr.Variance(); math.Abs(math.Sqrt(v)-sd) > 0.02*sd {
			t.Errorf("%v: sd %g, draws' %g", tr, math.Sqrt(v), sd)
		}
	}
	// Capped: the model below Max, its mass beyond as a point at Max.
	of := Pow2{Of: Weibull{Shape: 4.25, Scale: 7.86}}
	c := Capped{Of: of, Max: of.Quantile(0.9)}
	if math.Abs(c.Beyond()-0.1) > 1e-9 || c.CDF(c.Max) != 1 || math.Abs(c.Prob(c.Max)-0.1) > 1e-9 || c.Quantile(0.95) != c.Max || c.Quantile(0.5) != of.Quantile(0.5) {
		t.Errorf("%v: beyond %g, CDF(max) %g, mass at max %g, Q(0.95) %g", c, c.Beyond(), c.CDF(c.Max), c.Prob(c.Max), c.Quantile(0.95))
	}
	r := NewStream(2, 1, "cap")
	at, sum := 0, 0.0
	for range 100000 {
		v := c.Rand(r)
		if v > c.Max {
			t.Fatalf("capped drew %g > %g", v, c.Max)
		}
		if v == c.Max {
			at++
		}
		sum += v
	}
	if math.Abs(float64(at)/100000-0.1) > 0.005 || math.Abs(sum/100000-c.Mean()) > 0.01*c.Mean() {
		t.Errorf("capped: %d draws at max, mean %g; want 10%%, %g", at, sum/100000, c.Mean())
	}
	if _, err := NewTruncated(Uniform{Min: 10, Max: 20}, 5); err == nil {
		t.Error("a model with no mass below the point was accepted")
	}
}
