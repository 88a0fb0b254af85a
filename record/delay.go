package record

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gmark/gmark/stats/sampstat"
)

// Delays accumulates submission delays (actual − scheduled submit time, on
// the monotonic clock) in submission order.
//
// Its percentiles are exact, as the report's are, so each delay is kept:
// as a float32 count of nanoseconds, 4 bytes a submission (4 MB for
// 1,000,000 jobs, the only part of the submitter's memory that grows with
// the run). A float32 holds every whole number of nanoseconds up to 2^24
// (16.8 ms) exactly, and a longer delay within 2^-24 (6·10^-8) of its
// value: 60 ns at 1 s. The mean and the maximum are kept exactly besides.
type Delays struct {
	d   []float32
	sum float64
	max time.Duration
}

// Add records one delay.
func (s *Delays) Add(d time.Duration) {
	if len(s.d) == 0 || d > s.max {
		s.max = d
	}
	s.d = append(s.d, float32(d))
	s.sum += float64(d)
}

// Len is the number of delays recorded.
func (s *Delays) Len() int { return len(s.d) }

// DelayStats summarises delays.
type DelayStats struct {
	N    int
	Mean time.Duration
	P50  time.Duration
	P75  time.Duration
	P99  time.Duration
	Max  time.Duration
	// Drift is the mean delay of the last tenth of the submissions minus
	// that of the first tenth: a submitter that falls behind shows a
	// growing delay, one that keeps pace a drift near zero.
	Drift time.Duration
}

// Stats computes the summary. Its percentiles are those of the report
// (sampstat.Quantile's definition, docs/metrics.md), so that both say the
// same p99.
func (s *Delays) Stats() DelayStats {
	n := len(s.d)
	st := DelayStats{N: n}
	if n == 0 {
		return st
	}
	st.Mean = time.Duration(s.sum / float64(n))
	tenth := n / 10
	if tenth > 0 {
		st.Drift = meanOf(s.d[n-tenth:]) - meanOf(s.d[:tenth])
	}
	sorted := slices.Clone(s.d)
	slices.Sort(sorted)
	q := func(p float64) time.Duration { return time.Duration(math.Round(quantile32(sorted, p))) }
	st.P50, st.P75, st.P99 = q(0.50), q(0.75), q(0.99)
	st.Max = s.max
	return st
}

// quantile32 is sampstat.Quantile over float32s (the p-quantile of a
// sorted sample, interpolating between order statistics), without a
// float64 copy of the sample.
func quantile32(sorted []float32, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if p <= 0 {
		return float64(sorted[0])
	}
	if p >= 1 {
		return float64(sorted[n-1])
	}
	h := float64(n-1) * p
	i := int(h)
	if i+1 >= n {
		return float64(sorted[n-1])
	}
	return sampstat.Quantile([]float64{float64(sorted[i]), float64(sorted[i+1])}, h-float64(i))
}

func meanOf(d []float32) time.Duration {
	var sum float64
	for _, x := range d {
		sum += float64(x)
	}
	return time.Duration(sum / float64(len(d)))
}

func (st DelayStats) String() string {
	if st.N == 0 {
		return "no submissions"
	}
	return fmt.Sprintf("mean %s, p50 %s, p75 %s, p99 %s, max %s, drift %s over %d submissions",
		fmtDur(st.Mean), fmtDur(st.P50), fmtDur(st.P75), fmtDur(st.P99), fmtDur(st.Max), fmtDur(st.Drift), st.N)
}

// fmtDur prints a delay in milliseconds with microsecond resolution.
func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}
