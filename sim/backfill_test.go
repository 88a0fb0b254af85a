package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/workload"
)

// Hand-checked schedules of the local schedulers: EASY (its ties at the
// shadow time, its estimates, jobs that end and arrive at the same instant)
// and EASY against conservative backfilling. One cluster, sep-c (jobs stay
// at home), cool-down on: every job runs. The comments give the working.

func oneCluster(t *testing.T, procs int) *topology.Topology {
	return topo(t, topology.Spec{Clusters: []topology.ClusterSpec{{Name: "c", Processors: procs}}})
}

// walled is a job with a wall time (the EASY estimate) as well as its run
// time.
func walled(id string, procs int, submit, run, wall time.Duration) workload.Job {
	j := job(id, "c", procs, submit, run)
	j.WallTime = wall
	return j
}

func runLocal(t *testing.T, sched string, procs int, jobs []workload.Job) *trace {
	t.Helper()
	cfg := DefaultConfig("sep-c")
	cfg.CoolDown, cfg.LocalScheduler = true, sched
	checkInvariants = true
	defer func() { checkInvariants = false }()
	_, tr := run(t, cfg, oneCluster(t, procs), jobs)
	return tr
}

// starts is the schedule as job → start (seconds), for the comparisons.
func starts(at map[string]float64) []want {
	var out []want
	for id, s := range at {
		out = append(out, want{id: id, start: []float64{s}, where: []int{0}})
	}
	return out
}

func TestEASYTiesAtShadow(t *testing.T) {
	tests := []struct {
		name  string
		procs int
		jobs  []workload.Job
		want  map[string]float64
	}{{
		// A and B (2 each) end at 100; 2 of 6 are idle. H (4) fits when A
		// ends: shadow 100. B ends then too, so 6 are free at 100: 2 more
		// than H needs. C (2, 500 s) fits now and uses only those 2: it
		// starts at once. (Counting only A's processors, the extra were 0
		// and C waited for 100.)
		name: "two ends at the shadow time", procs: 6,
		jobs: []workload.Job{
			job("A", "c", 2, 0, 100*time.Second), job("B", "c", 2, 0, 100*time.Second),
			job("H", "c", 4, secs(1), 50*time.Second), job("C", "c", 2, secs(2), 500*time.Second),
		},
		want: map[string]float64{"A": 0, "B": 0, "H": 100, "C": 2},
	}, {
		// The same tie, the larger job first in the running list: A (3)
		// and B (1) end at 100, 2 idle, H (4) needs A's 3 or A's and B's:
		// 6 free at 100 either way, 2 extra. C (2, long) backfills.
		name: "tie, larger job started first", procs: 6,
		jobs: []workload.Job{
			job("A", "c", 3, 0, 100*time.Second), job("B", "c", 1, 0, 100*time.Second),
			job("H", "c", 4, secs(1), 50*time.Second), job("C", "c", 2, secs(2), 500*time.Second),
		},
		want: map[string]float64{"A": 0, "B": 0, "H": 100, "C": 2},
	}, {
		name: "tie, smaller job started first", procs: 6,
		jobs: []workload.Job{
			job("B", "c", 1, 0, 100*time.Second), job("A", "c", 3, 0, 100*time.Second),
			job("H", "c", 4, secs(1), 50*time.Second), job("C", "c", 2, secs(2), 500*time.Second),
		},
		want: map[string]float64{"A": 0, "B": 0, "H": 100, "C": 2},
	}, {
		// No tie: B ends at 101, after the shadow (100): at 100 only 4 are
		// free, none extra. C (2, long) would delay H: it waits for B's end.
		name: "an end just after the shadow time is not extra", procs: 6,
		jobs: []workload.Job{
			job("A", "c", 2, 0, 100*time.Second), job("B", "c", 2, 0, 101*time.Second),
			job("H", "c", 4, secs(1), 50*time.Second), job("C", "c", 2, secs(2), 500*time.Second),
		},
		want: map[string]float64{"A": 0, "B": 0, "H": 100, "C": 101},
	}, {
		// Three ends tie at 100 (2 + 2 + 2 of 10; 4 idle): H (6) fits when
		// the first ends, 10 are free then, 4 extra. C and D (1 each, long)
		// take 2 of them, E (2, long) the last 2; then nothing is idle: F
		// (1, long) and G (1, 10 s) wait. At 100 the three ends free 6: H
		// takes them (to 150); F and G start when H ends.
		name: "three ends at the shadow time, extra spent in turn", procs: 10,
		jobs: []workload.Job{
			job("A", "c", 2, 0, 100*time.Second), job("B", "c", 2, 0, 100*time.Second), job("X", "c", 2, 0, 100*time.Second),
			job("H", "c", 6, secs(1), 50*time.Second),
			job("C", "c", 1, secs(3), 500*time.Second), job("D", "c", 1, secs(4), 500*time.Second),
			job("E", "c", 2, secs(5), 500*time.Second), job("F", "c", 1, secs(6), 500*time.Second),
			job("G", "c", 1, secs(7), 10*time.Second),
		},
		want: map[string]float64{"A": 0, "B": 0, "X": 0, "H": 100, "C": 3, "D": 4, "E": 5, "F": 150, "G": 150},
	}}
	// Conservative backfilling gives these the same schedules: H's
	// reservation is the only one C, D and E could delay, and F and G
	// reserve after H.
	for _, sched := range []string{"easy", "conservative"} {
		for _, tc := range tests {
			t.Run(sched+"/"+tc.name, func(t *testing.T) {
				checkRuns(t, runLocal(t, sched, tc.procs, tc.jobs), starts(tc.want))
			})
		}
	}
}

