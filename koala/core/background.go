package core

import (
	"time"

	"github.com/gmark/gmark/koala/lrm"
)

// backgroundTick is the background-load controller of one cluster, as in the
// DAS experiments: local users' load is kept in the band [low, high] of the
// processors. Below low, dummy local jobs (uniform size, exponential run time)
// are submitted until the local load, running and queued, reaches the middle
// of the band; above high, the newest dummy jobs are killed (waiting ones
// first) until it is back under high. Dummy jobs go through the local queue
// like any local job, so they take processors the grid scheduler placed on but
// has not claimed yet.
func (c *Core) backgroundTick(cl *cluster) {
	b := cl.cfg.Background
	c.at(c.now.Add(b.Interval.Duration), func() { c.backgroundTick(cl) })
	if cl.lrm.Down() || cl.disabled != "" {
		return
	}
	total := float64(cl.cfg.Processors)
	load := float64(cl.lrm.Busy(lrm.Local) + cl.lrm.QueuedProcessors())
	if load < b.Low*total {
		target := (b.Low + b.High) / 2 * total
		for load < target {
			size := b.JobSize[0] + c.rng.IntN(b.JobSize[1]-b.JobSize[0]+1)
			rt := scaled(b.JobRuntime.Duration, c.rng.ExpFloat64())
			rt = max(rt, time.Second)
			c.nextLRM++
			j := &lrm.Job{ID: c.nextLRM, Size: size, Runtime: rt, Dummy: true}
			cl.dummies[j.ID] = true
			c.account(cl)
			c.localStarted(cl, cl.lrm.SubmitLocal(j, c.now))
			load += float64(size)
		}
	}
	// Over the band: kill dummies, waiting ones first, then the newest running.
	high := b.High * total
	for i := len(cl.lrm.Queued()) - 1; i >= 0 && float64(cl.lrm.Busy(lrm.Local)+cl.lrm.QueuedProcessors()) > high; i-- {
		if q := cl.lrm.Queued()[i]; cl.dummies[q.ID] {
			c.account(cl)
			cl.lrm.Release(q.ID)
			delete(cl.dummies, q.ID)
		}
	}
	for _, lj := range cl.lrm.RunningJobs(lrm.Local) {
		if float64(cl.lrm.Busy(lrm.Local)) <= high {
			break
		}
		if cl.dummies[lj.ID] {
			c.endLRM(cl, lj.ID)
		}
	}
}
