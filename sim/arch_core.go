package sim

import (
	"fmt"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/sim/topology"
)

// The central architecture in its "core" model is the bundled core itself
// (koala/core, the scheduler of 'gmark koala serve'): its placement queues,
// policies (WF, CF, CM, FCM), co-allocation across clusters, claiming,
// deadlines (RPP, Wait-X), background and local load, restarts, all of it,
// driven by this engine's event heap instead of a loop of its own. It is
// what 'gmark koala simulate' runs: one simulator, not two.
//
// The core keeps its own clusters (emulated local resource managers); the
// engine's clusters stand idle, and the engine only accounts for the jobs
// (HostedStart, HostedEnd). A job's processors are the sum of its
// components; where it ran (for the goodput split) is its first
// component's cluster.
//
// Messages per job: NotifyBroker (the submission), MatchClaimRelease per
// claim try, JobDataExchange ×2 (sent, results back). The core reads its
// clusters' idle counts directly (KOALA's information service with
// info_cache), so there are no per-report messages.

// Central models (Config.CentralModel).
const (
	CentralPlacement = "placement" // DGSim's koala plug-in: FCFS queue, placement on the information service's view (the default, "")
	CentralCore      = "core"      // the bundled core (koala/core)
)

// CoreModel hands the central architecture a core made by the caller, who
// reads the core's own figures afterwards ('gmark koala simulate'). Create
// the core with the model as (part of) its event sink: the architecture
// learns of starts and ends from the core's events.
type CoreModel struct {
	Core    *core.Core
	Origin  time.Time    // the core time of the run's time 0 (the core may have started before: a warm-up)
	Options core.Options // of every job
	// Refused is told of every job the core refused at submission.
	Refused func(jobID string, err error)

	arch *centralCore
}

// Event implements core.Sink.
func (m *CoreModel) Event(e *core.Event) {
	if m.arch != nil {
		m.arch.event(e)
	}
}

// Takes implements core.KindFilter: the architecture follows submissions,
// claim tries, starts and ends; the core does not build the other events
// (placement tries, nearly all of a saturated grid's) for it alone.
func (m *CoreModel) Takes(kind core.EventKind) bool { return followed(kind) }

// followed tells whether the architecture follows events of a kind.
func followed(kind core.EventKind) bool {
	switch kind {
	case core.EvSubmitted, core.EvClaimTry, core.EvStarted, core.EvComponentStart, core.EvFinished, core.EvFailed, core.EvCancelled:
		return true
	}
	return false
}

// GridFor is the grid of a core over a topology's clusters: their sizes,
// speeds and local schedulers, with the scheduler settings of sched (nil:
// the defaults) and the placement policy given.
func GridFor(top *topology.Topology, sched *grid.Scheduler, policy string, seed uint64) (*grid.Grid, error) {
	g := &grid.Grid{Name: top.Name}
	if sched != nil {
		g.Scheduler = *sched
	}
	if policy != "" {
		g.Scheduler.Policy = policy
	}
	g.Scheduler.Seed = seed
	for i := 0; i < top.Clusters; i++ {
		n := &top.Nodes[i]
		g.Clusters = append(g.Clusters, grid.Cluster{Name: n.Name, Processors: n.Processors, Speed: n.Speed, LocalScheduler: n.Scheduler})
	}
	if err := g.Check(); err != nil {
		return nil, fmt.Errorf("the core's grid for topology %s: %v", top.Name, err)
	}
	return g, nil
}

// TopologyOf is the topology of a core's grid: one grid (the root, named
// after the grid) whose clusters are its sites.
func TopologyOf(g *grid.Grid) (*topology.Topology, error) {
	root := g.Name
	if root == "" {
		root = "grid"
	}
	spec := &topology.Spec{Name: root, Sites: []topology.SiteSpec{{Name: root}}}
	for _, c := range g.Clusters {
		speed := c.Speed
		if speed == 0 {
			speed = 1
		}
		spec.Clusters = append(spec.Clusters, topology.ClusterSpec{Name: c.Name, Parent: root, Processors: c.Processors, Speed: &speed})
	}
	return topology.Build(spec)
}

type centralCore struct {
	hooks
	s       *Sim
	set     CentralSettings
	m       *CoreModel
	k       *core.Core
	jobs    map[string]*Job // core id → job, while in the core
	pending *Job            // the job being submitted: its first event names its core id
	arrived time.Duration   // the time of the last arrival, -1 before the first
	wakeGen int64
	wakeAt  time.Duration // the pending wake-up; -1 for none
}