// EASY estimates with the requested (wall) times, of the running jobs and
// of the candidates, never the run times it cannot know.
func TestEASYUsesRequestedTimes(t *testing.T) {
	// A (2 of 4, wall = run = 100) holds H (4) off until its estimated end:
	// shadow 100, nothing extra. C (2) would end at 52 by its run time, but
	// asks for 200 s: 202 > 100, it waits. D (2) asks for 90 s (ends by
	// 93 ≤ 100) and starts at 3, but runs 300 s: at 100, A's end frees 2,
	// H still needs D's 2 and waits for D's real end, 303; C follows H.
	jobs := []workload.Job{
		walled("A", 2, 0, 100*time.Second, 100*time.Second),
		walled("H", 4, secs(1), 50*time.Second, 50*time.Second),
		walled("C", 2, secs(2), 50*time.Second, 200*time.Second),
		walled("D", 2, secs(3), 300*time.Second, 90*time.Second),
	}
	checkRuns(t, runLocal(t, "easy", 4, jobs), starts(map[string]float64{"A": 0, "D": 3, "H": 303, "C": 353}))
}

// A job that arrives at the instant another ends: the arrival is handled
// first (every event at a time after the arrivals at that time), so the
// processors freed at t go to a queue that holds every job submitted up to
// t.
func TestArrivalAndEndAtOneInstant(t *testing.T) {
	t.Run("fcfs and easy: the arrival starts at the end, waiting 0", func(t *testing.T) {
		for _, sched := range []string{"fcfs", "easy", "conservative"} {
			jobs := []workload.Job{job("A", "c", 2, 0, 100*time.Second), job("B", "c", 2, secs(100), 10*time.Second)}
			checkRuns(t, runLocal(t, sched, 2, jobs), starts(map[string]float64{"A": 0, "B": 100}))
		}
	})
	// R (2 of 4) asks for 200 s and runs 100; H (4) waits for R's
	// estimated end, 200. X (2, 50 s) arrives at 100, the instant R ends.
	// Handled first, X sees R still running: EASY backfills it (100 + 50
	// ≤ 200, H's reservation), then R's end leaves 2 free, and H starts
	// when X ends, 150 (before its reservation). Under FCFS X queues
	// behind H: H starts at 100, X at 150.
	jobs := []workload.Job{
		walled("R", 2, 0, 100*time.Second, 200*time.Second),
		walled("H", 4, secs(1), 50*time.Second, 50*time.Second),
		walled("X", 2, secs(100), 50*time.Second, 50*time.Second),
	}
	t.Run("easy: the arrival is backfilled against the estimate of the job ending", func(t *testing.T) {
		checkRuns(t, runLocal(t, "easy", 4, jobs), starts(map[string]float64{"R": 0, "X": 100, "H": 150}))
	})
	t.Run("fcfs: the arrival queues behind the head", func(t *testing.T) {
		checkRuns(t, runLocal(t, "fcfs", 4, jobs), starts(map[string]float64{"R": 0, "H": 100, "X": 150}))
	})
}

