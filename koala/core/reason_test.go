package core

import (
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

// A job's reason describes the event that ended it. A job sent back to its
// placement queue once (its start time missed: a local job held the
// processors) and then killed at the grid's run-time limit failed because
// of the limit: neither the job nor its failed event may carry the
// re-queue's reason. The queued job said why it waited while it did.
func TestRequeuedJobEndsWithItsOwnReason(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 2, "policy = \"WF\"\nmax_runtime = \"30s\""))
	j := submit(t, c, job("j", 60*time.Second, true, anySite(4)), Options{Priority: High})
	c.Advance(sec(1))
	if err := c.SubmitLocalJob("A", 8, 1000*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Advance(sec(401)) // the start time (400 s) missed: back to the queue
	if got := times(rec.of(EvReplaced, j.ID)); got != "400" {
		t.Fatalf("re-placed at %s, want 400", got)
	}
	if j.State != Queued || !strings.Contains(j.Reason, "missed its start time") {
		t.Errorf("queued after the missed start: %s (%q), want the re-queue's reason", j.State, j.Reason)
	}
	c.Advance(sec(421)) // placed on B at the next scan, started at once
	if j.State != Running {
		t.Fatalf("state %s at 421 s, want running", j.State)
	}
	if j.Reason != "" {
		t.Errorf("a running job keeps the reason %q of its re-queue", j.Reason)
	}
	c.Advance(sec(500)) // killed at its 30 s limit, at 450 s
	want := "component 0 on B: killed after its run-time limit of 30s"
	if j.State != Failed || j.Reason != want {
		t.Errorf("ended %s with %q, want failed with %q", j.State, j.Reason, want)
	}
	if f := rec.of(EvFailed, j.ID); len(f) != 1 || f[0].Reason != want {
		t.Errorf("failed events %+v, want one with %q", f, want)
	}
}

// The same on a real cluster's controller: a job whose submissions did not
// start in time is placed again, then a component fails; the job's reason
// is that component's.
func TestRemoteRequeuedJobEndsWithItsOwnReason(t *testing.T) {
	c, rec, ds := newRemoteCore(t, remoteGrid(t, false, ""))
	j := submitRunner(t, c, fixedJob("1", 30*time.Second, workload.Component{Site: "sa", Count: 2}, workload.Component{Site: "sb", Count: 3}), KRunner)
	c.Advance(sec(1))
	c.LRMStarted(ds["sa"].last().Ref, "11", sec(1))
	c.Advance(sec(20)) // the start timeout: re-queued and placed again
	if r := rec.of(EvReplaced, j.ID); len(r) != 1 || !strings.Contains(r[0].Reason, "missed its start time") {
		t.Fatalf("replaced %+v", r)
	}
	a, b := ds["sa"].last(), ds["sb"].last()
	c.Advance(sec(21))
	c.LRMStarted(a.Ref, "12", sec(21))
	c.LRMStarted(b.Ref, "22", sec(21))
	if j.State != Running {
		t.Fatalf("state %s after both started, want running", j.State)
	}
	c.Advance(sec(40))
	c.LRMEnded(a.Ref, "12", true, "", sec(40))
	c.LRMEnded(b.Ref, "22", false, "Slurm job 22 FAILED (exit 3)", sec(40))
	if j.State != Failed || strings.Contains(j.Reason, "missed") || !strings.Contains(j.Reason, "exit 3") {
		t.Errorf("ended %s with %q, want failed with the component's reason", j.State, j.Reason)
	}
	if f := rec.of(EvFailed, j.ID); len(f) != 1 || f[0].Reason != j.Reason {
		t.Errorf("failed events %+v, want one with %q", f, j.Reason)
	}
}