func newCentralCore(set CentralSettings) (Architecture, error) {
	m := set.Core
	if m == nil {
		m = &CoreModel{}
	}
	a := &centralCore{set: set, m: m, jobs: map[string]*Job{}, arrived: -1, wakeAt: -1}
	m.arch = a
	return a, nil
}

func (a *centralCore) Name() string { return "central" }

func (a *centralCore) Init(s *Sim) error {
	a.s = s
	if a.m.Core == nil { // a core of the run's own, over the topology
		g, err := a.ownGrid()
		if err != nil {
			return err
		}
		// The core starts the grid's local_warmup before the run's time 0,
		// so that the local queues have filled when the first job comes;
		// its figures count from time 0.
		a.m.Origin = CoreOrigin
		warmup := g.Scheduler.LocalWarmup.Duration
		if a.m.Core, err = core.New(g, CoreOrigin.Add(-warmup), a.m, nil); err != nil {
			return err
		}
		if warmup > 0 {
			a.m.Core.MeasureFrom(CoreOrigin)
		}
		// Nothing reads the jobs once they end (the run's figures are the
		// engine's, and the core's deadline figures are kept as they end):
		// the core holds only the queued and running ones.
		a.m.Core.Forget(nil)
	}
	a.k = a.m.Core
	a.k.Advance(a.m.Origin)
	a.wake()
	return nil
}

// ownGrid is the grid of a core the architecture makes: the Config's
// (with the run's seed, not the file's, so that repetitions draw their
// background and local load afresh) or one over the topology, with the
// Config's core settings over it.
func (a *centralCore) ownGrid() (*grid.Grid, error) {
	s := a.s
	g := a.set.CoreGrid
	if g == nil {
		var err error
		if g, err = GridFor(s.Topology(), nil, a.set.Placement, s.Seed()); err != nil {
			return nil, err
		}
	} else {
		if err := sameClusters(g, s.Topology()); err != nil {
			return nil, err
		}
		own := *g
		own.Scheduler.Seed = s.Seed()
		g = &own
	}
	return coreSettings(g, &a.set)
}

// CoreOrigin is where the clock of a simulated core starts (a core the
// architecture makes, and coresim.Start): simulated runs stand
// apart from real ones.
var CoreOrigin = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// sameClusters checks that a grid given with a topology describes its
// clusters.
func sameClusters(g *grid.Grid, top *topology.Topology) error {
	if len(g.Clusters) != top.Clusters {
		return settingErr("core_grid", "(the core's grid) has %d clusters, the topology %s %d", len(g.Clusters), top.Name, top.Clusters)
	}
	for _, c := range g.Clusters {
		i, ok := top.Index(c.Name)
		if !ok || i >= top.Clusters {
			return settingErr("core_grid", "(the core's grid): cluster %s is not a cluster of the topology %s", c.Name, top.Name)
		}
		if n := top.Nodes[i].Processors; n != c.Processors {
			return settingErr("core_grid", "(the core's grid): cluster %s has %d processors in the core's grid and %d in the topology %s", c.Name, c.Processors, n, top.Name)
		}
	}
	return nil
}

// Fits: the core decides at submission (a job it refuses is rejected).
func (a *centralCore) Fits(*Job) bool { return true }

func (a *centralCore) Arrive(j *Job) {
	// Before the first of the arrivals at a time, the core's own events
	// due then (as its own loop did: timers first, then every arrival).
	if j.Submit != a.arrived {
		a.k.Advance(a.m.Origin.Add(j.Submit))
		a.arrived = j.Submit
	}
	a.s.Bus().Send(NotifyBroker, 1)
	a.pending = j
	cj, err := a.k.Submit(*a.s.Workload(), a.m.Options)
	a.pending = nil
	if err != nil {
		if a.m.Refused != nil {
			a.m.Refused(j.ID, err)
		}
		a.s.Refuse(j)
	} else if cj.State.Terminal() {
		delete(a.jobs, cj.ID) // failed as it was submitted (a deadline already past): ended by its events
	}
	a.wake()
}

// Ended and Killed: the core runs its jobs itself.
func (a *centralCore) Ended(*Job)  {}
func (a *centralCore) Killed(*Job) {}

const evCoreWake uint8 = 1

