package sim

import (
	"sort"
	"time"

	"github.com/gmark/gmark/koala/grid"

	"github.com/gmark/gmark/koala/placement"
)

// CentralSettings are central's: its placement policy, and what central
// is. CentralModel "" or "placement" is DGSim's koala plug-in (the
// default); "core" is the bundled core (koala/core: what 'gmark koala
// simulate' runs). CoreGrid is the core's grid (its scheduler settings,
// background and local load; its clusters must be the topology's; an
// experiment file names its file); nil builds one from the topology with
// Placement as its policy. Core hands in a core made by the caller
// instead. The Core settings are the core model's over its grid's
// (docs/deadlines.md): the deadline policy (rpp, wait-X), L_p, global or
// local priority, every cluster's local load U_l (a fraction; its other
// local settings as the grid gives them, else the defaults), the paper's
// two open readings (gp_kill, waitx_first_try of the grid's [scheduler]),
// and how long the local workloads run before the run's time 0 (the
// grid's [scheduler] local_warmup: the core starts that much earlier, and
// its deadline figures count from time 0). Zero values leave the grid's.
type CentralSettings struct {
	Placement            string        `toml:"placement"` // the placement policy (koala/placement): WF, CF, CM, FCM
	CentralModel         string        `toml:"central_model" sim:"own"`
	CoreGrid             *grid.Grid    `toml:"core_grid" sim:"own"`
	Core                 *CoreModel    `json:"-" sim:"own"`
	CoreDeadlinePolicy   string        `toml:"deadline_policy" sim:"own"`
	CoreDeadlineL        float64       `toml:"deadline_l" sim:"own"`
	CoreDeadlinePriority string        `toml:"deadline_priority" sim:"own"`
	CoreLocalLoad        float64       `toml:"local_load" sim:"own"`
	CoreGPKill           string        `toml:"gp_kill" sim:"own"`
	CoreWaitXFirstTry    string        `toml:"waitx_first_try" sim:"own"`
	CoreLocalWarmup      time.Duration `toml:"local_warmup" sim:"own"`
}

// Default: Worst-Fit, DGSim's plug-in.
func (c *CentralSettings) Default() { *c = CentralSettings{Placement: placement.WorstFit} }

// UsesCoreSettings tells whether the settings set anything of the core
// model: a grid or one of the core's settings.
func (c *CentralSettings) UsesCoreSettings() bool {
	return c.CoreGrid != nil || c.CoreDeadlinePolicy != "" || c.CoreDeadlineL != 0 || c.CoreDeadlinePriority != "" || c.CoreLocalLoad != 0 ||
		c.CoreLocalWarmup != 0 || c.CoreGPKill != "" || c.CoreWaitXFirstTry != ""
}

// Settle: a core setting implies the core model; the two readings go into
// the grid's [scheduler] when there is a grid (its JSON, in the run's
// digest, leaves out the readings grids had before the settings existed,
// so a run under them keeps its earlier digest).
func (c *CentralSettings) Settle() {
	if c.UsesCoreSettings() {
		c.CentralModel = CentralCore
	}
	if c.CoreGrid != nil && (c.CoreGPKill != "" || c.CoreWaitXFirstTry != "") && c.checkReadings() == nil {
		g := *c.CoreGrid
		if c.CoreGPKill != "" {
			g.Scheduler.GPKill = c.CoreGPKill
		}
		if c.CoreWaitXFirstTry != "" {
			g.Scheduler.WaitXFirstTry = c.CoreWaitXFirstTry
		}
		c.CoreGrid, c.CoreGPKill, c.CoreWaitXFirstTry = &g, "", ""
	}
}

// checkReadings checks the core's two open readings.
func (c *CentralSettings) checkReadings() error {
	for _, r := range []struct{ key, v, a, b string }{
		{"gp_kill", c.CoreGPKill, grid.GPKillAtDeadline, grid.GPKillEveryTry},
		{"waitx_first_try", c.CoreWaitXFirstTry, grid.WaitXRestart, grid.WaitXSkip},
	} {
		if r.v != "" && r.v != r.a && r.v != r.b {
			return settingErr(r.key, "%q: use %q or %q", r.v, r.a, r.b)
		}
	}
	return nil
}

