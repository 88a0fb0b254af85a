package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The shared property tests: every family of the table (built by name
// through NewDistribution, as the WDL and fit files build them) and every
// distribution made of others (Empirical, Pow2, Spliced, a hyper-gamma of
// three branches) must
//
//   - draw finite values within its support (where Prob > 0);
//   - have a CDF non-decreasing within [0, 1];
//   - have a Quantile that inverts the CDF (the smallest x with CDF(x) ≥ p
//     where there are atoms);
//   - draw values that follow the CDF (Kolmogorov–Smirnov, or chi-square
//     for the discrete ones) and whose Prob is the CDF's derivative (or the
//     CDF's jumps);
//   - have a Mean and a Variance that match the sample's where they are
//     finite (and the closed form, where the case gives one);
//   - refuse every parameter outside its range.
//
// TestEveryFamilyHasPropertyCases keeps the table complete.

// kind says how a distribution's probability is spread.
type kind int

const (
	continuous kind = iota
	discrete        // atoms only: Prob is a mass
	mixed           // atoms and a density (Spliced)
)

type propertyCase struct {
	name   string
	family string // a family of the table, built from params; "" when d is given
	params []float64
	d      Distribution
	kind   kind
	mean   *float64 // the closed-form mean, when the case gives one
	// heavy: the fourth moment is infinite or too large for the sample
	// variance to settle; the variance is not compared with the sample.
	heavy bool
}

func ptr(v float64) *float64 { return &v }

func mustEmpirical(values, weights []float64) *Empirical {
	e, err := NewEmpirical(values, weights)
	if err != nil {
		panic(err)
	}
	return e
}

var hgammaLCG = HyperGamma{[]float64{0.78, 0.22}, []float64{4.2, 312}, []float64{0.94, 0.03}}

var propertyCases = []propertyCase{
	{name: "C", family: "C", params: []float64{7}, kind: discrete, mean: ptr(7)},
	{name: "Zero", family: "Zero", kind: discrete, mean: ptr(0)},
	{name: "U", family: "U", params: []float64{10, 70}, mean: ptr(40)},
	{name: "N", family: "N", params: []float64{100, 15}, mean: ptr(100)},
	{name: "Exp", family: "Exp", params: []float64{0.5}, mean: ptr(2)},
	{name: "Poisson(120)", family: "Poisson", params: []float64{120}, mean: ptr(120)},
	{name: "HExp2", family: "HExp2", params: []float64{0.3, 0.01, 1}, mean: ptr(0.3/0.01 + 0.7)},
	{name: "HPoisson2", family: "HPoisson2", params: []float64{0.3, 100, 1}, mean: ptr(0.3*100 + 0.7)},
	{name: "HExp3", family: "HExp3", params: []float64{0.2, 0.5, 0.3, 2, 0.1, 0.002}, mean: ptr(0.2/2 + 0.5/0.1 + 0.3/0.002)},
	{name: "W", family: "W", params: []float64{4.25, 7.86}, mean: ptr(7.86 * math.Gamma(1+1/4.25))},
	{name: "W<1", family: "W", params: []float64{0.7, 100}, mean: ptr(100 * math.Gamma(1+1/0.7)), heavy: true},
	{name: "LogNorm", family: "LogNorm", params: []float64{1.82, 0.34}, mean: ptr(math.Exp(1.82 + 0.34*0.34/2))},
	{name: "Gamma", family: "Gamma", params: []float64{2.62, 1 / 0.13}, mean: ptr(2.62 / 0.13)},
	{name: "Gamma<1", family: "Gamma", params: []float64{0.5, 3}, mean: ptr(1.5)},
	{name: "Pareto", family: "Pareto", params: []float64{5, 10}, mean: ptr(12.5)},
	{name: "Pareto<2", family: "Pareto", params: []float64{1.5, 10}, mean: ptr(30), heavy: true},
	{name: "HGamma2", family: "HGamma2", params: []float64{0.78, 4.2, 0.94, 312, 0.03}, mean: ptr(0.78*4.2*0.94 + 0.22*312*0.03)},
	{name: "Zipf", family: "Zipf", params: []float64{1.31, 368}, kind: discrete},
	{name: "RSD", family: "RSD", params: []float64{4, 32, 0.9}, kind: discrete, mean: ptr(RSDMean(4, 32, 0.9))},
	{name: "RSD[1,1]", family: "RSD", params: []float64{1, 1, 0.5}, kind: discrete, mean: ptr(1)},
	{name: "Emp", d: mustEmpirical([]float64{1, 2, 3, 4, 5, 8, 10, 15}, []float64{50, 10, 16.2, 10, 5, 1, 1, 1}), kind: discrete},
	{name: "HGamma3", d: HyperGamma{[]float64{0.5, 0.3, 0.2}, []float64{2, 9, 40}, []float64{1, 0.5, 0.25}}, mean: ptr(0.5*2 + 0.3*4.5 + 0.2*10)},
	{name: "Pow2N", d: Pow2{Normal{6.1, 2.73}}, mean: ptr(math.Exp(math.Ln2*6.1 + math.Ln2*math.Ln2*2.73*2.73/2)), heavy: true},
	{name: "Pow2W", d: Pow2{Weibull{4.25, 7.86}}, mean: ptr(315.27), heavy: true},
	{name: "Pow2G", d: Pow2{Gamma{2.62, 1 / 1.44}}, mean: ptr(math.Pow(1-math.Ln2/1.44, -2.62)), heavy: true},
	{name: "Pow2U", d: Pow2{Uniform{2, 6}}, mean: ptr((64 - 4) / (4 * math.Ln2))},
	{name: "Pow2HGamma2", d: Pow2{hgammaLCG}, heavy: true},
	{name: "Spliced", d: Spliced{Low: mustEmpirical([]float64{0, 1}, []float64{3, 1}), LowShare: 0.2, High: Pow2{Weibull{2, 6}}},
		kind: mixed, mean: ptr(0.2*0.25 + 0.8*(Pow2{Weibull{2, 6}}).Mean()), heavy: true},
}

// dist builds the case's distribution.
func (c *propertyCase) dist(t *testing.T) Distribution {
	t.Helper()
	if c.d != nil {
		return c.d
	}
	d, err := NewDistribution(c.family, c.params)
	if err != nil {
		t.Fatalf("%s%v: %v", c.family, c.params, err)
	}
	return d
}

// forEachCase runs f on each case as a subtest.
func forEachCase(t *testing.T, f func(t *testing.T, c *propertyCase, d Distribution)) {
	for i := range propertyCases {
		c := &propertyCases[i]
		t.Run(c.name, func(t *testing.T) { f(t, c, c.dist(t)) })
	}
}

func TestEveryFamilyHasPropertyCases(t *testing.T) {
	for _, f := range Families() {
		if !slices.ContainsFunc(propertyCases, func(c propertyCase) bool { return c.family == f.Name }) {
			t.Errorf("family %s has no case in propertyCases", f.Name)
		}
	}
}

func TestDrawsAreFiniteAndInSupport(t *testing.T) {
	forEachCase(t, func(t *testing.T, c *propertyCase, d Distribution) {
		for _, x := range draw(d, 20000, 3, c.name) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("drew %g", x)
			}
			if p := d.Prob(x); !(p > 0) {
				t.Fatalf("drew %g, where Prob is %g", x, p)
			}
		}
	})
}

