package core

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/lrm"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/workload"
)

// Jobs with a start deadline (Ballier, Caron, Epema and Mohamed, "Simulating
// Grid Schedulers with Deadlines and Co-Allocation", INRIA RR-5815, 2006).
// Such a job must start at its deadline D, or it fails. It does not go
// through the placement queues: the Repeated Placement Policy (RPP) tries to
// place it at times of its own, each closing a fraction L_p of the gap left
// to the deadline,
//
//	PT_0     = R + L_p·(D − R)          R: the submission S, or D − I (Wait-X)
//	PT_{m+1} = PT_m + L_p·(D − PT_m)    after a failed try,
//
// and a try that places the job claims its processors at once (place and
// claim are one act): they are held idle until D (wasted time) and the job
// starts at D. Wait-X ignores the job until D − X (R = max(S, D − X));
// Wait-∞ is pure RPP.
//
// How the series ends (the paper gives a try limit M_p and no value, and
// the series never reaches D when L_p < 1): once the gap left after a try
// would be below deadline_epsilon, the next try is at D itself (as the
// claimer's NextClaim does), so every job that is not placed earlier gets
// a last try at its deadline; deadline_max_tries (M_p, 0: none) fails a job
// after that many failed tries before it. At the last try, when the idle
// processors are too few: under local priority (LP) the job fails; under
// global priority (GP) local jobs are killed to make room (killPlan), and
// with gp_kill = "every-try" at every failed try before it too. With
// waitx_first_try = "skip" Wait-X's first try is pure RPP's first try from
// the submission that is not before D − I (FirstTrySkipping), not R + L_p·I.

// deadlineOf is a job's start deadline on the core's clock, for a job
// submitted at now: zero when it has none. The workload's deadline is an
// offset from the workload's start: from the run's origin when one was
// declared (Begin), so that when the submission lands (the wall clock's
// jitter) does not move it; otherwise the same distance after the
// submission as in the workload.
func deadlineOf(spec *workload.Job, now, origin time.Time) time.Time {
	if spec.Deadline <= 0 {
		return time.Time{}
	}
	if !origin.IsZero() {
		return origin.Add(spec.Deadline)
	}
	return now.Add(spec.Deadline - spec.Submit)
}

// HasDeadline tells whether the job has a start deadline.
func (j *Job) HasDeadline() bool { return !j.Deadline.IsZero() }

// checkDeadlineOptions checks a submission's overrides of the deadline
// settings.
func checkDeadlineOptions(o Options) error {
	if o.DeadlinePolicy != "" {
		if _, err := grid.ParseWait(o.DeadlinePolicy); err != nil {
			return err
		}
	}
	if o.DeadlineL != 0 && !(o.DeadlineL >= grid.MinDeadlineL && o.DeadlineL <= 1) {
		return fmt.Errorf("deadline L_p %g is out of range: it must be in [%g, 1] (0 for the grid's)", o.DeadlineL, grid.MinDeadlineL)
	}
	return nil
}

// deadlineSettings are a job's Wait-X and L_p: its own, or the grid's.
func (c *Core) deadlineSettings(j *Job) (grid.Wait, float64) {
	name := j.Opts.DeadlinePolicy
	if name == "" {
		name = c.cfg.DeadlinePolicy
	}
	w, _ := grid.ParseWait(name) // checked with the grid and at submission
	L := j.Opts.DeadlineL
	if L == 0 {
		L = *c.cfg.DeadlineL
	}
	return w, L
}

// FirstTry is the first try of the Repeated Placement Policy for a job
// waiting from s with start deadline d, under Wait-X with fraction L: the
// job is ignored until R = max(s, d − I) (R = s under Wait-∞), and tried at
// R + L·(d − R). A deadline at or before R gives one try, at d (at s if d
// has passed).
func FirstTry(s, d time.Time, L float64, w grid.Wait) time.Time {
	r := s
	if !w.Inf {
		if t := d.Add(-w.I); t.After(r) {
			r = t
		}
	}
	if !d.After(r) {
		if d.Before(s) {
			return s
		}
		return d
	}
	return r.Add(scaled(d.Sub(r), L))
}

// FirstTrySkipping is Wait-X's first try under waitx_first_try = "skip":
// the first try of pure RPP's series from s (FirstTry under Wait-∞, then
// NextClaim's, ending at d) that is not before d − I. With d − I at or
// before s nothing is skipped: pure RPP's first try. Under Wait-0 every
// try before d is skipped: the one try at d.
func FirstTrySkipping(s, d time.Time, L float64, w grid.Wait, eps time.Duration) time.Time {
	t := FirstTry(s, d, L, grid.Wait{Inf: true})
	if w.Inf {
		return t
	}
	for from := d.Add(-w.I); t.Before(from); {
		next, ok := NextClaim(t, d, L, eps)
		if !ok {
			break
		}
		t = next
	}
	return t
}

