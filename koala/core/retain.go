package core

// A live core keeps every job it was given, ended or not: the API answers
// for any of them and the store (koala/persist) reads them as it flushes.
// A simulation of hundreds of thousands of jobs needs none of them once
// they end, and keeping them makes its memory grow with the workload:
// Forget makes the core drop each job as it ends, so that it holds only
// the jobs queued, placed or running.

// forgotten is what the core's own figures need of the jobs it dropped
// (Deadlines).
type forgotten struct {
	globalJobs, globalStarted int // jobs with a start deadline submitted in the measured period; those started at it
}

// Forget makes the core drop every job as it ends, after its final event
// (finished, failed or cancelled): Job, JobByKey and Cancel no longer know
// it, and Jobs lists only the jobs that have not ended. ended, when not
// nil, is given each job as it ends, to keep what the caller needs of it
// (it must not keep the job itself, or nothing is saved). For simulations
// only ('gmark sim run', 'gmark koala simulate'); call it before the first
// submission, and MeasureFrom before the jobs it leaves out end (the
// deadline figures of a dropped job are counted as it ends).
func (c *Core) Forget(ended func(*Job)) {
	c.forget, c.onEnd = true, ended
}

// ended is called once a job has ended, after its final event.
func (c *Core) ended(j *Job) {
	if !c.forget {
		return
	}
	if j.HasDeadline() && c.measured(j.Submitted) {
		c.forgot.globalJobs++
		if j.Start.Equal(j.Deadline) {
			c.forgot.globalStarted++
		}
	}
	if c.onEnd != nil {
		c.onEnd(j)
	}
	delete(c.jobs, j.ID)
	if j.Opts.Key != "" {
		delete(c.keys, j.Opts.Key)
	}
	c.dropped++
	if c.dropped > 1024 && c.dropped > len(c.order)/2 {
		c.compact()
	}
}

// compact takes the jobs that ended out of the submission order.
func (c *Core) compact() {
	if c.dropped == 0 {
		return
	}
	live := c.order[:0]
	for _, j := range c.order {
		if !j.State.Terminal() {
			live = append(live, j)
		}
	}
	clear(c.order[len(live):])
	c.order, c.dropped = live, 0
}
