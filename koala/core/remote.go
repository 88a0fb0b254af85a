package core

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/lrm"
	"github.com/gmark/gmark/workload"
)

// Clusters with a real local resource manager (lrm = "slurm" in the grid).
//
// The core keeps a mirror of such a cluster in an lrm.Cluster: the
// processors its components hold, and, as local load, the processors the
// controller says are busy with other jobs (ObserveCluster). Claiming a
// component books its processors in the mirror and asks the cluster's
// Controller to submit it; the component is claimed when the controller says
// it started (LRMStarted), as KOALA's claim is a submission to a local
// resource manager that starts it at once. A claim try that submitted
// components is decided when all of them have started, or once the
// cluster's start_timeout has passed: the ones still waiting are cancelled
// and count as not claimed, and the try goes on as any failed try (the next
// at JCT, or back to the placement queue at the start time).
//
// The runners differ on real clusters as the thesis has them: under the
// KRunner and the IRunner each component's program starts as the controller
// starts it (the IRunner's components meet at its rendezvous service; the
// KRunner's application synchronizes itself), so the components of one job
// start at different times when their clusters are not equally free; under
// the DRunner every component holds its processors once started, and all
// are released together when the last one has started and the start time
// has come (the DUROC barrier). The emulated components of a job that also
// runs on a real cluster follow the same rule.

// A Controller is the real local resource manager of a cluster. The core
// calls it from inside its step; it must not block (it queues the work)
// and reports what happens through the core's driver: LRMSubmitted,
// LRMFailed, LRMStarted, LRMEnded and ObserveCluster.
type Controller interface {
	Submit(s *Submission)
	// Release lets a component that holds its processors start its program.
	Release(ref Ref)
	// Cancel ends a submission wherever it is (waiting, holding, running).
	Cancel(ref Ref, reason string)
	// Kill ends one of the controller's other jobs (a LocalJob it
	// reported), for a job with a start deadline under global priority on
	// a cluster that allows it (preempt_local).
	Kill(id string, reason string)
}

// Ref names one submission of a component to a controller.
type Ref struct {
	Job       string // the core's job id
	Component int
	// Attempt is the sequence number of the lrm_submit event of this
	// submission: unique for the life of the core's state.
	Attempt uint64
}

func (r Ref) String() string {
	return r.Job + ".c" + strconv.Itoa(r.Component) + ".s" + strconv.FormatUint(r.Attempt, 10)
}

// Submission is what a controller is asked to start.
type Submission struct {
	Ref
	Cluster string
	// Spec is the job; the component to start has Size processors (for a
	// flexible job, the size the placement chose).
	Spec workload.Job
	Size int
	// Run names the job's current placement: the processes of one run of
	// the job share it (GMARK_JOB_ID, the rendezvous key).
	Run      string
	RankBase int  // the global rank of the component's first process
	JobSize  int  // processes in the job, all components together
	Hold     bool // hold the processors once started, until Release
	// Rendezvous: the IRunner's rendezvous service (GMARK_RENDEZVOUS).
	Rendezvous bool
	// Limit is the job's run-time limit, or 0 for none below LongestRun.
	Limit time.Duration
}

// remoteJob tells whether a component of the job is placed on a cluster
// with a controller.
func (c *Core) remoteJob(j *Job) bool {
	for _, comp := range j.Components {
		if comp.Site != "" && c.byName[comp.Site].ctl != nil {
			return true
		}
	}
	return false
}

func (c *Core) anyPending(j *Job) bool {
	for _, comp := range j.Components {
		if comp.Pending {
			return true
		}
	}
	return false
}

