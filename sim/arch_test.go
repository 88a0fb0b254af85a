package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/workload"
)

// Hand-checked cases, one architecture at a time. Cycles are aligned (at
// multiples of their period) so that every time can be worked out by hand;
// the comments give the working.

type want struct {
	id    string
	start []float64 // start of each run, seconds
	where []int     // cluster of each run
}

func checkRuns(t *testing.T, tr *trace, wants []want) {
	t.Helper()
	for _, w := range wants {
		var got []float64
		for _, s := range tr.started[w.id] {
			got = append(got, s.Seconds())
		}
		if !slices.Equal(got, w.start) || !slices.Equal(tr.where[w.id], w.where) {
			t.Errorf("job %s: runs start at %v on clusters %v; want %v on %v", w.id, got, tr.where[w.id], w.start, w.where)
		}
	}
}

func withUser(j workload.Job, user string) workload.Job { j.User = user; return j }

func TestSepC(t *testing.T) {
	top := flat(t, 4, 4)
	// FCFS without backfilling, jobs stay at home: B waits for A though c1
	// is idle; C (one processor) waits behind B; D is larger than its home.
	jobs := []workload.Job{
		job("A", "c0", 4, 0, 100*time.Second),
		job("B", "c0", 4, 0, 100*time.Second),
		job("C", "c0", 1, secs(1), 10*time.Second),
		job("D", "c1", 5, secs(2), 10*time.Second),
	}
	cfg := DefaultConfig("sep-c")
	cfg.CoolDown = true
	res, tr := run(t, cfg, top, jobs)
	checkRuns(t, tr, []want{{"A", []float64{0}, []int{0}}, {"B", []float64{100}, []int{0}}, {"C", []float64{200}, []int{0}}, {"D", nil, nil}})
	if res.Rejected != 1 || res.Finished != 3 || res.JF != 75 {
		t.Errorf("rejected %d, finished %d, JF %v; want 1, 3, 75", res.Rejected, res.Finished, res.JF)
	}
	if m := res.Messages; m[JobDataExchange] != 6 || m.Total() != 6 {
		t.Errorf("messages %v: want 6 JobDataExchange (in and out per job run)", m)
	}
	// AWT over the three finished jobs: (0 + 100 + 199) / 3.
	if math.Abs(res.AWT-299.0/3) > 1e-9 || res.End != 210 {
		t.Errorf("AWT %v, end %v; want %v, 210", res.AWT, res.End, 299.0/3)
	}
}

func TestEASY(t *testing.T) {
	top := topo(t, topology.Spec{Clusters: []topology.ClusterSpec{{Name: "c", Processors: 4}}})
	// A holds 3 of 4 processors until 100; B (4) must wait for it. EASY lets
	// C (1 processor, ends at 52 < 100, B's reservation) start at once; D
	// (1 processor, 200 s) would delay B and there is no extra processor
	// at 100, so it waits until B is done. FCFS starts C and D after B.
	jobs := []workload.Job{
		job("A", "c", 3, 0, 100*time.Second),
		job("B", "c", 4, secs(1), 50*time.Second),
		job("C", "c", 1, secs(2), 50*time.Second),
		job("D", "c", 1, secs(3), 200*time.Second),
	}
	for _, sched := range []string{"easy", "fcfs"} {
		cfg := DefaultConfig("sep-c")
		cfg.CoolDown, cfg.LocalScheduler = true, sched
		_, tr := run(t, cfg, top, jobs)
		if sched == "easy" {
			checkRuns(t, tr, []want{{"A", []float64{0}, []int{0}}, {"C", []float64{2}, []int{0}}, {"B", []float64{100}, []int{0}}, {"D", []float64{150}, []int{0}}})
		} else {
			checkRuns(t, tr, []want{{"A", []float64{0}, []int{0}}, {"B", []float64{100}, []int{0}}, {"C", []float64{150}, []int{0}}, {"D", []float64{150}, []int{0}}})
		}
	}
}

