// Package lrm emulates the local resource manager of one cluster: a fixed set
// of processors, a queue of local users' jobs scheduled first-come
// first-served (optionally with EASY backfilling), and no reservations. A grid
// scheduler's component is started only when enough processors are idle at
// the moment it is submitted ("claimed"): between placing a job and claiming
// its processors, a local job may take them. That is the atomic reservation
// problem KOALA's claiming policy works around.
//
// The cluster is a passive data structure: its methods take the current time
// and return what started, so the scheduler core decides when things end
// (emulated run times or real processes) and owns the clock.
package lrm

import (
	"fmt"
	"sort"
	"time"
)

// Kind tells local jobs from grid components.
type Kind int

const (
	Local Kind = iota // a local user's job (background load)
	Grid              // a component claimed by the grid scheduler
)

// Job is a job or component on the cluster.
type Job struct {
	ID      int64
	Kind    Kind
	Size    int           // processors
	Runtime time.Duration // expected run time, for backfilling
	Dummy   bool          // started by the background-load controller
	Owner   string        // grid components: the owning job and component
	Submit  time.Time
	Start   time.Time // zero while queued
}

// Scheduler is the local queue policy.
type Scheduler int

const (
	FCFS Scheduler = iota
	EASY
)

// ParseScheduler reads "fcfs" or "easy".
func ParseScheduler(s string) (Scheduler, error) {
	switch s {
	case "fcfs", "":
		return FCFS, nil
	case "easy":
		return EASY, nil
	}
	return 0, fmt.Errorf("unknown local scheduler %q (fcfs or easy)", s)
}

// Cluster is one emulated cluster.
type Cluster struct {
	Name      string
	Total     int
	Scheduler Scheduler

	busy     int
	external int // processors of a real controller's other jobs (SetExternal)
	down     bool
	running  map[int64]*Job
	queue    []*Job // local jobs waiting, in arrival order
	byKind   [2]int // busy processors by kind
}

// New returns an empty cluster.
func New(name string, processors int, s Scheduler) *Cluster {
	return &Cluster{Name: name, Total: processors, Scheduler: s, running: map[int64]*Job{}}
}

// Idle is the number of processors free now (0 when the cluster is down).
func (c *Cluster) Idle() int {
	if c.down {
		return 0
	}
	return c.Total - c.busy
}

// Busy is the number of processors in use by kind.
func (c *Cluster) Busy(k Kind) int { return c.byKind[k] }

// Down tells whether the cluster is out of service.
func (c *Cluster) Down() bool { return c.down }

// Queued lists the waiting local jobs, in order.
func (c *Cluster) Queued() []*Job { return c.queue }

// QueuedProcessors is the sum of the sizes of waiting local jobs.
func (c *Cluster) QueuedProcessors() int {
	n := 0
	for _, j := range c.queue {
		n += j.Size
	}
	return n
}

// Running returns the job with that ID, if it runs.
func (c *Cluster) Running(id int64) (*Job, bool) {
	j, ok := c.running[id]
	return j, ok
}

// RunningJobs lists running jobs of a kind, newest start first.
func (c *Cluster) RunningJobs(k Kind) []*Job {
	var out []*Job
	for _, j := range c.running {
		if j.Kind == k {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if !out[a].Start.Equal(out[b].Start) {
			return out[a].Start.After(out[b].Start)
		}
		return out[a].ID > out[b].ID
	})
	return out
}

func (c *Cluster) start(j *Job, now time.Time) {
	j.Start = now
	c.running[j.ID] = j
	c.busy += j.Size
	c.byKind[j.Kind] += j.Size
}

// SubmitLocal queues a local job and returns the local jobs that start now.
func (c *Cluster) SubmitLocal(j *Job, now time.Time) []*Job {
	j.Kind = Local
	j.Submit = now
	c.queue = append(c.queue, j)
	return c.schedule(now)
}

// Claim starts a grid component at once if enough processors are idle; it
// never queues (the grid scheduler only submits where it saw idle processors).
func (c *Cluster) Claim(j *Job, now time.Time) bool {
	if c.down || c.Idle() < j.Size {
		return false
	}
	j.Kind = Grid
	j.Submit = now
	c.start(j, now)
	return true
}

// End removes a running or queued job (it finished, or was killed or
// cancelled) and returns the local jobs that start in the processors it freed.
func (c *Cluster) End(id int64, now time.Time) (*Job, []*Job) {
	j := c.Release(id)
	if j == nil {
		return nil, nil
	}
	return j, c.schedule(now)
}

