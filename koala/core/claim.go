package core

import (
	"sort"
	"time"

	"github.com/gmark/gmark/koala/lrm"
	"github.com/gmark/gmark/koala/placement"
)

// The processor claimer. The local resource managers have no reservations,
// so claiming processors at placement time would waste them until the job's
// files arrive, and claiming at the start time risks losing them to local
// jobs. KOALA claims in between:
//
//	JST   = JPT + FTT              (estimated start: placement + file transfer)
//	JCT_0 = JPT + L·FTT            (first claim; L = 0.75 by default)
//	JCT_{n+1} = JCT_n + L·(JST − JCT_n)   after a failed try
//
// A try claims the components whose sites have the processors now (the
// Incremental Claiming Policy); it succeeds when at least a fraction T of the
// components holds processors (T = 1: all, atomically). Claimed components
// hold their processors idle until JST (wasted time, PWT); the time from JPT
// to the claim is gained (PGT) for local jobs.
//
// Stop rule (the thesis leaves it open): the geometric sequence never reaches
// JST when L < 1, so once the gap left would be below claim_epsilon — or when
// L = 0, where the sequence stalls — the next try is at JST itself, the last
// chance. When a try at JST fails, the start time is missed: components
// claimed so far are released, L is lowered by claim_l_step (not below
// claim_l_min) and the job goes back to its placement queue, to be placed
// again with a new JST.

// NextClaim is the claiming time after a failed try at jct, or ok=false when
// that try was the last (at or after jst).
func NextClaim(jct, jst time.Time, L float64, eps time.Duration) (next time.Time, ok bool) {
	if !jct.Before(jst) {
		return time.Time{}, false
	}
	next = jct.Add(scaled(jst.Sub(jct), L))
	if L <= 0 || jst.Sub(next) < eps {
		next = jst
	}
	return next, true
}

// claimable is the processors job j may claim at a site now: idle in the
// local resource manager, minus what other placed jobs hold there (their
// soft reservations are protected), 0 when the site is out of service.
func (c *Core) claimable(cl *cluster, j *Job) int {
	if cl.lrm.Down() || cl.disabled != "" || cl.unreachable != "" {
		return 0
	}
	own := 0
	for _, comp := range j.Components {
		if comp.Site == cl.cfg.Name && !comp.Claimed && !comp.Pending {
			own += comp.Size
		}
	}
	return cl.lrm.Idle() - (cl.soft - own)
}

func (c *Core) claimTry(j *Job) {
	j.claimTimer = nil
	if j.State != Claiming {
		return
	}
	j.ClaimTries++
	prev := 0
	var now, not []int
	avail := map[string]int{}
	for i, comp := range j.Components {
		if comp.Claimed || comp.Pending {
			prev++
			continue
		}
		a, seen := avail[comp.Site]
		if !seen {
			a = c.claimable(c.byName[comp.Site], j)
		}
		if a >= comp.Size {
			now = append(now, i)
			a -= comp.Size
		} else {
			not = append(not, i)
		}
		avail[comp.Site] = a
	}
	n := len(j.Components)
	// A job with a deadline claims all its components at once or none (the
	// paper's place-and-claim), with no incremental re-placement.
	threshold := *c.cfg.ClaimThreshold
	if j.HasDeadline() {
		threshold = 1
	}
	if F := float64(prev+len(now)) / float64(n); F >= threshold {
		// Processors freed by pre-emption go to this job's components before
		// the local queues see them.
		c.deferLocal = true
		if len(not) > 0 && !j.HasDeadline() {
			now = append(now, c.incremental(j, not)...)
		}
		for _, i := range now {
			c.claimComponent(j, i)
		}
		c.runDeferredLocal()
		if !c.startEmulatedClaimed(j) {
			return
		}
	}
	if c.anyPending(j) {
		// Controllers start what was submitted in their own time: the try
		// is decided when all of it has started, or at the start timeout.
		j.settling = true
		j.claimTimer = c.at(c.settleBy(j), func() { c.claimSettle(j) })
		return
	}
	c.claimSettle(j)
}

// claimSettle decides a claim try: submissions that have not started are
// given up, and the job is fully claimed, tries again later, or goes back to
// its placement queue.
func (c *Core) claimSettle(j *Job) {
	j.claimTimer, j.settling = nil, false
	if j.State != Claiming {
		return
	}
	for i := range j.Components {
		if j.Components[i].Pending {
			c.cancelRemote(j, i, "it did not start within the cluster's start_timeout")
		}
	}
	n := len(j.Components)
	claimed := 0
	for _, comp := range j.Components {
		if comp.Claimed {
			claimed++
		}
	}
	c.emit(Event{Kind: EvClaimTry, Job: j.ID, Key: j.Opts.Key, Try: j.ClaimTries, Count: claimed, OK: claimed == n})
	if claimed == n {
		c.fullyClaimed(j)
		return
	}
	if j.HasDeadline() {
		c.deadlineClaimFailed(j)
		return
	}
	if m := c.cfg.MaxClaimTries; m > 0 && j.ClaimTries >= m {
		c.fail(j, "claiming failed "+itoa(j.ClaimTries)+" times (max_claim_tries)")
		return
	}
	next, ok := NextClaim(j.JCT, j.JST, j.L, c.cfg.ClaimEpsilon.Duration)
	if !ok {
		j.L = max(c.cfg.ClaimLMin, j.L-*c.cfg.ClaimLStep)
		c.requeue(j, EvReplaced, "missed its start time: its processors could not be claimed")
		return
	}
	j.JCT = next
	j.claimTimer = c.at(next, func() { c.claimTry(j) })
}

