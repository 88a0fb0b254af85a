package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gmark/gmark/sim/dynamics"
	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/stats"
)

// The generated dynamics of a run (package sim/dynamics): failures of
// groups of processors after the thesis's model, and clusters joining over
// time. The engine holds one pending dynamics event on its heap and draws
// the next when it handles it, plus the repairs of the failures in force:
// memory does not grow with the run's length.
//
// A failure takes k processors of a cluster for a while: each of the k is
// drawn uniformly among the cluster's processors that are up and not held
// for a delegation (idle or running a job), one after the other, from the
// run's "sim/failure-hits" stream; a job with a processor hit is killed
// (restarted and its run wasted, as under a whole-cluster outage) and its
// other processors become idle. The repair brings back exactly the
// processors the failure took. Clusters that join are in the grown topology
// from the start, down, and come up at their join time (ClusterUp).

// The failure models of Config.Failures, and the growth models of
// Config.Growth.
const (
	FailuresNone   = "none"
	FailuresThesis = "thesis"
	GrowthNone     = "none"
	GrowthThesis   = "thesis"
)

// DynamicsSettings are the generated dynamics' (docs/sim.md); the zero
// values mean none.
type DynamicsSettings struct {
	Failures          string        `toml:"failures"`             // "" or "none", or "thesis": the thesis's failure model (Sec. 4.3.1)
	FailureScale      float64       `toml:"failure_scale"`        // multiplies the failure rate (0: 1)
	Growth            string        `toml:"growth"`               // "" or "none", or "thesis": clusters join at GrowthPerYear (default 20%, thesis Ch. 7)
	GrowthPerYear     float64       `toml:"growth_per_year"`      // clusters added, compounded yearly (0: none, or 0.2 with Growth "thesis")
	GrowthSizePerYear *float64      `toml:"growth_size_per_year"` // new clusters' size growth a year (nil: dynamics.DefaultSizePerYear)
	GrowthSpan        time.Duration `toml:"growth_span"`          // how long clusters keep joining (0: a year)
}

// dynState is the engine's side of the dynamics.
type dynState struct {
	src     *dynamics.Stream
	hits    *rand.Rand
	present int             // clusters there from the start: homes are drawn among them
	joinAt  []time.Duration // per cluster
}

// growthOf is the run's topology: top, grown when the Config asks for
// growth.
func growthOf(cfg *Config, top *topology.Topology) (*dynamics.Joined, error) {
	g := dynamics.Growth{PerYear: cfg.GrowthPerYear, SizePerYear: dynamics.DefaultSizePerYear, Span: cfg.GrowthSpan}
	if cfg.Growth == GrowthThesis && g.PerYear == 0 {
		g.PerYear = dynamics.DefaultPerYear
	}
	if cfg.GrowthSizePerYear != nil {
		g.SizePerYear = *cfg.GrowthSizePerYear
	}
	if g.Span == 0 {
		g.Span = dynamics.DefaultSpan
	}
	j, err := dynamics.Grow(top, g, cfg.Seed)
	if err != nil {
		return nil, &SettingError{Key: "growth_per_year", Msg: err.Error()}
	}
	return j, nil
}

// Check: the dynamics' settings.
func (d *DynamicsSettings) Check() error {
	switch d.Failures {
	case "", FailuresNone, FailuresThesis:
	default:
		return settingErr("failures", "%q: use %q or %q", d.Failures, FailuresNone, FailuresThesis)
	}
	switch d.Growth {
	case "", GrowthNone, GrowthThesis:
	default:
		return settingErr("growth", "%q: use %q or %q", d.Growth, GrowthNone, GrowthThesis)
	}
	switch {
	case !(d.FailureScale >= 0 && d.FailureScale <= dynamics.MaxScale):
		return settingErr("failure_scale", "= %g is out of range: must be in [0, %g] (0: the model's rate)", d.FailureScale, dynamics.MaxScale)
	case !(d.GrowthPerYear >= 0 && d.GrowthPerYear <= dynamics.MaxPerYear):
		return settingErr("growth_per_year", "= %g is out of range: must be in [0, %g]", d.GrowthPerYear, dynamics.MaxPerYear)
	case d.GrowthSizePerYear != nil && !(*d.GrowthSizePerYear >= 0 && *d.GrowthSizePerYear <= dynamics.MaxPerYear):
		return settingErr("growth_size_per_year", "= %g is out of range: must be in [0, %g]", *d.GrowthSizePerYear, dynamics.MaxPerYear)
	case d.GrowthSpan < 0 || d.GrowthSpan > MaxHorizon:
		return settingErr("growth_span", "= %v is out of range: must be in [0, %v]", d.GrowthSpan, MaxHorizon)
	}
	return nil
}

