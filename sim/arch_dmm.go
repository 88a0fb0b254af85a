package sim

import (
	"math"
	"slices"
	"time"

	"github.com/gmark/gmark/sim/topology"
)

// dmm: Delegated MatchMaking on the hybrid hierarchical-distributed
// architecture (thesis Ch. 8, Sec. 8.3). Every node of the topology has a
// site manager (SM); a cluster's SM owns its processors, a site without
// processors only passes requests on. A job is a resource request at its
// home SM.
//
//   - Delegation cycle (every DelegationPeriod, at cluster SMs): when the
//     SM's load (processors in use + processors asked by the requests
//     waiting there, over its processors) exceeds the threshold, it
//     delegates waiting requests, in the delegation order, until the load
//     is back at or under the threshold; a request larger than the cluster
//     is delegated whatever the load. A target is a neighbour (child,
//     sibling, parent) not on the request's chain, not failed, not a
//     cluster too small for it, not one that rejected the request within
//     SeenMemory (or in this pass), and where the status it advertises says
//     the request could start: a cluster's spare processors (idle as the
//     information service shows them, less the demand waiting there, plus
//     the room a threshold above 1 leaves), or for a site without
//     processors the best spare of the clusters reached through it; the
//     targets are ranked by the target order.
//   - What a site knows of its targets (DMMInformation): with "local"
//     information (the default; Sec. 8.3.2: "the site schedulers base
//     their decision only on local information") a neighbour that is a
//     cluster is seen through its last report (the information service),
//     and one without processors reports nothing: it is a target of
//     unknown room, offered the request after the neighbours whose reports
//     show room. With "global" information a neighbour without processors
//     shows the best spare of the clusters reachable through it, and is a
//     target only when that spare could take the request.
//   - A cluster's SM takes a delegated request when its load stays at or
//     under the threshold with it. Otherwise, with DMMPassOn (the
//     default), it delegates the request on to its own targets at once,
//     within the DTTL, and rejects it back when none takes it ("an SM may
//     not find suitable resources, both locally or through delegation");
//     without it, it rejects it at once (DelegationReject: "wrongly
//     targeted loaded sites reject delegations quickly"). The sender then
//     offers it to its next target. A site
//     without processors holds nothing: its load is infinite as soon as a
//     request reaches it, so it delegates at once, to its own targets, and
//     rejects the request back when none takes it. Each delegation costs
//     one DTTL; a request with DTTL 0 is not delegated. A cluster's SM
//     whose load later exceeds the threshold delegates the requests of
//     others it holds like its own, and rejects back those it cannot place.
//   - Matchmaking cycle (every MatchPeriod, at cluster SMs): first the
//     processors delegated to this SM start their jobs (claim, local
//     match); then the waiting requests, in the local dispatch order, are
//     matched to idle processors: a local request starts its job, a
//     delegated one gets the processors held for it and granted back along
//     the chain to its home SM, which uses them at its next matchmaking
//     cycle.
//   - Leases: a running job renews its lease with a KeepAlive every
//     KeepAlivePeriod (counted by the engine). Job managers never fail; a
//     failed cluster takes its processors and its SM down. Processors
//     granted to a failed home SM are not claimed; their lease expires
//     LeaseTerm after the grant and they return to their owner.
//
// Messages: NotifyBroker (job submitted; each SM's resource state per
// matchmaking cycle), Negotiate (per matchmaking cycle, one per job
// manager with waiting jobs), MatchClaimRelease ×3 and JobDataExchange ×2
// per run, KeepAlive; DMM: one per delegation, one per rejection, one per
// hop of a grant back along the chain and one per hop of the release.
type dmm struct {
	hooks
	set      dmmReads
	s        *Sim
	sms      []*dsm
	dispatch Dispatch
	dorder   DelegationOrder
	torder   TargetOrder
	thr      float64
	local    bool     // DMMInformation "local"
	passOn   bool     // DMMPassOn
	targets  []Target // scratch
	cand     []*dreq  // scratch
	sent     []int    // processors sent to each site without processors in the current pass
	sentTo   []int
}

