package sim

import (
	"slices"
	"time"
)

// Cluster is a cluster of identical processors with its local resource
// manager's queue (used by the architectures that route jobs to clusters:
// sep-c and central; the matchmaking ones start jobs on free processors
// themselves).
type Cluster struct {
	Index int
	Name  string
	Procs int
	Speed float64
	Free  int  // idle processors: not running a job, not held for a delegation, not down
	Held  int  // processors held for a delegation (DMM): granted, not yet running
	Up    bool // false while failed
	// Failed is the processors taken by partial failures (dynamics.go):
	// neither idle, held nor busy until their repair.
	Failed int
	easy   bool // FCFS+EASY backfilling instead of FCFS
	// conservative: FCFS with conservative backfilling (every queued job
	// has a reservation) instead of FCFS.
	conservative bool

	running []*Job
	queue   jobQueue
}

// Queued is the number of jobs in the local queue.
func (c *Cluster) Queued() int { return c.queue.len() }

// Running lists the jobs running on the cluster (the slice is the
// cluster's own: do not keep or change it).
func (c *Cluster) Running() []*Job { return c.running }

// jobQueue is a FIFO with a moving head, compacted when half of it is
// spent: O(1) amortized at both ends.
type jobQueue struct {
	a    []*Job
	head int
}

func (q *jobQueue) len() int      { return len(q.a) - q.head }
func (q *jobQueue) at(i int) *Job { return q.a[q.head+i] }
func (q *jobQueue) push(j *Job)   { q.a = append(q.a, j) }
func (q *jobQueue) items() []*Job { return q.a[q.head:] }
func (q *jobQueue) peek() *Job    { return q.a[q.head] }
func (q *jobQueue) pushFront(j *Job) {
	if q.head > 0 {
		q.head--
		q.a[q.head] = j
		return
	}
	q.a = slices.Insert(q.a, 0, j)
}

func (q *jobQueue) pop() *Job {
	j := q.a[q.head]
	q.a[q.head] = nil
	q.head++
	if q.head == len(q.a) {
		q.a, q.head = q.a[:0], 0
	} else if q.head > 32 && q.head > len(q.a)/2 {
		n := copy(q.a, q.a[q.head:])
		clear(q.a[n:])
		q.a, q.head = q.a[:n], 0
	}
	return j
}

// remove takes out the i-th job from the head.
func (q *jobQueue) remove(i int) *Job {
	if i == 0 {
		return q.pop()
	}
	k := q.head + i
	j := q.a[k]
	q.a = slices.Delete(q.a, k, k+1)
	return j
}

// Enqueue puts a job on a cluster's local queue and lets the local
// scheduler start what it can.
func (s *Sim) Enqueue(c *Cluster, j *Job) {
	c.queue.push(j)
	s.Dispatch(c)
}

// Requeue puts a job back at the head of a cluster's local queue (a job
// whose run was killed goes first, as it was the earliest).
func (s *Sim) Requeue(c *Cluster, j *Job) {
	c.queue.pushFront(j)
	s.Dispatch(c)
}

// Dispatch runs the cluster's local scheduler: FCFS without backfilling
// (the thesis's assumption 3), or FCFS with EASY or conservative
// backfilling.
func (s *Sim) Dispatch(c *Cluster) {
	if !c.Up {
		return
	}
	for c.queue.len() > 0 && c.queue.peek().Procs <= c.Free {
		s.Start(c.queue.pop(), c, false)
	}
	switch {
	case c.queue.len() < 2:
	case c.easy:
		s.backfill(c)
	case c.conservative:
		s.backfillConservative(c)
	}
}