// claimComponent submits a component to its site's local resource manager,
// which starts it at once (it holds the processors until the job starts).
func (c *Core) claimComponent(j *Job, i int) bool {
	comp := &j.Components[i]
	cl := c.byName[comp.Site]
	if cl.ctl != nil {
		return c.submitRemote(j, i, cl)
	}
	c.account(cl)
	c.nextLRM++
	lj := &lrm.Job{ID: c.nextLRM, Size: comp.Size, Runtime: c.expectedRun(j, cl), Owner: j.ID}
	if !cl.lrm.Claim(lj, c.now) {
		return false
	}
	cl.soft -= comp.Size
	cl.held += comp.Size
	comp.Claimed, comp.ClaimedAt, comp.lrmID = true, c.now, lj.ID
	return true
}

// expectedRun is what the local scheduler expects a claimed component to
// take: the wait for the start time plus the run time (for its backfilling).
func (c *Core) expectedRun(j *Job, cl *cluster) time.Duration {
	run, _ := RunTime(&j.Spec, c.cfg.DefaultRuntime.Duration)
	rt := min(scaled(run, 1/cl.cfg.Speed), c.limit(j))
	if j.JST.After(c.now) {
		rt += j.JST.Sub(c.now)
	}
	return rt
}

// incremental is the Incremental Claiming Policy's answer for components
// that cannot be claimed where they were placed (used when T < 1): place
// each again with the job's policy, and keep the new site if its files can
// still arrive before JST; otherwise, unless the job is super-low, pre-empt
// lower-priority jobs on the site — the new one, or the original when
// re-placement found none (the thesis leaves this open) — newest start time
// first, until the component fits. It returns the components now claimable.
func (c *Core) incremental(j *Job, not []int) []int {
	var added []int
	pol, _ := c.policy(j.Opts.Policy)
	for _, i := range not {
		comp := &j.Components[i]
		oldSite, oldFiles, oldTransfer := comp.Site, comp.FileSites, comp.Transfer
		c.detach(comp)
		req := placement.Request{Components: []placement.Component{{Size: comp.Size, Site: comp.Fixed}}, Files: j.request.Files, Exclude: j.exclude}
		res, fail := pol.Place(&req, c.info())
		target, files, transfer := oldSite, oldFiles, oldTransfer
		if fail == nil {
			a := res.Assignments[0]
			if c.now.Add(a.Transfer).Before(j.JST) {
				c.attach(comp, a.Site, a.FileSites, a.Transfer)
				added = append(added, i)
				continue
			}
			target, files, transfer = a.Site, a.FileSites, a.Transfer
		}
		if j.priority != SuperLow && c.preemptFor(j, comp.Size, c.byName[target]) {
			c.attach(comp, target, files, transfer)
			added = append(added, i)
			continue
		}
		c.attach(comp, oldSite, oldFiles, oldTransfer)
	}
	return added
}

// detach takes an unclaimed component off its site's soft reservation.
func (c *Core) detach(comp *Component) {
	cl := c.byName[comp.Site]
	c.account(cl)
	cl.soft -= comp.Size
	comp.Site = ""
}

// attach places an unclaimed component on a site's soft reservation.
func (c *Core) attach(comp *Component, site string, files []string, transfer time.Duration) {
	cl := c.byName[site]
	c.account(cl)
	cl.soft += comp.Size
	comp.Site, comp.FileSites, comp.Transfer = site, files, transfer
}

// preemptFor frees size processors at a site by sending lower-priority jobs
// holding processors there back to the placement queues, newest JST first.
// It does nothing unless that would free enough.
func (c *Core) preemptFor(j *Job, size int, cl *cluster) bool {
	type victim struct {
		job   *Job
		procs int
	}
	var victims []victim
	for _, other := range c.order {
		if other == j || other.priority <= j.priority || (other.State != Claiming && other.State != Running) {
			continue
		}
		procs := 0
		for _, comp := range other.Components {
			if comp.Site == cl.cfg.Name && (comp.Claimed || comp.Pending) && !comp.Done {
				procs += comp.Size
			}
		}
		if procs > 0 {
			victims = append(victims, victim{other, procs})
		}
	}
	avail := c.claimable(cl, j)
	total := avail
	for _, v := range victims {
		total += v.procs
	}
	if total < size {
		return false
	}
	sort.SliceStable(victims, func(a, b int) bool { return victims[a].job.JST.After(victims[b].job.JST) })
	for _, v := range victims {
		if c.claimable(cl, j) >= size {
			break
		}
		c.emit(Event{Kind: EvPreempted, Job: v.job.ID, Key: v.job.Opts.Key, Cluster: cl.cfg.Name, Reason: "pre-empted by " + j.ID})
		v.job.Restarts++
		c.requeue(v.job, EvReplaced, "pre-empted by higher-priority job "+j.ID)
	}
	return c.claimable(cl, j) >= size
}
