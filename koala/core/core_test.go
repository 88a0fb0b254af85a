package core

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/apps"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// sec is t0 plus s seconds (fractions allowed).
func sec(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// recorder keeps every event.
type recorder struct{ events []Event }

func (r *recorder) Event(e *Event) { r.events = append(r.events, *e) }

// of returns the events of a kind (and of a job, when given).
func (r *recorder) of(kind EventKind, job string) []Event {
	var out []Event
	for _, e := range r.events {
		if e.Kind == kind && (job == "" || e.Job == job) {
			out = append(out, e)
		}
	}
	return out
}

func times(evs []Event) string {
	var parts []string
	for _, e := range evs {
		parts = append(parts, fmt.Sprintf("%g", e.Time.Sub(t0).Seconds()))
	}
	return strings.Join(parts, " ")
}

// testGrid: clusters A, B (and C when three) of 10 processors, 1 MiB/s between
// them, a 400 MiB file "f" at the last cluster: 400 s to move it.
func testGrid(t *testing.T, clusters int, extra string) *grid.Grid {
	t.Helper()
	names := []string{"A", "B", "C"}[:clusters]
	src := "[scheduler]\nscan_interval = \"60s\"\nutilization_sample = \"1h\"\n" + extra + "\n[network]\ndefault_bandwidth = \"1MB/s\"\n"
	for _, n := range names {
		src += fmt.Sprintf("[[cluster]]\nname = %q\nprocessors = 10\n", n)
	}
	src += fmt.Sprintf("[[file]]\nname = \"f\"\nsize = \"400MB\"\nsites = [%q]\n", names[len(names)-1])
	g, err := grid.Parse("test.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func newCore(t *testing.T, g *grid.Grid) (*Core, *recorder) {
	t.Helper()
	rec := &recorder{}
	c, err := New(g, t0, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

func job(id string, runtime time.Duration, files bool, comps ...workload.Component) workload.Job {
	j := workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered, RunTime: runtime,
		App: workload.App{Name: "swf"}, Components: comps}
	if files {
		j.Files = []workload.File{{Name: "f", Size: 400 << 20}}
	}
	return j
}

func anySite(n int) workload.Component         { return workload.Component{Site: workload.AnySite, Count: n} }
func on(site string, n int) workload.Component { return workload.Component{Site: site, Count: n} }

func submit(t *testing.T, c *Core, j workload.Job, o Options) *Job {
	t.Helper()
	k, err := c.Submit(j, o)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The claiming sequence: placed at 0 with a 400 s transfer, L = 0.75, the
// tries fall at 300, 375, 393.75, 398.4375 and, the gap left being under a
// second, at the start time 400 itself. A local job holds the processors
// throughout, so the start time is missed: L drops to 0.5 and the job is
// placed again at the next scan (420 s) on the other cluster, which holds
// the file: no transfer, claimed at once, started at 420.
func TestClaimingSequenceAndMissedStart(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 2, `policy = "WF"`))
	j := submit(t, c, job("j", 60*time.Second, true, anySite(4)), Options{Priority: High})
	if j.State != Claiming || j.Components[0].Site != "A" || j.FTT != 400*time.Second {
		t.Fatalf("placed %s on %s with FTT %v", j.State, j.Components[0].Site, j.FTT)
	}
	c.Advance(sec(1))
	if err := c.SubmitLocalJob("A", 8, 1000*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Advance(sec(450))
	tries := rec.of(EvClaimTry, j.ID)
	if got := times(tries); got != "300 375 393.75 398.4375 400 420" {
		t.Errorf("claim tries at %s, want 300 375 393.75 398.4375 400 420", got)
	}
	for _, e := range tries[:5] {
		if e.OK {
			t.Errorf("claim try at %v succeeded with the processors taken", e.Time.Sub(t0))
		}
	}
	if got := times(rec.of(EvReplaced, j.ID)); got != "400" {
		t.Errorf("re-placed at %s, want 400", got)
	}
	if j.L != 0.5 {
		t.Errorf("L = %g after the missed start, want 0.5", j.L)
	}
	placed := rec.of(EvPlaced, j.ID)
	if len(placed) != 2 || placed[1].Time != sec(420) || placed[1].Sites[0] != "B" || placed[1].FTT != 0 {
		t.Fatalf("placements %+v", placed)
	}
	if j.State != Running || !j.Start.Equal(sec(420)) || j.OrigJST != sec(400) {
		t.Errorf("state %s start %v, original JST %v", j.State, j.Start.Sub(t0), j.OrigJST.Sub(t0))
	}
	c.Advance(sec(481))
	if j.State != Finished || !j.End.Equal(sec(480)) {
		t.Errorf("state %s end %v, want finished at 480", j.State, j.End.Sub(t0))
	}
	if j.ClaimTries != 6 || j.Placements != 2 {
		t.Errorf("claim tries %d, placements %d; want 6 and 2", j.ClaimTries, j.Placements)
	}
}

// A first claim that succeeds: processors are gained from placement to the
// claim (PGT = L·FTT = 300 s) and wasted from the claim to the start (PWT =
// (1−L)·FTT = 100 s): PGT = 3 × PWT at L = 0.75.
func TestFirstClaimSucceedsGainedIsThreeTimesWasted(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 2, `policy = "WF"`))
	j := submit(t, c, job("j", 100*time.Second, true, anySite(4)), Options{Priority: High})
	c.Advance(sec(1000))
	if got := times(rec.of(EvClaimTry, j.ID)); got != "300" {
		t.Errorf("claim tries at %s, want 300", got)
	}
	if !j.Start.Equal(sec(400)) || !j.End.Equal(sec(500)) || j.State != Finished {
		t.Errorf("start %v end %v state %s", j.Start.Sub(t0), j.End.Sub(t0), j.State)
	}
	a := c.byName["A"].acct.total
	if a.gained != 4*300 || a.wasted != 4*100 || a.grid != 4*100 {
		t.Errorf("processor-seconds gained %g wasted %g grid %g; want 1200, 400, 400", a.gained, a.wasted, a.grid)
	}
}

// The total utilization is background + grid jobs + PWT, the 2004 paper's
// "real total utilization"; PGT is not part of it. The processors placed on
// but not yet claimed are free in the local resource manager, and a local job
// may run on them: then they count as background and as gained at once, and
// background + grid + PWT + PGT (Stacked) passes 100% of the processors.
// W50's "total of 82-84%" was that sum (docs/validation.md).
func TestTotalUtilizationLeavesOutGainedTime(t *testing.T) {
	c, _ := newCore(t, testGrid(t, 2, `policy = "WF"`))
	j := submit(t, c, job("j", 100*time.Second, true, anySite(4)), Options{Priority: High})
	if j.Components[0].Site != "A" || j.FTT != 400*time.Second {
		t.Fatalf("placed on %s with FTT %v, want A and 400s", j.Components[0].Site, j.FTT)
	}
	// A local job takes all of A, the 4 placed-on processors included, from
	// 0 to 200 s; the claim at 300 s finds them free again.
	if err := c.SubmitLocalJob("A", 10, 200*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Advance(sec(200))
	u := c.Utilization().Clusters["A"]
	if got := u.Background + u.Grid + u.Wasted; math.Abs(got-1) > 1e-9 {
		t.Errorf("A's total over [0, 200 s] is %g, want 1 (every processor busy with the local job)", got)
	}
	if got := u.Background + u.Grid + u.Wasted + u.Gained; math.Abs(got-1.4) > 1e-9 {
		t.Errorf("A's stacked sum over [0, 200 s] is %g, want 1.4", got)
	}
	c.Advance(sec(1000))
	if j.State != Finished || !j.Start.Equal(sec(400)) {
		t.Fatalf("state %s start %v, want finished, started at 400", j.State, j.Start.Sub(t0))
	}
	// Over [0, 1000 s] of 20 processors: background 10 x 200, grid 4 x 100,
	// wasted 4 x 100, gained 4 x 300 processor-seconds.
	sum := c.Utilization()
	want := struct{ total, stacked, gained float64 }{(2000 + 400 + 400) / 20000.0, (2000 + 400 + 400 + 1200) / 20000.0, 1200 / 20000.0}
	if math.Abs(sum.Total-want.total) > 1e-9 || math.Abs(sum.Stacked-want.stacked) > 1e-9 || math.Abs(sum.Gained-want.gained) > 1e-9 {
		t.Errorf("total %g stacked %g gained %g, want %g, %g and %g", sum.Total, sum.Stacked, sum.Gained, want.total, want.stacked, want.gained)
	}
}

func TestNextClaim(t *testing.T) {
	cases := []struct {
		jct, jst float64
		L        float64
		want     string
	}{
		{300, 400, 0.75, "375"},
		{398.4375, 400, 0.75, "400"}, // gap left 0.39 s < 1 s: the last try is at JST
		{400, 400, 0.75, "none"},     // that was the last try
		{0, 400, 0, "400"},           // L = 0: the sequence would stall
		{0, 400, 1, "400"},           // L = 1: straight to JST
		{100, 400, 0.5, "250"},       // closes half the gap
	}
	for _, k := range cases {
		next, ok := NextClaim(sec(k.jct), sec(k.jst), k.L, time.Second)
		got := "none"
		if ok {
			got = fmt.Sprintf("%g", next.Sub(t0).Seconds())
		}
		if got != k.want {
			t.Errorf("NextClaim(%g, %g, L=%g) = %s, want %s", k.jct, k.jst, k.L, got, k.want)
		}
	}
}

// Incremental claiming with T = 0.5: one component's site was taken by a
// local job; the other component is claimable, so F = 1/2 >= T and the
// unclaimable one is placed again (Worst-Fit picks C, which holds the file,
// no transfer): both are claimed at the first try.
func TestIncrementalClaimingReplacesAComponent(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 3, "policy = \"WF\"\nclaim_threshold = 0.5"))
	j := submit(t, c, job("j", 60*time.Second, true, anySite(4), anySite(4)), Options{Priority: High})
	if s := j.Components[0].Site + j.Components[1].Site; s != "AB" {
		t.Fatalf("placed on %s, want A and B", s)
	}
	c.Advance(sec(1))
	if err := c.SubmitLocalJob("B", 8, 1000*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Advance(sec(300))
	tries := rec.of(EvClaimTry, j.ID)
	if len(tries) != 1 || !tries[0].OK || tries[0].Time != sec(300) {
		t.Fatalf("claim tries %+v", tries)
	}
	if s := j.Components[0].Site + j.Components[1].Site; s != "AC" {
		t.Errorf("components on %s after incremental claiming, want A and C", s)
	}
	c.Advance(sec(1000))
	if j.State != Finished || !j.Start.Equal(sec(400)) {
		t.Errorf("state %s start %v", j.State, j.Start.Sub(t0))
	}
}

// Pre-emption: with T = 0.5, a high-priority job's fixed component cannot be
// claimed or placed again (its site is fixed and busy); a low-priority job
// holding processors there is pre-empted and sent back to its queue.
func TestIncrementalClaimingPreemptsLowerPriority(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 2, "policy = \"WF\"\nclaim_threshold = 0.5"))
	low := submit(t, c, job("low", 1000*time.Second, false, anySite(6)), Options{Priority: Low})
	c.Advance(t0) // no files: claimed at once
	if low.State != Running || low.Components[0].Site != "A" {
		t.Fatalf("low job %s on %s", low.State, low.Components[0].Site)
	}
	c.Advance(sec(10))
	high := submit(t, c, job("high", 60*time.Second, true, on("A", 4), on("B", 4)), Options{Priority: High})
	if high.State != Claiming || high.FTT != 400*time.Second {
		t.Fatalf("high job %s FTT %v", high.State, high.FTT)
	}
	c.Advance(sec(20))
	if err := c.SubmitLocalJob("A", 2, 5000*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Advance(sec(310))
	if tries := rec.of(EvClaimTry, high.ID); len(tries) != 1 || !tries[0].OK || tries[0].Time != sec(310) {
		t.Fatalf("high job's claim tries %+v", tries)
	}
	pre := rec.of(EvPreempted, low.ID)
	if len(pre) != 1 || pre[0].Time != sec(310) || pre[0].Cluster != "A" {
		t.Fatalf("pre-emptions of the low job %+v", pre)
	}
	c.Advance(sec(3000))
	if high.State != Finished || !high.Start.Equal(sec(410)) {
		t.Errorf("high job %s, start %v", high.State, high.Start.Sub(t0))
	}
	// The low job was placed again (on B, the only site with room) and ran.
	if low.State != Finished || low.Restarts != 1 || low.Placements != 2 {
		t.Errorf("low job %s restarts %d placements %d", low.State, low.Restarts, low.Placements)
	}
}

