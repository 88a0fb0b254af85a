package sim

import (
	"slices"
	"time"
)

// hier: the hierarchical K-level meta-scheduler of the thesis's Ch. 7
// (Fig. 6.2, Sec. 7.2.1) with job routing: a scheduler at every site
// without processors, each with a FCFS queue, the clusters' local resource
// managers at the leaves; sibling links are not used (that is DMM's
// hybrid). A job arrives at its home cluster and starts there if the
// cluster's queue is empty and it fits now; otherwise it goes up to the
// parent's scheduler. A scheduler sends the job at the head of its queue
// down to a child whose part of the tree shows a cluster with room (as the
// information service shows it, less what it sent since, as central),
// chosen by the multi-level distribution policy (worst-fit, best-fit,
// round-robin or load, DGSim's four); a job no child can take goes up
// again, and waits at the root of its grid (FCFS) when none can.
//
// Messages per job: NotifyBroker (submitted), JobDataExchange per routing
// hop and one for the results; one NotifyBroker per cluster per report of
// the monitoring service.
type hier struct {
	hooks
	s       *Sim
	res     softReserve
	dist    string
	reserve bool       // soft reservations (ReserveSettings)
	q       []jobQueue // per node (sites only)
	rr      []int      // round-robin position per node
	sub     [][]int    // clusters below each node
	procs   []int      // processors below each node
	maxIn   []int      // largest cluster in each node's grid
}

// Distributions of hier, after DGSim's load-distribution policies.
var distributions = []string{"worst-fit", "best-fit", "round-robin", "load"}

// HierSettings are hier's.
type HierSettings struct {
	Distribution string `toml:"distribution"` // the multi-level distribution: worst-fit, best-fit, round-robin, load
}

// hierReads are the settings hier reads: its own and the routers'.
type hierReads struct {
	HierSettings
	ReserveSettings
}

// Default: worst-fit.
func (h *HierSettings) Default() { h.Distribution = "worst-fit" }

// Check: a distribution hier has.
func (h *HierSettings) Check() error {
	if !slices.Contains(distributions, h.Distribution) {
		return settingErr("distribution", "%q: use worst-fit, best-fit, round-robin or load", h.Distribution)
	}
	return nil
}

func init() {
	register("hier", func(set hierReads) (Architecture, error) {
		return &hier{dist: set.Distribution, reserve: set.CentralReserve}, nil
	}, func(_ *hierReads, e *EngineSettings) { e.InfoPeriod = 60 * time.Second })
}

func (a *hier) Name() string { return "hier" }

func (a *hier) Init(s *Sim) error {
	a.s = s
	s.UseInfo()
	a.res.init(s, a.reserve)
	n := len(s.Topology().Nodes)
	a.q = make([]jobQueue, n)
	a.rr = make([]int, n)
	a.sub = make([][]int, n)
	a.procs = make([]int, n)
	a.maxIn = make([]int, n)
	for i := range s.Topology().Nodes {
		a.sub[i] = s.Topology().Subtree(i)
		for _, c := range a.sub[i] {
			a.procs[i] += s.Clusters()[c].Procs
		}
	}
	for c := 0; c < s.Topology().Clusters; c++ {
		g := s.Topology().Nodes[c].Grid
		a.maxIn[g] = max(a.maxIn[g], s.Clusters()[c].Procs)
	}
	return nil
}

// Fits: a job runs in its own grid.
func (a *hier) Fits(j *Job) bool { return j.Procs <= a.maxIn[a.s.Topology().Nodes[j.Home].Grid] }

func (a *hier) Arrive(j *Job) {
	s := a.s
	s.Bus().Send(NotifyBroker, 1)
	c := s.Clusters()[j.Home]
	p := s.Topology().Nodes[j.Home].Parent
	if p < 0 || (c.Up && c.Queued() == 0 && c.Free >= j.Procs) {
		a.toCluster(c, j)
		return
	}
	a.up(p, j, false)
}

func (a *hier) Ended(j *Job) {
	a.s.Bus().Send(JobDataExchange, 1)
	if a.s.InfoLive() {
		a.dispatchAll()
	}
}

// Killed: the job's cluster failed; it goes to the front of its parent's
// queue (or back to its cluster's when the cluster stands alone).
func (a *hier) Killed(j *Job) {
	if p := a.s.Topology().Nodes[j.Home].Parent; p >= 0 {
		a.up(p, j, true)
		return
	}
	a.s.Requeue(a.s.Clusters()[j.Home], j)
}

func (a *hier) ClusterUp(*Cluster) {
	if a.s.InfoLive() {
		a.dispatchAll()
	}
}

func (a *hier) InfoChanged(c int) {
	a.res.settle(c)
	a.dispatchAll()
}

func (a *hier) dispatchAll() {
	for n := a.s.Topology().Clusters; n < len(a.q); n++ {
		if a.q[n].len() > 0 {
			a.dispatch(n)
		}
	}
}

// up hands j to node n's scheduler.
func (a *hier) up(n int, j *Job, front bool) {
	a.s.Bus().Send(JobDataExchange, 1)
	if front {
		a.q[n].pushFront(j)
	} else {
		a.q[n].push(j)
	}
	a.dispatch(n)
}

func (a *hier) toCluster(c *Cluster, j *Job) {
	a.s.Bus().Send(JobDataExchange, 1)
	a.s.Enqueue(c, j)
	a.res.sent(c.Index, j.Procs)
}

// dispatch routes the jobs of node n's queue, head first.
func (a *hier) dispatch(n int) {
	s := a.s
	parent := s.Topology().Nodes[n].Parent
	for a.q[n].len() > 0 {
		j := a.q[n].peek()
		child := a.choose(n, j)
		switch {
		case child >= 0:
			a.q[n].pop()
			if child < s.Topology().Clusters {
				a.toCluster(s.Clusters()[child], j)
			} else {
				a.up(child, j, false) // down, in fact: the same hand-over
			}
		case parent >= 0:
			a.q[n].pop()
			a.up(parent, j, false)
		default:
			return // the root waits (FCFS)
		}
	}
}

// best is the most idle processors of one cluster below node m, as
// believed, among clusters large enough for procs; -1 when none.
func (a *hier) best(m, procs int) int {
	b := -1
	for _, c := range a.sub[m] {
		if a.s.Clusters()[c].Procs >= procs {
			b = max(b, a.res.idle(c))
		}
	}
	return b
}

// choose is the child of n to send j to, by the distribution policy, or
// -1 when no child shows room for it.
func (a *hier) choose(n int, j *Job) int {
	kids := a.s.Topology().Nodes[n].Children
	pick, pickVal := -1, 0.0
	for k := range kids {
		m := kids[k]
		if a.dist == "round-robin" {
			m = kids[(a.rr[n]+k)%len(kids)]
		}
		idle := a.best(m, j.Procs)
		if idle < j.Procs {
			continue
		}
		var v float64
		switch a.dist {
		case "round-robin":
			a.rr[n] = (a.rr[n] + k + 1) % len(kids)
			return m
		case "worst-fit":
			v = float64(idle)
		case "best-fit":
			v = -float64(idle)
		case "load": // the least busy part of the tree, as believed
			free := 0
			for _, c := range a.sub[m] {
				free += a.res.idle(c)
			}
			v = float64(free) / float64(a.procs[m])
		}
		if pick < 0 || v > pickVal {
			pick, pickVal = m, v
		}
	}
	return pick
}