func TestCondorCycleAndMessages(t *testing.T) {
	top := topo(t, topology.Spec{Clusters: []topology.ClusterSpec{{Name: "c", Processors: 4}}})
	cfg := DefaultConfig("condor")
	cfg.CoolDown, cfg.AlignedCycles = true, true
	// The job arrives at 10 s and starts at the next cycle, 300 s; it ends
	// at 1,300 s. Cycles at 0, 300, 600, 900, 1,200: five resource ads
	// (NotifyBroker) plus the job's own; one Negotiate (at 300, the only
	// cycle with the job waiting); match, claim, release; job data in and
	// out; a KeepAlive at 300, 600 and 900 s of its run.
	res, tr := run(t, cfg, top, []workload.Job{job("J", "c", 2, secs(10), 1000*time.Second)})
	checkRuns(t, tr, []want{{"J", []float64{300}, []int{0}}})
	wantMsgs := Messages{NotifyBroker: 6, Negotiate: 1, JobDataExchange: 2, MatchClaimRelease: 3, KeepAlive: 3}
	if res.Messages != wantMsgs {
		t.Errorf("messages %v, want %v", res.Messages, wantMsgs)
	}
	if res.AWT != 290 || res.ASD != 1290.0/1000 {
		t.Errorf("AWT %v, ASD %v; want 290, 1.29", res.AWT, res.ASD)
	}
}

func TestCernPull(t *testing.T) {
	top := flat(t, 4, 4)
	// A and B fill both clusters; C (4) waits at the head of the central
	// queue and D (1) behind it (FCFS). At 100 A ends: c0 pulls C; then B
	// ends: c1 pulls D.
	jobs := []workload.Job{
		job("A", "c0", 4, 0, 100*time.Second),
		job("B", "c1", 4, 0, 100*time.Second),
		job("C", "c0", 4, secs(1), 50*time.Second),
		job("D", "c0", 1, secs(2), 10*time.Second),
	}
	cfg := DefaultConfig("cern")
	cfg.CoolDown = true
	res, tr := run(t, cfg, top, jobs)
	checkRuns(t, tr, []want{{"A", []float64{0}, []int{0}}, {"B", []float64{0}, []int{1}}, {"C", []float64{100}, []int{0}}, {"D", []float64{100}, []int{1}}})
	if m := res.Messages; m[NotifyBroker] != 4 || m[Negotiate] != 4 || m[JobDataExchange] != 8 || m[KeepAlive] != 0 {
		t.Errorf("messages %v", m)
	}
}

func TestCentralMonitoring(t *testing.T) {
	top := topo(t, topology.Spec{Clusters: []topology.ClusterSpec{{Name: "c", Processors: 4}}})
	jobs := []workload.Job{
		job("A", "c", 4, secs(10), 100*time.Second),
		job("B", "c", 4, secs(20), 100*time.Second),
	}
	tests := []struct {
		name    string
		period  float64
		reserve bool
		b       float64
	}{
		// The report of 0 shows 4 idle: A goes at 10 and counts against
		// them, so B waits; the report of 60 shows A running, that of 120
		// the cluster idle again (A ended at 110): B goes at 120.
		{"soft reservation", 60, true, 120},
		// Without the reservation B is sent at 20 too, and the cluster
		// queues it until A ends.
		{"no reservation", 60, false, 110},
		// A live view (every change, no delay): B goes when A ends.
		{"live view", 0, true, 110},
	}
	for _, tc := range tests {
		cfg := DefaultConfig("central")
		cfg.CoolDown, cfg.InfoPeriod, cfg.CentralReserve = true, secs(tc.period), tc.reserve
		res, tr := run(t, cfg, top, jobs)
		checkRuns(t, tr, []want{{"A", []float64{10}, []int{0}}, {"B", []float64{tc.b}, []int{0}}})
		reports := int64(0)
		if tc.period > 0 {
			reports = int64(math.Floor((tc.b+100)/tc.period)) + 1 // at 0, 60, … up to B's end
		}
		if got := res.Messages[NotifyBroker]; got != 2+reports {
			t.Errorf("%s: %d NotifyBroker, want %d (2 jobs + %d reports)", tc.name, got, 2+reports, reports)
		}
	}
}

