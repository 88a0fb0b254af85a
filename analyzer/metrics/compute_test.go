package metrics

import (
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gmark/gmark/analyzer/store"
)

const base = int64(946684800) * 1e9 // 2000-01-01, like simulated runs

// at is a time t seconds after base.
func at(t float64) int64 { return base + int64(t*1e9) }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

// handRun is a small run built by hand, with every kind of job: two plain
// successful jobs, a co-allocated failed job, a job cancelled while waiting,
// a job that never started, and a composite job of two tasks, one retried.
func handRun() *RunData {
	return &RunData{ID: "hand", Target: "local", Speedup: 1, Processors: 10, ProcessorsSource: "test", Jobs: jobs([]store.JobFacts{
		{ID: "1-0", Type: "a", Processors: 2, Components: 1, Sites: "c1", SubmitNS: at(0), ScheduledNS: at(0), DelayNS: 1e6, HasDelay: true,
			StartNS: at(10), EndNS: at(110), State: Succeeded, Attempts: 1},
		{ID: "1-1", Type: "a", Processors: 1, Components: 1, Sites: "c2", SubmitNS: at(5), ScheduledNS: at(5), DelayNS: 3e6, HasDelay: true,
			StartNS: at(5), EndNS: at(7), State: Succeeded, Attempts: 1},
		{ID: "2-0", Type: "b", Processors: 4, Components: 2, Sites: "c1,c2", SubmitNS: at(10), ScheduledNS: at(10), DelayNS: 2e6, HasDelay: true,
			StartNS: at(40), EndNS: at(60), State: Failed, Reason: "exit status 3", Attempts: 1},
		{ID: "2-1", Type: "b", Processors: 1, Components: 1, SubmitNS: at(20), ScheduledNS: at(20), DelayNS: 2e6, HasDelay: true,
			State: Cancelled, Reason: "cancelled at the end of the tail", Attempts: 1},
		{ID: "2-2", Type: "b", Processors: 1, Components: 1, ScheduledNS: at(25), State: NeverStarted, Reason: "tail expired"},
		{ID: "3-0.a", Parent: "3-0", Type: "swf", Processors: 1, Components: 1, Sites: "c1", SubmitNS: at(30), ScheduledNS: at(30), DelayNS: 4e6, HasDelay: true,
			StartNS: at(35), EndNS: at(55), State: Succeeded, Attempts: 2},
		{ID: "3-0.b", Parent: "3-0", Type: "swf", Processors: 1, Components: 1, Sites: "c1", SubmitNS: at(55), ScheduledNS: at(55), DelayNS: 0, HasDelay: true,
			StartNS: at(65), EndNS: at(95), State: Succeeded, Attempts: 1},
		{ID: "3-0", Kind: "composite", Type: "chain", Processors: 1, Components: 1, SubmitNS: at(30), ScheduledNS: at(30), DelayNS: 4e6, HasDelay: true,
			StartNS: at(35), EndNS: at(95), State: Succeeded, Attempts: 1},
	})}
}