// Check: a known policy and model; the core's settings with the core
// model only.
func (c *CentralSettings) Check() error {
	if _, ok := placement.Lookup(c.Placement); !ok {
		_, err := placement.New(c.Placement, nil)
		return settingErr("placement", "%q: %v", c.Placement, err)
	}
	if err := c.checkReadings(); err != nil {
		return err
	}
	switch c.CentralModel {
	case "", CentralPlacement, CentralCore:
	default:
		return settingErr("central_model", "%q: use %q or %q", c.CentralModel, CentralPlacement, CentralCore)
	}
	if (c.Core != nil || c.UsesCoreSettings()) && c.CentralModel != CentralCore {
		return settingErr("central_model", "%q: a core's grid and settings are for the core model (%q)", c.CentralModel, CentralCore)
	}
	return nil
}

// centralReads are the settings central reads: its own and the routers'.
type centralReads struct {
	CentralSettings
	ReserveSettings
}

func init() {
	register("central", func(set centralReads) (Architecture, error) {
		if set.CentralModel == CentralCore {
			return newCentralCore(set.CentralSettings)
		}
		p, err := placement.New(set.Placement, nil)
		return &central{policy: p, reserve: set.CentralReserve}, err
	}, func(_ *centralReads, e *EngineSettings) { e.InfoPeriod = 60 * time.Second })
}

// central: centralized job routing, the koala plug-in of DGSim (Table 8.1).
// Every job goes to one central queue; the head job is placed by a KOALA
// placement policy (Worst-Fit by default) on what the information service
// shows, and sent to that cluster's queue; when no cluster shows room the
// queue waits (FCFS). With CentralReserve, processors sent to a cluster
// count against its idle ones until a report taken after the job was sent
// is visible (KOALA's soft reservation).
//
// Messages per job: NotifyBroker (to the central queue), JobDataExchange
// ×2 (sent to the cluster, results back); per report of the monitoring
// service one NotifyBroker per cluster.
type central struct {
	hooks
	s       *Sim
	q       jobQueue
	policy  placement.Policy
	reserve bool
	res     softReserve
	info    placement.Info
	req     placement.Request
	siteOf  []int // info.Sites[k] is cluster siteOf[k]
}

func (a *central) Name() string { return "central" }

func (a *central) Init(s *Sim) error {
	a.s = s
	s.UseInfo()
	a.res.init(s, a.reserve)
	n := len(s.Clusters())
	a.siteOf = make([]int, n)
	for i := range a.siteOf {
		a.siteOf[i] = i
	}
	sort.Slice(a.siteOf, func(x, y int) bool { return s.Clusters()[a.siteOf[x]].Name < s.Clusters()[a.siteOf[y]].Name })
	a.info.Sites = make([]placement.Site, n)
	for k, i := range a.siteOf {
		a.info.Sites[k] = placement.Site{Name: s.Clusters()[i].Name, Processors: s.Clusters()[i].Procs}
	}
	a.req.Components = make([]placement.Component, 1)
	return nil
}

func (a *central) Fits(j *Job) bool { return j.Procs <= a.s.MaxProcs() }

func (a *central) Arrive(j *Job) {
	a.s.Bus().Send(NotifyBroker, 1)
	a.q.push(j)
	a.dispatch()
}

func (a *central) Ended(j *Job) {
	a.s.Bus().Send(JobDataExchange, 1)
	if a.s.InfoLive() {
		a.dispatch()
	}
}

func (a *central) Killed(j *Job) { a.q.pushFront(j); a.dispatch() }

func (a *central) ClusterUp(c *Cluster) {
	if a.s.InfoLive() {
		a.dispatch()
	}
}

func (a *central) InfoChanged(c int) {
	a.res.settle(c)
	a.dispatch()
}

func (a *central) dispatch() {
	s := a.s
	for a.q.len() > 0 {
		j := a.q.peek()
		most := 0
		for k, i := range a.siteOf {
			idle := a.res.idle(i)
			a.info.Sites[k].Idle = idle
			most = max(most, idle)
		}
		if most < j.Procs {
			return
		}
		a.req.Components[0] = placement.Component{Size: j.Procs}
		res, fail := a.policy.Place(&a.req, &a.info)
		if fail != nil || len(res.Assignments) != 1 {
			return
		}
		k := sort.Search(len(a.info.Sites), func(k int) bool { return a.info.Sites[k].Name >= res.Assignments[0].Site })
		c := s.Clusters()[a.siteOf[k]]
		a.q.pop()
		s.Bus().Send(JobDataExchange, 1)
		s.Enqueue(c, j)
		a.res.sent(c.Index, j.Procs)
	}
}