// current finds the component of a submission, if that submission is still
// the component's: a controller's news of a submission the core gave up
// (cancelled, or the job was placed again) is stale.
func (c *Core) current(ref Ref) (*Job, *Component, *cluster, bool) {
	j, ok := c.jobs[ref.Job]
	if !ok || j.State.Terminal() || ref.Component < 0 || ref.Component >= len(j.Components) {
		return nil, nil, nil, false
	}
	comp := &j.Components[ref.Component]
	if ref.Attempt == 0 || comp.Attempt != ref.Attempt || comp.Site == "" {
		return nil, nil, nil, false
	}
	return j, comp, c.byName[comp.Site], true
}

func refOf(j *Job, i int) Ref {
	return Ref{Job: j.ID, Component: i, Attempt: j.Components[i].Attempt}
}

// submitRemote claims a component on a cluster with a controller: it books
// the processors in the mirror and asks the controller to start it.
func (c *Core) submitRemote(j *Job, i int, cl *cluster) bool {
	comp := &j.Components[i]
	c.account(cl)
	c.nextLRM++
	lj := &lrm.Job{ID: c.nextLRM, Size: comp.Size, Runtime: c.expectedRun(j, cl), Owner: j.ID}
	if !cl.lrm.Claim(lj, c.now) {
		return false
	}
	cl.soft -= comp.Size
	cl.held += comp.Size
	comp.Pending, comp.lrmID, comp.since, comp.LRMID = true, lj.ID, c.now, ""
	comp.Attempt = c.eventSeq + 1 // the seq of the event below
	c.emit(Event{Kind: EvLRMSubmit, Job: j.ID, Key: j.Opts.Key, Component: i, Cluster: cl.cfg.Name, Attempt: comp.Attempt})
	base := 0
	for k := 0; k < i; k++ {
		base += j.Components[k].Size
	}
	limit := c.limit(j)
	if limit >= grid.LongestRun {
		limit = 0
	}
	spec := j.Spec
	spec.Deadline = 0 // the core keeps the deadline: the claim must start now
	cl.ctl.Submit(&Submission{Ref: refOf(j, i), Cluster: cl.cfg.Name, Spec: spec, Size: comp.Size,
		Run: j.ID + ".p" + strconv.Itoa(j.Placements), RankBase: base, JobSize: j.Size(),
		Hold: j.Opts.Runner == DRunner, Rendezvous: j.Opts.Runner == IRunner, Limit: limit})
	return true
}

// settleBy is when a claim try with submitted components is decided at the
// latest: the last of their submission times plus their clusters'
// start_timeout.
func (c *Core) settleBy(j *Job) time.Time {
	var by time.Time
	for _, comp := range j.Components {
		if comp.Pending {
			if t := comp.since.Add(c.byName[comp.Site].cfg.StartTimeout.Duration); t.After(by) {
				by = t
			}
		}
	}
	return by
}

// cancelRemote gives up a submitted component that has not started: the
// controller cancels it, and its processors go back to the job's soft
// reservation, to be claimed again.
func (c *Core) cancelRemote(j *Job, i int, reason string) {
	comp := &j.Components[i]
	cl := c.byName[comp.Site]
	cl.ctl.Cancel(refOf(j, i), reason)
	c.emit(Event{Kind: EvLRMCancel, Job: j.ID, Key: j.Opts.Key, Component: i, Cluster: cl.cfg.Name,
		Attempt: comp.Attempt, LRMID: comp.LRMID, Reason: reason})
	c.account(cl)
	cl.held -= comp.Size
	cl.soft += comp.Size
	c.endLRM(cl, comp.lrmID)
	comp.Pending, comp.Attempt, comp.LRMID = false, 0, ""
}

// LRMSubmitted: the controller took a submission (its job id).
func (c *Core) LRMSubmitted(ref Ref, lrmID string) {
	j, comp, cl, ok := c.current(ref)
	if !ok {
		return
	}
	comp.LRMID = lrmID
	c.emit(Event{Kind: EvLRMSubmitted, Job: j.ID, Key: j.Opts.Key, Component: ref.Component, Cluster: cl.cfg.Name,
		Attempt: ref.Attempt, LRMID: lrmID})
}

