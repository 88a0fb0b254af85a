package stats

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// Maximum-likelihood fitting of the thesis's candidate families (and the
// hyper-gamma of Lublin–Feitelson) to a sample, with the goodness of fit of
// each (KS D and p-value, Anderson–Darling A²), AIC and BIC. The method and
// its formulas are in docs/models.md.
//
// The data go through three steps before fitting, shared by every family so
// that their D values are comparable:
//
//  1. transform: y = log2(x) with FitOptions.Log2 (the thesis fits every
//     workload characteristic on log2 of its values), else y = x;
//  2. censor: values x ≥ CensorAt (a wall-time limit that killed the longest
//     jobs) are right-censored: only "y ≥ log2(CensorAt)" is known of them,
//     and the likelihood uses the survival function there;
//  3. floor: values with y ≤ Floor (default 0) are set apart. The positive
//     families cannot take them (a zero under log2 is −Inf; log2(1) = 0 makes
//     a Weibull of shape > 1 impossible); they are kept as an empirical
//     distribution of their own (Fit.BelowDist) and put back, with their
//     share, in Fit.Dist. Every statistic of a fit is about the values above
//     the floor.

// FitOptions tune a fit.
type FitOptions struct {
	// Log2 fits the distribution of log2(x); Fit.Dist then samples 2^Y.
	Log2 bool
	// Floor: values at or below it on the fitted scale are set apart (see
	// above). The zero value is the usual choice: x ≤ 0, or x ≤ 1 with Log2.
	Floor float64
	// NoFloor keeps every value; a positive family then fails on data ≤ 0.
	NoFloor bool
	// CensorAt right-censors values ≥ CensorAt (on the data's scale, before
	// the transform); 0 means no censoring.
	CensorAt float64
}

// Fit is the result of fitting one family to a sample.
type Fit struct {
	Family     string    // canonical name: Exp, N, LogNorm, W, Gamma, Pareto, HExp2, HExp3, HGamma2
	ParamNames []string  // as in the WDL and the fit file
	Params     []float64 // the MLE, on the fitted scale (log2 when Log2)
	// StdErr are the asymptotic standard errors of Params, from the observed
	// information (the inverse Hessian of the log-likelihood at the MLE); NaN
	// where the information is singular.
	StdErr []float64
	Model  Distribution // the fitted family on the fitted scale
	// Dist is the fitted distribution of the data themselves: Model, or 2^Model
	// with Log2, spliced with the values set apart below the floor.
	Dist Distribution

	LogL float64 // log-likelihood on the fitted scale, censored values included
	AIC  float64 // 2k − 2 LogL
	BIC  float64 // k ln N − 2 LogL
	D    float64 // Kolmogorov–Smirnov distance
	P    float64 // its p-value (approximate: the parameters come from the data)
	AD   float64 // Anderson–Darling A² (right-censored form when Censored > 0)
	K    int     // free parameters

	N         int  // values fitted, censored ones included
	Censored  int  // of which right-censored
	Below     int  // values set apart at or below the floor
	Total     int  // values given
	Log2      bool // fitted on log2 of the data
	Floor     float64
	CensorAt  float64
	BelowDist *Empirical // the values set apart (nil when none)

	Iterations int  // of the iterative fits (Newton, EM, quasi-Newton)
	Converged  bool // false when an iterative fit stopped at its limit
	Err        error
}

// BelowShare is the fraction of the values that were set apart.
func (f *Fit) BelowShare() float64 {
	if f.Total == 0 {
		return 0
	}
	return float64(f.Below) / float64(f.Total)
}

// Param returns the value of the named parameter.
func (f *Fit) Param(name string) (float64, bool) {
	for i, n := range f.ParamNames {
		if n == name {
			return f.Params[i], true
		}
	}
	return 0, false
}

// fitResult is what a family's fitter returns.
type fitResult struct {
	params     []float64
	stderr     []float64
	logL       float64
	iterations int
	converged  bool
}

// sample is the data of a fit after the transform, the censoring and the
// floor, with the sums the families share.
type sample struct {
	y     []float64 // uncensored values on the fitted scale, sorted
	m     int       // censored values, all at c
	c     float64
	n     int // len(y) + m
	below []float64
	total int
	opts  FitOptions

	// shared statistics of y (computed by prepare)
	sum, mean, ss float64 // Σy, mean, Σ(y−mean)²
	lny           []float64
	lsum, lmean   float64 // Σ ln y, mean (NaN when some y ≤ 0)
	lss           float64 // Σ(ln y − lmean)²
	lmax          float64 // ln of the largest value, censoring point included
	positive      bool    // every y > 0 (and c > 0)

	binsOnce sync.Once
	bins     *binned
}

