package sim

import (
	"testing"
	"time"

	"github.com/gmark/gmark/sim/topology"
)

// TestT1OperationalGraphics is the thesis's functional validation (Sec.
// 6.4.1, target T1 of the reference): one cluster of 10 processors at speed
// 1 under a centralized grid scheduler, both FCFS; 100 jobs of 10,000 s
// arrive at t = 0; the information service has a constant delay δ of 0,
// 120, 300 or 3,600 s, and reports every change (InfoPeriod 0).
//
// With δ = 0 the jobs start in 10 waves of 10, at 0, 10,000, …, 90,000 s,
// and the last ends at 100,000 s. With δ > 0 (docs/sim.md):
//   - overcommit (no soft reservation: the grid scheduler sends jobs while
//     the last report shows idle processors, the cluster queues them): the
//     whole curve shifts by exactly δ: wave k at (k−1)·10,000 + δ, makespan
//     100,000 + δ, the thesis's "shifted by exactly δ";
//   - reserve (KOALA's soft reservation, the default): the grid scheduler
//     sends only what it sees room for, and learns of each wave's end δ
//     late: wave k at (k−1)·10,000 + k·δ, makespan 100,000 + 10·δ.
func TestT1OperationalGraphics(t *testing.T) {
	top := topo(t, topology.Spec{Clusters: []topology.ClusterSpec{{Name: "c", Processors: 10}}})
	jobs := wave("j", "c", 100, 1, 0, 10_000*time.Second)
	for _, reserve := range []bool{false, true} {
		for _, delta := range []float64{0, 120, 300, 3600} {
			cfg := DefaultConfig("central")
			cfg.InfoPeriod, cfg.InfoDelay, cfg.CentralReserve, cfg.CoolDown = 0, secs(delta), reserve, true
			res, tr := run(t, cfg, top, jobs)
			starts := tr.startTimes()
			if len(starts) != 100 || res.Finished != 100 || res.JF != 100 {
				t.Fatalf("reserve %v δ %v: %d started, %d finished", reserve, delta, len(starts), res.Finished)
			}
			for k := 1; k <= 10; k++ {
				want := float64(k-1)*10_000 + delta
				if reserve {
					want = float64(k-1)*10_000 + float64(k)*delta
				}
				for _, st := range starts[(k-1)*10 : k*10] {
					if st != secs(want) {
						t.Fatalf("reserve %v δ %v: wave %d starts at %v, want %v s", reserve, delta, k, st, want)
					}
				}
			}
			makespan := 100_000 + delta
			if reserve {
				makespan = 100_000 + 10*delta
			}
			if res.End != makespan {
				t.Errorf("reserve %v δ %v: makespan %v s, want %v", reserve, delta, res.End, makespan)
			}
			if res.Utilization > 1 || res.Goodput <= 0 {
				t.Errorf("reserve %v δ %v: U %v, goodput %v", reserve, delta, res.Utilization, res.Goodput)
			}
		}
	}
}

// TestT1OtherArchitectures: the same 100 jobs under the architectures
// without an information delay. Job routing and pulling (sep-c, cern) and
// DMM's neighbourless single cluster behave as central with δ = 0 except
// for the matchmaking cycle: a Condor-like site manager starts a wave at
// its first cycle after the previous one ended (cycles aligned at
// multiples of 300 s): wave k at (k−1)·10,200 s.
func TestT1OtherArchitectures(t *testing.T) {
	top := topo(t, topology.Spec{Clusters: []topology.ClusterSpec{{Name: "c", Processors: 10}}})
	jobs := wave("j", "c", 100, 1, 0, 10_000*time.Second)
	tests := []struct {
		arch     string
		period   float64 // between waves
		makespan float64
	}{
		{"sep-c", 10_000, 100_000},
		{"cern", 10_000, 100_000},
		{"condor", 10_200, 101_800},
		{"fcondor", 10_200, 101_800},
		{"dmm", 10_200, 101_800},
	}
	for _, tc := range tests {
		cfg := DefaultConfig(tc.arch)
		cfg.CoolDown, cfg.AlignedCycles = true, true
		res, tr := run(t, cfg, top, jobs)
		starts := tr.startTimes()
		if len(starts) != 100 {
			t.Fatalf("%s: %d started", tc.arch, len(starts))
		}
		for i, st := range starts {
			if want := secs(float64(i/10) * tc.period); st != want {
				t.Fatalf("%s: start %d at %v, want %v", tc.arch, i, st, want)
			}
		}
		if res.End != tc.makespan || res.Finished != 100 {
			t.Errorf("%s: makespan %v, %d finished; want %v, 100", tc.arch, res.End, res.Finished, tc.makespan)
		}
	}
}
