package stats

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// draw returns n values of d from the stream (seed, purpose).
func draw(d Distribution, n int, seed uint64, purpose string) []float64 {
	r := NewStream(seed, 0, purpose)
	x := make([]float64, n)
	for i := range x {
		x[i] = d.Rand(r)
	}
	return x
}

// recoveryCases: for each family, a true distribution and its parameters in
// FitParamNames order (several shapes per family).
var recoveryCases = []struct {
	family string
	d      Distribution
	params []float64
	slow   bool // an EM fit: fewer seeds
}{
	{"Exp", Exponential{0.01}, []float64{0.01}, false},
	{"N", Normal{6.1, 2.73}, []float64{6.1, 2.73}, false},
	{"LogNorm", LogNormal{1.82, 0.34}, []float64{1.82, 0.34}, false},
	{"LogNorm", LogNormal{5, 2}, []float64{5, 2}, false},
	{"W", Weibull{4.25, 7.86}, []float64{4.25, 7.86}, false},
	{"W", Weibull{0.6, 300}, []float64{0.6, 300}, false},
	{"Gamma", Gamma{2.62, 1 / 0.13}, []float64{2.62, 1 / 0.13}, false},
	{"Gamma", Gamma{0.5, 3}, []float64{0.5, 3}, false},
	{"Pareto", Pareto{1.5, 10}, []float64{1.5, 10}, false},
	{"HExp2", HyperExponential{[]float64{0.3, 0.7}, []float64{1, 0.01}}, []float64{0.3, 1, 0.01}, true},
	{"HExp3", HyperExponential{[]float64{0.2, 0.5, 0.3}, []float64{2, 0.1, 0.002}}, []float64{0.2, 0.5, 0.3, 2, 0.1, 0.002}, true},
	{"HGamma2", HyperGamma{[]float64{0.78, 0.22}, []float64{4.2, 312}, []float64{0.94, 0.03}}, []float64{0.78, 4.2, 0.94, 312, 0.03}, true},
}

// rmse fits the family to `seeds` samples of size n and returns, per
// parameter, the root mean square error, the mean error and the mean
// reported standard error.
func rmse(t *testing.T, family string, d Distribution, params []float64, n, seeds int) (rms, bias, se []float64) {
	t.Helper()
	k := len(params)
	rms, bias, se = make([]float64, k), make([]float64, k), make([]float64, k)
	for s := 0; s < seeds; s++ {
		x := draw(d, n, uint64(s+1), fmt.Sprintf("%s-%d", family, n))
		f, err := FitFamily(family, x, FitOptions{NoFloor: family == "N"})
		if err != nil {
			t.Fatalf("%s n=%d seed %d: %v", family, n, s, err)
		}
		for i := range params {
			e := f.Params[i] - params[i]
			rms[i] += e * e / float64(seeds)
			bias[i] += e / float64(seeds)
			se[i] += f.StdErr[i] / float64(seeds)
		}
	}
	for i := range rms {
		rms[i] = math.Sqrt(rms[i])
	}
	return
}

