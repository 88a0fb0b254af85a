package submitter

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gmark/gmark/analyzer/sampstat"
)

// Delays accumulates submission delays (actual − scheduled submit time, on
// the monotonic clock) in submission order.
type Delays struct {
	d []time.Duration
}

// Add records one delay.
func (s *Delays) Add(d time.Duration) { s.d = append(s.d, d) }

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
// (sampstat.Quantile, docs/metrics.md), so that both say the same p99.
func (s *Delays) Stats() DelayStats {
	n := len(s.d)
	st := DelayStats{N: n}
	if n == 0 {
		return st
	}
	var sum float64
	for _, d := range s.d {
		sum += float64(d)
	}
	st.Mean = time.Duration(sum / float64(n))
	tenth := n / 10
	if tenth > 0 {
		st.Drift = meanOf(s.d[n-tenth:]) - meanOf(s.d[:tenth])
	}
	sorted := make([]float64, n)
	for i, d := range s.d {
		sorted[i] = float64(d)
	}
	slices.Sort(sorted)
	q := func(p float64) time.Duration { return time.Duration(math.Round(sampstat.Quantile(sorted, p))) }
	st.P50, st.P75, st.P99 = q(0.50), q(0.75), q(0.99)
	st.Max = time.Duration(sorted[n-1])
	return st
}

func meanOf(d []time.Duration) time.Duration {
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