// LRMFailed: the controller could not take a submission. The component is
// not claimed; its claim try goes on with the others.
func (c *Core) LRMFailed(ref Ref, reason string) {
	j, comp, cl, ok := c.current(ref)
	if !ok || !comp.Pending {
		return
	}
	c.emit(Event{Kind: EvLRMFailed, Job: j.ID, Key: j.Opts.Key, Component: ref.Component, Cluster: cl.cfg.Name,
		Attempt: ref.Attempt, Reason: reason})
	c.account(cl)
	cl.held -= comp.Size
	cl.soft += comp.Size
	c.endLRM(cl, comp.lrmID)
	comp.Pending, comp.Attempt, comp.LRMID = false, 0, ""
	c.settleIfDone(j)
}

// LRMStarted: the controller started a submission (at, by its clock): the
// component is claimed. Under the KRunner and the IRunner its program runs
// now; under the DRunner it holds its processors until every component has.
func (c *Core) LRMStarted(ref Ref, lrmID string, at time.Time) {
	j, comp, cl, ok := c.current(ref)
	if !ok || !comp.Pending {
		return
	}
	c.account(cl)
	comp.Pending, comp.Claimed, comp.ClaimedAt = false, true, c.now
	if lrmID != "" {
		comp.LRMID = lrmID
	}
	c.emit(Event{Kind: EvLRMStarted, Job: j.ID, Key: j.Opts.Key, Component: ref.Component, Cluster: cl.cfg.Name,
		Attempt: ref.Attempt, LRMID: comp.LRMID, LRMTime: at})
	if j.Opts.Runner != DRunner && !c.execComponent(j, ref.Component) {
		return
	}
	c.settleIfDone(j)
}

// settleIfDone decides a claim try as soon as no submission of it waits.
func (c *Core) settleIfDone(j *Job) {
	if j.State == Claiming && j.settling && !c.anyPending(j) {
		c.stop(j.claimTimer)
		c.claimSettle(j)
	}
}

// LRMEnded: a submission ended (at, by the controller's clock), its
// program successfully or not (reason). A component that ends while it
// holds its processors (the DRunner's, before the release) has failed.
func (c *Core) LRMEnded(ref Ref, lrmID string, ok bool, reason string, at time.Time) {
	j, comp, cl, found := c.current(ref)
	if !found || comp.Done {
		return
	}
	if comp.Pending { // it ran between two looks at the controller
		c.LRMStarted(ref, lrmID, time.Time{})
		if j, comp, cl, found = c.current(ref); !found || comp.Done {
			return
		}
	}
	if !comp.Claimed {
		return
	}
	if !comp.Executing { // held: it never ran its program
		c.account(cl)
		cl.held -= comp.Size
		cl.running += comp.Size
		comp.Executing, comp.ExecStart = true, c.now
		ok, reason = false, "ended before its release: "+reason
	}
	comp.lrmEnd = at
	c.componentEnded(j, ref.Component, ok, reason)
}

