package gwa

import (
	"math"
	"slices"
	"sort"
)

// Sketch summarizes a distribution: exact counts for whole numbers 1 … 4095
// and for 0, and every other value either kept as it is, while an
// ExactBudget allows (its percentiles are then exact), or in log-spaced bins
// (relative width 1%), positive or negative, in bounded memory whatever the
// number of values. A Sketch without a budget (its zero value) bins from the
// start; one whose budget runs out bins the values it kept (folds them) and
// every later one.
//
// Error bound: a quantile or CDF point whose value is a whole number in
// [0, 4095] is exact; any other value is returned within a relative error of
// 0.5% (α): the sketch returns a value v' for which some value v of the
// requested rank satisfies |v' − v| ≤ α·|v|. (The bins are those of
// DDSketch: bin k holds (γ^(k−1), γ^k] with γ = (1+α)/(1−α), and is
// represented by 2γ^k/(γ+1).) Count, min, max, mean and standard deviation
// are exact. Memory: 32 KiB for the exact part, and at most one 8-byte
// counter per populated bin, about 8,300 bins from 10^-9 to 10^18; with a
// budget, 8 bytes per kept value besides, taken from the budget.
//
// While the values are kept, every statistic is a function of the set of
// values, not of the order they came in: the mean and standard deviation
// are summed over the values in sorted order.
type Sketch struct {
	n       int64
	zeros   int64
	exact   *[exactLimit]int64
	pos     logBins
	neg     logBins
	min     float64
	max     float64
	mean    float64
	m2      float64
	missing int64

	budget *ExactBudget // nil: bins only
	vals   []float64    // the kept values (neither 0 nor a whole number below 4096)
	sorted bool         // vals are sorted
	folded bool         // the budget ran out: the kept values went into the bins
}

// ExactBudget bounds the bytes that the exact statistics of an analysis
// keep (the kept values of its Sketches, and whatever else the analysis
// charges to it). When a request would pass the limit, the budget is spent:
// every Sketch of it folds its values into its bins, every other holder's
// onSpent runs, and nothing more is kept.
type ExactBudget struct {
	limit, used int64
	spent       bool
	sketches    []*Sketch
	onSpent     []func()
}

// DefaultExactBudget is the bytes an analysis keeps for exact statistics
// unless told otherwise: 1 GiB, 2^27 values (about 15 million jobs when
// every characteristic of every job is kept, 30 million of a trace like
// LCG's; docs/trace.md).
const DefaultExactBudget = 1 << 30

// NewExactBudget is a budget of limit bytes (0 or less: none; the
// statistics are the sketch's from the start).
func NewExactBudget(limit int64) *ExactBudget {
	return &ExactBudget{limit: limit, spent: limit <= 0}
}

// Spent tells whether the budget ran out.
func (b *ExactBudget) Spent() bool { return b.spent }

// Limit is the budget in bytes.
func (b *ExactBudget) Limit() int64 { return b.limit }

// take charges n bytes; false (the budget is spent) when they do not fit.
func (b *ExactBudget) take(n int64) bool {
	if b.spent {
		return false
	}
	if b.used+n > b.limit {
		b.spend()
		return false
	}
	b.used += n
	return true
}

// release gives n bytes back.
func (b *ExactBudget) release(n int64) { b.used = max(0, b.used-n) }

// spend ends the exact statistics: the sketches fold their values, the
// other holders drop theirs.
func (b *ExactBudget) spend() {
	if b.spent {
		return
	}
	b.spent = true
	for _, s := range b.sketches {
		s.fold()
	}
	for _, f := range b.onSpent {
		f()
	}
	b.used = 0
}

// NewSketch is a Sketch that keeps its values within budget (nil: bins only).
func NewSketch(budget *ExactBudget) *Sketch {
	s := &Sketch{}
	s.useBudget(budget)
	return s
}

// useBudget makes s keep its values within b (nil or spent: bins only).
func (s *Sketch) useBudget(b *ExactBudget) {
	if b == nil || b.spent {
		return
	}
	s.budget = b
	b.sketches = append(b.sketches, s)
}

// keeping tells whether s keeps its values (its percentiles are exact).
func (s *Sketch) keeping() bool { return s.budget != nil && !s.folded }

// fold bins the kept values and keeps no more.
func (s *Sketch) fold() {
	if s.folded || s.budget == nil {
		return
	}
	for _, v := range s.vals {
		s.bin(v)
	}
	s.vals, s.folded = nil, true
}