func TestPerJobFunctions(t *testing.T) {
	tau := 10 * time.Second
	for _, c := range []struct {
		name                       string
		j                          Job
		wait, run, resp, sd, bsld  float64
		okWait, okRun, okSD, okDel bool
	}{
		{"plain", Job{JobFacts: store.JobFacts{SubmitNS: at(0), StartNS: at(10), EndNS: at(110), State: Succeeded, HasDelay: true}}, 10, 100, 110, 1.1, 1.1, true, true, true, true},
		// a short job: the bounded slowdown divides by τ, not the 2 s run
		{"short", Job{JobFacts: store.JobFacts{SubmitNS: at(0), StartNS: at(18), EndNS: at(20), State: Succeeded}}, 18, 2, 20, 10, 2, true, true, true, false},
		// bounded below by 1
		{"no wait, short", Job{JobFacts: store.JobFacts{SubmitNS: at(5), StartNS: at(5), EndNS: at(7), State: Succeeded}}, 0, 2, 2, 1, 1, true, true, true, false},
		{"failed, ran", Job{JobFacts: store.JobFacts{SubmitNS: at(10), StartNS: at(40), EndNS: at(60), State: Failed}}, 30, 20, 50, 2.5, 2.5, true, true, true, false},
		// cancelled after it started: a wait, no run (cut short)
		{"cancelled running", Job{JobFacts: store.JobFacts{SubmitNS: at(0), StartNS: at(3), EndNS: at(9), State: Cancelled}}, 3, 0, 0, 0, 0, true, false, false, false},
		{"never started", Job{JobFacts: store.JobFacts{State: NeverStarted}}, 0, 0, 0, 0, 0, false, false, false, false},
		// zero run time: slowdown undefined, bounded slowdown defined
		{"zero run", Job{JobFacts: store.JobFacts{SubmitNS: at(0), StartNS: at(4), EndNS: at(4), State: Succeeded}}, 4, 0, 4, 0, 1, true, true, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, ok := Wait(&c.j)
			if ok != c.okWait || ok && !near(w, c.wait) {
				t.Errorf("wait %v %v, want %v %v", w, ok, c.wait, c.okWait)
			}
			r, ok := RunTime(&c.j)
			if ok != c.okRun || ok && !near(r, c.run) {
				t.Errorf("run %v %v, want %v %v", r, ok, c.run, c.okRun)
			}
			resp, ok := Response(&c.j)
			if ok != c.okRun || ok && !near(resp, c.resp) {
				t.Errorf("response %v %v, want %v", resp, ok, c.resp)
			}
			sd, ok := Slowdown(&c.j)
			if ok != c.okSD || ok && !near(sd, c.sd) {
				t.Errorf("slowdown %v %v, want %v %v", sd, ok, c.sd, c.okSD)
			}
			b, ok := BoundedSlowdown(&c.j, tau)
			if ok != c.okRun || ok && !near(b, c.bsld) {
				t.Errorf("bounded slowdown %v %v, want %v", b, ok, c.bsld)
			}
		})
	}
}