// dsm is a site manager of DMM.
type dsm struct {
	node    int
	c       *Cluster // nil for a site without processors
	procs   int
	queue   []*dreq
	queued  int // processors asked by queue
	bundles []*bundle
	users   userCount
	neigh   []int
	group   []int   // of each neighbour: 0 child, 1 sibling, 2 parent
	region  [][]int // of each neighbour: the clusters reachable through it without coming back here
}

// dreq is a resource request: a job's, on its way along a delegation
// chain.
type dreq struct {
	j     *Job
	path  []int // home SM first, current SM last
	dttl  int
	tried []triedAt
	b     *bundle // processors granted for it, not yet claimed
	gone  bool    // left the queue during a pass
}

type triedAt struct {
	node int
	at   time.Duration
}

// bundle is processors held on a cluster for a request delegated there.
type bundle struct {
	r       *dreq
	src     *Cluster
	sink    int
	granted time.Duration
	gen     uint32
}

// DMMSettings are dmm's.
type DMMSettings struct {
	// DelegationPeriod is the delegation cycle (60 s; the thesis says only
	// "shorter than 300 s").
	DelegationPeriod time.Duration `toml:"delegation_period"`
	Threshold        float64       `toml:"threshold"`        // the delegation threshold (1.0)
	DTTL             int           `toml:"dttl"`             // the delegation time-to-live (5)
	SeenMemory       time.Duration `toml:"seen_memory"`      // how long a site that rejected a request is not asked again (1 h)
	DelegationOrder  string        `toml:"delegation_order"` // fcfs, lifo, largest, smallest
	TargetOrder      string        `toml:"target_order"`     // keep-local, most-free, best-fit, fixed

	// DMMInformation is what a DMM site manager knows when it ranks its
	// targets: "local" (the thesis's Sec. 8.3.2, "the site schedulers base
	// their decision only on local information"; dmm's default) — its own
	// cluster and the last reports of its directly connected clusters, and
	// of an administrative neighbour only that it is there — or "global"
	// (""): the room of every cluster reachable through an administrative
	// neighbour, as the information service shows it. DMMPassOn: a loaded
	// cluster SM offered a request it cannot take delegates it further
	// (within the DTTL) before it rejects it (Sec. 8.3.2: "an SM may not
	// find suitable resources, both locally or through delegation"; dmm's
	// default); without it, it rejects it at once. The zero values are the
	// readings gmark had before these settings, so a Config without them
	// has the JSON (an experiment run's digest) it had.
	DMMInformation string `toml:"dmm_information" sim:"own"`
	DMMPassOn      bool   `toml:"dmm_pass_on" sim:"own"`
}

// The readings of DMMInformation.
const (
	DMMLocal  = "local"
	DMMGlobal = "global"
)

// The documented ranges of dmm's settings (docs/sim.md).
const (
	MaxDTTL      = 64
	MaxThreshold = 100.0
)

// Default: the thesis's.
func (d *DMMSettings) Default() {
	*d = DMMSettings{DelegationPeriod: 60 * time.Second, Threshold: 1.0, DTTL: 5, SeenMemory: time.Hour,
		DelegationOrder: "fcfs", TargetOrder: "keep-local"}
}

// Settle: "global" is the zero reading (the runs made before the setting
// existed keep their digests).
func (d *DMMSettings) Settle() {
	if d.DMMInformation == DMMGlobal {
		d.DMMInformation = ""
	}
}