// Default: no generated dynamics.
func (d *DynamicsSettings) Default() { *d = DynamicsSettings{} }

// startDynamics marks the clusters that join later as down and absent,
// keeps the homes of jobs among the present clusters, and schedules the
// first dynamics event.
func (s *Sim) startDynamics(j *dynamics.Joined) {
	d := &s.dyn
	d.present, d.joinAt = j.Present, j.At
	if j.Present < len(s.clusters) {
		s.allClusters = s.allClusters[:j.Present]
		for i := range s.top.Nodes {
			if i >= s.top.Clusters {
				s.subtrees[i] = slices.DeleteFunc(s.top.Subtree(i), func(c int) bool { return c >= j.Present })
			}
		}
		for _, c := range s.clusters[j.Present:] {
			c.Up, c.Free = false, 0
			s.downs[c.Index]++
		}
	}
	var m *dynamics.FailureModel
	if s.cfg.Failures == FailuresThesis {
		fm := dynamics.Thesis()
		if s.cfg.FailureScale > 0 {
			fm.Scale = s.cfg.FailureScale
		}
		m = &fm
	}
	if m == nil && j.Present == len(s.clusters) {
		return
	}
	d.src = dynamics.NewStream(j, m, s.cfg.Seed)
	d.hits = stats.NewStream(s.cfg.Seed, 0, "sim/failure-hits")
	s.nextDynamics()
}

func (s *Sim) nextDynamics() {
	e, ok := s.dyn.src.Next()
	if !ok {
		return
	}
	s.push(event{at: e.At, kind: evDyn, code: uint8(e.Kind), a: int32(e.Cluster), n: int64(e.Procs), v: uint64(e.For)})
}

// dynEvent handles a dynamics event (evDyn) or a repair (evRepair).
func (s *Sim) dynEvent(ev *event) {
	c := s.clusters[ev.a]
	if ev.kind == evRepair {
		s.repair(c, int(ev.n))
		return
	}
	switch dynamics.Kind(ev.code) {
	case dynamics.Join:
		s.up(c)
	case dynamics.Failure:
		if n := s.fail(c, int(ev.n)); n > 0 {
			s.push(event{at: s.now + time.Duration(ev.v), kind: evRepair, a: ev.a, n: int64(n)})
		}
	}
	s.nextDynamics()
}

// fail takes up to k processors of c (those up and not held), drawn one
// by one; it returns how many it took.
func (s *Sim) fail(c *Cluster, k int) int {
	busy := 0
	for _, j := range c.running {
		busy += j.Procs
	}
	var killed []*Job
	n := 0
	for ; n < k && c.Free+busy > 0; n++ {
		x := s.dyn.hits.IntN(c.Free + busy)
		c.Failed++
		if x < c.Free {
			c.Free--
			continue
		}
		x -= c.Free
		for _, j := range c.running {
			if x -= j.Procs; x < 0 {
				s.stop(j)
				busy -= j.Procs
				c.Free += j.Procs - 1
				killed = append(killed, j)
				break
			}
		}
	}
	if n == 0 {
		return 0
	}
	s.changed(c)
	for _, j := range killed {
		s.arch.Killed(j)
	}
	return n
}

// repairer is an architecture that acts when failed processors of a
// cluster that stayed up come back (the matchmaking ones see them at
// their next cycle).
type repairer interface{ Repaired(c *Cluster) }

func (s *Sim) repair(c *Cluster, n int) {
	c.Failed -= n
	if !c.Up {
		return // up() gives the cluster its processors that are not failed
	}
	c.Free += n
	s.changed(c)
	if r, ok := s.arch.(repairer); ok {
		r.Repaired(c)
	}
	s.Dispatch(c)
}

func (a *cern) Repaired(c *Cluster)    { a.ClusterUp(c) }
func (a *central) Repaired(c *Cluster) { a.ClusterUp(c) }
func (a *hier) Repaired(c *Cluster)    { a.ClusterUp(c) }

// capacity is the processors of the clusters there by end, and the
// processor-time they offered from their join to end (the utilization's
// denominator; failures are not taken off, as for outages).
func (s *Sim) capacity(end time.Duration) (int, float64) {
	if len(s.dyn.joinAt) == 0 || s.dyn.present == len(s.clusters) {
		p := s.top.Processors()
		return p, float64(p) * sec(end)
	}
	procs, avail := 0, 0.0
	for i, c := range s.clusters {
		if at := s.dyn.joinAt[i]; at <= end {
			procs += c.Procs
			avail += float64(c.Procs) * sec(end-at)
		}
	}
	return procs, math.Max(avail, 0)
}
