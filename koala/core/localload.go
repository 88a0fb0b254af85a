package core

import (
	"math/rand/v2"
	"time"

	"github.com/gmark/gmark/koala/lrm"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/stats"
)

// Local users' workloads ([cluster.local] in the grid): each cluster's own
// stream of local jobs, Poisson arrivals with sizes and exponential run
// times, that go to its local queue like any local job. Their draws come
// from the grid's seed, one stream per cluster (stats.NewStream(seed,
// index, "local:NAME")), apart from the core's other draws (background
// band, failures), so that adding a local workload to one cluster changes
// nothing else.

// localLoad is one cluster's local workload generator.
type localLoad struct {
	cl    *cluster
	r     *rand.Rand
	size  *stats.Choice
	min   int
	mean  time.Duration // of the inter-arrival times
	runMu time.Duration // mean run time
}

// startLocalLoad schedules the first arrival of a cluster's local
// workload, its time drawn from from.
func (c *Core) startLocalLoad(i int, cl *cluster, from time.Time) {
	l := cl.cfg.Local
	g := &localLoad{cl: cl, r: stats.NewStream(c.grid.Scheduler.Seed, i, "local:"+cl.cfg.Name), min: l.Size[0],
		mean: l.MeanInterarrival(cl.cfg.Processors), runMu: l.Runtime.Duration}
	var w []float64
	if l.SizeDist == "uniform" {
		for s := l.Size[0]; s <= l.Size[1]; s++ {
			w = append(w, 1)
		}
	} else {
		w = stats.RSDWeights(l.Size[0], l.Size[1], l.RSDQ)
	}
	g.size, _ = stats.NewChoice(w) // checked with the grid: at least one size, weights > 0
	c.localFirst = append(c.localFirst, c.at(from.Add(g.gap()), func() { c.localArrival(g) }))
}

// startLocalLoads starts every cluster's local workload at from.
func (c *Core) startLocalLoads(from time.Time) {
	c.localFrom, c.localFirst = from, nil
	for i, cl := range c.clusters {
		if cl.cfg.Local.Enabled() {
			c.startLocalLoad(i, cl, from)
		}
	}
}

// gap draws the time to the next arrival.
func (g *localLoad) gap() time.Duration { return scaled(g.mean, g.r.ExpFloat64()) }

// localArrival submits one local job and schedules the next arrival. A
// cluster out of service still takes local jobs into its queue.
func (c *Core) localArrival(g *localLoad) {
	c.localArrived = true
	c.at(c.now.Add(g.gap()), func() { c.localArrival(g) })
	size := g.min + g.size.Pick(g.r)
	rt := max(scaled(g.runMu, g.r.ExpFloat64()), time.Millisecond)
	c.submitLocal(g.cl, size, rt)
}

// submitLocal puts a local user's job (not a dummy of the background band)
// on a cluster's queue, counting it.
func (c *Core) submitLocal(cl *cluster, size int, runtime time.Duration) {
	c.nextLRM++
	c.account(cl)
	if c.measured(c.now) {
		c.local.submitted++
	}
	c.localStarted(cl, cl.lrm.SubmitLocal(&lrm.Job{ID: c.nextLRM, Size: size, Runtime: runtime}, c.now))
}

// measured tells whether t lies in the measured period (MeasureFrom).
func (c *Core) measured(t time.Time) bool { return !t.Before(c.measureMark) }

// localStats count the local users' jobs submitted in the measured period
// (the background band's dummies are load, not users' jobs: only their
// kills are counted, apart), and what killing local jobs cost.
type localStats struct {
	submitted, finished, killed int
	response                    time.Duration // sum over the finished
	killedDummies               int           // by global jobs, in the measured period
	lost                        float64       // processor-seconds of every local job killed in the period
}

// ended counts a local job that finished.
func (s *localStats) ended(lj *lrm.Job, now time.Time, counted bool) {
	if counted {
		s.finished++
		s.response += now.Sub(lj.Submit)
	}
}

// killedJob counts a local job killed for a global job.
func (s *localStats) killedJob(dummy, counted, now bool, lost float64) {
	switch {
	case dummy && now:
		s.killedDummies++
	case !dummy && counted:
		s.killed++
	}
	if now {
		s.lost += lost
	}
}

// Deadlines sums up the measured period (MeasureFrom) as Ballier et al.
// do: of the jobs with a start deadline submitted in it, those started at
// it; of the local users' jobs submitted in it, the killed ones and the
// response time of the finished ones; the use of the processors by class.
func (c *Core) Deadlines() record.CoreDeadlines {
	s := record.CoreDeadlines{LocalJobs: c.local.submitted, LocalFinished: c.local.finished, LocalKilled: c.local.killed,
		KilledDummies: c.local.killedDummies, LostProcessorS: c.local.lost}
	s.GlobalJobs, s.GlobalStarted = c.forgot.globalJobs, c.forgot.globalStarted // the jobs dropped after Forget
	for _, j := range c.order {
		if !j.HasDeadline() || !c.measured(j.Submitted) || c.forget && j.State.Terminal() {
			continue
		}
		s.GlobalJobs++
		if j.Start.Equal(j.Deadline) {
			s.GlobalStarted++
		}
	}
	if s.GlobalJobs > 0 {
		s.GlobalSuccess = float64(s.GlobalStarted) / float64(s.GlobalJobs)
	}
	if n := s.LocalFinished + s.LocalKilled; n > 0 {
		s.LocalKillRate = float64(s.LocalKilled) / float64(n)
	}
	if s.LocalFinished > 0 {
		s.LocalResponseS = c.local.response.Seconds() / float64(s.LocalFinished)
	}
	u := c.Utilization()
	s.Seconds = u.Seconds
	s.TotalUtil, s.LocalUtil, s.GlobalUtil, s.WastedUtil = u.Total, u.Background, u.Grid, u.Wasted
	s.WastedProcessorS = u.Wasted * float64(c.grid.TotalProcessors()) * u.Seconds
	return s
}