// Check: dmm's settings.
func (d *DMMSettings) Check() error {
	if err := checkPeriod("delegation_period", d.DelegationPeriod, false); err != nil {
		return err
	}
	if err := checkPeriod("seen_memory", d.SeenMemory, true); err != nil {
		return err
	}
	switch {
	case !(d.Threshold > 0 && d.Threshold <= MaxThreshold) || math.IsNaN(d.Threshold):
		return settingErr("threshold", "= %g is out of range: must be in (0, %g]", d.Threshold, MaxThreshold)
	case d.DTTL < 0 || d.DTTL > MaxDTTL:
		return settingErr("dttl", "= %d is out of range: must be in [0, %d]", d.DTTL, MaxDTTL)
	}
	switch d.DMMInformation {
	case "", DMMLocal, DMMGlobal:
	default:
		return settingErr("dmm_information", "%q: use %q or %q", d.DMMInformation, DMMLocal, DMMGlobal)
	}
	if _, err := NewDelegationOrder(d.DelegationOrder); err != nil {
		return &SettingError{Key: "delegation_order", Msg: err.Error()}
	}
	if _, err := NewTargetOrder(d.TargetOrder); err != nil {
		return &SettingError{Key: "target_order", Msg: err.Error()}
	}
	return nil
}

// dmmReads are the settings dmm reads: the matchmakers' and its own.
type dmmReads struct {
	MatchSettings
	DMMSettings
}

func init() {
	register("dmm", func(set dmmReads) (Architecture, error) {
		d, err := NewDispatch(set.Dispatch)
		if err != nil {
			return nil, err
		}
		do, err := NewDelegationOrder(set.DelegationOrder)
		if err != nil {
			return nil, err
		}
		to, err := NewTargetOrder(set.TargetOrder)
		return &dmm{set: set, dispatch: d, dorder: do, torder: to, thr: set.Threshold,
			local: set.DMMInformation == DMMLocal, passOn: set.DMMPassOn}, err
	}, func(set *dmmReads, _ *EngineSettings) {
		set.Dispatch = "fcfs-bypass"
		set.DMMInformation, set.DMMPassOn = DMMLocal, true
	})
}

func (a *dmm) Name() string { return "dmm" }

func (a *dmm) Init(s *Sim) error {
	a.s = s
	top := s.Topology()
	a.sms = make([]*dsm, len(top.Nodes))
	a.sent = make([]int, len(top.Nodes))
	for i := range top.Nodes {
		n := &top.Nodes[i]
		sm := &dsm{node: i, neigh: top.Neighbours(i)}
		for _, nb := range sm.neigh {
			if !a.local { // local information does not look past a neighbour
				sm.region = append(sm.region, reachable(top, nb, i))
			}
			g := 1
			switch {
			case top.Nodes[nb].Parent == i:
				g = 0
			case nb == n.Parent:
				g = 2
			}
			sm.group = append(sm.group, g)
		}
		if i < top.Clusters {
			sm.c, sm.procs = s.Clusters()[i], s.Clusters()[i].Procs
		}
		a.sms[i] = sm
	}
	s.CountKeepAlives()
	s.UseInfo()
	startCycles(s, codeMatch, a.set.MatchPeriod, top.Clusters)
	startCycles(s, codeDelegate, a.set.DelegationPeriod, top.Clusters)
	return nil
}

func (a *dmm) Fits(j *Job) bool { return j.Procs <= a.s.MaxProcs() }

func (a *dmm) Arrive(j *Job) {
	a.s.Bus().Send(NotifyBroker, 1)
	a.home(j)
}

// home queues a fresh request for j at its home SM.
func (a *dmm) home(j *Job) {
	r := &dreq{j: j, path: []int{j.Home}, dttl: a.set.DTTL}
	j.X = r
	sm := a.sms[j.Home]
	sm.users.add(j.JM, 1)
	a.enqueue(sm, r)
}

func (a *dmm) enqueue(sm *dsm, r *dreq) {
	sm.queue = append(sm.queue, r)
	sm.queued += r.j.Procs
}

func (a *dmm) Ended(j *Job) {
	s := a.s
	s.Bus().Send(DMM, int64(j.Chain)) // the release, back along the chain
	s.Bus().Send(MatchClaimRelease, 1)
	s.Bus().Send(JobDataExchange, 1)
}