func TestFcondorFailover(t *testing.T) {
	top := flat(t, 4, 4)
	// A starts at 0 on c0; c0 fails at 100 and A is killed. Its job
	// manager fails over to c1's site manager, whose cycle at 300 starts A
	// again. condor (no flocking) waits for c0 to come back at 10,100 and
	// starts A at its next cycle, 10,200.
	jobs := []workload.Job{job("A", "c0", 4, 0, 1000*time.Second)}
	tests := []struct {
		arch      string
		start     []float64
		where     []int
		notifyMin int64
	}{
		{"fcondor", []float64{0, 300}, []int{0, 1}, 1 + 1},
		{"condor", []float64{0, 10_200}, []int{0, 0}, 1},
	}
	for _, tc := range tests {
		cfg := DefaultConfig(tc.arch)
		cfg.CoolDown, cfg.AlignedCycles = true, true
		cfg.Outages = []Outage{{Cluster: "c0", At: secs(100), For: secs(10_000)}}
		res, tr := run(t, cfg, top, jobs)
		checkRuns(t, tr, []want{{"A", tc.start, tc.where}})
		if res.Finished != 1 || res.Restarts != 1 || res.Started != 1 {
			t.Errorf("%s: finished %d, restarts %d, started %d", tc.arch, res.Finished, res.Restarts, res.Started)
		}
		if want := 4 * 100 / CPUYear; math.Abs(res.Wasted-want) > 1e-15 {
			t.Errorf("%s: wasted %v CPU-years, want %v", tc.arch, res.Wasted, want)
		}
		if want := 4 * 1000 / CPUYear; math.Abs(res.Goodput-want) > 1e-15 {
			t.Errorf("%s: goodput %v, want %v", tc.arch, res.Goodput, want)
		}
	}
}

func TestFcondorFairShareAndFlocking(t *testing.T) {
	// Fair share: one processor. X1 runs 0–100; at the cycle of 300 user
	// y (no usage) goes before x although X2 came first; X2 at 600.
	one := topo(t, topology.Spec{Clusters: []topology.ClusterSpec{{Name: "c0", Processors: 1}}})
	cfg := DefaultConfig("fcondor")
	cfg.CoolDown, cfg.AlignedCycles = true, true
	_, tr := run(t, cfg, one, []workload.Job{
		withUser(job("X1", "c0", 1, 0, 100*time.Second), "x"),
		withUser(job("X2", "c0", 1, secs(50), 100*time.Second), "x"),
		withUser(job("Y1", "c0", 1, secs(60), 100*time.Second), "y"),
	})
	checkRuns(t, tr, []want{{"X1", []float64{0}, []int{0}}, {"Y1", []float64{300}, []int{0}}, {"X2", []float64{600}, []int{0}}})

	// Flocking: two single-processor clusters. At 0 c0's cycle starts X1;
	// X2 is unmet, so x's job manager moves to c1. c1's cycle at 0 (after
	// c0's, in the same instant) does not serve it: it waits for c1's next
	// cycle, at 300, which starts X2 (it started at 0 when a job manager
	// could be served by two site managers in one instant). condor keeps
	// X2 at home until 1,200.
	two := flat(t, 1, 1)
	jobs := []workload.Job{job("X1", "c0", 1, 0, 1000*time.Second), job("X2", "c0", 1, 0, 1000*time.Second)}
	_, tr = run(t, cfg, two, jobs)
	checkRuns(t, tr, []want{{"X1", []float64{0}, []int{0}}, {"X2", []float64{300}, []int{1}}})
	// Three clusters, the job manager moving on twice: c0 at 0 starts X1,
	// c1 at 300 X2 (its cycle at 0 came in the instant of the move), c2 at
	// 600 X3 (likewise at 300). Before, all three started at 0.
	three := flat(t, 1, 1, 1)
	_, tr = run(t, cfg, three, []workload.Job{
		job("X1", "c0", 1, 0, 1000*time.Second), job("X2", "c0", 1, 0, 1000*time.Second), job("X3", "c0", 1, 0, 1000*time.Second)})
	checkRuns(t, tr, []want{{"X1", []float64{0}, []int{0}}, {"X2", []float64{300}, []int{1}}, {"X3", []float64{600}, []int{2}}})
	ccfg := DefaultConfig("condor")
	ccfg.CoolDown, ccfg.AlignedCycles = true, true
	_, tr = run(t, ccfg, two, jobs)
	checkRuns(t, tr, []want{{"X1", []float64{0}, []int{0}}, {"X2", []float64{1200}, []int{0}}})
}

