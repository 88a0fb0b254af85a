package slurm

import (
	"testing"
	"time"
)

// A poll waits factor times its CPU, at least poll and at most
// MaxPollWait (or poll, when longer); the ticks before then are skipped,
// a tick a little early is taken.
func TestPacer(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		poll   time.Duration
		factor int
		cpu    time.Duration
		wait   time.Duration
	}{
		{"cheap poll: every tick", time.Second, 100, 5 * time.Millisecond, time.Second},
		{"no cost known", time.Second, 100, 0, time.Second},
		{"negative cost", time.Second, 100, -time.Second, time.Second},
		{"at the edge", time.Second, 100, 10 * time.Millisecond, time.Second},
		{"costly poll: spaced", time.Second, 100, 25 * time.Millisecond, 2500 * time.Millisecond},
		{"very costly: capped", time.Second, 100, time.Second, MaxPollWait},
		{"overflowing product: capped", time.Second, 1 << 30, time.Hour, MaxPollWait},
		{"factor 1: poll", time.Second, 1, 500 * time.Millisecond, time.Second},
		{"long poll wins over the cap", time.Minute, 100, time.Second, time.Minute},
		{"short poll", 100 * time.Millisecond, 100, 3 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &pacer{poll: tc.poll, factor: tc.factor}
			if !p.due(t0) {
				t.Fatal("the first poll is not due")
			}
			if got := p.wait(tc.cpu); got != tc.wait {
				t.Fatalf("wait(%v) = %v, want %v", tc.cpu, got, tc.wait)
			}
			p.done(t0, tc.cpu)
			// The ticks after t0, poll apart, a few ms late each.
			first := time.Time{}
			for k := 1; k < 2000 && first.IsZero(); k++ {
				tick := t0.Add(time.Duration(k)*tc.poll + 3*time.Millisecond)
				if p.due(tick) {
					first = tick
				}
			}
			if first.Before(t0.Add(tc.wait-tc.poll/2)) || first.After(t0.Add(tc.wait+tc.poll)) {
				t.Fatalf("first due tick at %v after the poll, want within [%v, %v]", first.Sub(t0), tc.wait-tc.poll/2, tc.wait+tc.poll)
			}
			// A tick half a period early is taken, one earlier is not.
			if !p.due(p.next.Add(-tc.poll / 2)) {
				t.Error("a tick half a period early is skipped")
			}
			if p.due(p.next.Add(-tc.poll/2 - time.Millisecond)) {
				t.Error("a tick more than half a period early is taken")
			}
		})
	}
}