// execComponent starts the program of one component of a job that runs on a
// real cluster (a component there, or an emulated one of the same job). It
// returns false when the job was restarted instead (a soft error of an
// emulated cluster).
func (c *Core) execComponent(j *Job, i int) bool {
	comp := &j.Components[i]
	if comp.Executing || comp.Done {
		return true
	}
	cl := c.byName[comp.Site]
	if cl.ctl == nil {
		if rate := cl.cfg.FailureRate; rate > 0 && c.rng.Float64() < rate {
			c.softError(j, i, cl)
			return false
		}
		cl.errors = 0
	}
	c.account(cl)
	cl.held -= comp.Size
	cl.running += comp.Size
	comp.Executing, comp.ExecStart = true, c.now
	if !j.running {
		j.running, j.Start = true, c.now
		c.emit(Event{Kind: EvStarted, Job: j.ID, Key: j.Opts.Key, Sites: j.Sites()})
	}
	c.emit(Event{Kind: EvComponentStart, Job: j.ID, Key: j.Opts.Key, Component: i, Cluster: cl.cfg.Name,
		Attempt: comp.Attempt, LRMID: comp.LRMID})
	limit := c.limit(j)
	killed := fmt.Sprintf("killed after its run-time limit of %v", limit)
	if cl.ctl != nil {
		ref := refOf(j, i)
		comp.endTimer = c.at(c.now.Add(limit), func() {
			cl.ctl.Cancel(ref, killed)
			c.componentEnded(j, i, false, killed)
		})
		return true
	}
	run, _ := RunTime(&j.Spec, c.cfg.DefaultRuntime.Duration)
	if p, ok := c.exec.(Planner); ok {
		run, _ = p.Planned(&j.Spec)
	}
	if rt := scaled(run, 1/cl.cfg.Speed); rt <= limit {
		comp.endTimer = c.at(c.now.Add(rt), func() { c.componentEnded(j, i, true, "") })
	} else {
		comp.endTimer = c.at(c.now.Add(limit), func() { c.componentEnded(j, i, false, killed) })
	}
	return true
}

// startRemote starts a fully claimed job that runs on a real cluster, at
// its start time: what has not started yet starts now (under the DRunner,
// every component: the held ones are released together).
func (c *Core) startRemote(j *Job) {
	j.claimTimer = nil
	if j.State != Running {
		return
	}
	for i := range j.Components {
		comp := &j.Components[i]
		if comp.Executing || comp.Done {
			continue
		}
		if cl := c.byName[comp.Site]; cl.ctl != nil {
			cl.ctl.Release(refOf(j, i))
		}
		if !c.execComponent(j, i) || j.State != Running {
			return
		}
	}
}

// startEmulatedClaimed starts the emulated components of a job on a real
// cluster as they are claimed (KRunner, IRunner); false when the job was
// restarted instead.
func (c *Core) startEmulatedClaimed(j *Job) bool {
	if j.Opts.Runner == DRunner || !c.remoteJob(j) {
		return true
	}
	for i := range j.Components {
		comp := &j.Components[i]
		if comp.Claimed && !comp.Executing && !comp.Done && c.byName[comp.Site].ctl == nil {
			if !c.execComponent(j, i) {
				return false
			}
		}
	}
	return true
}

// ObserveCluster is what a real cluster's controller says of its
// processors: idle ones, and those running this core's components. The
// rest of the cluster's processors (of the grid's processors, which the
// controller's other jobs take last) are local load: the controller's
// other jobs. local lists those of them that run and may be killed under
// global priority (only read on a cluster with preempt_local); jobs the
// core killed that the controller still reports do not count as load.
func (c *Core) ObserveCluster(name string, idle, ours int, local ...LocalJob) error {
	cl, ok := c.byName[name]
	if !ok || cl.ctl == nil {
		return fmt.Errorf("cluster %q has no controller", name)
	}
	if cl.unreachable != "" {
		c.emit(Event{Kind: EvAlert, Cluster: name, Reason: "the controller of cluster " + name + " answers again"})
		cl.unreachable = ""
	}
	c.account(cl)
	cl.lrm.SetExternal(cl.cfg.Processors - idle - ours - cl.observeLocal(local))
	return nil
}

// ControllerUnreachable: a real cluster's controller does not answer. The
// cluster is out of service for placement and claiming until it answers
// again (ObserveCluster); what runs there is left alone.
func (c *Core) ControllerUnreachable(name, reason string) {
	cl, ok := c.byName[name]
	if !ok || cl.ctl == nil || cl.unreachable != "" {
		return
	}
	c.account(cl)
	cl.unreachable = "its controller does not answer: " + reason
	c.emit(Event{Kind: EvAlert, Cluster: name, Reason: "cluster " + name + ": " + cl.unreachable})
}
