package core

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gmark/gmark/apps"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/lrm"
	"github.com/gmark/gmark/workload"
)

// Emulated runs components as timers: a component takes the job's run time
// at speed 1 (RunTime) divided by its site's speed.
type Emulated struct{ DefaultRuntime time.Duration }

// Start implements Executor.
func (e Emulated) Start(j *Job, _ []string, speeds []float64) ([]time.Duration, error) {
	rt, _ := e.Planned(&j.Spec)
	out := make([]time.Duration, len(speeds))
	for i, s := range speeds {
		out[i] = scaled(rt, 1/s)
	}
	return out, nil
}

// Stop implements Executor.
func (Emulated) Stop(*Job) {}

// Planned implements Planner.
func (e Emulated) Planned(spec *workload.Job) (time.Duration, RunTimeSource) {
	return RunTime(spec, e.DefaultRuntime)
}

// A Planner is an Executor that knows how long a job will run before it
// starts it (the emulated one): the job's started event says how long and
// why (Event.RunTime, Event.RunTimeSource).
type Planner interface {
	Planned(spec *workload.Job) (time.Duration, RunTimeSource)
}

// RunTimeSource says where an emulated job's run time came from.
type RunTimeSource string

const (
	// FromJob: the job's own RunTime (a trace's, or the WDL's RunTime=).
	FromJob RunTimeSource = "job"
	// FromModel: its application's run-time model (apps.RunTime), from the
	// application's parameters; for swf, its --runtime × --scale.
	FromModel RunTimeSource = "model"
	// FromDefault: the grid's default_runtime, for a program gmark does not
	// know (or application flags it would refuse).
	FromDefault RunTimeSource = "default"
)

// RunTime is how long a job runs at speed 1, and where that came from: the
// job's RunTime when it has one; else its application's model, for one of
// the job's processes (all run at once); else def. An explicit RunTime and
// def are multiplied by the application's --scale, as swf applies it.
func RunTime(spec *workload.Job, def time.Duration) (time.Duration, RunTimeSource) {
	if rt, ok := spec.KnownRunTime(); ok { // 0 s included: a trace's job that ran for no time
		return appScaled(spec, rt), FromJob
	}
	if rt, err := apps.RunTime(spec.App.Name, spec.App.Args(), spec.Processors()); err == nil {
		return rt, FromModel
	}
	return appScaled(spec, def), FromDefault
}

// appScaled is rt times the application's --scale, when it has one.
func appScaled(spec *workload.Job, rt time.Duration) time.Duration {
	if v, ok := spec.App.Param("scale"); ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
			return scaled(rt, f)
		}
	}
	return rt
}

// scaled is d times f, saturated at the longest Duration: a float conversion
// out of range would wrap to a negative run time, which ends a job at once.
func scaled(d time.Duration, f float64) time.Duration {
	v := float64(d) * f
	if !(v < math.MaxInt64) { // also NaN
		return math.MaxInt64
	}
	return time.Duration(v)
}

// fullyClaimed: every component holds its processors; the job starts at its
// estimated start time (its files have arrived), or now if that has passed.
// All runners start the components together once all are claimed; they
// differ in what a failure does (see componentEnded) and in the rendezvous
// service the IRunner provides (for real processes).
func (c *Core) fullyClaimed(j *Job) {
	if j.HasDeadline() && c.now.After(j.Deadline) {
		// A controller started a component after the deadline.
		c.fail(j, "its processors were claimed after its start deadline: "+deadlineText(j))
		return
	}
	// The job's reason said why it waited (a re-queue, a claim that
	// failed); it runs now, and what ends it says why from here on.
	j.State, j.Reason = Running, ""
	c.emit(Event{Kind: EvClaimed, Job: j.ID, Key: j.Opts.Key, Sites: j.Sites()})
	start := j.JST
	if start.Before(c.now) {
		start = c.now
	}
	if c.remoteJob(j) {
		j.claimTimer = c.at(start, func() { c.startRemote(j) })
		return
	}
	j.claimTimer = c.at(start, func() { c.startExecution(j) })
}

// limit is the run-time limit of a job: the shortest of its wall time, the
// grid's max_runtime and grid.LongestRun. It is never 0: every job that
// starts has an end.
func (c *Core) limit(j *Job) time.Duration {
	l := grid.LongestRun
	if w := j.Spec.WallTime; w > 0 && w < l {
		l = w
	}
	if m := c.cfg.MaxRuntime.Duration; m > 0 && m < l {
		l = m
	}
	return l
}

