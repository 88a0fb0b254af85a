package core

import (
	"errors"
	"fmt"
	"time"
)

// A run's workload origin. A workload's times (submissions, start
// deadlines) are offsets from its start; the grid's local workloads
// ([cluster.local]) are streams of their own. What a run of global jobs
// against local ones measures depends on where the two streams stand
// against each other: started 10 s apart instead of 20 s, the same local
// jobs run when other global jobs reach their deadlines, and other local
// jobs are killed. So a run declares its origin (Begin), and the core
// starts the local workloads at the origin less a warm-up, counts the
// start deadlines from the origin and measures from it. A simulation and a
// live run that declare the same origin and warm-up see the same local
// jobs at the same offsets from it; the live run's wall clock moves only
// the submissions, by its jitter, never the deadlines or the local jobs.
//
// Without Begin, the local workloads start with the core (New), deadlines
// count from each job's submission and the measured period from the
// core's start (MeasureFrom moves it).

// HoldLocal keeps the local workloads from starting until Begin: a core
// that serves a run (gmark koala serve --await-run) must not let them run
// ahead of the run's origin. It must be called before the core advances;
// later (a local job has arrived) it returns an error and changes nothing.
func (c *Core) HoldLocal() error {
	if c.localArrived {
		return errors.New("the local workloads are running: a local job has arrived")
	}
	for _, t := range c.localFirst {
		c.stop(t)
	}
	c.localFirst, c.localFrom = nil, time.Time{}
	return nil
}

// Begin declares a run's workload origin: the local workloads start at
// origin − warmup (a warm-up of 0 takes the grid's [scheduler]
// local_warmup), start deadlines of the jobs submitted from now on count
// from the origin, and the measured period starts there.
// It returns when the local workloads started: origin − warmup, or, on a
// core whose local workloads already had a job arrive (HoldLocal was not
// called), when they started, which the caller may report as an
// unaligned run. A second Begin, and an origin − warmup before now, are
// errors.
func (c *Core) Begin(origin time.Time, warmup time.Duration) (time.Time, error) {
	warmup = c.RunWarmup(warmup)
	switch {
	case !c.origin.IsZero():
		return time.Time{}, fmt.Errorf("the run's origin is already set, at %s", c.origin.Format(time.RFC3339Nano))
	case warmup < 0:
		return time.Time{}, fmt.Errorf("a negative warm-up (%v)", warmup)
	case origin.Add(-warmup).Before(c.now):
		return time.Time{}, fmt.Errorf("the local workloads would start at %s, before the core's time %s",
			origin.Add(-warmup).Format(time.RFC3339Nano), c.now.Format(time.RFC3339Nano))
	}
	c.origin, c.originSince = origin, c.now
	if !c.localArrived {
		for _, t := range c.localFirst {
			c.stop(t)
		}
		c.startLocalLoads(origin.Add(-warmup))
	}
	c.MeasureFrom(origin)
	return c.localFrom, nil
}

// RunWarmup is the warm-up Begin gives the local workloads for a run that
// asks for warmup: that, or for 0 the grid's [scheduler] local_warmup.
func (c *Core) RunWarmup(warmup time.Duration) time.Duration {
	if warmup == 0 {
		return c.cfg.LocalWarmup.Duration
	}
	return warmup
}

// ResumeOrigin gives a restarted core, before Restore, the origin its run
// declared before and when it did (Begin, kept with the core's state by
// the server): the start deadlines of the restored jobs submitted since
// then, and of the jobs submitted from now on, count from it again, as
// they did before the restart. Nothing else moves: the local workloads
// started with this process (the emulated local jobs of the one before
// are gone with it), and the measured period is this process's. An origin
// already set is an error.
func (c *Core) ResumeOrigin(origin, since time.Time) error {
	if !c.origin.IsZero() {
		return fmt.Errorf("the run's origin is already set, at %s", c.origin.Format(time.RFC3339Nano))
	}
	c.origin, c.originSince = origin, since
	return nil
}

// OriginSince is when the run's origin was declared (Begin), in core time,
// or zero.
func (c *Core) OriginSince() time.Time { return c.originSince }

// Origin is the run's workload origin (Begin), or zero.
func (c *Core) Origin() time.Time { return c.origin }

// LocalFrom is when the local workloads started, or zero while they are
// held (HoldLocal).
func (c *Core) LocalFrom() time.Time { return c.localFrom }
