package metrics

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
)

// jobsFrom reads jobs from b, 40 bytes each: scheduled, submit, start and
// end times (any int64: zero, negative, out of order, the extremes), then
// the state, processors, components, a delay flag and whether it is a
// task of the job before it or composite.
func jobsFrom(b []byte) []Job {
	states := []string{Succeeded, Failed, Cancelled, NeverStarted, ""}
	var out []Job
	for len(b) >= 40 {
		u := func(i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }
		j := Job{JobFacts: store.JobFacts{ID: string(rune('a' + len(out)%26)), Type: []string{"x", "y"}[b[36]&1], Sites: []string{"", "s1", "s1,s2"}[int(b[36]>>1)%3],
			ScheduledNS: u(0), SubmitNS: u(1), StartNS: u(2), EndNS: u(3),
			State: states[int(b[32])%len(states)], Processors: int(int8(b[33])), Components: int(b[34] % 4),
			HasDelay: b[35]&1 == 1, DelayNS: u(1) - u(0), Attempts: int(b[35] >> 1)}}
		switch {
		case b[36]&8 != 0 && len(out) > 0:
			j.Parent = out[len(out)-1].ID
		case b[36]&16 != 0:
			j.Kind = "composite"
		}
		out = append(out, j)
		b = b[40:]
	}
	return out
}

// FuzzCompute computes the metrics of arbitrary job records, as a damaged
// or hand-made store could hold them: never a panic, and the time series
// have the bins asked for or none.
func FuzzCompute(f *testing.F) {
	rec := func(sched, submit, start, end int64, state, procs byte) []byte {
		b := make([]byte, 40)
		for i, v := range []int64{sched, submit, start, end} {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
		b[32], b[33], b[34], b[35] = state, procs, 1, 3
		return b
	}
	f.Add(append(rec(at(0), at(0), at(1), at(5), 0, 1), rec(at(1), at(1.5), at(1), at(9), 1, 4)...), uint16(10), true)
	f.Add(rec(0, 0, 0, 0, 3, 0), uint16(1), false)
	f.Add(append(rec(math.MinInt64, math.MinInt64, 0, math.MaxInt64, 0, 255), rec(1, 1, 1, 1, 2, 128)...), uint16(100), true)
	f.Fuzz(func(t *testing.T, b []byte, bins uint16, processors bool) {
		rd := &RunData{ID: "f", Target: "local", Speedup: 1, Jobs: jobsFrom(b)}
		if processors {
			rd.Processors = 8
		}
		n := 1 + int(bins)%1000
		m := Compute(rd, Options{Bins: n})
		if k := len(m.Series.T); k != 0 && k != n {
			t.Fatalf("%d bins, want %d or none", k, n)
		}
		if len(m.Series.Goodput) != len(m.Series.T) || len(m.Series.Throughput) != len(m.Series.T) {
			t.Fatalf("series of %d, %d and %d bins", len(m.Series.T), len(m.Series.Goodput), len(m.Series.Throughput))
		}
		if m.Jobs.Submitted+m.Tasks.Submitted != len(rd.Jobs) {
			t.Fatalf("%d jobs and %d tasks of %d records", m.Jobs.Submitted, m.Tasks.Submitted, len(rd.Jobs))
		}
	})
}