// dmmPair is two clusters under one root, siblings: a (4) and b (8).
func dmmPair(t *testing.T, c int) *topology.Topology {
	spec := topology.Spec{Sites: []topology.SiteSpec{{Name: "r"}},
		Clusters: []topology.ClusterSpec{{Name: "a", Parent: "r", Processors: 4}, {Name: "b", Parent: "r", Processors: 8}},
		Siblings: []topology.SiblingSpec{{Sites: []string{"a", "b"}}}}
	if c > 0 {
		spec.Clusters = append(spec.Clusters, topology.ClusterSpec{Name: "c", Parent: "r", Processors: c})
		spec.Siblings[0].Sites = append(spec.Siblings[0].Sites, "c")
	}
	return topo(t, spec)
}

func TestDMMDelegation(t *testing.T) {
	top := dmmPair(t, 0)
	// J (8 processors) arrives at a (4): it must be delegated. a's
	// delegation cycle at 60 offers it to its sibling b (8 spare; siblings
	// before the parent), which takes it. b's matchmaking cycle at 300
	// holds 8 processors and grants them back to a; a's cycle at 300 ran
	// just before b's, so a claims them at 600 and J runs on b until 1,600.
	// DMM messages: the delegation, the grant and the release.
	cfg := DefaultConfig("dmm")
	cfg.CoolDown, cfg.AlignedCycles = true, true
	res, tr := run(t, cfg, top, []workload.Job{job("J", "a", 8, secs(10), 1000*time.Second)})
	checkRuns(t, tr, []want{{"J", []float64{600}, []int{1}}})
	if res.Messages[DMM] != 3 || res.Delegations != 1 || res.ChainPerJob != 1 || res.DelegationsPerJob != 1 {
		t.Errorf("DMM messages %d, delegations %d, chain %v, per job %v; want 3, 1, 1, 1", res.Messages[DMM], res.Delegations, res.ChainPerJob, res.DelegationsPerJob)
	}
	// a and b are sites of their own under the root: intra-grid goodput.
	if want := 8 * 1000 / CPUYear; res.GoodputBy[topology.IntraGrid] != want || res.GoodputBy[topology.Local] != 0 {
		t.Errorf("goodput by relation %v, want all %v intra-grid", res.GoodputBy, want)
	}
	if res.Messages[KeepAlive] != 3 {
		t.Errorf("%d KeepAlives, want 3 (at 300, 600, 900 s of the run)", res.Messages[KeepAlive])
	}
}

