package core

import (
	"time"

	"github.com/gmark/gmark/koala/lrm"
	"github.com/gmark/gmark/record"
)

// accounting integrates a cluster's processor use over time, by kind:
// processor-seconds of background (local) jobs, of executing grid components,
// of claimed components waiting for their start time (wasted, PWT), and of
// processors placed on but not yet claimed (gained, PGT). It is updated just
// before every change of those levels.
type accounting struct {
	last        time.Time
	sampleStart time.Time
	sample      areas // since sampleStart
	total       areas // since the start
	mark        areas // total at the measurement mark
	upSeconds   float64
	sampleUp    float64
}

type areas struct{ background, grid, wasted, gained float64 }

func (a *areas) add(dt float64, bg, grid, wasted, gained int) {
	a.background += dt * float64(bg)
	a.grid += dt * float64(grid)
	a.wasted += dt * float64(wasted)
	a.gained += dt * float64(gained)
}

// account brings a cluster's integrals up to now.
func (c *Core) account(cl *cluster) {
	dt := c.now.Sub(cl.acct.last).Seconds()
	if dt <= 0 {
		return
	}
	bg := cl.lrm.Busy(lrm.Local)
	cl.acct.sample.add(dt, bg, cl.running, cl.held, cl.soft)
	cl.acct.total.add(dt, bg, cl.running, cl.held, cl.soft)
	if cl.disabled == "" {
		cl.acct.upSeconds += dt
		cl.acct.sampleUp += dt
	}
	cl.acct.last = c.now
}

// sampleTick emits every cluster's utilization over the last sample period.
func (c *Core) sampleTick() {
	c.at(c.now.Add(c.cfg.UtilizationSample.Duration), c.sampleTick)
	for _, cl := range c.clusters {
		c.account(cl)
		period := c.now.Sub(cl.acct.sampleStart).Seconds()
		if period <= 0 {
			continue
		}
		capacity := period * float64(cl.cfg.Processors)
		s := cl.acct.sample
		c.emit(Event{Kind: EvUtilization, Cluster: cl.cfg.Name, Util: &Utilization{
			Background: s.background / capacity, Grid: s.grid / capacity, Wasted: s.wasted / capacity,
			Gained: s.gained / capacity, Up: cl.disabled == ""}})
		cl.acct.sample, cl.acct.sampleUp, cl.acct.sampleStart = areas{}, 0, c.now
	}
}

// UtilizationSummary is the grid's processor use since the core started, as
// fractions of its capacity.
type UtilizationSummary struct {
	// The grid's, as a run records it (the processors in use, Total, and
	// the four series summed, Stacked).
	record.CoreUtilization
	Clusters map[string]Utilization `json:"clusters"`
}

// MeasureFrom sets the start of the period Utilization reports on (by
// default the core's start): a run can leave out a warm-up.
func (c *Core) MeasureFrom(t time.Time) {
	c.measureMark = t
	c.at(t, func() {
		for _, cl := range c.clusters {
			c.account(cl)
			cl.acct.mark = cl.acct.total
		}
		c.measureFrom = c.now
	})
}

// Utilization reports use over the measured period, up to now.
func (c *Core) Utilization() UtilizationSummary {
	from := c.start
	if !c.measureFrom.IsZero() {
		from = c.measureFrom
	}
	sum := UtilizationSummary{CoreUtilization: record.CoreUtilization{Seconds: c.now.Sub(from).Seconds()}, Clusters: map[string]Utilization{}}
	var all areas
	capacity := 0.0
	for _, cl := range c.clusters {
		c.account(cl)
		t := cl.acct.total
		m := cl.acct.mark
		t = areas{t.background - m.background, t.grid - m.grid, t.wasted - m.wasted, t.gained - m.gained}
		cc := sum.Seconds * float64(cl.cfg.Processors)
		if cc > 0 {
			sum.Clusters[cl.cfg.Name] = Utilization{Background: t.background / cc, Grid: t.grid / cc,
				Wasted: t.wasted / cc, Gained: t.gained / cc, Up: cl.disabled == ""}
		}
		all.background += t.background
		all.grid += t.grid
		all.wasted += t.wasted
		all.gained += t.gained
		capacity += cc
	}
	if capacity > 0 {
		sum.Background, sum.Grid = all.background/capacity, all.grid/capacity
		sum.Wasted, sum.Gained = all.wasted/capacity, all.gained/capacity
		sum.Total = sum.Background + sum.Grid + sum.Wasted
		sum.Stacked = sum.Total + sum.Gained
	}
	return sum
}