func TestCDFIsMonotoneInUnitInterval(t *testing.T) {
	forEachCase(t, func(t *testing.T, c *propertyCase, d Distribution) {
		lo, hi := d.Quantile(1e-4), d.Quantile(1-1e-4)
		span := math.Max(hi-lo, 1)
		prev := 0.0
		for i := -100; i <= 1100; i++ {
			x := lo + span*float64(i)/1000
			f := d.CDF(x)
			if !(f >= 0 && f <= 1) || f < prev {
				t.Fatalf("CDF(%g) = %g after %g", x, f, prev)
			}
			prev = f
		}
		if f := d.CDF(lo - span); f > 1e-4 {
			t.Errorf("CDF below the 0.0001 quantile is %g", f)
		}
		if f := d.CDF(hi + span); f < 1-1e-4 {
			t.Errorf("CDF above the 0.9999 quantile is %g", f)
		}
	})
}

// Quantile(p) is the smallest x with CDF(x) ≥ p: on a density, CDF(Quantile(p)) = p.
func TestQuantileInvertsCDF(t *testing.T) {
	forEachCase(t, func(t *testing.T, c *propertyCase, d Distribution) {
		for _, p := range []float64{0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999} {
			x := d.Quantile(p)
			f := d.CDF(x)
			if c.kind == continuous && math.Abs(f-p) > 1e-6 {
				t.Errorf("CDF(Quantile(%g)) = %g", p, f)
			}
			if f < p-1e-9 {
				t.Errorf("CDF(Quantile(%g)) = %g < p", p, f)
			}
			if below := d.CDF(x - 1e-6*math.Max(1, math.Abs(x))); below > p+1e-6 {
				t.Errorf("Quantile(%g) = %g is not the smallest: CDF just below it is %g", p, x, below)
			}
		}
	})
}

