package stats

import (
	"strings"
	"testing"
)

func TestNewDistribution(t *testing.T) {
	cases := []struct {
		name    string
		params  []float64
		want    string // String() of the result, or "" when an error is expected
		wantErr string
	}{
		{"Poisson", []float64{120}, "Exp(0.008333333333333333)", ""},
		{"poisson", []float64{120}, "Exp(0.008333333333333333)", ""},
		{"W", []float64{4.25, 7.86}, "W(4.25,7.86)", ""},
		{"Weibull", []float64{4.25, 7.86}, "W(4.25,7.86)", ""},
		{"Zero", nil, "Zero", ""},
		{"HPoisson2", []float64{0.5, 10, 100}, "HExp2(0.5,0.1,0.01)", ""},
		{"Zipf", []float64{1.31, 368}, "Zipf(1.31,368)", ""},
		{"Poisson", []float64{-5}, "", "mean must be > 0"},
		{"W", []float64{0, 1}, "", "shape must be > 0"},
		{"U", []float64{5, 1}, "", "must not be smaller"},
		{"HExp2", []float64{1.5, 1, 1}, "", "HExp2: p must be a probability in [0,1], got 1.5"},
		{"HExp3", []float64{0.5, 0.5, 0.5, 1, 2, 3}, "", "HExp3: the branch probabilities sum to 1.5, not 1"},
		{"hyperexp3", []float64{0.2, 0.3, 0.5, 1, 0.1, 0.01}, "HExp(0.2,0.3,0.5,1,0.1,0.01)", ""},
		{"HGamma2", []float64{0.5, 1, 3, 2, 4}, "HGamma2(0.5,1,3,2,4)", ""},
		{"hgamma", []float64{1.5, 1, 3, 2, 4}, "", "HGamma2: p must be a probability in [0,1], got 1.5"},
		{"HExp", []float64{0.5, 1, 2}, "HExp2(0.5,1,2)", ""},
		{"Zipf", []float64{1, 2.5}, "", "whole number"},
		{"Zipf", []float64{1, 1e300}, "", "Zipf: n must be a whole number from 1 to 2147483647, got 1e+300"},
		{"Zipf", []float64{1, 1 << 21}, "", "Zipf: n must be in 1..1048576, got 2097152"},
		{"Zipf", []float64{1, 1 << 20}, "Zipf(1,1048576)", ""},
		{"RSD", []float64{4, 32, 0.9}, "RSD(4,32,0.9)", ""},
		{"rsd", []float64{1, 1, 1}, "RSD(1,1,1)", ""},
		{"RSD", []float64{0, 32, 0.9}, "", "RSD: lo must be a whole number"},
		{"RSD", []float64{8, 4, 0.9}, "", "1 ≤ lo ≤ hi"},
		{"RSD", []float64{1, 1<<20 + 1, 0.9}, "", "1 ≤ lo ≤ hi ≤ 1048576"},
		{"RSD", []float64{1, 32, 0}, "", "q must be in (0, 1]"},
		{"RSD", []float64{1, 32, 1.5}, "", "RSD: q must be a probability"},
		{"RSD", []float64{1000, 1000, 1e-300}, "", "too small"},
		{"RSD", []float64{4, 32}, "", "takes 3 parameter(s), RSD(lo,hi,q)"},
		{"N", []float64{1}, "", "takes 2 parameter(s), N(mu,sigma); got 1"},
		{"Foo", nil, "", `unknown distribution "Foo"`},
	}
	for _, c := range cases {
		d, err := NewDistribution(c.name, c.params)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s%v: error %v, want one containing %q", c.name, c.params, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s%v: %v", c.name, c.params, err)
			continue
		}
		if d.String() != c.want {
			t.Errorf("%s%v = %s, want %s", c.name, c.params, d, c.want)
		}
	}
}

func TestNewHyperGamma(t *testing.T) {
	if _, err := NewHyperGamma([]float64{0.5, 0.6}, []float64{1, 1}, []float64{1, 1}); err == nil || !strings.Contains(err.Error(), "HGamma: the branch probabilities sum to 1.1, not 1") {
		t.Errorf("weights summing to 1.1: %v", err)
	}
	if _, err := NewHyperGamma([]float64{0.5, 0.5}, []float64{1, -1}, []float64{1, 1}); err == nil || !strings.Contains(err.Error(), "HGamma: shape must be > 0, got -1") {
		t.Errorf("negative shape: %v", err)
	}
}

func TestStreamsAreDeterministicAndIndependent(t *testing.T) {
	a, b := NewStream(42, 1, "arrival"), NewStream(42, 1, "arrival")
	for i := 0; i < 1000; i++ {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same (seed, unit, purpose) gave different streams")
		}
	}
	first := func(seed uint64, unit int, purpose string) uint64 { return NewStream(seed, unit, purpose).Uint64() }
	base := first(42, 1, "arrival")
	for _, other := range []uint64{first(43, 1, "arrival"), first(42, 2, "arrival"), first(42, 1, "app")} {
		if other == base {
			t.Error("different stream keys gave the same first number")
		}
	}
}