// checkWallTime refuses a wall time outside the documented range: 0 (none:
// the grid's max_runtime bounds the job) or from MinWallTime to
// grid.LongestRun.
func checkWallTime(w time.Duration) error {
	switch {
	case w < 0, w > 0 && w < MinWallTime:
		return fmt.Errorf("walltime %v is out of range (give 0 for none, or %v to %v)", w, MinWallTime, grid.LongestRun)
	case w > grid.LongestRun:
		return fmt.Errorf("walltime %v is longer than %v, the longest run the core allows", w, grid.LongestRun)
	}
	return nil
}

// MinWallTime is the shortest wall time a job may ask for.
const MinWallTime = time.Second

func (c *Core) startExecution(j *Job) {
	j.claimTimer = nil
	if j.State != Running {
		return
	}
	// A soft error: a site fails a component as it starts.
	for i := range j.Components {
		cl := c.byName[j.Components[i].Site]
		if rate := cl.cfg.FailureRate; rate > 0 && c.rng.Float64() < rate {
			c.softError(j, i, cl)
			return
		}
	}
	j.Start = c.now
	started := Event{Kind: EvStarted, Job: j.ID, Key: j.Opts.Key, Sites: j.Sites()}
	if p, ok := c.exec.(Planner); ok {
		started.RunTime, j.RunTimeSource = p.Planned(&j.Spec)
		started.RunTimeSource = j.RunTimeSource
	}
	c.emit(started)
	sites := make([]string, len(j.Components))
	speeds := make([]float64, len(j.Components))
	for i := range j.Components {
		comp := &j.Components[i]
		cl := c.byName[comp.Site]
		cl.errors = 0
		c.account(cl)
		cl.held -= comp.Size
		cl.running += comp.Size
		comp.Executing, comp.ExecStart = true, c.now
		sites[i], speeds[i] = cl.cfg.Name, cl.cfg.Speed
		c.emit(Event{Kind: EvComponentStart, Job: j.ID, Key: j.Opts.Key, Component: i, Cluster: cl.cfg.Name})
	}
	runtimes, err := c.exec.Start(j, sites, speeds)
	if err != nil {
		for i := range j.Components {
			c.componentEnded(j, i, false, "could not start: "+err.Error())
		}
		return
	}
	limit := c.limit(j)
	for i := range j.Components {
		comp := &j.Components[i]
		i := i
		if runtimes != nil && runtimes[i] <= limit {
			comp.endTimer = c.at(c.now.Add(runtimes[i]), func() { c.componentEnded(j, i, true, "") })
		} else {
			comp.endTimer = c.at(c.now.Add(limit), func() {
				if runtimes == nil {
					c.exec.Stop(j) // every component shares the limit: stop the job's processes once
				}
				c.componentEnded(j, i, false, fmt.Sprintf("killed after its run-time limit of %v", limit))
			})
		}
	}
}

// ComponentExited reports the end of a component run by a real process.
func (c *Core) ComponentExited(jobID string, comp int, ok bool, reason string) {
	j, found := c.jobs[jobID]
	if !found || j.State != Running || comp < 0 || comp >= len(j.Components) || !j.Components[comp].Executing {
		return
	}
	c.componentEnded(j, comp, ok, reason)
}

// componentEnded records the end of a component. A DRunner job is restarted
// when a component fails (other than by its run-time limit); otherwise the job
// ends when all its components have, successfully only if all did.
func (c *Core) componentEnded(j *Job, i int, ok bool, reason string) {
	comp := &j.Components[i]
	if comp.Done || !comp.Executing {
		return
	}
	cl := c.byName[comp.Site]
	c.stop(comp.endTimer)
	comp.endTimer = nil
	c.account(cl)
	cl.running -= comp.Size
	comp.Executing, comp.Done, comp.OK = false, true, ok
	c.endLRM(cl, comp.lrmID)
	c.emit(Event{Kind: EvComponentEnd, Job: j.ID, Key: j.Opts.Key, Component: i, Cluster: cl.cfg.Name, OK: ok, Reason: reason,
		Attempt: comp.Attempt, LRMID: comp.LRMID, LRMTime: comp.lrmEnd})
	if !ok && j.Opts.Runner == DRunner && !isLimitKill(reason) {
		c.restart(j, "", "component "+strconv.Itoa(i)+" failed on "+cl.cfg.Name+": "+reason)
		return
	}
	if !ok && j.Reason == "" { // the first component of this run to fail says why
		j.Reason = "component " + strconv.Itoa(i) + " on " + cl.cfg.Name + ": " + reason
	}
	for _, other := range j.Components {
		if !other.Done {
			return
		}
	}
	j.End = c.now
	for _, other := range j.Components {
		if !other.OK {
			j.State = Failed
			c.emit(Event{Kind: EvFailed, Job: j.ID, Key: j.Opts.Key, Reason: j.Reason})
			c.ended(j)
			return
		}
	}
	j.State, j.Reason = Finished, ""
	c.produce(j)
	if c.skip[EvFinished] {
		c.skipEvent()
	} else {
		c.emit(Event{Kind: EvFinished, Job: j.ID, Key: j.Opts.Key, Sites: j.Sites()})
	}
	c.ended(j)
}