// firstTry is a job's first try when it waits from s: FirstTry, or
// FirstTrySkipping under waitx_first_try = "skip", its series counted from
// the job's own submission when it waits for the first time (seriesFrom:
// when the submission landed does not move its tries), and not before
// now.
func (c *Core) firstTry(s time.Time, j *Job, L float64, w grid.Wait) time.Time {
	if c.cfg.WaitXFirstTry != grid.WaitXSkip {
		return FirstTry(s, j.Deadline, L, w)
	}
	if !j.seriesFrom.IsZero() && j.seriesFrom.Before(s) {
		s = j.seriesFrom
	}
	eps := c.cfg.DeadlineEpsilon.Duration
	t := FirstTrySkipping(s, j.Deadline, L, w, eps)
	for t.Before(c.now) {
		next, ok := NextClaim(t, j.Deadline, L, eps)
		if !ok {
			return c.now
		}
		t = next
	}
	return t
}

// RPPTries lists the tries a job waiting from s with deadline d makes when
// every try fails: FirstTry, then NextClaim's series up to d (at most max
// tries; max 0: no limit). For tests and the documentation.
func RPPTries(s, d time.Time, L float64, w grid.Wait, eps time.Duration, max int) []time.Time {
	t := FirstTry(s, d, L, w)
	out := []time.Time{t}
	for max == 0 || len(out) < max {
		next, ok := NextClaim(t, d, L, eps)
		if !ok {
			break
		}
		t = next
		out = append(out, t)
	}
	return out
}

// deadlineText says when a job's deadline is, for reasons.
func deadlineText(j *Job) string {
	return "deadline " + j.Deadline.Format(time.RFC3339Nano)
}

// submitDeadline takes a job with a start deadline as it is submitted.
func (c *Core) submitDeadline(j *Job) {
	if j.Deadline.Before(c.now) {
		c.fail(j, "its start deadline had passed when it was submitted ("+deadlineText(j)+")")
		return
	}
	if o := c.originOf(c.now); !o.IsZero() {
		j.seriesFrom = o.Add(j.Spec.Submit) // the workload's submission, not when it landed
	}
	c.deadlineWait(j)
	j.seriesFrom = time.Time{} // a job that waits again counts from then
}

// deadlineWait puts a job in the wait for its next try, from now.
func (c *Core) deadlineWait(j *Job) {
	w, L := c.deadlineSettings(j)
	j.State, j.queuedAt, j.inWait, j.waitTries = Queued, c.now, true, 0
	c.waiting++
	c.deadlineAt(j, c.nextTry(j, c.firstTry(c.now, j, L, w)))
}

func (c *Core) deadlineAt(j *Job, t time.Time) {
	j.NextTry = t
	j.tryTimer = c.at(t, func() { c.deadlineTry(j) })
}

// leaveWait takes a job out of the wait, if it is in it.
func (c *Core) leaveWait(j *Job) {
	c.stop(j.tryTimer)
	j.tryTimer = nil
	if j.inWait {
		j.inWait = false
		c.waiting--
	}
}

// deadlineTry is one try of the Repeated Placement Policy: place the job
// by its policy on the idle processors and claim them at once; else try
// again later, or, at the deadline, kill local jobs (GP) or fail (LP).
func (c *Core) deadlineTry(j *Job) {
	j.tryTimer = nil
	if !j.inWait || j.State != Queued {
		return
	}
	j.PlacementTries++
	j.waitTries++
	final := !c.now.Before(j.Deadline)
	w, L := c.deadlineSettings(j)
	if !w.Inf && c.now.Before(j.Deadline.Add(-w.I)) {
		// The kill try before Wait-X's window: the kill plan only.
		if !c.slurmKill(j) {
			c.deadlineAt(j, c.firstTry(c.now, j, L, w))
		}
		return
	}
	info := c.info()
	res, fail := c.place(j, info)
	late := fail == nil && c.now.Add(res.FTT).After(j.Deadline)
	if fail == nil && !late {
		c.leaveWait(j)
		c.deadlinePlace(j, res, info, j.PlacementTries)
		return
	}
	ev := Event{Kind: EvPlacementTry, Job: j.ID, Key: j.Opts.Key, Try: j.PlacementTries, JST: j.Deadline}
	if late {
		ev.Reason = "its input files cannot arrive by its start deadline"
	}
	c.emit(ev)
	if fail != nil {
		c.noteWhy(j, fail)
		if !late && (c.slurmKill(j) || !final && c.everyTryKill(j)) {
			return
		}
	}
	switch {
	case final:
		c.leaveWait(j)
		c.deadlineMissed(j)
	case c.cfg.DeadlineMaxTries > 0 && j.waitTries >= c.cfg.DeadlineMaxTries:
		c.leaveWait(j)
		c.fail(j, "not placed in "+itoa(j.waitTries)+" tries before its start deadline (deadline_max_tries)")
	default:
		next, _ := NextClaim(c.now, j.Deadline, L, c.cfg.DeadlineEpsilon.Duration)
		c.deadlineAt(j, c.nextTry(j, next))
	}
}