// The maximum-likelihood estimates converge at the rate 1/√n: over many
// seeds, the RMSE at n = 10^4 is about √10 times smaller than at n = 10^3,
// the bias is small next to it, and the reported standard errors match the
// spread of the estimates. (TestFitMillion carries this to n = 10^6.)
// -short uses fewer seeds and leaves out the mixtures fitted by EM.
func TestFitErrorShrinksAsOneOverSqrtN(t *testing.T) {
	n1, n2 := 1000, 10000
	w := math.Sqrt(float64(n1) / float64(n2))
	for _, c := range recoveryCases {
		name := fmt.Sprintf("%s%v", c.family, c.params)
		t.Run(name, func(t *testing.T) {
			seeds := 80
			if c.slow {
				seeds = 40
				if testing.Short() {
					t.Skip("EM fits run without -short")
				}
			}
			nn := n2
			r1, _, _ := rmse(t, c.family, c.d, c.params, n1, seeds)
			r2, b2, se2 := rmse(t, c.family, c.d, c.params, nn, seeds)
			for i := range c.params {
				ratio := r2[i] / r1[i]
				w := w
				if c.family == "Pareto" && i == 1 {
					// xm is the sample minimum, whose error shrinks like 1/n.
					w *= w
				}
				// The RMSE from 40-80 seeds is known to about ±10-15%; the ratio of
				// two to about ±20%. Small samples of the mixtures are worse than
				// asymptotic (heavier-tailed errors at n = 1000), so their ratio may
				// fall further below √(n1/n2).
				lo, hi := 0.65*w, 1.45*w
				if c.slow {
					lo = 0.3 * w
				}
				if c.family == "Pareto" && i == 1 {
					lo, hi = 0.5*w, 2*w // the minimum's error is exponential: a noisier RMSE
				}
				if !(ratio > lo && ratio < hi) {
					t.Errorf("param %d: RMSE %.4g at n=%d, %.4g at n=%d: ratio %.3f, want about %.3f", i, r1[i], n1, r2[i], nn, ratio, w)
				}
				if c.family == "Pareto" && i == 1 {
					continue // the minimum is biased upwards by design, and not normal
				}
				// The MLE's bias is O(1/n) against an RMSE of O(1/√n); a mixture's
				// constant is larger.
				if bmax := map[bool]float64{false: 0.5, true: 0.65}[c.slow]; math.Abs(b2[i]) > bmax*r2[i]+1e-12 {
					t.Errorf("param %d: bias %.3g is not small next to the RMSE %.3g at n=%d", i, b2[i], r2[i], nn)
				}
				if q := se2[i] / r2[i]; !(q > 0.65 && q < 1.5) {
					t.Errorf("param %d: mean reported standard error %.4g against an RMSE of %.4g at n=%d", i, se2[i], r2[i], nn)
				}
			}
		})
	}
}

// A million values: the estimates are within 4 standard errors of the
// truth, and the standard errors are those at n = 10^3 divided by √1000:
// the error keeps shrinking as 1/√n up to 10^6.
func TestFitMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 10^6 values")
	}
	for _, c := range recoveryCases[:9] {
		x := draw(c.d, 1_000_000, 7, "million")
		opts := FitOptions{NoFloor: c.family == "N"}
		f, err := FitFamily(c.family, x, opts)
		if err != nil {
			t.Fatal(err)
		}
		small, err := FitFamily(c.family, x[:1000], opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range c.params {
			if math.Abs(f.Params[i]-p) > 4*f.StdErr[i] {
				t.Errorf("%s: param %d = %.6g, want %.6g ± 4×%.3g", c.family, i, f.Params[i], p, f.StdErr[i])
			}
			rate := math.Sqrt(1000)
			if c.family == "Pareto" && i == 1 {
				rate = 1000 // the minimum's error shrinks like 1/n
			}
			if q := small.StdErr[i] / f.StdErr[i] / rate; !(q > 0.75 && q < 1.33) {
				t.Errorf("%s: param %d: standard error %.3g at n=10^3, %.3g at 10^6: ratio %.1f, want about %.1f",
					c.family, i, small.StdErr[i], f.StdErr[i], small.StdErr[i]/f.StdErr[i], rate)
			}
		}
	}
}

// nests tells which families contain another as a special case (and may so
// fit its samples as well, by a hair).
var nests = map[string][]string{
	"Exp":   {"W", "Gamma", "HExp2", "HExp3", "HGamma2"},
	"Gamma": {"HGamma2"},
	"HExp2": {"HExp3", "HGamma2"},
}

