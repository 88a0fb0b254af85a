package core

import (
	"sort"
	"strings"
	"time"
)

// Global priority on real clusters. A Slurm cluster's other jobs (its
// users' jobs, the cluster's background load) are killed for a job with a
// start deadline only when the grid marks the cluster preempt_local, and
// only the running jobs its controller reported that are not gmark's own.
// The decision is the core's, from the controller's last report, by the
// same rule as on emulated clusters (killPlan: newest start first, on the
// cluster where the fewest processors must be freed); the scancel is the
// controller's (Controller.Kill), as a submission is.
//
// What Slurm starts after a scancel starts when its scheduler gets to it,
// and a component that starts after the deadline fails the job
// (fullyClaimed). So the kills on Slurm clusters are made before the
// deadline: a job under global priority gets a kill try at D − lead,
// lead = the longest start_timeout of the preempt_local clusters (the
// time a claim try may take to settle), and at every try from then until
// D a failed placement is followed by a kill plan that may kill Slurm
// jobs; it is carried out only when it kills at least one (kills of
// emulated clusters' jobs alone wait for the try at D, as the paper has
// them). Under Wait-X with X below the lead, the kill try at D − lead
// runs the kill plan only (the job is otherwise still ignored).

// LocalJob is one of a real cluster's other jobs, as its controller
// reports it: running, not gmark's.
type LocalJob struct {
	ID    string    // the controller's job id
	Size  int       // processors
	Start time.Time // when it started, by the controller's clock
}

// newer orders local jobs newest start first; among equal starts, the
// larger job id first (the later submission, for Slurm's numeric ids).
func newer(a, b LocalJob) bool {
	if !a.Start.Equal(b.Start) {
		return a.Start.After(b.Start)
	}
	if len(a.ID) != len(b.ID) {
		return len(a.ID) > len(b.ID)
	}
	return a.ID > b.ID
}

// observeLocal takes a controller's list of its other running jobs and
// returns the processors of those the core has killed that it still
// reports (they are not load: the core counts them as its own).
func (cl *cluster) observeLocal(local []LocalJob) int {
	keep := make([]LocalJob, 0, len(local))
	still := map[string]int{}
	busy := 0
	for _, lj := range local {
		if lj.ID == "" || lj.Size <= 0 {
			continue
		}
		if n, ok := cl.killed[lj.ID]; ok {
			still[lj.ID] = n
			busy += n
			continue
		}
		keep = append(keep, lj)
	}
	sort.SliceStable(keep, func(a, b int) bool { return newer(keep[a], keep[b]) })
	cl.remoteLocal, cl.killed = keep, still
	return busy
}

// preemptLead is how long before a deadline the kill try is, 0 when no
// cluster allows killing its controller's jobs.
func (c *Core) preemptLead() time.Duration {
	var lead time.Duration
	for _, cl := range c.clusters {
		if cl.ctl != nil && cl.cfg.PreemptLocal {
			lead = max(lead, cl.cfg.StartTimeout.Duration)
		}
	}
	return lead
}

// killTryAt is the kill try of a job (D − lead), zero when it has none.
func (c *Core) killTryAt(j *Job) time.Time {
	lead := c.preemptLead()
	if lead == 0 || !c.globalPriority() {
		return time.Time{}
	}
	return j.Deadline.Add(-lead)
}

// nextTry is t, or the job's kill try if that comes first and is still
// ahead.
func (c *Core) nextTry(j *Job, t time.Time) time.Time {
	if k := c.killTryAt(j); !k.IsZero() && c.now.Before(k) && t.After(k) {
		return k
	}
	return t
}

// slurmKill is the kill plan of a try from the kill try until the
// deadline: it places the job with the local jobs in the way killed,
// Slurm clusters' included, and does so when the plan kills at least one
// Slurm job. It tells whether it placed the job.
func (c *Core) slurmKill(j *Job) bool {
	k := c.killTryAt(j)
	if k.IsZero() || c.now.Before(k) || !c.now.Before(j.Deadline) {
		return false
	}
	res, victims, ok := c.killPlan(j, true)
	if !ok {
		return false
	}
	remote := false
	for _, v := range victims {
		remote = remote || v.job == nil
	}
	if !remote {
		return false
	}
	c.leaveWait(j)
	c.killAndPlace(j, res, victims)
	return true
}

// killRemote kills one of a Slurm cluster's other jobs for a global job
// (GP, preempt_local): the controller cancels it; its processors count as
// free from now (the core claims them), and it is recorded as an emulated
// cluster's killed local job is, with its Slurm job id.
func (c *Core) killRemote(cl *cluster, lj LocalJob, by *Job) {
	c.account(cl)
	lost := 0.0
	if !lj.Start.IsZero() && c.now.After(lj.Start) {
		lost = float64(lj.Size) * c.now.Sub(lj.Start).Seconds()
	}
	reason := "killed at the start deadline of global job " + by.ID + " (global priority, preempt_local)"
	cl.ctl.Kill(lj.ID, reason)
	if cl.killed == nil {
		cl.killed = map[string]int{}
	}
	cl.killed[lj.ID] = lj.Size
	for i, o := range cl.remoteLocal {
		if o.ID == lj.ID {
			cl.remoteLocal = append(cl.remoteLocal[:i:i], cl.remoteLocal[i+1:]...)
			break
		}
	}
	cl.lrm.SetExternal(cl.lrm.External() - lj.Size)
	// The core does not see the ends of the cluster's other jobs, so they
	// are not in the local kill rate; the processor time lost is.
	c.local.killedJob(false, false, c.measured(c.now), lost)
	c.emit(Event{Kind: EvLocalKilled, Cluster: cl.cfg.Name, Job: by.ID, Key: by.Opts.Key, Count: lj.Size,
		LRMID: lj.ID, ProcessorS: lost, Reason: reason})
}

// noPreemptNote says, for a job that fails at its deadline under global
// priority, which Slurm clusters with other jobs running do not allow
// killing them.
func (c *Core) noPreemptNote(j *Job) string {
	var names []string
	for _, cl := range c.clusters {
		if cl.ctl != nil && !cl.cfg.PreemptLocal && c.outOfService(cl) == "" && !j.exclude[cl.cfg.Name] && cl.lrm.External() > 0 {
			names = append(names, cl.cfg.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; preemption of local jobs is not allowed on Slurm cluster " + strings.Join(names, ", ") +
		" (preempt_local = false): global priority acts as local priority there"
}