func TestComputeHandRun(t *testing.T) {
	m := Compute(handRun(), Options{Bins: 11})
	// Top-level jobs: 1-0, 1-1, 2-0, 2-1, 2-2 and the composite 3-0.
	if want := (Counts{Submitted: 6, Succeeded: 3, Failed: 1, Cancelled: 1, NeverStarted: 1}); m.Jobs != want {
		t.Errorf("jobs %+v, want %+v", m.Jobs, want)
	}
	if want := (Counts{Submitted: 2, Succeeded: 2}); m.Tasks != want {
		t.Errorf("tasks %+v, want %+v", m.Tasks, want)
	}
	check := func(name string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("success rate", m.SuccessRate, 0.5) // 3 of 6: the never-started and cancelled jobs count
	check("failure rate", m.FailureRate, 0.5)
	// Waits of the jobs that started: 10, 0, 30, and the composite's 5.
	if m.Wait.N != 4 {
		t.Errorf("wait n %d, want 4 (never-started and cancelled-waiting jobs excluded)", m.Wait.N)
	}
	check("mean wait", m.Wait.Mean, 11.25)
	check("median wait", m.Wait.P50, 7.5)
	check("max wait", m.Wait.Max, 30)
	check("p25 wait", m.Wait.P25, 3.75) // type 7: 0 + 0.75×(5−0)
	// Runs of completed jobs: 100, 2, 20 (failed, co-allocated), 60 (composite).
	check("mean run", m.Run.Mean, 45.5)
	check("mean response", m.Response.Mean, (110.0+2+50+65)/4)
	check("mean slowdown", m.Slowdown.Mean, (1.1+1+2.5+65.0/60)/4)
	check("mean bounded slowdown", m.BSlowdown.Mean, (1.1+1+2.5+65.0/60)/4)
	check("max bounded slowdown", m.BSlowdown.Max, 2.5)
	// Delays of the top-level jobs that were submitted: 1, 3, 2, 2, 4 ms.
	check("mean delay", m.Delay.Mean, 0.0024)
	if m.Delay.N != 5 {
		t.Errorf("delay n %d, want 5", m.Delay.N)
	}
	if m.CoAllocated != 1 || m.CensoredWaits != 1 {
		t.Errorf("co-allocated %d, censored %d; want 1, 1", m.CoAllocated, m.CensoredWaits)
	}
	// First submission at 0, last end at 110.
	check("makespan", m.Makespan, 110)
	// Successful unitary jobs and tasks: 2×100 + 1×2 + 1×20 + 1×30.
	check("goodput", m.Goodput, 252)
	check("goodput rate", m.GoodputRate, 252.0/110)
	// Busy: the goodput plus the failed co-allocated job's 4×20.
	check("utilization", m.Utilization, 332.0/(10*110))
	check("throughput", m.Throughput, 3/(110.0/3600))
	// Per-job goodput of the top-level jobs sums to the goodput (the
	// composite's is its tasks').
	sum := 0.0
	for _, g := range m.Samples.JobGoodput {
		sum += g
	}
	check("Σ per-job goodput", sum, 252)

	// Failures by reason, one each.
	if len(m.Failures) != 3 {
		t.Fatalf("failures %+v", m.Failures)
	}
	for _, f := range m.Failures {
		if f.Count != 1 || !near(f.Rate, 1.0/6) {
			t.Errorf("failure %+v", f)
		}
	}

	// Per site: c1 ran 1-0, 2-0, and both tasks; c2 ran 1-1 and 2-0.
	sites := map[string]int{}
	for _, g := range m.BySite {
		sites[g.Key] = g.Jobs
	}
	if sites["c1"] != 4 || sites["c2"] != 2 || len(sites) != 2 {
		t.Errorf("per site %v", sites)
	}
	types := map[string]Group{}
	for _, g := range m.ByType {
		types[g.Key] = g
	}
	if g := types["a"]; g.Jobs != 2 || g.Succeeded != 2 || !near(g.MeanWait, 5) || !near(g.MeanRun, 51) {
		t.Errorf("type a %+v", g)
	}
	if g := types["b"]; g.Jobs != 3 || g.Succeeded != 0 || !near(g.MeanWait, 30) {
		t.Errorf("type b %+v", g)
	}

	// The composite job: makespan 65 s (first task submitted at 30, last
	// ended at 95), 2 tasks, 1 retry.
	c := m.Composite
	if c == nil {
		t.Fatal("no operational metrics")
	}
	if c.All.Jobs != 1 || c.All.Tasks != 2 || c.All.Retries != 1 || c.All.FailedTasks != 0 || !near(c.All.Makespan.Mean, 65) {
		t.Errorf("composite %+v", c.All)
	}
	check("task mean wait", c.TaskWait.Mean, 7.5) // 5 and 10
	check("task mean run", c.TaskRun.Mean, 25)    // 20 and 30
	check("task mean bsld", c.TaskBSlowdown.Mean, (25.0/20+40.0/30)/2)
	_ = c

	// Time series, 11 bins of 10 s: bin 0 has 1-1 (1 processor × 2 s);
	// bin 4 [40, 50) has 1-0 (2×10), 2-0 (4×10) and task a (1×10).
	if len(m.Series.Utilization) != 11 {
		t.Fatalf("utilization series %v", m.Series.Utilization)
	}
	check("utilization bin 0", m.Series.Utilization[0], 2.0/100)
	check("utilization bin 1", m.Series.Utilization[1], 20.0/100)
	check("utilization bin 4", m.Series.Utilization[4], 70.0/100)
	check("goodput bin 4", m.Series.Goodput[4], 30.0/10)   // 2-0 failed: not goodput
	check("throughput bin 0", m.Series.Throughput[0], 360) // 1-1 ended at 7 s: 1 job in 10 s
	total := 0.0
	for i, u := range m.Series.Utilization {
		total += u * 10 * 10
		_ = i
	}
	check("Σ busy over the bins", total, 332)
}

// A run made with --speedup on the bundled core (its clock as fast as the
// schedule) is reported in workload time by default, its wall-clock
// makespan beside; WallTime reports it as observed.
func TestComputeWorkloadTime(t *testing.T) {
	rd := handRun()
	rd.Target, rd.Speedup, rd.JobScale = "koala", 10, 10
	m := Compute(rd, Options{})
	if m.TimeBase != "workload" {
		t.Fatal(m.TimeBase)
	}
	if !near(m.Wait.Mean, 112.5) || !near(m.Makespan, 1100) || !near(m.WallSpan, 110) || !near(m.Throughput, 3/(1100.0/3600)) || !near(m.Utilization, 332.0/1100) {
		t.Errorf("wait %v makespan %v (wall %v) throughput %v utilization %v", m.Wait.Mean, m.Makespan, m.WallSpan, m.Throughput, m.Utilization)
	}
	wall := Compute(rd, Options{WallTime: true})
	if wall.TimeBase != "wall" || !near(wall.Makespan, 110) || !near(wall.WallSpan, 110) || !near(wall.Wait.Mean, 11.25) {
		t.Errorf("wall time: base %s makespan %v (wall %v) wait %v", wall.TimeBase, wall.Makespan, wall.WallSpan, wall.Wait.Mean)
	}
	// A run without a speedup has one time base: wall.
	rd.Speedup, rd.JobScale = 1, 1
	if m1 := Compute(rd, Options{}); m1.TimeBase != "wall" || !near(m1.Makespan, 110) {
		t.Errorf("speedup 1: base %s makespan %v", m1.TimeBase, m1.Makespan)
	}
	// The delay stays in wall time.
	if !near(m.Delay.Mean, 0.0024) {
		t.Errorf("delay %v", m.Delay.Mean)
	}
	// Bounded slowdown in workload time: 1-1's run of 20 s is above τ now.
	if !near(m.BSlowdown.Mean, (1.1+1+2.5+65.0/60)/4) {
		t.Errorf("bsld %v", m.BSlowdown.Mean)
	}
}

// --speedup on a target whose jobs run in real time (local, slurm, sge,
// condor, dryrun) compresses the schedule only: the durations the target
// measured stay in wall time, and so does the span, which no factor turns
// into the workload's. Before, every duration was multiplied by the
// speedup: run times, responses and makespans 10× too long, throughput
// 10× too low.
func TestComputeSpeedupOnRealTargets(t *testing.T) {
	for _, target := range []string{"local", "slurm", "sge", "condor", "dryrun"} {
		t.Run(target, func(t *testing.T) {
			rd := handRun()
			rd.Target, rd.Speedup = target, 10
			m := Compute(rd, Options{})
			if !near(m.Wait.Mean, 11.25) || !near(m.Run.Mean, (100+2+20+60)/4.0) || !near(m.Makespan, 110) || !near(m.WallSpan, 110) ||
				!near(m.Throughput, 3/(110.0/3600)) || !near(m.Goodput, 332-80) {
				t.Errorf("wait %v run %v makespan %v (wall %v) throughput %v goodput %v", m.Wait.Mean, m.Run.Mean, m.Makespan, m.WallSpan, m.Throughput, m.Goodput)
			}
			if c := m.Clocks; c.Jobs != Wall || c.Span != Wall || c.Delay != Wall || c.Speedup != 10 || c.JobScale != 1 || m.TimeBase != Wall {
				t.Errorf("clocks %+v, time base %s", c, m.TimeBase)
			}
			jobs, span, _ := m.Clocks.Describe()
			if !strings.Contains(jobs, "real time") || !strings.Contains(span, "compressed 10×") {
				t.Errorf("the clocks say %q, %q", jobs, span)
			}
		})
	}
}

func TestComputeUnknownSystemSize(t *testing.T) {
	rd := handRun()
	rd.Processors = 0
	m := Compute(rd, Options{})
	if !math.IsNaN(m.Utilization) || m.Series.Utilization != nil {
		t.Errorf("utilization %v %v with no system size", m.Utilization, m.Series.Utilization)
	}
}

func TestTau(t *testing.T) {
	// τ = 1 s: 1-1 (2 s run, 2 s response) has slowdown 1; the others as
	// before, so the mean is unchanged here; τ = 100 s changes 1-0 and 2-0.
	m := Compute(handRun(), Options{Tau: 100 * time.Second})
	// 1-0: 110/100; 1-1: 1; 2-0: 50/100 → 1; 3-0: 65/100 → 1.
	if !near(m.BSlowdown.Mean, (1.1+1+1+1)/4) {
		t.Errorf("bsld τ=100s: %v", m.BSlowdown.Mean)
	}
}

// A job that starts before the run's first submission (Slurm
// reports whole seconds, the submitter nanoseconds) made the time series
// index bin −1 and panic. Only [first submission, last end] is binned.
func TestComputeStartBeforeFirstSubmission(t *testing.T) {
	rd := &RunData{ID: "coarse", Target: "slurm", Speedup: 1, Processors: 4, Jobs: jobs([]store.JobFacts{
		{ID: "1-0", Type: "a", Processors: 2, Components: 1, Sites: "c1", SubmitNS: at(0.7), ScheduledNS: at(0.7),
			StartNS: at(0), EndNS: at(10), State: Succeeded, Attempts: 1},
		{ID: "1-1", Type: "a", Processors: 2, Components: 1, Sites: "c1", SubmitNS: at(1), ScheduledNS: at(1),
			StartNS: at(2), EndNS: at(10.7), State: Succeeded, Attempts: 1},
	})}
	m := Compute(rd, Options{Bins: 10})
	if !near(m.Wait.Min, -0.7) || len(m.Series.Utilization) != 10 {
		t.Fatalf("wait %+v, %d bins", m.Wait, len(m.Series.Utilization))
	}
	// Busy from 0.7 s (the first submission) to 10.7 s: 2 processors
	// × 9.3 s of job 1-0 within it, 2 × 8.7 s of job 1-1, over 4 × 10 s.
	busy := 0.0
	for _, u := range m.Series.Utilization {
		busy += u * 4 * m.Series.BinSeconds
	}
	if !near(busy, 2*9.3+2*8.7) {
		t.Errorf("busy processor-seconds in the series %v, want %v", busy, 2*9.3+2*8.7)
	}
}

// jobs is a run's jobs with these facts (and no users).
func jobs(facts []store.JobFacts) []Job {
	out := make([]Job, len(facts))
	for i, f := range facts {
		out[i].JobFacts = f
	}
	return out
}

// A failure reason longer than maxReason is cut at a character's start,
// never inside one, and says it was cut; reasons that differ only past
// the cut are one class.
func TestReasonClassCutsAtACharacter(t *testing.T) {
	long := strings.Repeat("a", maxReason-1) + "é and more" // é's 2 bytes straddle the bound
	got := reasonClass(long)
	if !utf8.ValidString(got) || got != strings.Repeat("a", maxReason-1)+reasonCut {
		t.Errorf("reasonClass(%d bytes) = %q", len(long), got)
	}
	if other := reasonClass(long + " else"); other != got {
		t.Errorf("two reasons the same to the cut are two classes: %q, %q", got, other)
	}
	for _, r := range []string{strings.Repeat("é", maxReason), strings.Repeat("€", maxReason), strings.Repeat("x", maxReason+1)} {
		if got := reasonClass(r); !utf8.ValidString(got) || !strings.HasSuffix(got, reasonCut) || len(got) > maxReason+len(reasonCut) {
			t.Errorf("reasonClass(%q…) = %q", r[:8], got)
		}
	}
	if r := strings.Repeat("x", maxReason); reasonClass(r) != r {
		t.Error("a reason of maxReason bytes is cut")
	}
}