// Killed: the cluster the job ran on failed; it starts over at home.
func (a *dmm) Killed(j *Job) { a.home(j) }

func (a *dmm) Event(code uint8, i int32, j *Job, n int64) {
	s := a.s
	switch code {
	case codeMatch:
		s.Schedule(s.Now()+a.set.MatchPeriod, codeMatch, i, nil, 0)
		if sm := a.sms[i]; sm.c.Up {
			a.match(sm)
		}
	case codeDelegate:
		s.Schedule(s.Now()+a.set.DelegationPeriod, codeDelegate, i, nil, 0)
		if sm := a.sms[i]; sm.c.Up {
			a.delegatePass(sm)
		}
	case codeLease:
		if r := j.X.(*dreq); r.b != nil && r.b.gen == uint32(n) {
			a.expire(r.b)
		}
	}
}

// match is a matchmaking cycle of a cluster's SM.
func (a *dmm) match(x *dsm) {
	s := a.s
	s.Bus().Send(NotifyBroker, 1)
	s.Bus().Send(Negotiate, int64(x.users.n))
	for _, b := range x.bundles {
		r := b.r
		b.gen++
		r.b = nil
		r.j.Chain = len(r.path) - 1
		x.users.add(r.j.JM, -1)
		startMatched(s, r.j, b.src, true)
	}
	clear(x.bundles)
	x.bundles = x.bundles[:0]
	c := x.c
	limit := s.Selection().Eligible(len(x.queue))
	blocking, stopped := a.dispatch.Blocking(), false
	w := 0
	for k, r := range x.queue {
		if stopped || k >= limit || r.j.Procs > c.Free {
			stopped = stopped || (blocking && k < limit)
			x.queue[w] = r
			w++
			continue
		}
		x.queued -= r.j.Procs
		if r.path[0] == x.node {
			r.j.Chain = 0
			x.users.add(r.j.JM, -1)
			startMatched(s, r.j, c, false)
		} else {
			a.grant(x, r)
		}
	}
	clear(x.queue[w:])
	x.queue = x.queue[:w]
}

// grant holds processors of x's cluster for a delegated request and gives
// them to its home SM, back along the chain.
func (a *dmm) grant(x *dsm, r *dreq) {
	s := a.s
	c := x.c
	c.Free -= r.j.Procs
	c.Held += r.j.Procs
	s.Changed(c)
	sink := a.sms[r.path[0]]
	b := &bundle{r: r, src: c, sink: sink.node, granted: s.Now()}
	r.b = b
	sink.bundles = append(sink.bundles, b)
	s.Bus().Send(DMM, int64(len(r.path)-1))
	if !sink.c.Up {
		a.leaseTimer(b)
	}
}

func (a *dmm) leaseTimer(b *bundle) {
	s := a.s
	s.Schedule(max(b.granted+s.LeaseTerm(), s.Now()), codeLease, int32(b.sink), b.r.j, int64(b.gen))
}

// expire returns the processors of an unclaimed grant to their owner; the
// request starts over at home.
func (a *dmm) expire(b *bundle) {
	s := a.s
	sink := a.sms[b.sink]
	if k := slices.Index(sink.bundles, b); k >= 0 {
		sink.bundles = slices.Delete(sink.bundles, k, k+1)
	}
	b.r.b = nil
	if src := b.src; src.Up {
		src.Held -= b.r.j.Procs
		src.Free += b.r.j.Procs
		s.Changed(src)
	}
	s.LeaseExpired()
	r := b.r
	r.path, r.dttl, r.tried = r.path[:1], a.set.DTTL, nil
	a.enqueue(sink, r)
}

// over tells whether a cluster SM's load, with extra processors more
// asked, exceeds the threshold.
func (a *dmm) over(y *dsm, extra int) bool {
	return float64(y.procs-y.c.Free+y.queued+extra) > a.thr*float64(y.procs)
}