// deadlinePlace puts a job where res says and claims its processors at
// once: they are held until its deadline, its start time.
func (c *Core) deadlinePlace(j *Job, res placement.Result, info *placement.Info, try int) {
	sites := c.assign(j, res, info)
	j.Placements++
	j.TotalPlacementTime += c.now.Sub(j.queuedAt)
	j.JPT, j.FTT, j.JST, j.JCT = c.now, res.FTT, j.Deadline, c.now
	if j.OrigJST.IsZero() {
		j.OrigJST = j.Deadline
	}
	j.State = Claiming
	c.emit(Event{Kind: EvPlaced, Job: j.ID, Key: j.Opts.Key, Sites: sites, Policy: c.policyName(j), FTT: res.FTT,
		JST: j.JST, JCT: j.JCT, Try: try})
	c.claimTry(j)
}

// deadlineClaimFailed: a job placed for its deadline could not claim every
// component (a real cluster's controller did not start one in time). Its
// processors are released; it waits for its next try, or fails at or
// after its deadline.
func (c *Core) deadlineClaimFailed(j *Job) {
	const why = "its processors could not all be claimed"
	c.release(j, why)
	c.resetComponents(j)
	if !c.now.Before(j.Deadline) {
		j.State = Queued // fail releases nothing more
		c.fail(j, "not started at its start deadline: "+why)
		return
	}
	j.Reason = why
	c.deadlineWait(j)
}

// deadlineBack: a job with a deadline was sent back for placement (lost
// its processors to a pre-emption, a cluster outage, a soft error, a
// restart of the core). Before its deadline it waits for its next try;
// after, it fails: it can no longer start at its deadline.
func (c *Core) deadlineBack(j *Job, reason string) {
	if c.now.Before(j.Deadline) {
		c.deadlineWait(j)
		return
	}
	j.State = Queued
	c.fail(j, reason+"; its start deadline has passed, so it cannot start again")
}

// deadlinePriority tells whether local jobs may be killed for a job at its
// deadline (GP).
func (c *Core) globalPriority() bool { return c.cfg.DeadlinePriority != "local" }

// deadlineMissed is the end of a job whose try at its deadline found too
// few idle processors: under LP it fails; under GP the local jobs in the
// way are killed and it starts, or, if even that is not enough, it fails.
// At the deadline, only emulated clusters' local jobs are killed: a Slurm
// cluster's are killed (preempt_local) at the kill tries before it
// (slurmKill), as what Slurm starts after a scancel starts after D.
func (c *Core) deadlineMissed(j *Job) {
	if !c.globalPriority() {
		c.fail(j, "not started at its start deadline: too few idle processors (local priority: no local job is killed)")
		return
	}
	res, victims, ok := c.killPlan(j, false)
	if !ok {
		c.fail(j, "not started at its start deadline: too few processors even with local jobs killed (global priority)"+c.noPreemptNote(j))
		return
	}
	c.killAndPlace(j, res, victims)
}

// everyTryKill is a failed try's kill plan before the deadline under
// global priority with gp_kill = "every-try": the local jobs of emulated
// clusters in the way are killed and the job is placed (claiming at
// once), as at its deadline. It tells whether it placed the job.
func (c *Core) everyTryKill(j *Job) bool {
	if c.cfg.GPKill != grid.GPKillEveryTry || !c.globalPriority() {
		return false
	}
	res, victims, ok := c.killPlan(j, false)
	if !ok {
		return false
	}
	c.leaveWait(j)
	c.killAndPlace(j, res, victims)
	return true
}

// killAndPlace kills the victims of a kill plan and places the job as the
// plan says, claiming at once.
func (c *Core) killAndPlace(j *Job, res placement.Result, victims []victim) {
	// The processors the kills free go to this job before the local
	// queues see them (claimTry runs the queues afterwards).
	c.deferLocal = true
	for _, v := range victims {
		if v.job != nil {
			c.killLocal(v.cl, v.job, j)
		} else {
			c.killRemote(v.cl, v.remote, j)
		}
	}
	c.deadlinePlace(j, res, c.info(), j.PlacementTries)
	if c.deferLocal { // the claim did not get to run the queues
		c.runDeferredLocal()
	}
}

