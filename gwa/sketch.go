package gwa

import (
	"math"
)

// Sketch summarizes a distribution in bounded memory, whatever the number of
// values: exact counts for whole numbers 1 … 4095 and for 0, and log-spaced
// bins (relative width 1%) for everything else, positive or negative.
//
// Error bound: a quantile or CDF point whose value is a whole number in
// [0, 4095] is exact; any other value is returned within a relative error of
// 0.5% (α): the sketch returns a value v' for which some value v of the
// requested rank satisfies |v' − v| ≤ α·|v|. (The bins are those of
// DDSketch: bin k holds (γ^(k−1), γ^k] with γ = (1+α)/(1−α), and is
// represented by 2γ^k/(γ+1).) Count, min, max, mean and standard deviation
// are exact. Memory: 32 KiB for the exact part, and at most one 8-byte
// counter per populated bin, about 8,300 bins from 10^-9 to 10^18.
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
	case x > 0:
		s.pos.add(binKey(x))
	default:
		s.neg.add(binKey(-x))
	}
}

// AddMissing counts a value that is not known (-1 in a trace).
func (s *Sketch) AddMissing() { s.missing++ }

// Count is the number of values added (missing ones excluded).
func (s *Sketch) Count() int64 { return s.n }

// Missing is the number of missing values.
func (s *Sketch) Missing() int64 { return s.missing }

// Mean is the exact mean (0 when empty).
func (s *Sketch) Mean() float64 { return s.mean }

// Std is the exact population standard deviation.
func (s *Sketch) Std() float64 {
	if s.n < 2 {
		return 0
	}
	return math.Sqrt(s.m2 / float64(s.n))
}

// Min and Max are exact.
func (s *Sketch) Min() float64 { return s.min }
func (s *Sketch) Max() float64 { return s.max }

// walk visits the values in increasing order as (value, count) groups and
// stops when f returns false.
func (s *Sketch) walk(f func(v float64, c int64) bool) {
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

// orderStat is the i-th smallest value (from 0), within the error bound.
func (s *Sketch) orderStat(i int64) float64 {
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
	Count   int64      `json:"count"`
	Missing int64      `json:"missing"`
	Min     Stat       `json:"min"`
	Max     Stat       `json:"max"`
	Mean    Stat       `json:"mean"`
	Std     Stat       `json:"std"`
	CV      Stat       `json:"cv"` // std / |mean|
	P5      Stat       `json:"p5"`
	P25     Stat       `json:"p25"`
	Median  Stat       `json:"median"`
	P75     Stat       `json:"p75"`
	P90     Stat       `json:"p90"`
	P95     Stat       `json:"p95"`
	P99     Stat       `json:"p99"`
	CDF     []CDFPoint `json:"cdf,omitempty"`
}

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
	sum.Min, sum.Max, sum.Mean, sum.Std = known(s.min), known(s.max), known(s.mean), known(s.Std())
	sum.CV = ratio(s.Std(), math.Abs(s.mean), whyZeroMean)
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