func TestSamplesFollowCDF(t *testing.T) {
	forEachCase(t, func(t *testing.T, c *propertyCase, d Distribution) {
		x := draw(d, 20000, 1, c.name)
		switch c.kind {
		case continuous:
			sortFloats(x)
			if D, crit := KSStatistic(x, d.CDF), KSCritical(0.001, len(x)); D > crit {
				t.Errorf("KS D = %.4f > %.4f: the samples do not follow the CDF", D, crit)
			}
		case discrete:
			counts := map[float64]int{}
			for _, v := range x {
				counts[v]++
			}
			atoms := atomsOf(d)
			if chi, df := chiSquare(counts, d, atoms, len(x)); df > 0 && chi > chiCritical001(df) {
				t.Errorf("chi-square %.1f > critical %.1f (df %d)", chi, chiCritical001(df), df)
			}
		case mixed:
			s := d.(Spliced)
			low, top := 0, s.Low.Quantile(1)
			for _, v := range x {
				if v <= top {
					low++
				}
			}
			n := float64(len(x))
			if sd := math.Sqrt(n * s.LowShare * (1 - s.LowShare)); math.Abs(float64(low)-n*s.LowShare) > 6*sd {
				t.Errorf("%d of %g draws from the low part, want %g ± %g", low, n, n*s.LowShare, 6*sd)
			}
		}
	})
}

// atomsOf lists a discrete distribution's values: Quantile steps through
// them.
func atomsOf(d Distribution) []float64 {
	var atoms []float64
	for x := d.Quantile(0); ; {
		atoms = append(atoms, x)
		f := d.CDF(x)
		if f >= 1-1e-12 {
			return atoms
		}
		next := d.Quantile(math.Nextafter(f, 2))
		if next <= x {
			return atoms
		}
		x = next
	}
}

func TestProbMatchesCDF(t *testing.T) {
	forEachCase(t, func(t *testing.T, c *propertyCase, d Distribution) {
		switch c.kind {
		case continuous:
			a, b := d.Quantile(0.05), d.Quantile(0.95)
			integral := quad.Fixed(d.Prob, a, b, 200, nil, 0)
			if want := d.CDF(b) - d.CDF(a); math.Abs(integral-want) > 1e-4 {
				t.Errorf("integral of Prob over [%g,%g] = %g, CDF difference %g", a, b, integral, want)
			}
		case discrete:
			cum := 0.0
			for _, v := range atomsOf(d) {
				cum += d.Prob(v)
				if got := d.CDF(v); math.Abs(got-cum) > 1e-9 {
					t.Fatalf("CDF(%g) = %g, sum of masses %g", v, got, cum)
				}
				if q := d.Quantile(d.CDF(v)); q != v {
					t.Fatalf("Quantile(CDF(%g)) = %g", v, q)
				}
			}
			if math.Abs(cum-1) > 1e-9 {
				t.Fatalf("masses sum to %g", cum)
			}
		case mixed:
			s := d.(Spliced)
			for _, v := range atomsOf(s.Low) {
				if got, want := d.Prob(v), s.LowShare*s.Low.Prob(v); got != want {
					t.Errorf("Prob(%g) = %g, want the low part's mass %g", v, got, want)
				}
			}
		}
	})
}