// victim is a local job to kill on a cluster: an emulated cluster's (job)
// or a Slurm cluster's (remote).
type victim struct {
	cl     *cluster
	job    *lrm.Job
	remote LocalJob
}

func (v victim) size() int {
	if v.job != nil {
		return v.job.Size
	}
	return v.remote.Size
}

// killPlan places a job at its deadline under global priority, counting
// the processors of running local jobs as free, and names the local jobs
// to kill. Components, largest first, go where they fit in the idle
// processors, the most idle first (Worst-Fit, as a normal try); a
// component that fits nowhere so goes to the cluster where the fewest
// processors must be freed (the most idle; ties: by name), and there the
// local jobs are killed newest start first (the least work lost per job),
// until it fits. Local jobs of real clusters (lrm = "slurm") are killed
// only when remote is set and the cluster has preempt_local, and then only
// the running jobs its controller reported that are not gmark's (see
// LocalJob); grid components never. Flexible jobs and jobs with input
// files get no such placement (they fail at their deadline as under LP).
func (c *Core) killPlan(j *Job, remote bool) (placement.Result, []victim, bool) {
	if j.request.Flexible || len(j.request.Files) > 0 {
		return placement.Result{}, nil, false
	}
	type site struct {
		cl    *cluster
		idle  int
		local []victim // running local jobs, newest start first
		next  int      // the next of them to kill
	}
	var sites []*site
	for _, cl := range c.clusters {
		if c.outOfService(cl) != "" || j.exclude[cl.cfg.Name] {
			continue
		}
		s := &site{cl: cl, idle: max(0, cl.lrm.Idle()-cl.soft)}
		switch {
		case cl.ctl == nil:
			for _, lj := range cl.lrm.RunningJobs(lrm.Local) {
				s.local = append(s.local, victim{cl: cl, job: lj})
			}
		case remote && cl.cfg.PreemptLocal:
			for _, lj := range cl.remoteLocal {
				s.local = append(s.local, victim{cl: cl, remote: lj})
			}
		}
		sites = append(sites, s)
	}
	killable := func(s *site) int {
		n := 0
		for _, v := range s.local[s.next:] {
			n += v.size()
		}
		return n
	}
	var res placement.Result
	var victims []victim
	for _, comp := range largestFirst(j.request.Components) {
		var best *site
		for pass := 0; pass < 2 && best == nil; pass++ {
			for _, s := range sites {
				if comp.Site != "" && s.cl.cfg.Name != comp.Site {
					continue
				}
				room := s.idle
				if pass == 1 {
					room += killable(s)
				}
				if room >= comp.Size && (best == nil || s.idle > best.idle) {
					best = s
				}
			}
		}
		if best == nil {
			return placement.Result{}, nil, false
		}
		for best.idle < comp.Size {
			v := best.local[best.next]
			best.next++
			best.idle += v.size()
			victims = append(victims, v)
		}
		best.idle -= comp.Size
		res.Assignments = append(res.Assignments, placement.Assignment{Index: comp.Index, Size: comp.Size, Site: best.cl.cfg.Name})
	}
	return res, victims, true
}

// largestFirst orders components by decreasing size, keeping the job's
// order among equals.
func largestFirst(comps []placement.Component) []placement.Component {
	out := append([]placement.Component(nil), comps...)
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && out[k].Size > out[k-1].Size; k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out
}

// killLocal kills a running local job for a global job at its deadline
// (GP): the job is lost, with the processor time it had used, and the
// processors are held back from the local queue until the claim.
func (c *Core) killLocal(cl *cluster, lj *lrm.Job, by *Job) {
	c.account(cl)
	lost := float64(lj.Size) * c.now.Sub(lj.Start).Seconds()
	cl.lrm.Release(lj.ID)
	dummy := cl.dummies[lj.ID]
	delete(cl.dummies, lj.ID)
	if c.deferredLRMs == nil {
		c.deferredLRMs = map[*cluster]bool{}
	}
	c.deferredLRMs[cl] = true
	c.local.killedJob(dummy, c.measured(lj.Submit), c.measured(c.now), lost)
	reason := "killed at the start deadline of global job " + by.ID + " (global priority)"
	if c.now.Before(by.Deadline) {
		reason = "killed at a placement try of global job " + by.ID + " before its start deadline (global priority, gp_kill = every-try)"
	}
	c.emit(Event{Kind: EvLocalKilled, Cluster: cl.cfg.Name, Job: by.ID, Key: by.Opts.Key, Count: lj.Size,
		LRMID: "local-" + strconv.FormatInt(lj.ID, 10), ProcessorS: lost, Reason: reason})
}
