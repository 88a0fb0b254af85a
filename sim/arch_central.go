package sim

import (
	"sort"

	"github.com/gmark/gmark/koala/placement"
)

func init() {
	register("central", func(cfg *Config) (Architecture, error) {
		if cfg.CentralModel == CentralCore {
			return newCentralCore(cfg)
		}
		p, err := placement.New(cfg.Placement, nil)
		return &central{policy: p, reserve: cfg.CentralReserve}, err
	})
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
	n := len(s.clusters)
	a.siteOf = make([]int, n)
	for i := range a.siteOf {
		a.siteOf[i] = i
	}
	sort.Slice(a.siteOf, func(x, y int) bool { return s.clusters[a.siteOf[x]].Name < s.clusters[a.siteOf[y]].Name })
	a.info.Sites = make([]placement.Site, n)
	for k, i := range a.siteOf {
		a.info.Sites[k] = placement.Site{Name: s.clusters[i].Name, Processors: s.clusters[i].Procs}
	}
	a.req.Components = make([]placement.Component, 1)
	return nil
}

func (a *central) Fits(j *Job) bool { return j.Procs <= a.s.maxProcs }

func (a *central) Arrive(j *Job) {
	a.s.bus.Send(NotifyBroker, 1)
	a.q.push(j)
	a.dispatch()
}

func (a *central) Ended(j *Job) {
	a.s.bus.Send(JobDataExchange, 1)
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
		c := s.clusters[a.siteOf[k]]
		a.q.pop()
		s.bus.Send(JobDataExchange, 1)
		s.Enqueue(c, j)
		a.res.sent(c.Index, j.Procs)
	}
}