func TestDMMLeaseExpiry(t *testing.T) {
	top := dmmPair(t, 0)
	// As in TestDMMDelegation, b grants 8 processors to a at 300; a fails
	// at 400, before its cycle of 600 could claim them. With a lease of
	// 2,000 s they go back to b at 2,300: K (8 processors at b, arrived at
	// 1,000) starts at b's first cycle after that, 2,400 (earlier if the
	// lease ended by 2,100, later if it still held at 2,400). a returns at
	// 10,400; its delegation cycle at 10,440 offers J to b again, b grants
	// at 10,500 (after a's cycle of 10,500), a claims at 10,800.
	cfg := DefaultConfig("dmm")
	cfg.CoolDown, cfg.AlignedCycles, cfg.LeaseTerm = true, true, 2000*time.Second
	cfg.Outages = []Outage{{Cluster: "a", At: secs(400), For: secs(10_000)}}
	res, tr := run(t, cfg, top, []workload.Job{
		job("J", "a", 8, secs(10), 1000*time.Second),
		job("K", "b", 8, secs(1000), 700*time.Second),
	})
	checkRuns(t, tr, []want{{"K", []float64{2400}, []int{1}}, {"J", []float64{10_800}, []int{1}}})
	if res.LeasesExpired != 1 || res.Finished != 2 {
		t.Errorf("%d leases expired, %d finished; want 1, 2", res.LeasesExpired, res.Finished)
	}
	// KeepAlives: J's 1,000 s run 3, K's 700 s run 2. DMM: two delegations,
	// two grants, one release; and with local information (the default)
	// b's delegation cycle of 1,020 (K waits there behind the 8 processors
	// b holds for a: load 16/8) offers K to the root r, whose room b does
	// not know, and r, with a down and b on K's chain, rejects it (then r
	// is not asked again for SeenMemory, an hour: K starts at 2,400). Under
	// global information r shows a's room (none, a is down): no offer.
	if res.Messages[KeepAlive] != 5 || res.Messages[DMM] != 7 {
		t.Errorf("%d KeepAlives, %d DMM messages; want 5, 7", res.Messages[KeepAlive], res.Messages[DMM])
	}
	cfg.DMMInformation = DMMGlobal
	res, tr = run(t, cfg, top, []workload.Job{
		job("J", "a", 8, secs(10), 1000*time.Second),
		job("K", "b", 8, secs(1000), 700*time.Second),
	})
	checkRuns(t, tr, []want{{"K", []float64{2400}, []int{1}}, {"J", []float64{10_800}, []int{1}}})
	if res.Messages[DMM] != 5 {
		t.Errorf("global information: %d DMM messages; want 5", res.Messages[DMM])
	}
}

func TestDMMRejection(t *testing.T) {
	top := dmmPair(t, 4)
	// Clusters a (4), b (8), c (4); the information service reports every
	// 300 s. A fills a at 300, B fills b at 300 (cycles at 300 run after
	// the report of 300, which still shows b idle). J arrives at a at 301;
	// a's delegation cycle of 360 offers it to b first (most spare as
	// reported), b cannot take it (its load with J would be 12/8). Without
	// passing on (DMMPassOn false) b rejects it and a offers it to c, which
	// takes it; with it (the default) b delegates it on to its sibling c.
	// c grants at 600, after a's cycle of 600: a claims at 900.
	for _, tc := range []struct {
		passOn            bool
		msgs, deleg, offs int64
		chain             float64
	}{
		// offer to b, its rejection, offer to c, the grant, the release
		{false, 5, 1, 2, 1},
		// offer to b, b's offer to c, the grant and the release over two hops
		{true, 6, 2, 2, 2},
	} {
		cfg := DefaultConfig("dmm")
		cfg.CoolDown, cfg.AlignedCycles, cfg.InfoPeriod, cfg.DMMPassOn = true, true, 300*time.Second, tc.passOn
		res, tr := run(t, cfg, top, []workload.Job{
			job("A", "a", 4, secs(1), 2000*time.Second),
			job("B", "b", 8, secs(1), 2000*time.Second),
			job("J", "a", 4, secs(301), 100*time.Second),
		})
		checkRuns(t, tr, []want{{"A", []float64{300}, []int{0}}, {"B", []float64{300}, []int{1}}, {"J", []float64{900}, []int{2}}})
		if res.Messages[DMM] != tc.msgs || res.Delegations != tc.deleg || res.DelegationOffers != tc.offs || res.ChainPerJob*3 != tc.chain {
			t.Errorf("pass on %v: %d DMM messages, %d delegations, %d offers, chain %v; want %d, %d, %d, %v", tc.passOn,
				res.Messages[DMM], res.Delegations, res.DelegationOffers, res.ChainPerJob*3, tc.msgs, tc.deleg, tc.offs, tc.chain)
		}
	}
}