// In the clear cases the true family (or one that contains it) has the
// lowest D, and the thesis's six candidates rank the true one first.
func TestSelectionFindsTheTrueFamily(t *testing.T) {
	cases := []struct {
		family string
		d      Distribution
	}{
		{"Exp", Exponential{0.02}},
		{"N", Normal{100, 15}},
		{"LogNorm", LogNormal{3, 1.2}},
		{"W", Weibull{0.6, 100}},
		{"W", Weibull{4.25, 7.86}},
		{"Gamma", Gamma{2.62, 7.7}},
		{"Pareto", Pareto{1.2, 5}},
		{"HExp2", HyperExponential{[]float64{0.3, 0.7}, []float64{1, 0.01}}},
		{"HGamma2", HyperGamma{[]float64{0.78, 0.22}, []float64{4.2, 312}, []float64{0.94, 0.03}}},
	}
	for _, c := range cases {
		t.Run(c.family+c.d.String(), func(t *testing.T) {
			x := draw(c.d, 20000, 3, c.d.String())
			fits, err := FitAll(x, nil, FitOptions{NoFloor: c.family == "N"})
			if err != nil {
				t.Fatal(err)
			}
			best := fits[0].Family
			if best != c.family && !slices.Contains(nests[c.family], best) {
				for _, f := range fits {
					t.Logf("%-8s D=%.4f %v %v", f.Family, f.D, f.Params, f.Err)
				}
				t.Errorf("best fit %s, want %s", best, c.family)
			}
			thesis := []string{"Exp", "N", "LogNorm", "W", "Gamma", "HExp2"}
			if !slices.Contains(thesis, c.family) {
				return
			}
			var sub []Fit
			for _, f := range fits {
				if slices.Contains(thesis, f.Family) {
					sub = append(sub, f)
				}
			}
			if b := Best(sub); b == nil || (b.Family != c.family && !slices.Contains(nests[c.family], b.Family)) {
				t.Errorf("among the thesis's candidates the best is %v, want %s", b, c.family)
			}
		})
	}
}

// Censoring: runtimes cut at a wall-time limit. The censored likelihood
// recovers the parameters; ignoring the censoring (taking the limit as the
// value) does not.
func TestCensoredFits(t *testing.T) {
	cases := []struct {
		family string
		d      Distribution
		params []float64
		q      float64 // the censoring quantile
	}{
		{"Exp", Exponential{0.1}, []float64{0.1}, 0.6},
		{"N", Normal{10, 3}, []float64{10, 3}, 0.8},
		{"LogNorm", LogNormal{3, 1}, []float64{3, 1}, 0.7},
		{"W", Weibull{0.8, 100}, []float64{0.8, 100}, 0.8},
		{"Gamma", Gamma{2, 5}, []float64{2, 5}, 0.75},
		{"Pareto", Pareto{2.5, 1}, []float64{2.5, 1}, 0.9},
		{"HExp2", HyperExponential{[]float64{0.3, 0.7}, []float64{1, 0.01}}, []float64{0.3, 1, 0.01}, 0.85},
		{"HGamma2", HyperGamma{[]float64{0.6, 0.4}, []float64{4.2, 40}, []float64{0.94, 0.25}}, []float64{0.6, 4.2, 0.94, 40, 0.25}, 0.9},
	}
	for _, c := range cases {
		t.Run(c.family, func(t *testing.T) {
			x := draw(c.d, 40000, 5, "censored-"+c.family)
			limit := c.d.Quantile(c.q)
			opts := FitOptions{CensorAt: limit, NoFloor: c.family == "N"}
			f, err := FitFamily(c.family, x, opts)
			if err != nil {
				t.Fatal(err)
			}
			if want := 40000 * (1 - c.q); math.Abs(float64(f.Censored)-want) > 5*math.Sqrt(want) {
				t.Errorf("%d censored, want about %.0f", f.Censored, want)
			}
			for i, p := range c.params {
				if math.Abs(f.Params[i]-p) > 4.5*f.StdErr[i] {
					t.Errorf("param %d = %.5g ± %.3g, want %.5g", i, f.Params[i], f.StdErr[i], p)
				}
			}
			if f.D > 1.63/math.Sqrt(float64(f.N)) {
				t.Errorf("D = %.4f over the uncensored range: the censored fit does not fit", f.D)
			}
			// Taken as observed at the limit, the values pull the fit away.
			capped := slices.Clone(x)
			for i := range capped {
				capped[i] = math.Min(capped[i], limit)
			}
			naive, err := FitFamily(c.family, capped, FitOptions{NoFloor: c.family == "N"})
			if err != nil {
				t.Fatal(err)
			}
			far := false
			for i, p := range c.params {
				far = far || math.Abs(naive.Params[i]-p) > 10*f.StdErr[i]
			}
			if !far && c.family != "Pareto" {
				t.Errorf("ignoring the censoring gave %v, as good as the censored fit %v", naive.Params, f.Params)
			}
		})
	}
}