// Release removes a running or queued job without starting waiting jobs in
// its place; Schedule does that. The grid scheduler uses the pair when it
// pre-empts its own jobs to make room for a component it claims at once.
func (c *Cluster) Release(id int64) *Job {
	if j, ok := c.running[id]; ok {
		delete(c.running, id)
		c.busy -= j.Size
		c.byKind[j.Kind] -= j.Size
		return j
	}
	for i, j := range c.queue {
		if j.ID == id {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return j
		}
	}
	return nil
}

// Schedule starts the waiting local jobs that can start now.
func (c *Cluster) Schedule(now time.Time) []*Job { return c.schedule(now) }

// SetExternal sets the processors that jobs of others take on the real
// cluster this one mirrors (a grid cluster with lrm = "slurm": the
// controller runs its own queue, and the core keeps only what its
// components hold and what the controller says is busy). They count as
// local load (Busy(Local)), at most the processors the grid's components
// leave. It returns the value set.
func (c *Cluster) SetExternal(n int) int {
	c.busy -= c.external
	c.byKind[Local] -= c.external
	n = max(0, min(n, c.Total-c.busy))
	if c.down {
		n = 0
	}
	c.external = n
	c.busy += n
	c.byKind[Local] += n
	return n
}

// External is the processors last set by SetExternal.
func (c *Cluster) External() int { return c.external }

// SetDown takes the cluster out of service: every running and queued job is
// killed and returned. A down cluster accepts local jobs into its queue but
// starts nothing.
func (c *Cluster) SetDown() []*Job {
	c.down = true
	var killed []*Job
	for _, j := range c.running {
		killed = append(killed, j)
	}
	sort.Slice(killed, func(a, b int) bool { return killed[a].ID < killed[b].ID })
	killed = append(killed, c.queue...)
	c.running = map[int64]*Job{}
	c.queue = nil
	c.busy, c.byKind, c.external = 0, [2]int{}, 0
	return killed
}

// SetUp brings the cluster back.
func (c *Cluster) SetUp(now time.Time) []*Job {
	c.down = false
	return c.schedule(now)
}

// schedule starts waiting local jobs: first come first served, and with EASY
// backfilling later jobs that do not delay the first one's reserved start.
func (c *Cluster) schedule(now time.Time) []*Job {
	if c.down {
		return nil
	}
	var started []*Job
	for len(c.queue) > 0 && c.queue[0].Size <= c.Idle() {
		j := c.queue[0]
		c.queue = c.queue[1:]
		c.start(j, now)
		started = append(started, j)
	}
	if c.Scheduler != EASY || len(c.queue) < 2 {
		return started
	}
	shadow, extra := c.shadow(c.queue[0], now)
	for i := 1; i < len(c.queue); {
		j := c.queue[i]
		fitsNow := j.Size <= c.Idle()
		endsInTime := !now.Add(j.Runtime).After(shadow)
		if fitsNow && (endsInTime || j.Size <= extra) {
			if !endsInTime {
				extra -= j.Size
			}
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			c.start(j, now)
			started = append(started, j)
			continue
		}
		i++
	}
	return started
}

// shadow is the time the head job can start, given the expected ends of the
// running jobs, and the processors to spare at that time.
func (c *Cluster) shadow(head *Job, now time.Time) (time.Time, int) {
	ends := make([]*Job, 0, len(c.running))
	for _, j := range c.running {
		ends = append(ends, j)
	}
	end := func(j *Job) time.Time {
		t := j.Start.Add(j.Runtime)
		if t.Before(now) {
			return now // overdue: expected to end any moment
		}
		return t
	}
	sort.Slice(ends, func(a, b int) bool {
		ea, eb := end(ends[a]), end(ends[b])
		if !ea.Equal(eb) {
			return ea.Before(eb)
		}
		return ends[a].ID < ends[b].ID
	})
	free := c.Idle()
	for i, j := range ends {
		free += j.Size
		if free >= head.Size {
			// The jobs expected to end at the same time free their
			// processors then too: they are spare as well.
			shadow := end(j)
			for _, o := range ends[i+1:] {
				if !end(o).Equal(shadow) {
					break
				}
				free += o.Size
			}
			return shadow, free - head.Size
		}
	}
	return now, 0 // cannot happen for a job no larger than the cluster
}
