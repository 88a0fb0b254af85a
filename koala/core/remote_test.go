package core

import (
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// These tests drive the core's side of real clusters in simulated time,
// with a test double for the controller: the double records what the core
// asks, and the test reports back what a controller would. The real
// controller is exercised by koala/slurmlrm's live tests; it cannot be
// driven deterministically (when Slurm starts a job, or refuses one, is up
// to it), and the paths tested here — a component that never starts, a
// refused submission, a component that ends before its release, stale news
// of a cancelled submission — are exactly the ones it will not produce on
// demand.

// ctlDouble records a controller's requests.
type ctlDouble struct {
	subs      []Submission
	released  []Ref
	cancelled []Ref
	killed    []string // ids of the controller's other jobs the core killed
}

func (d *ctlDouble) Submit(s *Submission)     { d.subs = append(d.subs, *s) }
func (d *ctlDouble) Release(r Ref)            { d.released = append(d.released, r) }
func (d *ctlDouble) Cancel(r Ref, _ string)   { d.cancelled = append(d.cancelled, r) }
func (d *ctlDouble) last() Submission         { return d.subs[len(d.subs)-1] }
func (d *ctlDouble) Kill(id string, _ string) { d.killed = append(d.killed, id) }

// remoteGrid: Slurm clusters sa and sb of 8 processors (start_timeout 20s)
// and, with emulated, an emulated cluster em of 8; a 400 MiB file "f" at sa,
// 1 MiB/s between clusters.
func remoteGrid(t *testing.T, emulated bool, extra string) *grid.Grid {
	t.Helper()
	src := "[scheduler]\nscan_interval = \"10s\"\nutilization_sample = \"1h\"\n" + extra + "\n[network]\ndefault_bandwidth = \"1MB/s\"\n"
	for _, n := range []string{"sa", "sb"} {
		src += "[[cluster]]\nname = \"" + n + "\"\nprocessors = 8\nlrm = \"slurm\"\nslurm_conf = \"/etc/slurm-" + n + ".conf\"\nstart_timeout = \"20s\"\n"
	}
	if emulated {
		src += "[[cluster]]\nname = \"em\"\nprocessors = 8\n"
	}
	src += "[[file]]\nname = \"f\"\nsize = \"400MB\"\nsites = [\"sa\"]\n"
	g, err := grid.Parse("test.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func newRemoteCore(t *testing.T, g *grid.Grid) (*Core, *recorder, map[string]*ctlDouble) {
	t.Helper()
	rec := &recorder{}
	ds := map[string]*ctlDouble{"sa": {}, "sb": {}}
	ctls := map[string]Controller{"sa": ds["sa"], "sb": ds["sb"]}
	c, err := NewWith(g, t0, rec, nil, ctls)
	if err != nil {
		t.Fatal(err)
	}
	return c, rec, ds
}

func fixedJob(id string, runtime time.Duration, comps ...workload.Component) workload.Job {
	j := job(id, runtime, false, comps...)
	j.SiteType = workload.Ordered
	return j
}

func submitRunner(t *testing.T, c *Core, j workload.Job, r Runner) *Job {
	t.Helper()
	k, err := c.Submit(j, Options{Runner: r, Key: j.ID})
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(c.Now()) // the first claim try of a job without files is at once
	return k
}

// A component on a Slurm cluster is claimed when the controller says it
// started, and under the KRunner it runs from then on: the job's components
// start when their clusters start them, and the claim try is decided when
// the last one has started. The events carry the Slurm job ids and times.
func TestRemoteKRunnerStartsAsClaimed(t *testing.T) {
	c, rec, ds := newRemoteCore(t, remoteGrid(t, false, ""))
	j := submitRunner(t, c, fixedJob("1", 30*time.Second, workload.Component{Site: "sa", Count: 2}, workload.Component{Site: "sb", Count: 3}), KRunner)
	if j.State != Claiming || len(ds["sa"].subs) != 1 || len(ds["sb"].subs) != 1 {
		t.Fatalf("state %s, submissions %d, %d", j.State, len(ds["sa"].subs), len(ds["sb"].subs))
	}
	a, b := ds["sa"].last(), ds["sb"].last()
	if a.Hold || a.Rendezvous || a.RankBase != 0 || b.RankBase != 2 || a.JobSize != 5 || a.Size != 2 || a.Run != b.Run || a.Run == "" {
		t.Errorf("submissions %+v %+v", a, b)
	}
	c.LRMSubmitted(a.Ref, "11")
	c.Advance(sec(1))
	c.LRMStarted(a.Ref, "11", sec(1))
	if !j.Components[0].Executing || j.State != Claiming || !j.Components[1].Pending {
		t.Fatalf("after sa started: state %s, components %+v", j.State, j.Components)
	}
	c.Advance(sec(4))
	c.LRMStarted(b.Ref, "21", sec(4))
	if j.State != Running || !j.Components[1].Executing {
		t.Fatalf("after sb started: %s", j.State)
	}
	if got := times(rec.of(EvComponentStart, j.ID)); got != "1 4" {
		t.Errorf("components started at %s, want 1 4", got)
	}
	if st := rec.of(EvStarted, j.ID); len(st) != 1 || !st[0].Time.Equal(sec(1)) {
		t.Errorf("started %v", st)
	}
	if ct := rec.of(EvClaimTry, j.ID); len(ct) != 1 || !ct[0].OK || !ct[0].Time.Equal(sec(4)) {
		t.Errorf("claim tries %+v", ct)
	}
	c.Advance(sec(31))
	c.LRMEnded(a.Ref, "11", true, "", sec(31))
	c.LRMEnded(b.Ref, "21", false, "Slurm job 21 FAILED (exit 3)", sec(31))
	if j.State != Failed || !strings.Contains(j.Reason, "exit 3") {
		t.Fatalf("job %s (%s)", j.State, j.Reason)
	}
	for _, e := range rec.of(EvComponentEnd, j.ID) {
		if e.LRMID == "" || !e.LRMTime.Equal(sec(31)) || e.Attempt == 0 {
			t.Errorf("component_end %+v", e)
		}
	}
	if u := c.Clusters(); u[0].Grid != 0 || u[0].Held != 0 || u[0].Idle != 8 || u[1].Idle != 8 {
		t.Errorf("after the job: %+v", u)
	}
}

// A submission that has not started within start_timeout is cancelled; a
// try at the start time that fails sends the job back to its queue, and
// what it had claimed is cancelled too. News of a cancelled submission is
// ignored.
func TestRemoteStartTimeout(t *testing.T) {
	c, rec, ds := newRemoteCore(t, remoteGrid(t, false, ""))
	j := submitRunner(t, c, fixedJob("1", 30*time.Second, workload.Component{Site: "sa", Count: 2}, workload.Component{Site: "sb", Count: 3}), KRunner)
	a, b := ds["sa"].last(), ds["sb"].last()
	c.Advance(sec(1))
	c.LRMStarted(a.Ref, "11", sec(1))
	c.Advance(sec(20)) // the timeout, then a scan that places it again
	cancelled := map[Ref]bool{}
	for _, d := range ds {
		for _, r := range d.cancelled {
			cancelled[r] = true
		}
	}
	if !cancelled[a.Ref] || !cancelled[b.Ref] {
		t.Errorf("cancelled %v, want both submissions", cancelled)
	}
	if r := rec.of(EvReplaced, j.ID); len(r) != 1 || !strings.Contains(r[0].Reason, "missed its start time") || !r[0].Time.Equal(sec(20)) {
		t.Errorf("replaced %+v", r)
	}
	if n := len(rec.of(EvLRMCancel, j.ID)); n != 2 {
		t.Errorf("%d lrm_cancel events", n)
	}
	if j.State != Claiming || ds["sb"].last().Attempt == b.Attempt || !j.Components[1].Pending {
		t.Fatalf("placed again: %s, attempt %d", j.State, ds["sb"].last().Attempt)
	}
	c.LRMStarted(b.Ref, "21", sec(20))
	c.LRMEnded(a.Ref, "11", true, "", sec(20))
	if j.Components[1].Claimed || j.Components[0].Done || c.Clusters()[1].Grid != 0 {
		t.Errorf("stale news changed the job: %s %+v", j.State, j.Components)
	}
}

// A refused submission is not claimed; the job tries again at its next
// claiming time (here it has files: JST 400 s after placement).
func TestRemoteRefused(t *testing.T) {
	c, rec, ds := newRemoteCore(t, remoteGrid(t, false, ""))
	spec := fixedJob("1", 30*time.Second, workload.Component{Site: "sb", Count: 2})
	spec.Files = []workload.File{{Name: "f", Size: 400 << 20}}
	j := submitRunner(t, c, spec, KRunner)
	c.Advance(sec(300)) // JCT0 = 0.75 × 400 s
	first := ds["sb"].last()
	c.LRMFailed(first.Ref, "sbatch: error: Batch job submission failed")
	if j.Components[0].Pending || c.Clusters()[1].Reserved != 2 || c.Clusters()[1].Held != 0 {
		t.Fatalf("after the refusal: %+v %+v", j.Components[0], c.Clusters()[1])
	}
	if f := rec.of(EvLRMFailed, j.ID); len(f) != 1 || f[0].Reason == "" {
		t.Errorf("lrm_failed %+v", f)
	}
	c.Advance(sec(375)) // JCT1 = 300 + 0.75 × 100
	if second := ds["sb"].last(); second.Attempt == first.Attempt || !j.Components[0].Pending {
		t.Fatalf("no second submission at JCT1: %+v", j.Components[0])
	}
	c.LRMStarted(ds["sb"].last().Ref, "7", sec(376))
	if j.State != Running {
		t.Errorf("state %s", j.State)
	}
}

// Under the DRunner a started component holds its processors; when the
// last has started and the start time has come, all are released at once.
// A component that fails restarts the job: the others are cancelled.
func TestRemoteDRunner(t *testing.T) {
	c, rec, ds := newRemoteCore(t, remoteGrid(t, false, ""))
	j := submitRunner(t, c, fixedJob("1", 30*time.Second, workload.Component{Site: "sa", Count: 2}, workload.Component{Site: "sb", Count: 3}), DRunner)
	a, b := ds["sa"].last(), ds["sb"].last()
	if !a.Hold || !b.Hold {
		t.Fatalf("DRunner submissions must hold: %+v %+v", a, b)
	}
	c.Advance(sec(1))
	c.LRMStarted(a.Ref, "11", sec(1))
	if j.Components[0].Executing || len(ds["sa"].released) != 0 || c.Clusters()[0].Held != 2 {
		t.Fatalf("sa's component must hold: %+v", j.Components[0])
	}
	c.Advance(sec(6))
	c.LRMStarted(b.Ref, "21", sec(6))
	c.Advance(sec(6)) // the start time has passed: the release is due now
	if len(ds["sa"].released) != 1 || len(ds["sb"].released) != 1 {
		t.Fatalf("released %v %v", ds["sa"].released, ds["sb"].released)
	}
	if got := times(rec.of(EvComponentStart, j.ID)); got != "6 6" {
		t.Errorf("components started at %s, want 6 6", got)
	}
	c.Advance(sec(8))
	c.LRMEnded(a.Ref, "11", false, "Slurm job 11 FAILED (exit 1)", sec(8))
	if j.State != Queued || j.Restarts != 1 || len(ds["sb"].cancelled) != 1 || ds["sb"].cancelled[0] != b.Ref {
		t.Errorf("after a failure: %s, restarts %d, sb cancelled %v", j.State, j.Restarts, ds["sb"].cancelled)
	}
}

// A DRunner component that ends while it holds its processors (its Slurm
// job was killed) fails, and the job restarts.
func TestRemoteEndsWhileHeld(t *testing.T) {
	c, _, ds := newRemoteCore(t, remoteGrid(t, false, ""))
	j := submitRunner(t, c, fixedJob("1", 30*time.Second, workload.Component{Site: "sa", Count: 2}, workload.Component{Site: "sb", Count: 3}), DRunner)
	a := ds["sa"].last()
	c.Advance(sec(1))
	c.LRMStarted(a.Ref, "11", sec(1))
	c.LRMEnded(a.Ref, "11", false, "Slurm job 11 CANCELLED", sec(2))
	if j.State != Queued || j.Restarts != 1 || !strings.Contains(j.Reason, "before its release") {
		t.Errorf("%s %d %q", j.State, j.Restarts, j.Reason)
	}
	if u := c.Clusters(); u[0].Held != 0 || u[0].Grid != 0 || u[1].Held != 0 {
		t.Errorf("processors left held: %+v", u)
	}
}

// The IRunner's submissions ask for the rendezvous service; its
// components start as claimed, as the KRunner's.
func TestRemoteIRunner(t *testing.T) {
	c, _, ds := newRemoteCore(t, remoteGrid(t, false, ""))
	j := submitRunner(t, c, fixedJob("1", 30*time.Second, workload.Component{Site: "sa", Count: 2}, workload.Component{Site: "sb", Count: 3}), IRunner)
	a, b := ds["sa"].last(), ds["sb"].last()
	if !a.Rendezvous || !b.Rendezvous || a.Hold {
		t.Fatalf("IRunner submissions %+v %+v", a, b)
	}
	c.LRMStarted(a.Ref, "11", sec(0))
	if !j.Components[0].Executing {
		t.Error("an IRunner component must start as claimed")
	}
}

// A component seen only once it had ended (it ran between two looks at
// the controller) is started and ended at once.
func TestRemoteSeenEnded(t *testing.T) {
	c, rec, ds := newRemoteCore(t, remoteGrid(t, false, ""))
	j := submitRunner(t, c, fixedJob("1", time.Second, workload.Component{Site: "sa", Count: 2}), KRunner)
	c.Advance(sec(2))
	c.LRMEnded(ds["sa"].last().Ref, "11", true, "", sec(2))
	if j.State != Finished || len(rec.of(EvComponentStart, j.ID)) != 1 {
		t.Errorf("%s, %d starts", j.State, len(rec.of(EvComponentStart, j.ID)))
	}
}

// What the controller says is busy with other jobs is the cluster's local
// load: placement avoids it.
func TestRemoteBackgroundLoad(t *testing.T) {
	c, rec, _ := newRemoteCore(t, remoteGrid(t, false, "policy = \"WF\""))
	if err := c.ObserveCluster("sa", 2, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.ObserveCluster("sb", 5, 0); err != nil {
		t.Fatal(err)
	}
	if u := c.Clusters(); u[0].Background != 6 || u[0].Idle != 2 || u[1].Background != 3 || u[1].LRM != "slurm" {
		t.Fatalf("clusters %+v", u)
	}
	j := submitRunner(t, c, job("1", time.Minute, false, workload.Component{Site: workload.AnySite, Count: 4}), KRunner)
	if p := rec.of(EvPlaced, j.ID); len(p) != 1 || len(p[0].Sites) != 1 || p[0].Sites[0] != "sb" {
		t.Errorf("placed %+v, want on sb", p)
	}
	// A cluster the controller fills entirely takes no job.
	_ = c.ObserveCluster("sb", 0, 0)
	k := submitRunner(t, c, job("2", time.Minute, false, workload.Component{Site: workload.AnySite, Count: 4}), KRunner)
	if k.State != Queued {
		t.Errorf("a job of 4 with 2 idle processors in all: %s", k.State)
	}
	// Our own running components are not others' load.
	c.Advance(sec(1))
	c.LRMStarted(refOf(j, 0), "5", sec(1))
	_ = c.ObserveCluster("sb", 0, 4)
	if u := c.Clusters()[1]; u.Background != 4 || u.Grid != 4 {
		t.Errorf("sb %+v: want 4 background, 4 grid", u)
	}
	if err := c.ObserveCluster("nope", 1, 0); err == nil {
		t.Error("an unknown cluster was observed")
	}
	if err := c.SubmitLocalJob("sa", 1, time.Minute); err == nil {
		t.Error("a local job was put on a Slurm cluster")
	}
}

// An unreachable controller takes its cluster out of placement until it
// answers again; what runs there is left alone.
func TestRemoteUnreachable(t *testing.T) {
	c, rec, _ := newRemoteCore(t, remoteGrid(t, false, "policy = \"WF\""))
	c.ControllerUnreachable("sb", "squeue: Unable to contact slurm controller")
	j := submitRunner(t, c, job("1", time.Minute, false, workload.Component{Site: workload.AnySite, Count: 4}), KRunner)
	if p := rec.of(EvPlaced, j.ID); len(p) != 1 || p[0].Sites[0] != "sa" {
		t.Errorf("placed %+v, want on sa", p)
	}
	if u := c.Clusters()[1]; !strings.Contains(u.Disabled, "does not answer") {
		t.Errorf("sb %+v", u)
	}
	_ = c.ObserveCluster("sb", 8, 0)
	if u := c.Clusters()[1]; u.Disabled != "" || len(rec.of(EvAlert, "")) != 2 {
		t.Errorf("sb %+v, alerts %v", u, rec.of(EvAlert, ""))
	}
}

// A job co-allocated across an emulated and a Slurm cluster: the emulated
// component runs as a timer from its claim (KRunner), the Slurm one as
// Slurm runs it; the job ends when both have.
func TestRemoteMixedJob(t *testing.T) {
	c, rec, ds := newRemoteCore(t, remoteGrid(t, true, ""))
	j := submitRunner(t, c, fixedJob("1", 10*time.Second, workload.Component{Site: "em", Count: 2}, workload.Component{Site: "sa", Count: 2}), KRunner)
	if !j.Components[0].Executing || !j.Components[1].Pending {
		t.Fatalf("components %+v", j.Components)
	}
	c.Advance(sec(3))
	c.LRMStarted(ds["sa"].last().Ref, "9", sec(3))
	c.Advance(sec(10))
	if !j.Components[0].Done || j.State != Running {
		t.Fatalf("at 10 s: %s %+v", j.State, j.Components[0])
	}
	c.LRMEnded(ds["sa"].last().Ref, "9", true, "", sec(13))
	if j.State != Finished || times(rec.of(EvComponentStart, j.ID)) != "0 3" {
		t.Errorf("%s, starts %s", j.State, times(rec.of(EvComponentStart, j.ID)))
	}
	// Under the DRunner the emulated component waits for the release too.
	k := submitRunner(t, c, fixedJob("2", 10*time.Second, workload.Component{Site: "em", Count: 2}, workload.Component{Site: "sa", Count: 2}), DRunner)
	c.Advance(sec(15))
	c.LRMStarted(ds["sa"].last().Ref, "10", sec(15))
	c.Advance(sec(15))
	if got := times(rec.of(EvComponentStart, k.ID)); got != "15 15" {
		t.Errorf("DRunner starts %s, want 15 15", got)
	}
}

// The run-time limit: the core cancels the Slurm job and fails the
// component.
func TestRemoteLimit(t *testing.T) {
	c, _, ds := newRemoteCore(t, remoteGrid(t, false, "max_runtime = \"1m\""))
	j := submitRunner(t, c, fixedJob("1", time.Hour, workload.Component{Site: "sa", Count: 2}), KRunner)
	s := ds["sa"].last()
	if s.Limit != time.Minute {
		t.Errorf("limit %v", s.Limit)
	}
	c.LRMStarted(s.Ref, "3", sec(0))
	c.Advance(sec(61))
	if j.State != Failed || !strings.Contains(j.Reason, "run-time limit") || len(ds["sa"].cancelled) != 1 {
		t.Errorf("%s %q, cancelled %v", j.State, j.Reason, ds["sa"].cancelled)
	}
}

// A Slurm cluster needs its controller; an emulated one takes none.
func TestRemoteNeedsController(t *testing.T) {
	g := remoteGrid(t, true, "")
	if _, err := New(g, t0, nil, nil); err == nil || !strings.Contains(err.Error(), "needs its controller") {
		t.Errorf("New without controllers: %v", err)
	}
	if _, err := NewWith(g, t0, nil, nil, map[string]Controller{"sa": &ctlDouble{}, "sb": &ctlDouble{}, "em": &ctlDouble{}}); err == nil {
		t.Error("an emulated cluster took a controller")
	}
}