// The thesis's way: fit on log2 of the data, sample 2^Y.
func TestLog2Fit(t *testing.T) {
	iat := Pow2{Weibull{4.25, 7.86}} // Table 4.9's BoT inter-arrival time
	x := draw(iat, 50000, 11, "log2")
	f, err := FitFamily("W", x, FitOptions{Log2: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.Params[0]-4.25) > 4*f.StdErr[0] || math.Abs(f.Params[1]-7.86) > 4*f.StdErr[1] {
		t.Errorf("W on log2 = %v ± %v, want (4.25, 7.86)", f.Params, f.StdErr)
	}
	if _, ok := f.Dist.(Pow2); !ok {
		t.Fatalf("Dist is %T, want Pow2", f.Dist)
	}
	for _, y := range []float64{5, 7, 8.5, 10} {
		if a, b := f.Dist.CDF(math.Exp2(y)), f.Model.CDF(y); math.Abs(a-b) > 1e-12 {
			t.Errorf("CDF(2^%g) = %g, model CDF(%g) = %g", y, a, y, b)
		}
	}
	// The back-transformed sample follows Dist.
	back := draw(f.Dist, 20000, 12, "log2-back")
	if d := KSStatistic(sortedCopy(back), f.Dist.CDF); d > KSCritical(0.01, len(back)) {
		t.Errorf("samples of Dist: D = %.4f", d)
	}
	// The thesis's derived targets (reference §6.2).
	if m := iat.Mean(); math.Abs(m-315) > 2 {
		t.Errorf("mean of 2^W(4.25,7.86) = %.1f, want about 315 s", m)
	}
	if med := iat.Quantile(0.5); math.Abs(med-148) > 1 {
		t.Errorf("median = %.1f, want about 148 s", med)
	}
	// A fitted run time whose mean owes 1.4e-7 of itself to values beyond
	// the quantiles float64 resolves: finite, 5924.56 (integrated over x with
	// 160,000 midpoints).
	if m := (Pow2{Weibull{2.53, 8.97}}).Mean(); math.Abs(m-5924.56) > 0.01 {
		t.Errorf("mean of 2^W(2.53,8.97) = %g, want 5924.56", m)
	}
	if m := (Pow2{Weibull{1.76, 2.11}}).Mean(); math.Abs(m-5.275) > 0.01 {
		t.Errorf("mean BoT size 2^W(1.76,2.11) = %.3f, want about 5.27", m)
	}
}

func sortedCopy(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// Values at or below the floor (zeros; ones under log2) are set apart and
// put back by Dist with their share.
func TestFloor(t *testing.T) {
	r := NewStream(1, 0, "floor")
	var x []float64
	for i := 0; i < 20000; i++ {
		switch u := r.Float64(); {
		case u < 0.15:
			x = append(x, 0)
		case u < 0.25:
			x = append(x, 1)
		default:
			x = append(x, math.Exp2(Weibull{2, 6}.Rand(r)))
		}
	}
	f, err := FitFamily("W", x, FitOptions{Log2: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Below < 4700 || f.Below > 5300 || f.Total != 20000 || f.N+f.Below != 20000 {
		t.Errorf("below = %d of %d (fitted %d), want about 5000", f.Below, f.Total, f.N)
	}
	if v, w := empiricalTable(f.BelowDist); !slices.Equal(v, []float64{0, 1}) || math.Abs(w[0]-0.6) > 0.03 {
		t.Errorf("below values %v weights %v, want 0 and 1 at about 60/40", v, w)
	}
	y := draw(f.Dist, 40000, 2, "floor-back")
	zeros := 0
	for _, v := range y {
		if v == 0 {
			zeros++
		}
	}
	if share := float64(zeros) / float64(len(y)); math.Abs(share-0.15) > 0.01 {
		t.Errorf("Dist gives %.3f zeros, want 0.15", share)
	}
	// Without the floor a Weibull cannot fit log2(0).
	if _, err := FitFamily("W", x, FitOptions{Log2: true, NoFloor: true}); err == nil {
		t.Error("fit of log2(0) without a floor succeeded")
	}
	// All values below the floor.
	if _, err := FitFamily("W", []float64{0, 0, 1}, FitOptions{Log2: true}); err == nil {
		t.Error("a fit of nothing succeeded")
	}
}

func TestFitErrors(t *testing.T) {
	if _, err := FitFamily("Cauchy", []float64{1, 2, 3}, FitOptions{}); err == nil {
		t.Error("unknown family accepted")
	}
	if _, err := FitFamily("W", []float64{1, 2, math.NaN()}, FitOptions{}); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := FitFamily("W", []float64{5, 5, 5}, FitOptions{}); err == nil {
		t.Error("constant data accepted")
	}
	f, err := FitFamily("LogNorm", []float64{-1, 2, 3}, FitOptions{NoFloor: true})
	if err == nil || f.Err == nil {
		t.Error("log-normal of a negative value accepted")
	}
	if _, err := FitAll([]float64{1, 2, 3}, []string{"W", "nope"}, FitOptions{}); err == nil {
		t.Error("FitAll with an unknown family succeeded")
	}
}

// The same data and options always give the same fits.
func TestFitDeterministic(t *testing.T) {
	x := draw(LogNormal{3, 1}, 30000, 9, "det")
	a, _ := FitAll(x, nil, FitOptions{})
	b, _ := FitAll(x, nil, FitOptions{})
	for i := range a {
		if a[i].Family != b[i].Family || !slices.Equal(a[i].Params, b[i].Params) || a[i].D != b[i].D {
			t.Errorf("run 1 %s %v, run 2 %s %v", a[i].Family, a[i].Params, b[i].Family, b[i].Params)
		}
	}
}

func TestSortFloats(t *testing.T) {
	r := NewStream(1, 0, "sort")
	x := make([]float64, 100000)
	for i := range x {
		x[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
		if i%97 == 0 {
			x[i] = 0
		}
	}
	want := slices.Clone(x)
	slices.Sort(want)
	sortFloats(x)
	if !slices.Equal(x, want) {
		t.Error("radix sort differs from slices.Sort")
	}
}

// Fit records rebuild the same distribution.
func TestFitRecordRoundTrip(t *testing.T) {
	x := append(draw(Pow2{Gamma{3, 2}}, 5000, 4, "rec"), 0, 0, 1)
	fits, err := FitAll(x, nil, FitOptions{Log2: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fits {
		if f.Err != nil {
			continue
		}
		rec := f.Record()
		d, err := rec.Distribution()
		if err != nil {
			t.Fatalf("%s: %v", f.Family, err)
		}
		for _, v := range []float64{0, 0.5, 1, 3, 8, 40, 200} {
			if a, b := d.CDF(v), f.Dist.CDF(v); math.Abs(a-b) > 1e-12 {
				t.Errorf("%s: CDF(%g) = %g from the record, %g from the fit", f.Family, v, a, b)
			}
		}
	}
	bad := []FitRecord{
		{Family: "W", Params: map[string]float64{"shape": 1}},
		{Family: "W", Params: map[string]float64{"shape": 1, "scale": 2, "rate": 3}},
		{Family: "Weird", Params: map[string]float64{}},
		{Family: "W", Params: map[string]float64{"shape": -1, "scale": 2}},
		{Family: "Exp", Params: map[string]float64{"rate": 1}, Below: 0.2},
		{Family: "Exp", Params: map[string]float64{"rate": 1}, Below: 1, BelowValues: []float64{0}, BelowWeights: []float64{1}},
	}
	for _, r := range bad {
		if _, err := r.Distribution(); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}