// dmmLine is three clusters a, b, c of 4 processors, each a grid of its
// own, linked a–b and b–c: c is reachable from a only through b.
func dmmLine(t *testing.T) *topology.Topology {
	return topo(t, topology.Spec{
		Clusters: []topology.ClusterSpec{{Name: "a", Processors: 4}, {Name: "b", Processors: 4}, {Name: "c", Processors: 4}},
		Siblings: []topology.SiblingSpec{{Sites: []string{"a", "b"}}, {Sites: []string{"b", "c"}}},
	})
}

func TestDMMPassesRequestsOn(t *testing.T) {
	// The information service reports every 300 s. A fills a and B fills b
	// at 300 (after the report of 300, which shows both idle); J arrives
	// at a at 301. a's delegation cycle of 360 offers J to b, its only
	// neighbour, whose report shows room; b, loaded (8/4 with J), passes it
	// on to c within the DTTL (a → b → c: two of 5), which takes it; c
	// grants at 600, after a's cycle of 600, and a claims at 900: J runs on
	// c, which a has no link to and no report from. Without passing on, or
	// with a DTTL of 1 (nothing left for b's hop), b rejects J, a has no
	// other target, and J waits at home for A's end: a's cycle of 2,400.
	// Counts with passing on: 2 attempts (a's, b's), 2 offers, 2 hops;
	// without: a's one attempt and offer (b is not asked again within
	// SeenMemory, an hour, and a has no other target).
	jobs := []workload.Job{
		job("A", "a", 4, secs(1), 2000*time.Second),
		job("B", "b", 4, secs(1), 2000*time.Second),
		job("J", "a", 4, secs(301), 100*time.Second),
	}
	for _, tc := range []struct {
		name                   string
		passOn                 bool
		dttl                   int
		start                  float64
		where                  int
		hops, attempts, offers int64
	}{
		{"pass on", true, 5, 900, 2, 2, 2, 2},
		{"reject at once", false, 5, 2400, 0, 0, 1, 1},
		{"pass on, DTTL 1", true, 1, 2400, 0, 0, 1, 1},
	} {
		cfg := DefaultConfig("dmm")
		cfg.CoolDown, cfg.AlignedCycles, cfg.InfoPeriod = true, true, 300*time.Second
		cfg.DMMPassOn, cfg.DTTL = tc.passOn, tc.dttl
		res, tr := run(t, cfg, dmmLine(t), jobs)
		checkRuns(t, tr, []want{{"J", []float64{tc.start}, []int{tc.where}}})
		if res.Delegations != tc.hops || res.DelegationAttempts != tc.attempts || res.DelegationOffers != tc.offers {
			t.Errorf("%s: %d hops, %d attempts, %d offers; want %d, %d, %d", tc.name,
				res.Delegations, res.DelegationAttempts, res.DelegationOffers, tc.hops, tc.attempts, tc.offers)
		}
	}
}

// dmmStar is a home cluster h (4) linked to two administrative sites S1
// and S2, each a grid of its own: S1 over x1 (10 processors), S2 over x2
// (100). S1 and S2 are not linked: each one's region is its own cluster.
func dmmStar(t *testing.T) *topology.Topology {
	return topo(t, topology.Spec{
		Sites: []topology.SiteSpec{{Name: "S1"}, {Name: "S2"}},
		Clusters: []topology.ClusterSpec{{Name: "h", Processors: 4},
			{Name: "x1", Parent: "S1", Processors: 10}, {Name: "x2", Parent: "S2", Processors: 100}},
		Siblings: []topology.SiblingSpec{{Sites: []string{"h", "S1"}}, {Sites: []string{"h", "S2"}}},
	})
}