// keep keeps x, growing vals within the budget; false when the budget ran
// out (x is then to be binned).
func (s *Sketch) keep(x float64) bool {
	if len(s.vals) == cap(s.vals) {
		// A quarter more at a time: the budget is charged for what is
		// allocated, and doubling would leave up to half of it unused.
		grow := max(1024, cap(s.vals)/4)
		if !s.budget.take(int64(grow) * 8) {
			return false
		}
		s.vals = slices.Grow(s.vals, grow)
	}
	s.vals = append(s.vals, x)
	s.sorted = false
	return true
}

// bin counts x, neither 0 nor a whole number below 4096, in its log bin.
func (s *Sketch) bin(x float64) {
	if x > 0 {
		s.pos.add(binKey(x))
	} else {
		s.neg.add(binKey(-x))
	}
}

const (
	exactLimit   = 4096
	sketchAlpha  = 0.005
	minMagnitude = 1e-9
	maxMagnitude = 1e18
)

var (
	sketchGamma   = (1 + sketchAlpha) / (1 - sketchAlpha)
	sketchLnGamma = math.Log(sketchGamma)
)

// logBins counts values by bin key, densely from the smallest key seen.
type logBins struct {
	off    int
	counts []int64
}

func binKey(x float64) int {
	x = math.Min(math.Max(x, minMagnitude), maxMagnitude)
	return int(math.Ceil(math.Log(x) / sketchLnGamma))
}

func binValue(k int) float64 { return 2 * math.Pow(sketchGamma, float64(k)) / (sketchGamma + 1) }

func (b *logBins) add(k int) {
	if len(b.counts) == 0 {
		b.off = k
		b.counts = append(b.counts, 0)
	}
	if k < b.off {
		grow := b.off - k
		c := make([]int64, len(b.counts)+grow, (len(b.counts)+grow)*5/4+8)
		copy(c[grow:], b.counts)
		b.counts, b.off = c, k
	}
	for k-b.off >= len(b.counts) {
		b.counts = append(b.counts, 0)
	}
	b.counts[k-b.off]++
}

// Add records one value. NaN and infinities are counted as missing.
func (s *Sketch) Add(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		s.missing++
		return
	}
	s.n++
	if s.n == 1 {
		s.min, s.max = x, x
	} else {
		s.min = math.Min(s.min, x)
		s.max = math.Max(s.max, x)
	}
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (x - s.mean)
	switch {
	case x == 0:
		s.zeros++
	case x > 0 && x < exactLimit && x == math.Trunc(x):
		if s.exact == nil {
			s.exact = new([exactLimit]int64)
		}
		s.exact[int(x)]++
	case s.keeping() && s.keep(x):
	default:
		s.bin(x)
	}
}

// AddMissing counts a value that is not known (-1 in a trace).
func (s *Sketch) AddMissing() { s.missing++ }

// Count is the number of values added (missing ones excluded).
func (s *Sketch) Count() int64 { return s.n }

// Missing is the number of missing values.
func (s *Sketch) Missing() int64 { return s.missing }

// Mean is the exact mean (0 when empty).
func (s *Sketch) Mean() float64 {
	if s.keeping() && s.n > 0 {
		m, _ := s.moments()
		return m
	}
	return s.mean
}

// Std is the exact population standard deviation.
func (s *Sketch) Std() float64 {
	if s.n < 2 {
		return 0
	}
	if s.keeping() {
		_, v := s.moments()
		return math.Sqrt(v)
	}
	return math.Sqrt(s.m2 / float64(s.n))
}

// Exact tells whether the percentiles and CDF are exact: every value was
// kept (or counted exactly), within the budget.
func (s *Sketch) Exact() bool { return s.keeping() || len(s.pos.counts)+len(s.neg.counts) == 0 }

// sortVals sorts the kept values (their order of arrival means nothing).
func (s *Sketch) sortVals() {
	if !s.sorted {
		slices.Sort(s.vals)
		s.sorted = true
	}
}

// moments are the mean and the population variance of the kept values and
// the exact counts, summed in sorted order (two passes): a function of the
// set of values, whatever order they came in.
func (s *Sketch) moments() (mean, variance float64) {
	s.sortVals()
	sum := 0.0
	if s.exact != nil {
		for e, c := range s.exact {
			sum += float64(e) * float64(c) // whole numbers: exact below 2^53
		}
	}
	for _, v := range s.vals {
		sum += v
	}
	mean = sum / float64(s.n)
	ss := float64(s.zeros) * mean * mean
	if s.exact != nil {
		for e, c := range s.exact {
			if c > 0 {
				d := float64(e) - mean
				ss += float64(c) * d * d
			}
		}
	}
	for _, v := range s.vals {
		d := v - mean
		ss += d * d
	}
	return mean, ss / float64(s.n)
}