// With T = 1 (atomic claiming) nothing is claimed unless everything is.
func TestAtomicClaimingHoldsNothingPartially(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 3, `policy = "WF"`))
	j := submit(t, c, job("j", 60*time.Second, true, anySite(4), anySite(4)), Options{Priority: High})
	c.Advance(sec(1))
	if err := c.SubmitLocalJob("B", 8, 380*time.Second); err != nil { // ends at 381
		t.Fatal(err)
	}
	c.Advance(sec(376))
	for _, e := range rec.of(EvClaimTry, j.ID) {
		if e.Count != 0 {
			t.Errorf("try at %v claimed %d components", e.Time.Sub(t0), e.Count)
		}
	}
	if c.byName["A"].held != 0 {
		t.Errorf("A holds %d processors for a job that is not fully claimed", c.byName["A"].held)
	}
	// The local job ends at 381; the try at 393.75 claims both.
	c.Advance(sec(1000))
	if got := times(rec.of(EvClaimTry, j.ID)); got != "300 375 393.75" || j.State != Finished {
		t.Errorf("tries at %s, state %s", got, j.State)
	}
}

// Soft reservations: a placed job's processors are not given to another
// grid job while it waits to claim them, though they stay idle in the local
// resource manager (where local jobs may take them).
func TestSoftReservationProtectsPlacedProcessors(t *testing.T) {
	c, _ := newCore(t, testGrid(t, 2, `policy = "WF"`))
	a := submit(t, c, job("a", 60*time.Second, true, on("A", 8)), Options{Priority: High}) // file at B: 400 s transfer
	b := submit(t, c, job("b", 60*time.Second, false, on("A", 4)), Options{Priority: High})
	if a.State != Claiming || b.State != Queued {
		t.Fatalf("a %s, b %s: b must not get a's placed processors", a.State, b.State)
	}
	if idle := c.byName["A"].lrm.Idle(); idle != 10 {
		t.Errorf("the local resource manager sees %d idle, want 10 (the reservation is KOALA's own)", idle)
	}
	c.Advance(sec(470))
	if a.State != Finished || b.State != Queued {
		t.Fatalf("at 470: a %s, b %s", a.State, b.State)
	}
	c.Advance(sec(600))
	if b.State != Finished || b.Placements != 1 || !b.JPT.Equal(sec(480)) {
		t.Errorf("b %s placed at %v", b.State, b.JPT.Sub(t0))
	}
}