func TestDMMLocalInformation(t *testing.T) {
	// J (8 processors) arrives at h (4), larger than h: h's delegation
	// cycle of 60 delegates it. h's neighbours are S1 and S2, sites without
	// processors. Under global information h ranks them by the room of the
	// clusters beyond them, which h has no report from: S2 (x2: 100 spare)
	// before S1 (x1: 10), and J runs on x2. Under local information (the
	// default) neither reports any room: h offers J to S1 first (the
	// neighbours' order), S1 to x1, whose report shows room: J runs on x1.
	top := dmmStar(t)
	jobs := []workload.Job{job("J", "h", 8, secs(10), 1000*time.Second)}
	for info, where := range map[string]int{DMMLocal: 1, DMMGlobal: 2} {
		cfg := DefaultConfig("dmm")
		cfg.CoolDown, cfg.AlignedCycles, cfg.DMMInformation = true, true, info
		res, tr := run(t, cfg, top, jobs)
		checkRuns(t, tr, []want{{"J", []float64{600}, []int{where}}})
		if res.Delegations != 2 {
			t.Errorf("%s: %d hops, want 2 (h → S, S → x)", info, res.Delegations)
		}
	}

	// x1 and x2 full (X1, X2 running from their cycles of 300): J (8)
	// arrives at 400; the run is measured until Z's arrival at 1,200,
	// before x1 ends (1,300). Under global information no cluster beyond
	// S1 or S2 has room, so h offers J nowhere: no DMM message. Under local
	// information h does not know that: at 420 it offers J to S1, which
	// finds x1's report without room and rejects it, then to S2, likewise:
	// 4 messages (and neither is asked again for SeenMemory, an hour).
	jobs = []workload.Job{
		job("X1", "x1", 10, secs(1), 1000*time.Second), job("X2", "x2", 100, secs(1), 5000*time.Second),
		job("J", "h", 8, secs(400), 100*time.Second), job("Z", "h", 1, secs(1200), time.Second),
	}
	msgs := map[string]int64{}
	for _, info := range []string{DMMLocal, DMMGlobal} {
		cfg := DefaultConfig("dmm")
		cfg.AlignedCycles, cfg.DMMInformation = true, info
		res, _ := run(t, cfg, top, jobs)
		msgs[info] = res.Messages[DMM]
	}
	if msgs[DMMGlobal] != 0 || msgs[DMMLocal] != 4 {
		t.Errorf("DMM messages before the last arrival: global %d, local %d; want 0, 4", msgs[DMMGlobal], msgs[DMMLocal])
	}
}

func TestDMMKeepsLoadLocal(t *testing.T) {
	// Under the threshold nothing is delegated: a job that fits waits for
	// its home cluster rather than moving.
	top := dmmPair(t, 0)
	cfg := DefaultConfig("dmm")
	cfg.CoolDown, cfg.AlignedCycles = true, true
	res, tr := run(t, cfg, top, []workload.Job{job("A", "a", 2, secs(1), 1000*time.Second), job("B", "a", 2, secs(2), 1000*time.Second)})
	checkRuns(t, tr, []want{{"A", []float64{300}, []int{0}}, {"B", []float64{300}, []int{0}}})
	if res.Delegations != 0 || res.Messages[DMM] != 0 || res.GoodputBy[topology.Local] != res.Goodput {
		t.Errorf("delegations %d, DMM messages %d, goodput %v", res.Delegations, res.Messages[DMM], res.GoodputBy)
	}
}