// delegatePass is a delegation cycle of a cluster's SM.
func (a *dmm) delegatePass(y *dsm) {
	if len(y.queue) == 0 {
		return
	}
	oversize := false
	for _, r := range y.queue {
		if r.j.Procs > y.procs {
			oversize = true
			break
		}
	}
	if !oversize && !a.over(y, 0) {
		return
	}
	a.cand = append(a.cand[:0], y.queue...)
	slices.SortStableFunc(a.cand, func(p, q *dreq) int { return a.dorder.Compare(p.j, q.j) })
	for _, r := range a.cand {
		if !a.over(y, 0) && r.j.Procs <= y.procs {
			continue
		}
		if a.place(y, r) {
			r.gone = true
			y.queued -= r.j.Procs
		} else if r.path[0] != y.node {
			r.gone = true
			y.queued -= r.j.Procs
			a.reject(r)
		}
	}
	for _, n := range a.sentTo {
		a.sent[n] = 0
	}
	a.sentTo = a.sentTo[:0]
	a.compact(y)
}

// compact drops from y's queue the requests that left it.
func (a *dmm) compact(y *dsm) {
	w := 0
	for _, r := range y.queue {
		if !r.gone {
			y.queue[w] = r
			w++
		}
		r.gone = false
	}
	clear(y.queue[w:])
	y.queue = y.queue[:w]
}

// place offers r, held at y, to y's targets in order until one takes it:
// one delegation attempt when there is a target to offer it to.
func (a *dmm) place(y *dsm, r *dreq) bool {
	for first := true; r.dttl > 0; first = false {
		t := a.target(y, r)
		if t < 0 {
			return false
		}
		if first {
			a.s.CountAttempt()
		}
		if a.offer(t, r) {
			return true
		}
		r.tried = append(r.tried, triedAt{t, a.s.Now()})
	}
	return false
}

// offer delegates r to t (one DMM message): a cluster's SM takes it, or
// (loaded) passes it on to its own targets at once with DMMPassOn, or
// rejects it; a site without processors passes it on to its own targets
// at once; either rejects it back when none takes it. It reports whether
// r was taken somewhere.
func (a *dmm) offer(t int, r *dreq) bool {
	s := a.s
	s.Bus().Send(DMM, 1)
	s.CountOffer()
	ts := a.sms[t]
	r.path = append(r.path, t)
	r.dttl--
	taken := false
	if ts.procs > 0 {
		if taken = !a.over(ts, r.j.Procs); taken {
			a.enqueue(ts, r)
		} else if a.passOn {
			taken = a.place(ts, r)
		}
	} else {
		if a.sent[t] == 0 {
			a.sentTo = append(a.sentTo, t)
		}
		a.sent[t] += r.j.Procs
		taken = a.place(ts, r)
		a.sent[t] -= r.j.Procs
	}
	if taken {
		s.Delegated(r.j)
		return true
	}
	s.Bus().Send(DMM, 1) // DelegationReject
	r.path = r.path[:len(r.path)-1]
	r.dttl++
	return false
}

// target is the best neighbour of y to delegate r to, or -1: a cluster
// whose report (its spare, as the information service shows it) could
// take r; a site without processors unconditionally under local
// information, by the best spare reachable through it under global.
func (a *dmm) target(y *dsm, r *dreq) int {
	s := a.s
	a.targets = a.targets[:0]
	for k, nb := range y.neigh {
		if slices.Contains(r.path, nb) || a.triedRecently(r, nb) {
			continue
		}
		var free int
		if nb < s.Topology().Clusters {
			c := s.Clusters()[nb]
			if !c.Up || c.Procs < r.j.Procs {
				continue
			}
			free = a.spare(nb)
		} else if a.local {
			// It reports no room of its own, and what lies beyond it is
			// not known here.
			a.targets = append(a.targets, Target{Node: nb, Group: y.group[k], Pos: k, Free: UnknownFree})
			continue
		} else {
			free = UnknownFree
			for _, c := range y.region[k] {
				if !slices.Contains(r.path, c) {
					free = max(free, a.spare(c))
				}
			}
			free -= a.sent[nb]
		}
		if free < r.j.Procs {
			continue // nothing there could take it now
		}
		a.targets = append(a.targets, Target{Node: nb, Group: y.group[k], Pos: k, Free: free})
	}
	if len(a.targets) == 0 {
		return -1
	}
	a.torder.Order(a.targets, r.j.Procs)
	return a.targets[0].Node
}