func TestDuplicateKeyRefused(t *testing.T) {
	c, _ := newCore(t, testGrid(t, 2, ""))
	if _, err := c.Submit(job("x", time.Second, false, anySite(1)), Options{Key: "run1/x/0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Submit(job("x", time.Second, false, anySite(1)), Options{Key: "run1/x/0"}); err != ErrDuplicateKey {
		t.Errorf("second submission with the same key: %v", err)
	}
}

func TestClusterDownReplacesJobs(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 2, `policy = "WF"`))
	j := submit(t, c, job("j", 600*time.Second, false, anySite(8)), Options{Priority: High})
	c.Advance(t0)
	if j.State != Running || j.Components[0].Site != "A" {
		t.Fatalf("%s on %s", j.State, j.Components[0].Site)
	}
	c.Advance(sec(100))
	if err := c.SetClusterDown("A", "maintenance"); err != nil {
		t.Fatal(err)
	}
	if j.State != Queued || j.Restarts != 1 || !j.exclude["A"] {
		t.Fatalf("after A went down: %s, restarts %d", j.State, j.Restarts)
	}
	c.Advance(sec(2000))
	if j.State != Finished || j.Components[0].Site != "B" {
		t.Errorf("%s on %s", j.State, j.Components[0].Site)
	}
	if len(rec.of(EvClusterDown, "")) != 1 {
		t.Error("no cluster_down event")
	}
	if err := c.SetClusterUp("A"); err != nil || c.byName["A"].disabled != "" {
		t.Errorf("up: %v", err)
	}
}