func TestHier(t *testing.T) {
	top := topo(t, topology.Spec{
		Sites: []topology.SiteSpec{{Name: "g"}, {Name: "s1", Parent: "g"}, {Name: "s2", Parent: "g"}},
		Clusters: []topology.ClusterSpec{{Name: "a", Parent: "s1", Processors: 4}, {Name: "b", Parent: "s1", Processors: 2},
			{Name: "c", Parent: "s2", Processors: 8}},
	})
	// A starts at home. B finds a busy and b too small: up to s1, up to g,
	// down to s2 and c. C fits at home. D (8) fits only c, busy with B
	// until 101: it waits at the root and goes then. Live view.
	jobs := []workload.Job{
		job("A", "a", 4, 0, 100*time.Second),
		job("B", "a", 4, secs(1), 100*time.Second),
		job("C", "b", 1, secs(2), 50*time.Second),
		job("D", "a", 8, secs(3), 10*time.Second),
	}
	cfg := DefaultConfig("hier")
	cfg.CoolDown, cfg.InfoPeriod = true, 0
	res, tr := run(t, cfg, top, jobs)
	checkRuns(t, tr, []want{{"A", []float64{0}, []int{0}}, {"B", []float64{1}, []int{2}}, {"C", []float64{2}, []int{1}}, {"D", []float64{101}, []int{2}}})
	// Job data: A and C one hop each, B four (s1, g, s2, c), D four; and
	// each job's results.
	if got := res.Messages[JobDataExchange]; got != 1+4+1+4+4 {
		t.Errorf("%d JobDataExchange, want 14", got)
	}

	// The distribution policies, at a root over three clusters x (1), a
	// (4, one processor taken by A0) and c (8): X2 finds x busy and goes to
	// the root, which sends it to c (worst fit: most idle; load: least
	// busy) or a (best fit: tightest; round robin: first in turn).
	flat3 := topo(t, topology.Spec{Sites: []topology.SiteSpec{{Name: "g"}},
		Clusters: []topology.ClusterSpec{{Name: "x", Parent: "g", Processors: 1}, {Name: "a", Parent: "g", Processors: 4}, {Name: "c", Parent: "g", Processors: 8}}})
	jobs = []workload.Job{
		job("X1", "x", 1, 0, 1000*time.Second),
		job("A0", "a", 1, 0, 1000*time.Second),
		job("X2", "x", 1, secs(1), 100*time.Second),
	}
	for dist, where := range map[string]int{"worst-fit": 2, "load": 2, "best-fit": 1, "round-robin": 1} {
		cfg := DefaultConfig("hier")
		cfg.CoolDown, cfg.InfoPeriod, cfg.Distribution = true, 0, dist
		_, tr := run(t, cfg, flat3, jobs)
		checkRuns(t, tr, []want{{"X2", []float64{1}, []int{where}}})
	}
	bad := DefaultConfig("hier")
	bad.Distribution = "random"
	if _, err := Run(bad, flat3, &SliceSource{}); err == nil {
		t.Error("accepted distribution random")
	}
}

func TestDMMThresholdAboveOne(t *testing.T) {
	// With a threshold above 1 a cluster's SM takes requests beyond its
	// processors (its load with them up to the threshold), so a target is
	// eligible by that room, not only by its idle processors. a (4) and b
	// (8), threshold 1.25: A fills a, B fills b, both waiting for their
	// cycle of 300; J1, J2 (1 processor each) arrive at a. At a's
	// delegation cycle of 60 its load is 6/4 > 1.25: A (4) fits nowhere
	// (b's room is 10 − 8 = 2), J1 goes to b (its load there 9/8 ≤ 1.25),
	// and a's load is back at 5/4. J1 waits at b behind B (ends at 1,300),
	// is granted at b's cycle of 1,500 and claimed at 1,800; J2 starts at
	// home at 1,500. At threshold 1 nothing moves (b has no idle
	// processors): J1 and J2 run at home from 1,500.
	top := dmmPair(t, 0)
	jobs := []workload.Job{
		job("A", "a", 4, secs(1), 1000*time.Second), job("B", "b", 8, secs(1), 1000*time.Second),
		job("J1", "a", 1, secs(2), 100*time.Second), job("J2", "a", 1, secs(3), 100*time.Second),
	}
	for _, tc := range []struct {
		thr   float64
		deleg int64
		runs  []want
	}{
		{1.25, 1, []want{{"J1", []float64{1800}, []int{1}}, {"J2", []float64{1500}, []int{0}}}},
		{1, 0, []want{{"J1", []float64{1500}, []int{0}}, {"J2", []float64{1500}, []int{0}}}},
	} {
		cfg := DefaultConfig("dmm")
		cfg.CoolDown, cfg.AlignedCycles, cfg.Threshold = true, true, tc.thr
		res, tr := run(t, cfg, top, jobs)
		checkRuns(t, tr, tc.runs)
		if res.Delegations != tc.deleg || res.Delegated != tc.deleg {
			t.Errorf("threshold %g: %d delegations of %d jobs, want %d", tc.thr, res.Delegations, res.Delegated, tc.deleg)
		}
	}
}