// Min and Max are exact.
func (s *Sketch) Min() float64 { return s.min }
func (s *Sketch) Max() float64 { return s.max }

// walk visits the values in increasing order as (value, count) groups and
// stops when f returns false.
func (s *Sketch) walk(f func(v float64, c int64) bool) {
	if s.keeping() {
		s.walkKept(f)
		return
	}
	for i := len(s.neg.counts) - 1; i >= 0; i-- {
		if c := s.neg.counts[i]; c > 0 && !f(-binValue(i+s.neg.off), c) {
			return
		}
	}
	if s.zeros > 0 && !f(0, s.zeros) {
		return
	}
	// Merge the exact whole numbers with the positive bins by value.
	e, b := 1, 0
	for {
		for s.exact != nil && e < exactLimit && s.exact[e] == 0 {
			e++
		}
		for b < len(s.pos.counts) && s.pos.counts[b] == 0 {
			b++
		}
		haveE := s.exact != nil && e < exactLimit
		haveB := b < len(s.pos.counts)
		switch {
		case !haveE && !haveB:
			return
		case haveE && (!haveB || float64(e) <= binValue(b+s.pos.off)):
			if !f(float64(e), s.exact[e]) {
				return
			}
			e++
		default:
			if !f(binValue(b+s.pos.off), s.pos.counts[b]) {
				return
			}
			b++
		}
	}
}

// walkKept is walk over the kept values and the exact counts.
func (s *Sketch) walkKept(f func(v float64, c int64) bool) {
	s.sortVals()
	v := s.vals
	neg := sort.SearchFloat64s(v, 0)
	// group calls f once per run of equal kept values in v[i:j], j ≤ end.
	group := func(i, end int) (int, bool) {
		j := i + 1
		for j < end && v[j] == v[i] {
			j++
		}
		return j, f(v[i], int64(j-i))
	}
	for i := 0; i < neg; {
		var ok bool
		if i, ok = group(i, neg); !ok {
			return
		}
	}
	if s.zeros > 0 && !f(0, s.zeros) {
		return
	}
	i := neg
	for e := 1; e < exactLimit; e++ {
		if s.exact == nil || s.exact[e] == 0 {
			continue
		}
		for i < len(v) && v[i] < float64(e) {
			var ok bool
			if i, ok = group(i, len(v)); !ok {
				return
			}
		}
		if !f(float64(e), s.exact[e]) {
			return
		}
	}
	for i < len(v) {
		var ok bool
		if i, ok = group(i, len(v)); !ok {
			return
		}
	}
}

// orderStatKept is the i-th smallest value (from 0) of the kept values and
// the exact counts: a binary search among the kept values per whole number
// counted, not a walk over every value.
func (s *Sketch) orderStatKept(i int64) float64 {
	s.sortVals()
	v := s.vals
	neg := int64(sort.SearchFloat64s(v, 0))
	if i < neg {
		return v[i]
	}
	i -= neg
	if i < s.zeros {
		return 0
	}
	i -= s.zeros
	pos := v[neg:] // no value here is a whole number below 4096
	var counted int64
	if s.exact != nil {
		for e := 1; e < exactLimit; e++ {
			c := s.exact[e]
			if c == 0 {
				continue
			}
			below := int64(sort.SearchFloat64s(pos, float64(e))) // kept values below e
			switch {
			case i < below+counted:
				return pos[i-counted]
			case i < below+counted+c:
				return float64(e)
			}
			counted += c
		}
	}
	return pos[i-counted]
}

// Quantile is the q-quantile (q in [0,1]) by the one definition of a
// sample's percentiles in gmark (docs/metrics.md; Hyndman and Fan's type
// 7): with the values sorted x₀ ≤ … ≤ xₙ₋₁ and h = (n−1)q, it is
// x⌊h⌋ + (h−⌊h⌋)(x⌊h⌋₊₁ − x⌊h⌋), each order statistic read from the sketch
// within its error bound.
func (s *Sketch) Quantile(q float64) float64 {
	if s.n == 0 {
		return 0
	}
	if q <= 0 {
		return s.min
	}
	if q >= 1 {
		return s.max
	}
	h := float64(s.n-1) * q
	i := int64(h)
	lo := s.orderStat(i)
	frac := h - float64(i)
	if frac == 0 || i+1 >= s.n {
		return lo
	}
	return lo + frac*(s.orderStat(i+1)-lo)
}