func TestSoftErrorsTakeAClusterOut(t *testing.T) {
	g := testGrid(t, 2, "policy = \"WF\"\nerror_threshold = 2")
	g.Clusters[0].FailureRate = 1 // every component start on A fails
	c, rec := newCore(t, g)
	a := submit(t, c, job("a", 60*time.Second, false, anySite(6)), Options{Priority: High})
	b := submit(t, c, job("b", 60*time.Second, false, on("A", 2)), Options{Priority: High})
	c.Advance(sec(3600))
	if len(rec.of(EvAlert, "")) != 1 || c.byName["A"].disabled == "" {
		t.Fatalf("A not taken out after two soft errors: alerts %d", len(rec.of(EvAlert, "")))
	}
	if a.State != Finished || a.Components[0].Site != "B" {
		t.Errorf("job a: %s on %s", a.State, a.Components[0].Site)
	}
	// b is fixed on A: it waits for A to come back.
	if b.State != Queued {
		t.Errorf("job b fixed on the dead cluster: %s", b.State)
	}
}

func TestMaxRuntimeKill(t *testing.T) {
	c, _ := newCore(t, testGrid(t, 1, "max_runtime = \"15m\""))
	j := submit(t, c, job("j", time.Hour, false, anySite(1)), Options{Priority: High})
	c.Advance(sec(7200))
	if j.State != Failed || !strings.Contains(j.Reason, "killed after its run-time limit of 15m0s") || !j.End.Equal(sec(900)) {
		t.Errorf("%s at %v: %s", j.State, j.End.Sub(t0), j.Reason)
	}
}