func isLimitKill(reason string) bool {
	return len(reason) > 6 && reason[:6] == "killed"
}

// softError: the site failed a component. The site's count of consecutive
// soft errors grows, and at the threshold the site is taken out of service
// with an alert. The job, by KOALA's default, is aborted and placed again
// away from that site.
func (c *Core) softError(j *Job, i int, cl *cluster) {
	cl.errors++
	c.emit(Event{Kind: EvSoftError, Job: j.ID, Key: j.Opts.Key, Component: i, Cluster: cl.cfg.Name, Count: cl.errors})
	site := cl.cfg.Name
	c.restart(j, site, "soft error on "+site)
	if cl.errors >= c.cfg.ErrorThreshold && cl.disabled == "" {
		reason := fmt.Sprintf("%d consecutive soft errors", cl.errors)
		c.emit(Event{Kind: EvAlert, Cluster: site, Reason: "cluster " + site + " marked unusable after " + reason})
		_ = c.SetClusterDown(site, reason)
	}
}

// SetClusterDown takes a site out of service: its local jobs and grid
// components are killed, and the grid jobs on it (placed, claimed or
// running) are placed again elsewhere.
func (c *Core) SetClusterDown(name, reason string) error {
	cl, ok := c.byName[name]
	if !ok {
		return fmt.Errorf("unknown cluster %q", name)
	}
	if cl.disabled != "" {
		return nil
	}
	if reason == "" {
		reason = "taken down"
	}
	c.account(cl)
	cl.disabled = reason
	var hit []*Job
	for _, j := range c.order {
		if j.State != Claiming && j.State != Running {
			continue
		}
		for _, comp := range j.Components {
			if comp.Site == name && !comp.Done {
				hit = append(hit, j)
				break
			}
		}
	}
	c.emit(Event{Kind: EvClusterDown, Cluster: name, Reason: reason})
	for _, j := range hit {
		c.restart(j, name, "cluster "+name+" went down ("+reason+")")
	}
	for _, lj := range cl.lrm.SetDown() {
		delete(cl.dummies, lj.ID)
	}
	return nil
}

// SetClusterUp brings a site back into service.
func (c *Core) SetClusterUp(name string) error {
	cl, ok := c.byName[name]
	if !ok {
		return fmt.Errorf("unknown cluster %q", name)
	}
	if cl.disabled == "" {
		return nil
	}
	c.account(cl)
	cl.disabled, cl.errors = "", 0
	c.localStarted(cl, cl.lrm.SetUp(c.now))
	c.emit(Event{Kind: EvClusterUp, Cluster: name})
	return nil
}

// endLRM ends a job in a local resource manager and starts the local jobs
// that fit in the freed processors (unless a claim try holds them back).
func (c *Core) endLRM(cl *cluster, id int64) {
	c.account(cl)
	dummy := cl.dummies[id]
	delete(cl.dummies, id)
	var lj *lrm.Job
	var started []*lrm.Job
	if c.deferLocal {
		lj = cl.lrm.Release(id)
		if c.deferredLRMs == nil {
			c.deferredLRMs = map[*cluster]bool{}
		}
		c.deferredLRMs[cl] = true
	} else {
		lj, started = cl.lrm.End(id, c.now)
	}
	if lj != nil && lj.Kind == lrm.Local && !dummy && !lj.Start.IsZero() {
		c.local.ended(lj, c.now, c.measured(lj.Submit))
	}
	c.localStarted(cl, started)
}

// runDeferredLocal ends a claim try's hold on the local queues.
func (c *Core) runDeferredLocal() {
	c.deferLocal = false
	for _, cl := range c.clusters {
		if c.deferredLRMs[cl] {
			delete(c.deferredLRMs, cl)
			c.account(cl)
			c.localStarted(cl, cl.lrm.Schedule(c.now))
		}
	}
}

// localStarted schedules the ends of local jobs that just started.
func (c *Core) localStarted(cl *cluster, started []*lrm.Job) {
	for _, lj := range started {
		if lj.Kind != lrm.Local {
			continue
		}
		id := lj.ID
		c.at(c.now.Add(lj.Runtime), func() { c.endLRM(cl, id) })
	}
}
