package stats

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

func mustZipf(t testing.TB, s float64, n int) *Zipf {
	z, err := NewZipf(s, n)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func mustEmp(t testing.TB, v, w []float64) *Empirical {
	e, err := NewEmpirical(v, w)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// continuous distributions: samples must pass a one-sample KS test against
// the CDF, and Prob must be the derivative of CDF.
var continuousCases = []struct {
	name string
	d    Distribution
	mean float64
}{
	{"U", Uniform{10, 70}, 40},
	{"N", Normal{100, 15}, 100},
	{"Exp", Exponential{0.5}, 2},
	{"Poisson(120)", Exponential{1.0 / 120}, 120},
	{"HExp2", HyperExponential{[]float64{0.3, 0.7}, []float64{0.01, 1}}, 0.3/0.01 + 0.7},
	{"W", Weibull{4.25, 7.86}, 7.86 * math.Gamma(1+1/4.25)},
	{"W<1", Weibull{0.7, 100}, 100 * math.Gamma(1+1/0.7)},
	{"LogNorm", LogNormal{1.82, 0.34}, math.Exp(1.82 + 0.34*0.34/2)},
	{"Gamma", Gamma{2.62, 1 / 0.13}, 2.62 / 0.13},
	{"Gamma<1", Gamma{0.5, 3}, 1.5},
	{"Pareto", Pareto{3, 10}, 15},
}

// ksD is the one-sample Kolmogorov–Smirnov statistic of xs against cdf.
func ksD(xs []float64, cdf func(float64) float64) float64 {
	sort.Float64s(xs)
	n := float64(len(xs))
	d := 0.0
	for i, x := range xs {
		f := cdf(x)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	return d
}

func TestContinuousSamplesMatchCDF(t *testing.T) {
	const n = 20000
	// Critical value of D at significance 0.001: 1.95/sqrt(n).
	crit := 1.95 / math.Sqrt(n)
	for _, c := range continuousCases {
		t.Run(c.name, func(t *testing.T) {
			r := NewStream(1, 0, c.name)
			xs := make([]float64, n)
			sum := 0.0
			for i := range xs {
				xs[i] = c.d.Rand(r)
				sum += xs[i]
			}
			if d := ksD(xs, c.d.CDF); d > crit {
				t.Errorf("KS D = %.4f > %.4f: samples do not follow the CDF", d, crit)
			}
			if got := c.d.Mean(); math.Abs(got-c.mean) > 1e-9*math.Max(1, c.mean) {
				t.Errorf("Mean() = %g, want %g", got, c.mean)
			}
		})
	}
}

func TestQuantileInvertsCDF(t *testing.T) {
	for _, c := range continuousCases {
		for _, p := range []float64{0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999} {
			x := c.d.Quantile(p)
			if got := c.d.CDF(x); math.Abs(got-p) > 1e-6 {
				t.Errorf("%s: CDF(Quantile(%g)) = %g", c.name, p, got)
			}
		}
	}
}

func TestProbIsDerivativeOfCDF(t *testing.T) {
	for _, c := range continuousCases {
		a, b := c.d.Quantile(0.05), c.d.Quantile(0.95)
		integral := quad.Fixed(c.d.Prob, a, b, 200, nil, 0)
		if want := c.d.CDF(b) - c.d.CDF(a); math.Abs(integral-want) > 1e-4 {
			t.Errorf("%s: integral of Prob over [%g,%g] = %g, CDF difference %g", c.name, a, b, integral, want)
		}
	}
}

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

func TestDiscrete(t *testing.T) {
	z := mustZipf(t, 1.31, 368)
	e := mustEmp(t, []float64{1, 2, 3, 4, 5, 8, 10, 15}, []float64{50, 10, 16.2, 10, 5, 1, 1, 1})
	cases := []struct {
		name string
		d    Distribution
		vals []float64
	}{
		{"Zipf", z, nil},
		{"Emp", e, []float64{1, 2, 3, 4, 5, 8, 10, 15}},
		{"C", Constant{7}, []float64{7}},
	}
	for i := 1; i <= 368; i++ {
		cases[0].vals = append(cases[0].vals, float64(i))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// masses sum to 1 and CDF accumulates them
			cum := 0.0
			for _, v := range c.vals {
				cum += c.d.Prob(v)
				if got := c.d.CDF(v); math.Abs(got-cum) > 1e-9 {
					t.Fatalf("CDF(%g) = %g, sum of masses %g", v, got, cum)
				}
				if q := c.d.Quantile(c.d.CDF(v)); q != v {
					t.Fatalf("Quantile(CDF(%g)) = %g", v, q)
				}
			}
			if math.Abs(cum-1) > 1e-9 {
				t.Fatalf("masses sum to %g", cum)
			}
			// chi-square goodness of fit of 10^5 samples
			r := NewStream(2, 0, c.name)
			counts := map[float64]int{}
			const n = 100000
			for i := 0; i < n; i++ {
				counts[c.d.Rand(r)]++
			}
			if chi, df := chiSquare(counts, c.d, c.vals, n); df > 0 && chi > chiCritical001(df) {
				t.Errorf("chi-square %.1f > critical %.1f (df %d)", chi, chiCritical001(df), df)
			}
		})
	}
}

// chiSquare pools cells with expected count < 5 into one.
func chiSquare(counts map[float64]int, d Distribution, vals []float64, n int) (float64, int) {
	chi, cells := 0.0, 0
	poolObs, poolExp := 0.0, 0.0
	for _, v := range vals {
		exp := d.Prob(v) * float64(n)
		obs := float64(counts[v])
		if exp < 5 {
			poolObs += obs
			poolExp += exp
			continue
		}
		chi += (obs - exp) * (obs - exp) / exp
		cells++
	}
	if poolExp > 0 {
		chi += (poolObs - poolExp) * (poolObs - poolExp) / poolExp
		cells++
	}
	return chi, cells - 1
}

// chiCritical001 is the 0.999 quantile of chi-square with df degrees of freedom.
func chiCritical001(df int) float64 {
	return distuv.ChiSquared{K: float64(df)}.Quantile(0.999)
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