func TestPlacementQueueRoundRobin(t *testing.T) {
	c, _ := newCore(t, testGrid(t, 1, "group_weights = [2, 1]\nqueue_weights = [1, 1, 1, 1]\nplace_on_submit = false"))
	for _, p := range []Priority{SuperHigh, High, Low, SuperLow} {
		submit(t, c, job("j"+p.String(), time.Second, false, anySite(5)), Options{Priority: p}) // queued: no scan runs
	}
	var order []string
	for i := 0; i < 6; i++ {
		p, _ := c.nextQueue()
		order = append(order, p.String())
	}
	want := "super-high high super-high high low super-low"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("scan order %s, want %s", got, want)
	}
}

func TestAgingPromotesJobs(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 1, "aging_period = 2\nplace_on_submit = false"))
	if err := c.SubmitLocalJob("A", 10, 24*time.Hour); err != nil { // the cluster stays full
		t.Fatal(err)
	}
	j := submit(t, c, job("j", time.Second, false, anySite(5)), Options{Priority: Low})
	c.Advance(sec(60 * 8))
	if j.Priority() != SuperHigh {
		t.Errorf("priority %s after %d tries, want super-high", j.Priority(), j.PlacementTries)
	}
	if n := len(rec.of(EvPromoted, j.ID)); n != 2 {
		t.Errorf("%d promotions, want 2 (low -> high -> super-high)", n)
	}
}