func (a *centralCore) Event(code uint8, _ int32, _ *Job, n int64) {
	if code != evCoreWake || n != a.wakeGen {
		return
	}
	a.wakeAt = -1
	a.k.Advance(a.m.Origin.Add(a.s.Now()))
	a.wake()
}

// wake makes sure the engine wakes the core at its next event.
func (a *centralCore) wake() {
	t, ok := a.k.NextEvent()
	if !ok {
		return
	}
	at := max(t.Sub(a.m.Origin), a.s.Now())
	if a.wakeAt >= 0 && a.wakeAt <= at {
		return
	}
	a.wakeGen++
	a.wakeAt = at
	a.s.Schedule(at, evCoreWake, 0, nil, a.wakeGen)
}

// Stop: a run cut at the horizon leaves the core there, as its own loop
// did (a job still running is cancelled at that time by whoever records
// it).
func (a *centralCore) Stop(end time.Duration, cut bool) {
	if cut {
		a.k.Advance(a.m.Origin.Add(end))
	}
}

// event follows the core's events of its jobs.
func (a *centralCore) event(e *core.Event) {
	if !followed(e.Kind) {
		return
	}
	if e.Kind == core.EvSubmitted && a.pending != nil {
		// A job's events may end it inside Submit, before Submit returns
		// its id: its first event binds it.
		a.jobs[e.Job] = a.pending
		a.pending = nil
	}
	j, ok := a.jobs[e.Job]
	if !ok {
		return
	}
	s := a.s
	switch e.Kind {
	case core.EvClaimTry:
		s.Bus().Send(MatchClaimRelease, 1)
	case core.EvStarted:
		s.HostedStart(j, e.Time.Sub(a.m.Origin))
	case core.EvComponentStart:
		if e.Component == 0 {
			if i, ok := s.Topology().Index(e.Cluster); ok {
				j.Cluster = i
			}
		}
	case core.EvFinished, core.EvFailed, core.EvCancelled:
		if j.state == jobRunning {
			s.Bus().Send(JobDataExchange, 2)
		}
		s.HostedEnd(j, e.Kind == core.EvFinished, e.Time.Sub(a.m.Origin))
		delete(a.jobs, e.Job)
	}
}

// deadlines is the core's deadline summary when there is one to give.
func (a *centralCore) deadlines() *record.CoreDeadlines {
	if d := a.k.Deadlines(); d.GlobalJobs > 0 || d.LocalJobs > 0 {
		return &d
	}
	return nil
}

// coreSettings applies the Config's core settings to a copy of the grid,
// one at a time, each checked by the grid's own rules (the error names the
// setting's key).
func coreSettings(g *grid.Grid, cfg *CentralSettings) (*grid.Grid, error) {
	own := *g
	own.Clusters = append([]grid.Cluster(nil), g.Clusters...)
	sc := &own.Scheduler
	for _, set := range []struct {
		key   string
		on    bool
		apply func()
	}{
		{"deadline_policy", cfg.CoreDeadlinePolicy != "", func() { sc.DeadlinePolicy = cfg.CoreDeadlinePolicy }},
		{"deadline_l", cfg.CoreDeadlineL != 0, func() { l := cfg.CoreDeadlineL; sc.DeadlineL = &l }},
		{"deadline_priority", cfg.CoreDeadlinePriority != "", func() { sc.DeadlinePriority = cfg.CoreDeadlinePriority }},
		{"local_warmup", cfg.CoreLocalWarmup != 0, func() { sc.LocalWarmup = grid.Duration{Duration: cfg.CoreLocalWarmup} }},
		{"gp_kill", cfg.CoreGPKill != "", func() { sc.GPKill = cfg.CoreGPKill }},
		{"waitx_first_try", cfg.CoreWaitXFirstTry != "", func() { sc.WaitXFirstTry = cfg.CoreWaitXFirstTry }},
		{"local_load", cfg.CoreLocalLoad != 0, func() {
			for i := range own.Clusters {
				own.Clusters[i].Local.Load = cfg.CoreLocalLoad
				own.Clusters[i].Local.Interarrival = grid.Duration{}
			}
		}},
	} {
		if !set.on {
			continue
		}
		set.apply()
		if err := own.Check(); err != nil {
			return nil, &SettingError{Key: set.key, Msg: fmt.Sprintf("%s: %v", set.key, err)}
		}
	}
	return &own, nil
}