// EASY protects the head of the queue only; conservative backfilling gives
// every queued job a reservation that later ones may not delay.
func TestEASYAgainstConservative(t *testing.T) {
	// 4 processors. A (2) runs 0–100, R (1) 0–50: 1 idle. H (4) waits for
	// 100. J2 (2, 40 s) and J3 (1, 90 s) arrive at 2 and 3.
	//
	// EASY: H's shadow is 100, nothing extra. J2 needs 2 of the 1 idle. J3
	// fits and ends by 93 ≤ 100: backfilled at 3. At 50 (R's end) 1 is
	// idle, J2 still needs 2; at 93 (J3's end) 2 are, but J2 would end at
	// 133 > 100. H runs 100–200, J2 from 200.
	//
	// Conservative: H reserves 100–200 (all 4); J2 reserves 50–90 (R's
	// processor and the idle one, until H's reservation); J3 would need one
	// processor over 3–93, but 50–90 is J2's: it reserves after H, 200. At
	// 50 J2 starts; J3 runs from 200.
	jobs := []workload.Job{
		job("A", "c", 2, 0, 100*time.Second), job("R", "c", 1, 0, 50*time.Second),
		job("H", "c", 4, secs(1), 100*time.Second),
		job("J2", "c", 2, secs(2), 40*time.Second), job("J3", "c", 1, secs(3), 90*time.Second),
	}
	for _, tc := range []struct {
		sched string
		want  map[string]float64
	}{
		{"easy", map[string]float64{"A": 0, "R": 0, "H": 100, "J3": 3, "J2": 200}},
		{"conservative", map[string]float64{"A": 0, "R": 0, "H": 100, "J2": 50, "J3": 200}},
		// Without backfilling, J2 and J3 both wait for H.
		{"fcfs", map[string]float64{"A": 0, "R": 0, "H": 100, "J2": 200, "J3": 200}},
	} {
		t.Run(tc.sched, func(t *testing.T) {
			checkRuns(t, runLocal(t, tc.sched, 4, jobs), starts(tc.want))
		})
	}
}

// TestEASYRandomSchedulesAreStable checks EASY's schedules of random
// workloads full of ties (times on a 10 s grid, few sizes) against the
// rule itself, worked out independently from the schedule: after the last
// event at every time, the head of the queue does not fit, and no other
// queued job, taken in queue order, fits the idle processors and either
// ends by the head's shadow time or needs no more than the processors
// extra at that time (all the running jobs estimated to end by then
// counted). A refused backfill that the rule allows fails it.
func TestEASYRandomSchedulesAreStable(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		r := stats.NewStream(seed, 0, "easy-ties")
		procs := 4 + r.IntN(8)
		var jobs []workload.Job
		at := 0
		for i := range 5 + r.IntN(40) {
			at += 10 * r.IntN(3)
			run := time.Duration(10*(1+r.IntN(8))) * time.Second
			wall := run
			if r.IntN(3) == 0 { // an estimate above the run time
				wall += time.Duration(10*r.IntN(5)) * time.Second
			}
			jobs = append(jobs, walled(fmt.Sprint(i), 1+r.IntN(procs), secs(float64(at)), run, wall))
		}
		tr := runLocal(t, "easy", procs, jobs)
		if err := easyStable(jobs, tr, procs); err != nil {
			t.Fatalf("seed %d (%d processors, %d jobs): %v", seed, procs, len(jobs), err)
		}
	}
}

// easyStable replays a schedule's states at each event time and checks
// that EASY had nothing left to start in any of them.
func easyStable(jobs []workload.Job, tr *trace, procs int) error {
	var times []time.Duration
	for _, j := range jobs {
		times = append(times, j.Submit, tr.started[j.ID][0], tr.ended[j.ID][0])
	}
	slices.Sort(times)
	times = slices.Compact(times)
	est := func(j *workload.Job) time.Duration { return j.WallTime }
	for _, now := range times {
		free := procs
		type run struct {
			end   time.Duration
			procs int
		}
		var running []run
		var queue []*workload.Job
		for i := range jobs {
			j := &jobs[i]
			start, end := tr.started[j.ID][0], tr.ended[j.ID][0]
			switch {
			case start <= now && now < end:
				free -= j.Processors()
				running = append(running, run{start + est(j), j.Processors()})
			case j.Submit <= now && now < start:
				queue = append(queue, j) // jobs are in arrival order
			}
		}
		if len(queue) == 0 {
			continue
		}
		head := queue[0]
		if head.Processors() <= free {
			return fmt.Errorf("at %v: head %s (%d) fits the %d idle processors but waits", now, head.ID, head.Processors(), free)
		}
		shadow, atShadow := time.Duration(-1), free
		for _, e := range running {
			atShadow += e.procs
		}
		if atShadow < head.Processors() {
			continue
		}
		// The earliest estimated end at which the head fits.
		for _, e := range running {
			f := free
			for _, o := range running {
				if o.end <= e.end {
					f += o.procs
				}
			}
			if f >= head.Processors() && (shadow < 0 || e.end < shadow) {
				shadow = e.end
			}
		}
		extra := free - head.Processors()
		for _, e := range running {
			if e.end <= shadow {
				extra += e.procs
			}
		}
		for _, j := range queue[1:] {
			if j.Processors() > free {
				continue
			}
			endsBy := now+est(j) <= shadow
			if endsBy || j.Processors() <= extra {
				return fmt.Errorf("at %v: %s (%d processors, %v) fits the %d idle and %s (shadow %v, %d extra for head %s), but waits",
					now, j.ID, j.Processors(), est(j), free, map[bool]string{true: "ends by the shadow time", false: "the extra"}[endsBy], shadow, extra, head.ID)
			}
		}
	}
	return nil
}