// A wall time outside its documented range is refused at submission with the
// reason; a wall time in range, or none, always leaves the job an end (the
// grid's max_runtime, or the core's longest run when the grid has none).
func TestWallTimeRange(t *testing.T) {
	cases := []struct {
		name      string
		wall      time.Duration
		runtime   time.Duration
		maxRun    string
		refused   string // part of the error; "" when accepted
		wantEnd   float64
		wantState State
	}{
		{"negative", -time.Second, time.Minute, `"15m"`, "out of range", 0, ""},
		{"most negative", math.MinInt64, time.Minute, `"15m"`, "out of range", 0, ""},
		{"below a second", time.Nanosecond, time.Minute, `"15m"`, "out of range", 0, ""},
		{"absurd", grid.LongestRun + time.Second, time.Minute, `"15m"`, "longer than", 0, ""},
		{"none: max_runtime ends it", 0, 2 * time.Hour, `"15m"`, "", 900, Failed},
		{"longer than max_runtime: killed at it", time.Hour, 2 * time.Hour, `"15m"`, "", 900, Failed},
		{"shorter than max_runtime", 10 * time.Minute, time.Hour, `"15m"`, "", 600, Failed},
		{"runs within it", 10 * time.Minute, time.Minute, `"15m"`, "", 60, Finished},
		{"no limits: the longest run ends it", 0, 500 * 24 * time.Hour, `"0s"`, "", grid.LongestRun.Seconds(), Failed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newCore(t, testGrid(t, 1, "max_runtime = "+tc.maxRun))
			spec := job("j", tc.runtime, false, anySite(1))
			spec.WallTime = tc.wall
			j, err := c.Submit(spec, Options{Priority: High})
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), "walltime") {
					t.Fatalf("accepted or wrong error: %v", err)
				}
				if len(c.Jobs()) != 0 {
					t.Errorf("a refused job is kept: %d jobs", len(c.Jobs()))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.Advance(t0.Add(2 * grid.LongestRun))
			if j.State != tc.wantState || !j.End.Equal(sec(tc.wantEnd)) {
				t.Errorf("%s at %v (%s), want %s at %gs", j.State, j.End.Sub(t0), j.Reason, tc.wantState, tc.wantEnd)
			}
		})
	}
}

// A run time scaled past what a time.Duration holds saturates instead of
// wrapping to a negative run time (which would end the job at once as a
// success).
func TestRunTimeScaleSaturates(t *testing.T) {
	spec := job("j", time.Hour, false, anySite(1))
	spec.App.Params = []workload.Param{{Key: "scale", Value: "1e300"}}
	if rt, src := RunTime(&spec, time.Minute); rt <= 0 || src != FromJob {
		t.Errorf("run time %v (%s)", rt, src)
	}
}

