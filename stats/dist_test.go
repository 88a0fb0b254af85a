package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// The hand-written samplers must agree with gonum's definitions of the same
// distributions (gonum's CDFs are the reference).
func TestAgreesWithGonum(t *testing.T) {
	cases := []struct {
		ours, theirs interface{ CDF(float64) float64 }
	}{
		{Weibull{1.76, 2.11}, distuv.Weibull{K: 1.76, Lambda: 2.11}},
		{Gamma{2.47, 1 / 1.64}, distuv.Gamma{Alpha: 2.47, Beta: 1.64}},
		{Pareto{2, 5}, distuv.Pareto{Xm: 5, Alpha: 2}},
		{LogNormal{1, 0.5}, distuv.LogNormal{Mu: 1, Sigma: 0.5}},
	}
	for _, c := range cases {
		for _, x := range []float64{0.5, 1, 2, 5, 10, 50} {
			if a, b := c.ours.CDF(x), c.theirs.CDF(x); math.Abs(a-b) > 1e-12 {
				t.Errorf("%T CDF(%g) = %g, gonum says %g", c.ours, x, a, b)
			}
		}
	}
}

func TestChoiceNeverPicksZeroWeight(t *testing.T) {
	c, err := NewChoice([]float64{0, 1, 0, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	r := NewStream(3, 0, "zero")
	for i := 0; i < 10000; i++ {
		if k := c.Pick(r); k != 1 && k != 3 {
			t.Fatalf("picked zero-weight index %d", k)
		}
	}
}

func TestBadWeights(t *testing.T) {
	for _, w := range [][]float64{nil, {0, 0}, {1, -1}, {math.Inf(1)}, {math.NaN()}} {
		if _, err := NewChoice(w); err == nil {
			t.Errorf("NewChoice(%v) accepted", w)
		}
	}
}