// prepare applies the transform, censoring and floor.
func prepare(x []float64, opts FitOptions) (*sample, error) {
	s := &sample{opts: opts, total: len(x)}
	tr := func(v float64) float64 {
		if opts.Log2 {
			if v <= 0 {
				return math.Inf(-1)
			}
			return math.Log2(v)
		}
		return v
	}
	censor := opts.CensorAt > 0
	if censor {
		s.c = tr(opts.CensorAt)
	}
	s.y = make([]float64, 0, len(x))
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("value %d is %g: the data must be finite numbers", i+1, v)
		}
		y := tr(v)
		if !opts.NoFloor && y <= opts.Floor {
			s.below = append(s.below, v)
			continue
		}
		if censor && v >= opts.CensorAt {
			s.m++
			continue
		}
		if math.IsInf(y, -1) {
			return nil, fmt.Errorf("value %d is %g: log2 needs values > 0 (keep the floor, or remove such values)", i+1, v)
		}
		s.y = append(s.y, y)
	}
	s.n = len(s.y) + s.m
	if len(s.y) < 2 {
		return nil, fmt.Errorf("%d value(s) left to fit of %d (%d at or below the floor, %d censored): need at least 2", len(s.y), len(x), len(s.below), s.m)
	}
	sortFloats(s.y)
	if s.y[0] == s.y[len(s.y)-1] {
		return nil, fmt.Errorf("all %d values to fit are equal (%g): no family can be fitted", len(s.y), s.y[0])
	}
	// Shifted sums keep the variance accurate for data far from 0.
	shift := s.y[len(s.y)/2]
	var sd, sdd float64
	for _, y := range s.y {
		d := y - shift
		sd += d
		sdd += d * d
	}
	d := float64(len(s.y))
	s.mean = shift + sd/d
	s.sum = s.mean * d
	s.ss = math.Max(0, sdd-sd*sd/d)
	s.positive = s.y[0] > 0 && (s.m == 0 || s.c > 0)
	if s.positive {
		s.lny = make([]float64, len(s.y))
		for i, y := range s.y {
			s.lny[i] = math.Log(y)
		}
		lshift := s.lny[len(s.lny)/2]
		sd, sdd = 0, 0
		for _, l := range s.lny {
			dl := l - lshift
			sd += dl
			sdd += dl * dl
		}
		s.lmean = lshift + sd/d
		s.lsum = s.lmean * d
		s.lss = math.Max(0, sdd-sd*sd/d)
		s.lmax = s.lny[len(s.lny)-1]
		if s.m > 0 {
			s.lmax = math.Max(s.lmax, math.Log(s.c))
		}
	}
	return s, nil
}

// d is the number of uncensored values.
func (s *sample) d() float64 { return float64(len(s.y)) }

// FitFamily fits one family (a name or alias of FitFamilies) to x.
func FitFamily(name string, x []float64, opts FitOptions) (Fit, error) {
	f := lookupFitFamily(name)
	if f == nil {
		return Fit{}, unknownFitFamily(name)
	}
	s, err := prepare(x, opts)
	if err != nil {
		return Fit{}, err
	}
	fit := fitOne(f, s)
	return fit, fit.Err
}

// FitAll fits each of families (nil: all of FitFamilies) to x and returns
// the fits best first: lowest KS distance D, then lowest AIC; fits that
// failed come last with Err set. The families run in parallel; the result
// does not depend on the scheduling.
func FitAll(x []float64, families []string, opts FitOptions) ([]Fit, error) {
	if families == nil {
		families = FitFamilies()
	}
	var fams []*Family
	seen := map[string]bool{}
	for _, name := range families {
		f := lookupFitFamily(name)
		if f == nil {
			return nil, unknownFitFamily(name)
		}
		if !seen[f.Name] {
			seen[f.Name] = true
			fams = append(fams, f)
		}
	}
	s, err := prepare(x, opts)
	if err != nil {
		return nil, err
	}
	fits := make([]Fit, len(fams))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, f := range fams {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			fits[i] = fitOne(f, s)
			<-sem
		}()
	}
	wg.Wait()
	SortFits(fits)
	return fits, nil
}

