package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteKS is D by its definition: the largest |F(v) − G(v)| over every
// value v of either sample, each empirical CDF counting the values ≤ v.
func bruteKS(x, y []float64) float64 {
	cdf := func(s []float64, v float64) float64 {
		n := 0
		for _, a := range s {
			if a <= v {
				n++
			}
		}
		return float64(n) / float64(len(s))
	}
	d := 0.0
	for _, v := range append(slices.Clone(x), y...) {
		d = math.Max(d, math.Abs(cdf(x, v)-cdf(y, v)))
	}
	return d
}

func TestKSTwoSampleByHand(t *testing.T) {
	cases := []struct {
		name string
		x, y []float64
		d    float64 // worked out by hand
	}{
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 0},
		{"disjoint", []float64{1, 2}, []float64{3, 4, 5}, 1},
		// F jumps to 1/2 at 0; G is 1 from 0 on.
		{"half the waits are 0", []float64{0, 0, 20, 40}, []float64{0, 0, 0, 0}, 0.5},
		// At 2: F = 2/4, G = 0/2; at 3: F = 3/4, G = 1/2.
		{"interleaved", []float64{1, 2, 3, 4}, []float64{3, 5}, 0.5},
		// A tie across samples: at 1, F = 2/3 and G = 1/3; at 2, both 1 and 2/3.
		{"ties across", []float64{1, 1, 2}, []float64{1, 2, 2}, 1.0 / 3},
		{"one and one", []float64{7}, []float64{7}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := KSTwoSample(c.x, c.y)
			if math.Abs(got.D-c.d) > 1e-15 || got.N != len(c.x) || got.M != len(c.y) {
				t.Fatalf("D = %v (n %d, m %d), want %v", got.D, got.N, got.M, c.d)
			}
			if b := bruteKS(c.x, c.y); math.Abs(b-c.d) > 1e-15 {
				t.Fatalf("brute force D = %v, want %v: the hand computation is wrong", b, c.d)
			}
			if got.P < 0 || got.P > 1 {
				t.Fatalf("p = %v", got.P)
			}
		})
	}
}

func TestKSTwoSamplePValueByHand(t *testing.T) {
	// n = m = 4: Nₑ = 2, λ = (√2 + 0.12 + 0.11/√2)·D = 1.611995·D. For
	// D = 0.5, λ = 0.805998 and Q(λ) = 2 Σ (−1)^(k−1) exp(−2k²λ²)
	// = 2·(0.272732 − 0.005533 + 0.000008 − …) = 0.534416.
	lambda := (math.Sqrt2 + 0.12 + 0.11/math.Sqrt2) * 0.5
	if math.Abs(lambda-0.805998) > 1e-6 {
		t.Fatalf("λ = %v", lambda)
	}
	if got := KSTwoSamplePValue(0.5, 4, 4); math.Abs(got-0.534416) > 1e-6 {
		t.Fatalf("p(D=0.5, 4, 4) = %v, want 0.534416", got)
	}
	// D = 1, n = m = 4: λ = 1.611995, Q = 2(e^{−5.19701} − e^{−20.788}) = 2·(0.0055328 − 0.0000000) = 0.011066.
	if got := KSTwoSamplePValue(1, 4, 4); math.Abs(got-0.011066) > 1e-6 {
		t.Fatalf("p(D=1, 4, 4) = %v, want 0.011066", got)
	}
	for _, c := range []struct {
		d    float64
		n, m int
	}{{0.5, 0, 4}, {0.5, 4, 0}, {math.NaN(), 4, 4}} {
		if got := KSTwoSamplePValue(c.d, c.n, c.m); !math.IsNaN(got) {
			t.Errorf("p(%v, %d, %d) = %v, want NaN", c.d, c.n, c.m, got)
		}
	}
}

func TestKSTwoSampleDegenerate(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
	}{
		{"both empty", nil, nil},
		{"one empty", []float64{1}, nil},
		{"unsorted", []float64{2, 1}, []float64{1}},
	} {
		got := KSTwoSample(c.x, c.y)
		if !math.IsNaN(got.D) || !math.IsNaN(got.P) {
			t.Errorf("%s: %+v, want NaN D and p", c.name, got)
		}
	}
}

// TestKSTwoSampleAgainstBruteForce checks gonum's D on random samples of
// small integers, so that ties within and across samples are frequent.
func TestKSTwoSampleAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 2000 {
		x := make([]float64, 1+r.IntN(12))
		y := make([]float64, 1+r.IntN(12))
		for i := range x {
			x[i] = float64(r.IntN(6))
		}
		for i := range y {
			y[i] = float64(r.IntN(6))
		}
		slices.Sort(x)
		slices.Sort(y)
		if got, want := KSTwoSample(x, y).D, bruteKS(x, y); math.Abs(got-want) > 1e-12 {
			t.Fatalf("case %d: D(%v, %v) = %v, brute force %v", k, x, y, got, want)
		}
	}
}

// The distance between two distribution functions is at most 1: nine
// zeros against a one made 1.0000000000000002 in gonum's running sums,
// and a p-value from it.
func TestKSTwoSampleAtMostOne(t *testing.T) {
	for n := 1; n < 60; n++ {
		x := make([]float64, n)
		for m := 1; m < 20; m++ {
			y := make([]float64, m)
			for i := range y {
				y[i] = 1
			}
			if ks := KSTwoSample(x, y); ks.D != 1 || !(ks.P >= 0 && ks.P <= 1) {
				t.Fatalf("%d zeros against %d ones: D %v, p %v", n, m, ks.D, ks.P)
			}
		}
	}
}
