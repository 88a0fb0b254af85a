package sim

import (
	"sort"

	"github.com/gmark/gmark/koala/placement"
)

// cern: centralized job pull (Table 8.1). Every job goes to one central
// queue; sites with idle processors pull jobs from it in arrival order: the
// head job goes to the site whose processors just became idle when it
// fits there, else to the next site (round robin) where it fits; when it
// fits nowhere the queue waits (FCFS without backfilling). Sites know
// their own state, so a pull costs no delay.
//
// Messages per job: NotifyBroker (to the central queue), Negotiate (the
// site's pull), JobDataExchange ×2.
type cern struct {
	hooks
	s  *Sim
	q  jobQueue
	rr int
}

func init() {
	register("cern", func(*Config) (Architecture, error) { return &cern{}, nil })
	register("central", func(cfg *Config) (Architecture, error) {
		if cfg.CentralModel == CentralCore {
			return newCentralCore(cfg)
		}
		p, err := placement.New(cfg.Placement, nil)
		return &central{policy: p, reserve: cfg.CentralReserve}, err
	})
}

func (a *cern) Name() string      { return "cern" }
func (a *cern) Init(s *Sim) error { a.s = s; return nil }
func (a *cern) Fits(j *Job) bool  { return j.Procs <= a.s.maxProcs }

func (a *cern) Arrive(j *Job) {
	a.s.bus.Send(NotifyBroker, 1)
	a.q.push(j)
	a.pull(-1)
}

func (a *cern) Ended(j *Job) {
	a.s.bus.Send(JobDataExchange, 1)
	a.pull(j.Cluster)
}

func (a *cern) Killed(j *Job)          { a.q.pushFront(j); a.pull(-1) }
func (a *cern) ClusterUp(c *Cluster)   { a.pull(c.Index) }
func (a *cern) ClusterDown(c *Cluster) {}

func (a *cern) pull(first int) {
	s := a.s
	n := len(s.clusters)
	for a.q.len() > 0 {
		j := a.q.peek()
		pick := -1
		if first >= 0 && s.clusters[first].Up && s.clusters[first].Free >= j.Procs {
			pick = first
		}
		for k := 0; pick < 0 && k < n; k++ {
			i := (a.rr + k) % n
			if c := s.clusters[i]; c.Up && c.Free >= j.Procs {
				pick = i
				a.rr = (i + 1) % n
			}
		}
		if pick < 0 {
			return
		}
		a.q.pop()
		s.bus.Send(Negotiate, 1)
		s.bus.Send(JobDataExchange, 1)
		s.Start(j, s.clusters[pick], false)
	}
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

// softReserve is what a job-routing scheduler believes of the clusters'
// idle processors: the information service's view, less (with
// reservations) the processors it sent to a cluster after the report it
// sees was taken.
type softReserve struct {
	s        *Sim
	on       bool
	reserved []int
	pending  [][]reservation
}

type reservation struct {
	ver   uint64
	procs int
}

func (r *softReserve) init(s *Sim, on bool) {
	r.s, r.on = s, on
	r.reserved = make([]int, len(s.clusters))
	r.pending = make([][]reservation, len(s.clusters))
}

// idle is cluster c's idle processors as the scheduler believes them.
func (r *softReserve) idle(c int) int {
	idle := r.s.Idle(c)
	if r.on && !r.s.InfoLive() {
		idle -= r.reserved[c]
	}
	return max(idle, 0)
}

// sent records a job of procs processors sent to cluster c just now.
func (r *softReserve) sent(c, procs int) {
	if !r.on || r.s.InfoLive() {
		return
	}
	r.s.version++ // the push itself is a change: a report taken before it does not show it
	r.reserved[c] += procs
	r.pending[c] = append(r.pending[c], reservation{r.s.version, procs})
}

// settle drops the reservations the visible reports of cluster c (-1: of
// every cluster) already reflect.
func (r *softReserve) settle(c int) {
	if c < 0 {
		for i := range r.pending {
			r.settle(i)
		}
		return
	}
	p, v := r.pending[c], r.s.ViewVersion(c)
	k := 0
	for k < len(p) && p[k].ver <= v {
		r.reserved[c] -= p[k].procs
		k++
	}
	r.pending[c] = p[k:]
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