// Where an emulated run time comes from: the job's RunTime wins; else the
// application's model; default_runtime only for programs gmark does not
// know or flags the application would refuse.
func TestRunTimeSources(t *testing.T) {
	app := func(name string, params ...string) workload.App {
		a := workload.App{Name: name}
		for i := 0; i+1 < len(params); i += 2 {
			a.Params = append(a.Params, workload.Param{Key: params[i], Value: params[i+1]})
		}
		return a
	}
	model := func(name string, procs int, args ...string) time.Duration {
		d, err := apps.RunTime(name, args, procs)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases := []struct {
		name    string
		runtime time.Duration
		app     workload.App
		procs   int
		want    time.Duration
		source  RunTimeSource
	}{
		{"hello", 0, app("hello"), 1, model("hello", 1), FromModel},
		{"hello with a RunTime", 90 * time.Second, app("hello"), 1, 90 * time.Second, FromJob},
		{"sser", 0, app("sser", "supersteps", "100", "memory", "1000", "elements", "10", "compute", "100"), 1,
			model("sser", 1, "--supersteps", "100", "--memory", "1000", "--elements", "10", "--compute", "100"), FromModel},
		{"smpi of 4", 0, app("smpi", "exchange", "50000"), 4, model("smpi", 4, "--exchange", "50000"), FromModel},
		{"smpi1 alias", 0, app("smpi1", "exchange", "50000"), 4, model("smpi", 4, "--exchange", "50000"), FromModel},
		{"swf without a RunTime", 0, app("swf", "runtime", "30", "scale", "0.5"), 2, 15 * time.Second, FromModel},
		{"swf with one", 30 * time.Second, app("swf", "runtime", "30", "scale", "0.5"), 2, 15 * time.Second, FromJob},
		{"swf of unknown run time", 0, app("swf", "runtime", "0"), 1, 0, FromModel},
		{"a program gmark does not know", 0, app("exec", "executable", "/bin/sleep", "arg", "5"), 1, time.Minute, FromDefault},
		{"no application", 0, workload.App{}, 1, time.Minute, FromDefault},
		{"flags sser refuses", 0, app("sser", "supersteps", "-3"), 1, time.Minute, FromDefault},
		{"default times a scale", 0, app("mystery", "scale", "2"), 1, 2 * time.Minute, FromDefault},
	}
	for _, tc := range cases {
		spec := job("j", tc.runtime, false, anySite(tc.procs))
		spec.App = tc.app
		if rt, src := RunTime(&spec, time.Minute); rt != tc.want || src != tc.source {
			t.Errorf("%s: %v from %q, want %v from %q", tc.name, rt, src, tc.want, tc.source)
		}
	}
}

// A hello job with no RunTime is emulated for the model's time (a
// few milliseconds), not default_runtime, and its started event says so; a
// program gmark does not know still takes default_runtime.
func TestHelloEmulatedForModelTime(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 2, "default_runtime = \"10m\""))
	hello := job("hello", 0, false, anySite(1))
	hello.App = workload.App{Name: "hello"}
	other := job("other", 0, false, anySite(1))
	other.App = workload.App{Name: "exec", Params: []workload.Param{{Key: "executable", Value: "/bin/true"}}}
	h := submit(t, c, hello, Options{Key: "h"})
	o := submit(t, c, other, Options{Key: "o"})
	c.Advance(t0.Add(time.Hour))
	want, _ := apps.RunTime("hello", nil, 1)
	if want <= 0 || want >= time.Second {
		t.Fatalf("the hello model says %v", want)
	}
	if h.State != Finished || h.End.Sub(h.Start) != want {
		t.Errorf("hello: %s, ran %v, want %v", h.State, h.End.Sub(h.Start), want)
	}
	if o.State != Finished || o.End.Sub(o.Start) != 10*time.Minute {
		t.Errorf("exec: %s, ran %v, want default_runtime 10m", o.State, o.End.Sub(o.Start))
	}
	for _, tc := range []struct {
		job    *Job
		source RunTimeSource
		rt     time.Duration
	}{{h, FromModel, want}, {o, FromDefault, 10 * time.Minute}} {
		evs := rec.of(EvStarted, tc.job.ID)
		if len(evs) != 1 || evs[0].RunTimeSource != tc.source || evs[0].RunTime != tc.rt || tc.job.RunTimeSource != tc.source {
			t.Errorf("%s: started events %+v, job's source %q; want %q, %v", tc.job.Spec.ID, evs, tc.job.RunTimeSource, tc.source, tc.rt)
		}
		raw, _ := json.Marshal(evs[0])
		if !strings.Contains(string(raw), `"runtime_source":"`+string(tc.source)+`"`) {
			t.Errorf("%s: the event's JSON %s does not say its source", tc.job.Spec.ID, raw)
		}
	}
}

// An event without a start or claim time leaves jst and jct out of its
// JSON rather than writing year 1 (omitempty does not omit a time.Time).
func TestEventJSONLeavesOutZeroTimes(t *testing.T) {
	at := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ev   Event
		want []string // keys that must be there
		not  []string // keys that must not
	}{
		{Event{Seq: 1, Time: at, Kind: EvPlacementFailed, Job: "1-0"}, []string{`"job"`}, []string{`"jst"`, `"jct"`, "0001-01-01"}},
		{Event{Seq: 2, Time: at, Kind: EvPlacementFailed, Job: "1-0", JST: at, JCT: at}, []string{`"jst"`, `"jct"`}, nil},
	} {
		b, err := json.Marshal(tc.ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tc.want {
			if !strings.Contains(string(b), k) {
				t.Errorf("%s: no %s", b, k)
			}
		}
		for _, k := range tc.not {
			if strings.Contains(string(b), k) {
				t.Errorf("%s: has %s", b, k)
			}
		}
	}
}