// reachable lists the clusters reachable from node from without passing
// through node not, in index order: the region a site reaches through a
// neighbour. (Memory: one list per link end, at most the clusters each.)
func reachable(top *topology.Topology, from, not int) []int {
	seen := make([]bool, len(top.Nodes))
	seen[not], seen[from] = true, true
	stack := []int{from}
	var out []int
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n < top.Clusters {
			out = append(out, n)
		}
		for _, m := range top.Neighbours(n) {
			if !seen[m] {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// spare is the room a cluster's SM advertises for delegated requests:
// its idle processors as the information service shows them, less the
// processors asked by the requests waiting at it, plus, with a threshold
// above 1, the room the threshold leaves beyond its processors (it takes
// a request while its load with it stays at or under the threshold: see
// over). With a threshold below 1 a target is still offered what it could
// start now, and rejects it when the threshold says so: the rejections
// are the DMM messages a low threshold costs (the thesis's Fig. 8.11b).
func (a *dmm) spare(c int) int {
	sm := a.sms[c]
	return int(math.Floor(max(a.thr, 1)*float64(sm.procs))) - sm.procs + a.s.Idle(c) - sm.queued
}

// triedRecently: t rejected r in this pass, or within SeenMemory.
func (a *dmm) triedRecently(r *dreq, node int) bool {
	now := a.s.Now()
	for _, t := range r.tried {
		if t.node == node && (t.at == now || now-t.at < a.set.SeenMemory) {
			return true
		}
	}
	return false
}

// reject sends r back along its chain (DelegationReject) to the last
// cluster SM before the current one that is up, or to its home SM.
func (a *dmm) reject(r *dreq) {
	s := a.s
	for {
		r.tried = append(r.tried, triedAt{r.path[len(r.path)-1], s.Now()})
		r.path = r.path[:len(r.path)-1]
		r.dttl++
		s.Bus().Send(DMM, 1)
		prev := a.sms[r.path[len(r.path)-1]]
		if len(r.path) == 1 || (prev.c != nil && prev.c.Up) {
			a.enqueue(prev, r)
			return
		}
	}
}

// ClusterDown: the SM of the failed cluster rejects the requests delegated
// to it; what it held for others is lost (those requests start over at
// home); what others granted to it will not be claimed until it returns.
func (a *dmm) ClusterDown(c *Cluster) {
	x := a.sms[c.Index]
	for _, r := range x.queue {
		if r.path[0] != x.node {
			r.gone = true
			x.queued -= r.j.Procs
			a.reject(r)
		}
	}
	a.compact(x)
	for _, sm := range a.sms {
		kept := sm.bundles[:0]
		for _, b := range sm.bundles {
			if b.src != c {
				kept = append(kept, b)
				continue
			}
			b.r.b = nil
			r := b.r
			r.path, r.dttl, r.tried = r.path[:1], a.set.DTTL, nil
			a.enqueue(sm, r)
		}
		clear(sm.bundles[len(kept):])
		sm.bundles = kept
	}
	for _, b := range x.bundles {
		a.leaseTimer(b)
	}
}

// ClusterUp: the SM is back; the grants it holds are claimed at its next
// matchmaking cycle (their pending expiries are void).
func (a *dmm) ClusterUp(c *Cluster) {
	for _, b := range a.sms[c.Index].bundles {
		b.gen++
	}
}
