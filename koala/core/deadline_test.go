package core

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// ms is a time as milliseconds after t0, rounded: the tests compare times
// to the millisecond (a float L_p can leave a nanosecond off).
func ms(t time.Time) int64 { return int64(math.Round(float64(t.Sub(t0)) / 1e6)) }

func mustWait(t *testing.T, s string) grid.Wait {
	t.Helper()
	w, err := grid.ParseWait(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The try schedule of the Repeated Placement Policy, worked by hand:
// PT_0 = R + L·(D − R) with R = max(S, D − X), then PT_{m+1} = PT_m +
// L·(D − PT_m), and a try closer than ε to D is made at D.
func TestRPPTriesByHand(t *testing.T) {
	cases := []struct {
		name    string
		s, d    float64 // seconds after t0
		L       float64
		policy  string
		eps     time.Duration
		wantMS  []int64
		wantLen int // when the list is long: its length (the last try is at D)
	}{
		// 50, 75, 87.5, 93.75, 96.875, 98.4375; the next would be
		// 99.21875, 0.78 s from D: the last try is at D.
		{"pure RPP L=0.5", 0, 100, 0.5, "rpp", time.Second, []int64{50000, 75000, 87500, 93750, 96875, 98438, 100000}, 0},
		// The reference's worked example of Wait-10 at L_p = 0.7: D−3,
		// D−0.9 (within 1 s of D: at D).
		{"Wait-10 L=0.7", 0, 3600, 0.7, "wait-10", time.Second, []int64{3597000, 3600000}, 0},
		// With ε = 1 ms: D−3, D−0.9, D−0.27, D−0.081, D−0.0243,
		// D−0.00729, D−0.002187, then D.
		{"Wait-10 L=0.7 eps=1ms", 0, 3600, 0.7, "wait-10", time.Millisecond, []int64{3597000, 3599100, 3599730, 3599919, 3599976, 3599993, 3599998, 3600000}, 0},
		// Submitted 20 s after the start, deadline 120 s: Wait-100 starts
		// at D − 100 = 20 = S: as pure RPP, 20 + 0.5·100 = 70.
		{"Wait-100 from S", 20, 120, 0.5, "wait-100", time.Second, []int64{70000, 95000, 107500, 113750, 116875, 118438, 120000}, 0},
		// X larger than D − S: the job is not ignored at all (pure RPP).
		{"Wait-1000 > D-S", 0, 100, 0.5, "wait-1000", time.Second, []int64{50000, 75000, 87500, 93750, 96875, 98438, 100000}, 0},
		{"Wait-0: one try at D", 0, 3000, 0.7, "wait-0", time.Second, []int64{3000000}, 0},
		{"L=1: one try at D", 0, 3000, 1, "rpp", time.Second, []int64{3000000}, 0},
		{"deadline at the submission", 42, 42, 0.7, "rpp", time.Second, []int64{42000}, 0},
		{"deadline passed: at once", 50, 40, 0.7, "rpp", time.Second, []int64{50000}, 0},
		// Beyond the longest run the core allows (366 days): 0.7 of it.
		// 280 d, then gaps of 36, 10.8, 3.24, 0.972, 0.2916, 0.08748 days;
		// the next, 0.63 h, is within ε = 1 h: at D.
		{"deadline in 400 days", 0, 400 * 86400, 0.7, "wait-inf", time.Hour,
			[]int64{24192000000, 31449600000, 33626880000, 34280064000, 34476019200, 34534805760, 34552441728, 34560000000}, 0},
		// L close to 0: the gap shrinks by 0.999 per try, from 3600 s to
		// below ε = 1 s after ln(3600)/−ln(0.999) ≈ 8184.6 tries, plus
		// the one at D: about 8185.
		{"L=0.001", 0, 3600, 0.001, "rpp", time.Second, nil, 8185},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tries := RPPTries(sec(c.s), sec(c.d), c.L, mustWait(t, c.policy), c.eps, 0)
			var got []int64
			for _, pt := range tries {
				got = append(got, ms(pt))
			}
			if c.wantMS != nil && !equalInts(got, c.wantMS) {
				t.Errorf("tries %v ms, want %v", got, c.wantMS)
			}
			if c.wantLen > 0 {
				if n := len(got); n < c.wantLen-2 || n > c.wantLen+2 {
					t.Errorf("%d tries, want about %d", n, c.wantLen)
				}
				for i := 1; i < len(tries); i++ {
					if !tries[i].After(tries[i-1]) {
						t.Fatalf("try %d at %v is not after try %d at %v", i, tries[i], i-1, tries[i-1])
					}
				}
				if last := tries[len(tries)-1]; !last.Equal(sec(c.d)) {
					t.Errorf("last try at %v, want the deadline", last)
				}
			}
		})
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseWait(t *testing.T) {
	for in, want := range map[string]string{"rpp": "wait-inf", "wait-inf": "wait-inf", "Wait-10": "wait-10", "wait-0": "wait-0",
		"wait-1000": "wait-1000", "wait-2m": "wait-120", "wait-0.5": "wait-500ms"} {
		w, err := grid.ParseWait(in)
		if err != nil || w.String() != want {
			t.Errorf("ParseWait(%q) = %v, %v; want %s", in, w, err, want)
		}
	}
	for _, bad := range []string{"", "wait", "wait-", "wait--1", "wait-x", "fcfs", "wait-NaN", "wait-1e30"} {
		if _, err := grid.ParseWait(bad); err == nil {
			t.Errorf("ParseWait(%q) accepted", bad)
		}
	}
}

// deadlineJob is a job of components of the given sizes, submitted at
// offset 0 with a start deadline at offset d.
func deadlineJob(id string, d, runtime time.Duration, sizes ...int) workload.Job {
	var comps []workload.Component
	for _, s := range sizes {
		comps = append(comps, workload.Component{Site: workload.AnySite, Count: s})
	}
	j := job(id, runtime, false, comps...)
	j.Deadline = d
	return j
}

// A job placed at its first try holds its processors idle until its
// deadline (wasted) and starts at it.
func TestRPPFirstTrySucceeds(t *testing.T) {
	for _, c := range []struct {
		policy         string
		L              string
		placedMS       int64
		wastedProcSecs float64
	}{
		{"rpp", "0.5", 50000, 8 * 50},    // PT_0 = 0 + 0.5·100
		{"wait-10", "0.7", 97000, 8 * 3}, // ignored until 90, PT_0 = 90 + 0.7·10
		{"wait-0", "0.7", 100000, 0},     // one try, at D
		// waitx_first_try = "skip": pure RPP's series from 0, gaps to D
		// of 30 and 9 s: the first not before D − 10 is at 91
		{"wait-10 skip", "0.7", 91000, 8 * 9},
		{"wait-0 skip", "0.7", 100000, 0}, // every try before D skipped
	} {
		t.Run(c.policy, func(t *testing.T) {
			policy, reading, _ := strings.Cut(c.policy, " ")
			if reading != "" {
				reading = "\nwaitx_first_try = \"" + reading + "\""
			}
			g := testGridOf(t, 2, "deadline_policy = \""+policy+"\"\ndeadline_l = "+c.L+reading)
			k, rec := newCore(t, g)
			j, err := k.Submit(deadlineJob("g", 100*time.Second, 30*time.Second, 4, 4), Options{})
			if err != nil {
				t.Fatal(err)
			}
			k.Advance(sec(1000))
			placed := rec.of(EvPlaced, j.ID)
			if len(placed) != 1 || ms(placed[0].Time) != c.placedMS {
				t.Fatalf("placed %v, want once at %d ms", times(placed), c.placedMS)
			}
			if j.State != Finished || ms(j.Start) != 100000 || ms(j.End) != 130000 {
				t.Errorf("state %s, start %d ms, end %d ms; want finished, 100000, 130000", j.State, ms(j.Start), ms(j.End))
			}
			d := k.Deadlines()
			if math.Abs(d.WastedProcessorS-c.wastedProcSecs) > 1e-6 || d.GlobalJobs != 1 || d.GlobalStarted != 1 || d.GlobalSuccess != 1 {
				t.Errorf("summary %+v, want wasted %g processor-s and 1 of 1 started", d, c.wastedProcSecs)
			}
		})
	}
}

// testGridOf is testGrid (jobs with deadlines do not wait for its scans)
// under the readings the hand-worked cases were worked under, gp_kill =
// "at-deadline" and waitx_first_try = "restart", unless extra names its
// own; the defaults, "every-try" and "skip", have cases of their own
// (TestGPKillEveryTry, TestWaitXFirstTrySkip, the skip rows here).
func testGridOf(t *testing.T, clusters int, extra string) *grid.Grid {
	if !strings.Contains(extra, "gp_kill") {
		extra += "\ngp_kill = \"at-deadline\""
	}
	if !strings.Contains(extra, "waitx_first_try") {
		extra += "\nwaitx_first_try = \"restart\""
	}
	return testGrid(t, clusters, extra)
}

// Local jobs fill both clusters until 80 s: the tries at 50 and 75 fail,
// the one at 87.5 places the job (L_p = 0.5, D = 100).
func TestRPPRetriesUntilRoom(t *testing.T) {
	g := testGridOf(t, 2, "deadline_policy = \"rpp\"\ndeadline_l = 0.5")
	k, rec := newCore(t, g)
	for _, cl := range []string{"A", "B"} {
		if err := k.SubmitLocalJob(cl, 10, 80*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	j, err := k.Submit(deadlineJob("g", 100*time.Second, 10*time.Second, 4, 4), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k.QueueLength() != 1 || !j.NextTry.Equal(sec(50)) {
		t.Errorf("queue %d, next try %v; want 1 and t0+50s", k.QueueLength(), j.NextTry)
	}
	k.Advance(sec(1000))
	if got := times(rec.of(EvPlacementTry, j.ID)); got != "50 75" {
		t.Errorf("failed tries at %s, want 50 75", got)
	}
	if got := times(rec.of(EvPlaced, j.ID)); got != "87.5" {
		t.Errorf("placed at %s, want 87.5", got)
	}
	if j.State != Finished || !j.Start.Equal(sec(100)) || k.QueueLength() != 0 {
		t.Errorf("state %s start %v queue %d", j.State, j.Start, k.QueueLength())
	}
	if d := k.Deadlines(); math.Abs(d.WastedProcessorS-8*12.5) > 1e-6 || d.LocalJobs != 2 || d.LocalFinished != 2 || d.LocalResponseS != 80 {
		t.Errorf("summary %+v, want 100 processor-s wasted and 2 local jobs of response 80 s", d)
	}
}

// killSetup: on A, local jobs of 6 (started at 0) and 4 processors
// (started at 10); on B, one of 8 (started at 5); each would run 1000 s. A
// global job of components of 6 and 5 processors has its deadline at 20 s,
// under Wait-0 (one try, at 20 s), where only B's 2 processors are idle.
func killSetup(t *testing.T, priority string) (*Core, *recorder, *Job) {
	g := testGridOf(t, 2, "deadline_policy = \"wait-0\"\ndeadline_priority = \""+priority+"\"")
	k, rec := newCore(t, g)
	local := func(at float64, cl string, size int) {
		k.Advance(sec(at))
		if err := k.SubmitLocalJob(cl, size, 1000*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	local(0, "A", 6)
	var j *Job
	var err error
	if j, err = k.Submit(deadlineJob("g", 20*time.Second, 50*time.Second, 6, 5), Options{}); err != nil {
		t.Fatal(err)
	}
	local(5, "B", 8)
	local(10, "A", 4)
	k.Advance(sec(2000))
	return k, rec, j
}

// Global priority at the deadline, by hand. Component 0 (6 processors)
// fits no cluster's idle processors (A 0, B 2); counting the local jobs,
// both have room, and B, with more idle, needs fewer killed: B's job of 8
// (started at 5) is killed. Component 1 (5) fits nowhere idle then (A 0,
// B 4): A's local jobs go, newest start first: the one of 4 (started at
// 10), then the one of 6 (started at 0). Lost: 8·15 + 4·10 + 6·20 = 280
// processor-seconds; the job starts at its deadline.
func TestGlobalPriorityKillsAtTheDeadline(t *testing.T) {
	k, rec, j := killSetup(t, "global")
	kills := rec.of(EvLocalKilled, j.ID)
	var got []string
	lost := 0.0
	for _, e := range kills {
		if ms(e.Time) != 20000 {
			t.Errorf("a kill at %d ms, want at the deadline, 20000", ms(e.Time))
		}
		got = append(got, e.Cluster+":"+itoa(e.Count))
		lost += e.ProcessorS
	}
	if strings.Join(got, " ") != "B:8 A:4 A:6" || lost != 280 {
		t.Errorf("killed %v losing %g processor-s, want B:8 A:4 A:6 and 280", got, lost)
	}
	if j.State != Finished || !j.Start.Equal(sec(20)) {
		t.Fatalf("global job %s, started %v; want finished, started at its deadline", j.State, j.Start)
	}
	if sites := strings.Join(j.Sites(), ","); sites != "B,A" {
		t.Errorf("sites %s, want B (component 0) and A", sites)
	}
	d := k.Deadlines()
	if d.LocalJobs != 3 || d.LocalKilled != 3 || d.LocalKillRate != 1 || d.LostProcessorS != 280 || d.LocalFinished != 0 || d.GlobalSuccess != 1 {
		t.Errorf("summary %+v, want 3 local jobs, all killed, 280 processor-s lost, the global job started", d)
	}
}

// Local priority: the same job fails at its deadline; no local job dies.
func TestLocalPriorityFailsTheJob(t *testing.T) {
	k, rec, j := killSetup(t, "local")
	if j.State != Failed || !j.End.Equal(sec(20)) || !strings.Contains(j.Reason, "not started at its start deadline") {
		t.Errorf("global job %s at %v (%s), want failed at 20 s for its deadline", j.State, j.End, j.Reason)
	}
	if n := len(rec.of(EvLocalKilled, "")); n != 0 {
		t.Errorf("%d local jobs killed under local priority", n)
	}
	d := k.Deadlines()
	if d.GlobalJobs != 1 || d.GlobalStarted != 0 || d.GlobalSuccess != 0 || d.LocalKilled != 0 || d.LocalFinished != 3 || d.LocalResponseS != 1000 {
		t.Errorf("summary %+v", d)
	}
}

// Under global priority, a job that does not fit even with every local job
// killed (grid components are not killed) fails at its deadline.
func TestGlobalPriorityNotEnough(t *testing.T) {
	g := testGridOf(t, 2, "deadline_policy = \"wait-0\"")
	k, rec := newCore(t, g)
	// A grid job holds 8 processors of each cluster until 500 s.
	if _, err := k.Submit(job("big", 500*time.Second, false, workload.Component{Site: "A", Count: 8}, workload.Component{Site: "B", Count: 8}), Options{}); err != nil {
		t.Fatal(err)
	}
	k.Advance(sec(1))
	if err := k.SubmitLocalJob("A", 2, 1000*time.Second); err != nil {
		t.Fatal(err)
	}
	j, err := k.Submit(deadlineJob("g", 20*time.Second, 10*time.Second, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	k.Advance(sec(100))
	if j.State != Failed || !strings.Contains(j.Reason, "even with local jobs killed") {
		t.Errorf("job %s (%s), want failed: even with local jobs killed", j.State, j.Reason)
	}
	if n := len(rec.of(EvLocalKilled, "")); n != 0 {
		t.Errorf("%d local jobs killed for a job that could not start anyway", n)
	}
}

func TestDeadlineEdges(t *testing.T) {
	g := testGridOf(t, 2, "deadline_policy = \"rpp\"\ndeadline_l = 0.5\ndeadline_max_tries = 2")
	k, rec := newCore(t, g)
	k.Advance(sec(10))
	// Deadline before the submission: failed at once.
	past := deadlineJob("past", 5*time.Second, time.Second, 1)
	past.Submit = 10 * time.Second
	p, err := k.Submit(past, Options{})
	if err != nil || p.State != Failed || !p.End.Equal(sec(10)) || !strings.Contains(p.Reason, "had passed when it was submitted") {
		t.Fatalf("past deadline: %v %s at %v (%s)", err, p.State, p.End, p.Reason)
	}
	// Deadline at the submission: one try, now, and it starts at once
	// with no processor time wasted.
	now := deadlineJob("now", 10*time.Second, time.Second, 5)
	now.Submit = 10 * time.Second
	n, err := k.Submit(now, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k.Advance(sec(10))
	if n.State != Running || !n.Start.Equal(sec(10)) {
		t.Errorf("deadline at the submission: %s, start %v; want running from 10 s", n.State, n.Start)
	}
	// deadline_max_tries = 2 with both clusters full: tries at 10 + 50
	// and 10 + 75, then failed, before its deadline (no kill).
	for _, cl := range []string{"A", "B"} {
		if err := k.SubmitLocalJob(cl, 10, 1000*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	m, err := k.Submit(deadlineJob("m", 100*time.Second, time.Second, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	k.Advance(sec(500))
	if got := times(rec.of(EvPlacementTry, m.ID)); got != "60 85" || m.State != Failed || !m.End.Equal(sec(85)) ||
		!strings.Contains(m.Reason, "deadline_max_tries") {
		t.Errorf("max tries: tries at %s, %s at %v (%s); want 60 85, failed at 85", got, m.State, m.End, m.Reason)
	}
	// Bad per-job settings are refused.
	for _, o := range []Options{{DeadlinePolicy: "wait-x"}, {DeadlineL: 2}, {DeadlineL: -0.5}} {
		if _, err := k.Submit(deadlineJob("bad", 100*time.Second, time.Second, 1), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// A job's own policy and L_p override the grid's.
func TestDeadlineOptionsOverride(t *testing.T) {
	g := testGridOf(t, 2, "deadline_policy = \"rpp\"\ndeadline_l = 0.5")
	k, rec := newCore(t, g)
	j, err := k.Submit(deadlineJob("g", 100*time.Second, time.Second, 2), Options{DeadlinePolicy: "wait-20", DeadlineL: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	k.Advance(sec(200))
	// Ignored until 80 s, then 80 + 0.25·20 = 85.
	if got := times(rec.of(EvPlaced, j.ID)); got != "85" {
		t.Errorf("placed at %s, want 85", got)
	}
}

// A job placed for its deadline that loses its processors before it
// (its cluster goes down) is tried again; after its deadline (while it
// runs) it fails: it cannot start at its deadline again.
func TestDeadlineJobLost(t *testing.T) {
	g := testGridOf(t, 2, "deadline_policy = \"rpp\"\ndeadline_l = 0.5")
	k, rec := newCore(t, g)
	j, err := k.Submit(deadlineJob("g", 100*time.Second, 100*time.Second, 6), Options{})
	if err != nil {
		t.Fatal(err)
	}
	k.Advance(sec(60)) // placed at 50 on A (Worst-Fit: ties by name)
	if j.State != Running || j.Components[0].Site != "A" {
		t.Fatalf("at 60 s: %s on %q, want held on A", j.State, j.Components[0].Site)
	}
	if err := k.SetClusterDown("A", "test"); err != nil {
		t.Fatal(err)
	}
	// Back to the wait at 60: 60 + 0.5·40 = 80, on B.
	k.Advance(sec(150))
	if got := times(rec.of(EvPlaced, j.ID)); got != "50 80" || j.Components[0].Site != "B" || !j.Start.Equal(sec(100)) {
		t.Fatalf("placed at %s, on %s, started %v; want 50 80, B, 100", got, j.Components[0].Site, j.Start)
	}
	if err := k.SetClusterDown("B", "test"); err != nil {
		t.Fatal(err)
	}
	if j.State != Failed || !strings.Contains(j.Reason, "cannot start again") {
		t.Errorf("lost after its deadline: %s (%s), want failed", j.State, j.Reason)
	}
}

// The same grid, seed and workload give the same events, local workload
// included.
func TestDeadlineDeterminism(t *testing.T) {
	run := func(forget bool) string {
		g := testGridOf(t, 2, "deadline_policy = \"wait-10\"\nseed = 7")
		for i := range g.Clusters {
			g.Clusters[i].Local = grid.LocalLoad{Load: 0.5, Size: [2]int{1, 10}, SizeDist: "rsd", RSDQ: 0.9, Runtime: grid.Duration{Duration: 100 * time.Second}}
		}
		if err := g.Check(); err != nil {
			t.Fatal(err)
		}
		var arrivals []Arrival
		for i := range 30 {
			at := time.Duration(i) * 40 * time.Second
			j := deadlineJob("j"+itoa(i), at+time.Duration(1+i*37%300)*time.Second, 60*time.Second, 3, 3)
			j.Submit = at
			arrivals = append(arrivals, Arrival{At: t0.Add(at), Job: j})
		}
		k, rec := newCore(t, g)
		if forget {
			k.Forget(nil)
		}
		if errs := k.Simulate(arrivals, sec(1e5)); len(errs) > 0 {
			t.Fatal(errs)
		}
		b, _ := json.Marshal(rec.events)
		d := k.Deadlines()
		if d.GlobalJobs != 30 || d.GlobalStarted == 0 || d.LocalJobs == 0 || d.LocalFinished == 0 {
			t.Errorf("the run did too little: %+v", d)
		}
		s, _ := json.Marshal(d)
		return string(b) + string(s)
	}
	a, b := run(false), run(false)
	if a != b {
		t.Error("two runs of the same simulation differ")
	}
	// A core that drops its jobs as they end (Forget) counts their
	// deadline figures as they end: the same events and figures.
	if c := run(true); c != a {
		t.Error("a run that forgets the jobs that ended differs")
	}
}

// A deadline past the longest run the core allows (366 days): the job is
// placed at 0.7 of the way there and holds its processors for the rest.
func TestDeadlineBeyondTheLongestRun(t *testing.T) {
	g := testGridOf(t, 2, "deadline_policy = \"rpp\"\ndeadline_l = 0.7")
	k, _ := newCore(t, g)
	d := 400 * 24 * time.Hour
	j, err := k.Submit(deadlineJob("far", d, time.Minute, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(280 * 24 * time.Hour); !j.NextTry.Equal(want) {
		t.Errorf("first try %v, want %v", j.NextTry, want)
	}
	if errs := k.Simulate(nil, t0.Add(d+time.Hour)); len(errs) > 0 {
		t.Fatal(errs)
	}
	if j.State != Finished || !j.JPT.Equal(t0.Add(280*24*time.Hour)) || !j.Start.Equal(t0.Add(d)) {
		t.Errorf("%s, placed %v, started %v", j.State, j.JPT, j.Start)
	}
	if got, want := k.Deadlines().WastedProcessorS, 2*(120*24*time.Hour).Seconds(); math.Abs(got-want) > 1e-3 {
		t.Errorf("wasted %g processor-s, want 2 × 120 days = %g", got, want)
	}
}

// gp_kill = "every-try": global priority kills at every failed try, not
// only at the deadline. Local jobs fill both clusters (10 processors each)
// until 80 s; a job of 2 × 4 processors, D = 100, pure RPP with L_p = 0.5.
// At the default reading ("at-deadline") the tries at 50 and 75 fail and
// the one at 87.5 finds room: nothing is killed, 8 × 12.5 processor-s
// wasted. Under "every-try" the try at 50 fails and kills for it:
// component 0 fits nowhere idle, both clusters would have room with their
// local job killed, A comes first (equal idle; by name): A's job is
// killed, and both components go to A (component 1 fits in A's 6 left).
// Placed at 50, one kill, 8 × 50 processor-s wasted.
func TestGPKillEveryTry(t *testing.T) {
	for _, tc := range []struct {
		gpKill   string
		placed   string
		kills    int
		wastedPS float64
	}{
		{"at-deadline", "87.5", 0, 8 * 12.5},
		{"every-try", "50", 1, 8 * 50},
	} {
		g := testGridOf(t, 2, "deadline_policy = \"rpp\"\ndeadline_l = 0.5\ngp_kill = \""+tc.gpKill+"\"")
		k, rec := newCore(t, g)
		for _, cl := range []string{"A", "B"} {
			if err := k.SubmitLocalJob(cl, 10, 80*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		j, err := k.Submit(deadlineJob("g", 100*time.Second, 10*time.Second, 4, 4), Options{})
		if err != nil {
			t.Fatal(err)
		}
		k.Advance(sec(1000))
		if got := times(rec.of(EvPlaced, j.ID)); got != tc.placed {
			t.Errorf("%s: placed at %s, want %s", tc.gpKill, got, tc.placed)
		}
		kills := rec.of(EvLocalKilled, j.ID)
		for _, e := range kills {
			if ms(e.Time) != 50000 || !strings.Contains(e.Reason, "before its start deadline") {
				t.Errorf("%s: a kill at %d ms (%s), want at the try of 50 s, before the deadline", tc.gpKill, ms(e.Time), e.Reason)
			}
		}
		d := k.Deadlines()
		if len(kills) != tc.kills || d.LocalKilled != tc.kills || math.Abs(d.WastedProcessorS-tc.wastedPS) > 1e-6 {
			t.Errorf("%s: %d kills (summary %d), %g processor-s wasted; want %d, %g", tc.gpKill, len(kills), d.LocalKilled, d.WastedProcessorS, tc.kills, tc.wastedPS)
		}
		if j.State != Finished || !j.Start.Equal(sec(100)) {
			t.Errorf("%s: state %s, start %v; want finished, started at its deadline", tc.gpKill, j.State, j.Start)
		}
	}
	// Under local priority gp_kill changes nothing: no kill, placed at 87.5.
	g := testGridOf(t, 2, "deadline_policy = \"rpp\"\ndeadline_l = 0.5\ndeadline_priority = \"local\"\ngp_kill = \"every-try\"")
	k, rec := newCore(t, g)
	for _, cl := range []string{"A", "B"} {
		if err := k.SubmitLocalJob(cl, 10, 80*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	j, _ := k.Submit(deadlineJob("g", 100*time.Second, 10*time.Second, 4, 4), Options{})
	k.Advance(sec(1000))
	if got := times(rec.of(EvPlaced, j.ID)); got != "87.5" || len(rec.of(EvLocalKilled, "")) != 0 {
		t.Errorf("LP with every-try: placed at %s, %d kills; want 87.5, none", got, len(rec.of(EvLocalKilled, "")))
	}
}

// waitx_first_try = "skip": Wait-X keeps pure RPP's series from the
// submission and makes its first try at the first of its tries not before
// D − X, by hand (S = 0):
//   - Wait-10, L_p = 0.7, D = 3600: the gaps to D are 1080, 324, 97.2,
//     29.16, 8.748: the first try at D − 8.748 (restart: D − 3), then
//     D − 2.6244, D − 0.787 → D (ε = 1 s).
//   - Wait-1000, D = 3000: gaps 900: first at 2100 (restart: D − 300).
//   - Wait-0: every try before D skipped: one try at D (as restart).
//   - Wait-1000 with D − S = 100 < X: nothing skipped, pure RPP.
func TestWaitXFirstTrySkip(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      float64
		policy string
		L      float64
		want   int64 // ms
	}{
		{"Wait-10", 3600, "wait-10", 0.7, 3591252},
		{"Wait-1000", 3000, "wait-1000", 0.7, 2100000},
		{"Wait-0", 3000, "wait-0", 0.7, 3000000},
		{"Wait-1000, X > D - S", 100, "wait-1000", 0.5, 50000},
		{"pure RPP", 100, "rpp", 0.5, 50000},
	} {
		if got := ms(FirstTrySkipping(sec(0), sec(c.d), c.L, mustWait(t, c.policy), time.Second)); got != c.want {
			t.Errorf("%s: first try at %d ms, want %d", c.name, got, c.want)
		}
	}
	// Through the core: a job of Wait-10 with its deadline an hour away is
	// tried first at D − 8.748 s under skip and at D − 3 s under restart,
	// and placed there (the clusters are idle).
	for reading, want := range map[string]int64{"skip": 3591252, "restart": 3597000} {
		g := testGridOf(t, 2, "deadline_policy = \"wait-10\"\ndeadline_l = 0.7\nwaitx_first_try = \""+reading+"\"")
		k, rec := newCore(t, g)
		j, err := k.Submit(deadlineJob("g", 3600*time.Second, 10*time.Second, 4), Options{})
		if err != nil {
			t.Fatal(err)
		}
		k.Advance(sec(4000))
		placed := rec.of(EvPlaced, j.ID)
		if len(placed) != 1 || ms(placed[0].Time) != want || j.State != Finished {
			t.Errorf("%s: placed %d times (%s), want once, at %d ms", reading, len(placed), j.State, want)
		} else if tries := rec.of(EvPlacementTry, j.ID); len(tries) != 0 {
			t.Errorf("%s: %d failed tries before, want none", reading, len(tries))
		}
	}
}

// The two readings are checked with the grid: other values are refused at
// their key.
func TestDeadlineReadingsChecked(t *testing.T) {
	for _, bad := range []string{"gp_kill = \"always\"", "waitx_first_try = \"later\""} {
		_, err := grid.Parse("g.toml", []byte("[scheduler]\n"+bad+"\n[[cluster]]\nname = \"A\"\nprocessors = 4\n"))
		if err == nil || !strings.Contains(err.Error(), strings.Fields(bad)[0]) {
			t.Errorf("%s: %v, want an error naming the key", bad, err)
		}
	}
}