// The sample mean lies within 6 standard errors of Mean where the variance
// is finite, and the sample variance within 6 of its standard errors
// (estimated from the sample's fourth moment) of Variance.
func TestMeanAndVarianceMatchSample(t *testing.T) {
	forEachCase(t, func(t *testing.T, c *propertyCase, d Distribution) {
		mean, variance := d.Mean(), d.Variance()
		if c.mean != nil && math.Abs(mean-*c.mean) > 1e-3*math.Max(1, math.Abs(*c.mean)) {
			t.Errorf("Mean() = %g, want %g", mean, *c.mean)
		}
		if math.IsNaN(mean) || math.IsNaN(variance) || variance < 0 {
			t.Fatalf("Mean() = %g, Variance() = %g", mean, variance)
		}
		if math.IsInf(variance, 1) {
			return
		}
		const n = 100000
		x := draw(d, n, 5, c.name)
		m, v := stat.MeanVariance(x, nil)
		t.Logf("mean %g (sample %g), variance %g (sample %g)", mean, m, variance, v)
		if se := math.Sqrt(variance / n); math.Abs(m-mean) > 6*se+1e-12*math.Abs(mean) {
			t.Errorf("sample mean %g, Mean() %g ± %g", m, mean, 6*se)
		}
		if c.heavy {
			return
		}
		m4 := stat.Moment(4, x, nil)
		if se := math.Sqrt(math.Max(m4-v*v, 0) / n); math.Abs(v-variance) > 6*se+1e-9*variance {
			t.Errorf("sample variance %g, Variance() %g ± %g", v, variance, 6*se)
		}
	})
}

// badValues are values outside each range.
var badValues = map[Range][]float64{
	Finite:       {math.NaN(), math.Inf(1), math.Inf(-1)},
	NonNegative:  {-1, math.NaN(), math.Inf(1)},
	Positive:     {0, -1, math.NaN(), math.Inf(1)},
	UnitInterval: {-0.1, 1.5, math.NaN()},
	WholeCount:   {0, 2.5, math.NaN(), 1e300},
}

func TestParametersOutOfRangeAreRefused(t *testing.T) {
	for _, c := range propertyCases {
		if c.family == "" {
			continue
		}
		f, _ := LookupFamily(c.family)
		for i, ps := range f.Params {
			bad := badValues[ps.Range]
			if len(bad) == 0 {
				t.Errorf("%s: no bad values for the range of %s", c.name, ps.Name)
			}
			for _, v := range bad {
				p := slices.Clone(c.params)
				p[i] = v
				if d, err := NewDistribution(c.family, p); err == nil {
					t.Errorf("%s%v accepted: %v", c.family, p, d)
				}
				if f.Fittable() {
					if d, err := NewFitted(c.family, p); err == nil {
						t.Errorf("NewFitted %s%v accepted: %v", c.family, p, d)
					}
				}
			}
		}
		if _, err := NewDistribution(c.family, append(slices.Clone(c.params), 1)); err == nil {
			t.Errorf("%s with %d parameters accepted", c.family, len(c.params)+1)
		}
	}
}

// Each family builds the same distribution by its name and by each alias,
// in any case.
func TestFamilyNamesAndAliases(t *testing.T) {
	for _, c := range propertyCases {
		if c.family == "" {
			continue
		}
		f, _ := LookupFamily(c.family)
		want := fmt.Sprint(c.dist(t))
		for _, name := range append([]string{f.Name}, f.Aliases...) {
			for _, n := range []string{name, strings.ToLower(name)} {
				d, err := NewDistribution(n, c.params)
				if err != nil || d.String() != want {
					t.Errorf("%s%v = %v, %v; want %s", n, c.params, d, err, want)
				}
				if f.Fittable() {
					if got, ok := CanonicalFitFamily(n); !ok || got != f.Name {
						t.Errorf("CanonicalFitFamily(%s) = %s, %v", n, got, ok)
					}
				}
			}
		}
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

// The mean of a uniform distribution near the float64 limit is its
// midpoint, not +Inf: the sum of its bounds overflows, the mean does not
// (a WDL RunTime=U(1e308,1.7e308) was refused as having "no finite mean"
// instead of for giving values above 100 years).
func TestUniformMeanNearTheLimit(t *testing.T) {
	for _, c := range []struct{ min, max, want float64 }{
		{0, 1, 0.5},
		{1e308, 1.7e308, 1.35e308},
		{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64},
		{-math.MaxFloat64, -math.MaxFloat64 / 2, -0.75 * math.MaxFloat64},
		{-math.MaxFloat64, math.MaxFloat64, 0},
	} {
		if m := (Uniform{c.min, c.max}).Mean(); math.Abs(m-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("U(%g, %g): mean %g, want %g", c.min, c.max, m, c.want)
		}
	}
}