// backfill is EASY: the head job gets a reservation at the earliest time
// enough processors are free (the shadow time, from the running jobs'
// estimated ends); a later job may start now if it fits and either ends
// by the shadow time or uses only processors the head will not need then
// (the extra ones). Estimates are the jobs' wall times, or their exact
// run times when they give none.
func (s *Sim) backfill(c *Cluster) {
	head := c.queue.peek()
	type end struct {
		at    time.Duration
		procs int
	}
	ends := make([]end, len(c.running))
	for i, r := range c.running {
		ends[i] = end{r.Start + s.estimate(r, c), r.Procs}
	}
	slices.SortFunc(ends, func(a, b end) int { return cmpDur(a.at, b.at) })
	free, shadow := c.Free, time.Duration(-1)
	for i, e := range ends {
		if free += e.procs; free >= head.Procs {
			shadow = e.at
			// Every job whose estimated end ties at the shadow time frees
			// its processors then too: they are all extra, not only the
			// ones of the job that made the head fit.
			for _, t := range ends[i+1:] {
				if t.at != shadow {
					break
				}
				free += t.procs
			}
			break
		}
	}
	if shadow < 0 {
		return // the head never fits (the cluster is partly down): nothing to protect
	}
	extra := free - head.Procs
	limit := s.sel.Eligible(c.queue.len())
	for i := 1; i < limit && i < c.queue.len() && c.Free > 0; i++ {
		j := c.queue.at(i)
		if j.Procs > c.Free {
			continue
		}
		endsBy := s.now+s.estimate(j, c) <= shadow
		if !endsBy && j.Procs > extra {
			continue
		}
		if !endsBy {
			extra -= j.Procs
		}
		s.Start(c.queue.remove(i), c, false)
		i--
		limit--
	}
}

func (s *Sim) estimate(j *Job, c *Cluster) time.Duration {
	if j.Est == j.Work {
		return j.RunTime(c.Speed)
	}
	return j.Est
}

func cmpDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// backfillConservative is conservative backfilling: every job of the
// eligible part of the queue, in queue order, gets a reservation at the
// earliest time enough processors are free for its whole estimated run,
// given the running jobs' estimated ends and the reservations of the jobs
// before it; a job whose reservation is now starts now. The reservations
// are worked out again at every dispatch, in queue order (no job's
// reservation is kept between dispatches), so a job never waits for one
// behind it: a backfilled job delays no job queued before it, where EASY
// protects only the head. A running job past its estimate is expected to
// end any moment (its processors are counted free from now on, but no job
// starts on them before it really ends). Cost: queue length × profile
// steps per dispatch.
func (s *Sim) backfillConservative(c *Cluster) {
	p := profile{{at: s.now, free: c.Free}}
	for _, r := range c.running {
		p.add(max(r.Start+s.estimate(r, c), s.now), r.Procs)
	}
	limit := s.sel.Eligible(c.queue.len())
	for i := 0; i < limit && i < c.queue.len(); i++ {
		j := c.queue.at(i)
		est := s.estimate(j, c)
		at, ok := p.earliest(j.Procs, est)
		if !ok {
			continue // it never fits (the cluster is partly down): no reservation
		}
		if at == s.now && j.Procs <= c.Free {
			p.reserve(at, est, j.Procs)
			s.Start(c.queue.remove(i), c, false)
			i--
			limit--
			continue
		}
		p.reserve(at, est, j.Procs)
	}
}

// profile is the processors free from each step's time on, by time (the
// first step is now).
type profile []step

type step struct {
	at   time.Duration
	free int
}

// split makes a step begin at t (t >= the first step's time) and returns
// its index.
func (p *profile) split(t time.Duration) int {
	a := *p
	i, found := slices.BinarySearchFunc(a, t, func(e step, t time.Duration) int { return cmpDur(e.at, t) })
	if found {
		return i
	}
	e := a[i-1]
	e.at = t
	*p = slices.Insert(a, i, e)
	return i
}

// add frees procs from t on.
func (p *profile) add(t time.Duration, procs int) {
	for i := p.split(t); i < len(*p); i++ {
		(*p)[i].free += procs
	}
}

// reserve takes procs over [at, at+d).
func (p *profile) reserve(at, d time.Duration, procs int) {
	i := p.split(at)
	end := p.split(at + d)
	for ; i < end; i++ {
		(*p)[i].free -= procs
	}
}

// earliest is the first step time from which procs are free for d.
func (p profile) earliest(procs int, d time.Duration) (time.Duration, bool) {
	for i := range p {
		if p[i].free < procs {
			continue
		}
		ok := true
		for k := i + 1; k < len(p) && p[k].at < p[i].at+d; k++ {
			if p[k].free < procs {
				ok = false
				break
			}
		}
		if ok {
			return p[i].at, true
		}
	}
	return 0, false
}
