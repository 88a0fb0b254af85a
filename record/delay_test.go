package record

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gmark/gmark/stats/sampstat"
)

// refStats is the summary computed from the delays kept whole (float64
// nanoseconds), as Delays did before it kept float32s.
func refStats(ds []time.Duration) DelayStats {
	n := len(ds)
	st := DelayStats{N: n}
	if n == 0 {
		return st
	}
	var sum float64
	f := make([]float64, n)
	for i, d := range ds {
		sum += float64(d)
		f[i] = float64(d)
	}
	st.Mean = time.Duration(sum / float64(n))
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	if tenth := n / 10; tenth > 0 {
		st.Drift = time.Duration(mean(f[n-tenth:])) - time.Duration(mean(f[:tenth]))
	}
	slices.Sort(f)
	q := func(p float64) time.Duration { return time.Duration(math.Round(sampstat.Quantile(f, p))) }
	st.P50, st.P75, st.P99, st.Max = q(0.5), q(0.75), q(0.99), time.Duration(f[n-1])
	return st
}

// Delays' summary is exactly the whole-sample one for delays up to 2^24 ns
// (16.8 ms), negative ones included, and within float32 rounding (2^-24
// relative) beyond.
func TestDelaysStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n int, span int64, neg bool) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = time.Duration(rng.Int64N(span))
			if neg && i%3 == 0 {
				out[i] = -out[i]
			}
		}
		return out
	}
	cases := []struct {
		name  string
		ds    []time.Duration
		exact bool
	}{
		{"empty", nil, true},
		{"one", []time.Duration{120 * time.Microsecond}, true},
		{"two", []time.Duration{5, 3}, true},
		{"equal", []time.Duration{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, true},
		{"sub-16ms", gen(10_001, 1<<24, false), true},
		{"negative", gen(999, 1<<24, true), true},
		{"up to 10s", gen(5_000, int64(10*time.Second), false), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d Delays
			for _, x := range c.ds {
				d.Add(x)
			}
			got, want := d.Stats(), refStats(c.ds)
			if c.exact {
				if got != want {
					t.Fatalf("got %+v\nwant %+v", got, want)
				}
				return
			}
			close := func(a, b time.Duration) bool {
				return math.Abs(float64(a-b)) <= math.Abs(float64(b))*math.Pow(2, -23)+1
			}
			if got.N != want.N || got.Mean != want.Mean || got.Max != want.Max || !close(got.P50, want.P50) ||
				!close(got.P75, want.P75) || !close(got.P99, want.P99) || !close(got.Drift, want.Drift) && math.Abs(float64(got.Drift-want.Drift)) > 1e3 {
				t.Fatalf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestDelayStats(t *testing.T) {
	var d Delays
	for i := 1; i <= 100; i++ {
		d.Add(time.Duration(i) * time.Microsecond)
	}
	st := d.Stats()
	// Type-7 percentiles, the report's (docs/metrics.md): h = 99p, so
	// p50 = 50.5 µs, p75 = 75.25 µs, p99 = 99.01 µs.
	if st.N != 100 || st.Mean != 50500*time.Nanosecond || st.P50 != 50500*time.Nanosecond ||
		st.P75 != 75250*time.Nanosecond || st.P99 != 99010*time.Nanosecond || st.Max != 100*time.Microsecond {
		t.Fatalf("%+v", st)
	}
	// The same p99 as the report's for the same delays.
	var secs []float64
	for i := 1; i <= 100; i++ {
		secs = append(secs, float64(i)*1e-6)
	}
	if rep := sampstat.Summarize(secs); math.Abs(rep.P99-st.P99.Seconds()) > 1e-12 {
		t.Fatalf("summary p99 %v, report p99 %gs", st.P99, rep.P99)
	}
	// Drift: last tenth (91..100, mean 95.5) minus first tenth (1..10, mean 5.5).
	if st.Drift != 90*time.Microsecond {
		t.Fatalf("drift %v", st.Drift)
	}
	var empty Delays
	if s := empty.Stats(); s.N != 0 || s.String() != "no submissions" {
		t.Fatalf("%+v", s)
	}
}