// SortFits orders fits best first: lowest D, then lowest AIC, then fewer
// parameters; failed fits last, in name order.
func SortFits(fits []Fit) {
	sort.SliceStable(fits, func(i, j int) bool {
		a, b := &fits[i], &fits[j]
		if (a.Err == nil) != (b.Err == nil) {
			return a.Err == nil
		}
		if a.Err != nil {
			return a.Family < b.Family
		}
		if a.D != b.D {
			return a.D < b.D
		}
		if a.AIC != b.AIC {
			return a.AIC < b.AIC
		}
		return a.K < b.K
	})
}

// fitOne runs one family's fitter and the goodness of fit.
func fitOne(f *Family, s *sample) Fit {
	k := f.FreeParams()
	out := Fit{Family: f.Name, ParamNames: f.ParamNames(), K: k, N: s.n, Censored: s.m, Below: len(s.below),
		Total: s.total, Log2: s.opts.Log2, Floor: s.opts.Floor, CensorAt: s.opts.CensorAt}
	if s.opts.NoFloor {
		out.Floor = math.Inf(-1)
	}
	fail := func(err error) Fit {
		out.Err = fmt.Errorf("%s: %w", f.Name, err)
		out.D, out.P, out.AD, out.LogL, out.AIC, out.BIC = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return out
	}
	if f.positive && !s.positive {
		return fail(fmt.Errorf("needs values > 0 on the fitted scale (the smallest is %g)", s.y[0]))
	}
	r, err := f.fit(s)
	if err != nil {
		return fail(err)
	}
	for _, p := range r.params {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return fail(fmt.Errorf("the fit diverged (parameters %v)", r.params))
		}
	}
	model, err := f.build(r.params)
	if err != nil {
		return fail(fmt.Errorf("the fit gave invalid parameters: %v", err))
	}
	out.Params, out.StdErr, out.Model = r.params, r.stderr, model
	if out.StdErr == nil {
		out.StdErr = nanSlice(len(r.params))
	}
	out.LogL, out.Iterations, out.Converged = r.logL, r.iterations, r.converged
	out.AIC = 2*float64(k) - 2*r.logL
	out.BIC = float64(k)*math.Log(float64(s.n)) - 2*r.logL
	out.D, out.AD = gofSorted(model, s.y, s.lny, s.m, s.c)
	out.P = KSPValue(out.D, s.n)
	out.BelowDist = belowDist(s.below)
	out.Dist = out.composeDist()
	return out
}

// composeDist builds Dist from Model, the transform and the values below
// the floor.
func (f *Fit) composeDist() Distribution {
	var d Distribution = f.Model
	if f.Log2 {
		d = Pow2{d}
	}
	if f.Below > 0 && f.BelowDist != nil {
		d = Spliced{Low: f.BelowDist, LowShare: f.BelowShare(), High: d}
	}
	return d
}

// maxBelowValues bounds the empirical distribution of the values set apart:
// traces record times in whole seconds, so these are usually a handful of
// distinct values (0 and 1 under log2).
const maxBelowValues = 16

// belowDist is the distribution of the values set apart: their distinct
// values with their frequencies, or, when there are more than
// maxBelowValues distinct ones, that many equally likely quantiles.
func belowDist(v []float64) *Empirical {
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	slices.Sort(s)
	var vals, w []float64
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		vals = append(vals, s[i])
		w = append(w, float64(j-i))
		i = j
	}
	if len(vals) > maxBelowValues {
		vals, w = vals[:0], w[:0]
		for k := 0; k < maxBelowValues; k++ {
			vals = append(vals, s[(2*k+1)*len(s)/(2*maxBelowValues)])
			w = append(w, 1)
		}
	}
	e, err := NewEmpirical(vals, w)
	if err != nil {
		return nil
	}
	return e
}

func nanSlice(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// sortFloats sorts finite values ascending: a least-significant-digit radix
// sort on the order-preserving bit patterns (11-bit digits, 6 passes) for
// large inputs, several times faster than a comparison sort there.
func sortFloats(v []float64) {
	if len(v) < 1<<14 {
		slices.Sort(v)
		return
	}
	keys := make([]uint64, len(v))
	for i, x := range v {
		b := math.Float64bits(x)
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		keys[i] = b
	}
	tmp := make([]uint64, len(v))
	const bits = 11
	const buckets = 1 << bits
	var count [buckets]int
	for shift := uint(0); shift < 64; shift += bits {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(buckets-1)]++
		}
		if count[(keys[0]>>shift)&(buckets-1)] == len(keys) {
			continue // every key has the same digit here
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, k := range keys {
			d := (k >> shift) & (buckets - 1)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, b := range keys {
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		v[i] = math.Float64frombits(b)
	}
}