// orderStat is the i-th smallest value (from 0), within the error bound
// (exact while the values are kept).
func (s *Sketch) orderStat(i int64) float64 {
	if s.keeping() {
		return s.orderStatKept(i)
	}
	var seen int64
	out := s.max
	s.walk(func(v float64, c int64) bool {
		seen += c
		if seen > i {
			out = v
			return false
		}
		return true
	})
	return math.Min(math.Max(out, s.min), s.max)
}

// Quantiles returns the quantiles at qs (sorted ascending) in one walk.
func (s *Sketch) Quantiles(qs []float64) []float64 {
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = s.Quantile(q)
	}
	return out
}

// CDF is the fraction of values at or below x, within the error bound.
func (s *Sketch) CDF(x float64) float64 {
	if s.n == 0 {
		return 0
	}
	var seen int64
	s.walk(func(v float64, c int64) bool {
		if v > x {
			return false
		}
		seen += c
		return true
	})
	return float64(seen) / float64(s.n)
}

// Summary is a distribution's statistics as the analysis reports them.
type Summary struct {
	Count   int64 `json:"count"`
	Missing int64 `json:"missing"`
	Min     Stat  `json:"min"`
	Max     Stat  `json:"max"`
	Mean    Stat  `json:"mean"`
	Std     Stat  `json:"std"`
	CV      Stat  `json:"cv"` // std / |mean|
	P5      Stat  `json:"p5"`
	P25     Stat  `json:"p25"`
	Median  Stat  `json:"median"`
	P75     Stat  `json:"p75"`
	P90     Stat  `json:"p90"`
	P95     Stat  `json:"p95"`
	P99     Stat  `json:"p99"`
	// Percentiles says how the percentiles and the CDF were computed:
	// "exact" (type 7 over every value), or "sketch" (within 0.5%: the
	// values passed the memory budget of exact statistics); "" when there
	// are none.
	Percentiles string     `json:"percentiles,omitempty"`
	CDF         []CDFPoint `json:"cdf,omitempty"`
}

// How Summary.Percentiles were computed.
const (
	PercentilesExact  = "exact"
	PercentilesSketch = "sketch"
)

// MarshalJSON adds the reasons of absent statistics (see Stat).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	return withAbsent(plain(s))
}

// CDFPoint is one point of an empirical CDF: P(X <= Value) = P.
type CDFPoint struct {
	Value float64 `json:"x"`
	P     float64 `json:"p"`
}

// cdfSteps is the number of CDF points a summary carries (plus one).
const cdfSteps = 200

// Summary computes the statistics; withCDF adds the CDF at 201 evenly
// spaced probabilities (a point per distinct value only).
func (s *Sketch) Summary(withCDF bool) *Summary {
	sum := &Summary{Count: s.n, Missing: s.missing}
	if s.n == 0 {
		// No value: every statistic is absent.
		for _, p := range []*Stat{&sum.Min, &sum.Max, &sum.Mean, &sum.Std, &sum.CV, &sum.P5, &sum.P25, &sum.Median, &sum.P75, &sum.P90, &sum.P95, &sum.P99} {
			*p = absent(whyNoValues)
		}
		return sum
	}
	mean, std := s.Mean(), s.Std()
	sum.Min, sum.Max, sum.Mean, sum.Std = known(s.min), known(s.max), known(mean), known(std)
	sum.CV = ratio(std, math.Abs(mean), whyZeroMean)
	sum.Percentiles = PercentilesSketch
	if s.Exact() {
		sum.Percentiles = PercentilesExact
	}
	q := s.Quantiles([]float64{0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99})
	sum.P5, sum.P25, sum.Median, sum.P75 = known(q[0]), known(q[1]), known(q[2]), known(q[3])
	sum.P90, sum.P95, sum.P99 = known(q[4]), known(q[5]), known(q[6])
	if withCDF {
		// One walk: the cumulative fraction after each value group, thinned
		// to steps of 1/cdfSteps, keeping the first and last.
		var seen int64
		next := 0.0
		s.walk(func(v float64, c int64) bool {
			seen += c
			p := float64(seen) / float64(s.n)
			if p >= next || seen == s.n {
				v = math.Min(math.Max(v, s.min), s.max)
				sum.CDF = append(sum.CDF, CDFPoint{Value: v, P: p})
				next = (math.Floor(p*cdfSteps) + 1) / cdfSteps
			}
			return true
		})
	}
	return sum
}
