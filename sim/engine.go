// Package sim is gmark's multi-grid discrete-event simulator, after DGSim
// (Iosup's thesis, Ch. 6): clusters of identical processors under the
// inter-operation architectures of Ch. 7–8 (sep-c, condor, fcondor, cern,
// central and Delegated MatchMaking), on a virtual clock.
//
// A run is deterministic: one event heap with a total order (time, then
// the order events were scheduled; arrivals before other events at the
// same time), no wall clock, and every random draw from a stats stream of
// the run's seed. The network is perfect (the thesis's assumption 1):
// messages are counted by type on a bus and delivered as they are sent;
// what takes time is the periodic cycles of the site managers and the
// delay of the information service. docs/sim.md has the model and every
// choice made where the thesis leaves one open.
package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/workload"
)

// Sim is one run in progress. Architectures drive it through its exported
// methods; everything else is the engine's.
type Sim struct {
	cfg  Config
	top  *topology.Topology
	arch Architecture
	sel  Selection

	now      time.Duration
	heap     eventHeap
	seq      uint64
	version  uint64 // bumped at every change of a cluster's idle processors
	clusters []*Cluster
	downs    []int // outages in force per cluster (overlapping outages nest)
	bus      Bus
	info     info
	dyn      dynState // generated failures and joins (dynamics.go)

	allClusters []int
	maxProcs    int
	subtrees    map[int][]int
	jms         map[jmKey]int
	homeRand    *rand.Rand
	phaseRand   *rand.Rand
	keepAlives  bool

	obs         Observer
	src         Source
	w           workload.Job
	cur         *workload.Job // the job being handed to Arrive (Workload)
	next        *Job
	srcDone     bool
	lastArrival time.Duration
	lastEnd     time.Duration
	arrived     int
	active      int // arrived, not ended, not rejected
	unreleased  int // tasks of arrived workflows waiting for their parents (workflow.go)
	events      int64

	acc   accum
	wfAcc wfAccum

	hosted     bool // the architecture runs the jobs itself (central's core model)
	hostedRun  hostedRunning
	horizonCut bool // the run was cut at Config.Horizon

	ser        *seriesRecorder // nil: no series (RunWithSeries)
	seriesEdge time.Duration   // the end of the series' current bin
}

// accum gathers the metrics as jobs end, so a run keeps no record of the
// jobs it is done with.
type accum struct {
	rejected, started, finished, restarts, leasesExpired int
	wait, resp, bsd                                      float64 // sums over finished jobs, seconds
	busy, wasted                                         float64 // processor-seconds
	goodput                                              [4]float64
	delegations, chains, delegated                       int64
	attempts, offers                                     int64 // DMM: delegation attempts (a site manager sets out to delegate a request) and offers (to one target)
}

// Observer sees a run's jobs as they arrive, start and end (operational
// graphics, tests). It must not change the jobs.
type Observer interface {
	Arrived(j *Job)
	Started(j *Job)
	Ended(j *Job)
}

// Run simulates a workload on a topology under cfg.Arch.
func Run(cfg Config, top *topology.Topology, src Source) (*Result, error) {
	return RunObserved(cfg, top, src, nil)
}

// RunObserved is Run with an observer (nil for none).
func RunObserved(cfg Config, top *topology.Topology, src Source, obs Observer) (*Result, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	newArch, ok := archs[cfg.Arch]
	if !ok {
		return nil, fmt.Errorf("unknown architecture %q (known: %v)", cfg.Arch, ArchNames())
	}
	grown, err := growthOf(&cfg, top)
	if err != nil {
		return nil, err
	}
	s, err := newSim(cfg, grown.Topology, src)
	if err != nil {
		return nil, err
	}
	s.obs = obs
	s.attachSeries()
	if s.arch, err = newArch.new(&s.cfg); err != nil {
		return nil, err
	}
	_, s.hosted = s.arch.(*centralCore)
	if err := s.outages(); err != nil {
		return nil, err
	}
	s.startDynamics(grown)
	if err := s.arch.Init(s); err != nil {
		return nil, err
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	if st, ok := s.arch.(stopper); ok {
		st.Stop(s.end(), s.horizonCut)
	}
	if checkInvariants {
		if err := s.invariants(); err != nil {
			return nil, err
		}
	}
	res := s.result()
	if d, ok := s.arch.(interface{ deadlines() *record.CoreDeadlines }); ok {
		res.Deadlines = d.deadlines()
	}
	return res, nil
}

func newSim(cfg Config, top *topology.Topology, src Source) (*Sim, error) {
	sel, err := NewSelection(cfg.Selection)
	if err != nil {
		return nil, err
	}
	s := &Sim{
		cfg: cfg, top: top, sel: sel, src: src,
		subtrees:  map[int][]int{},
		jms:       map[jmKey]int{},
		homeRand:  stats.NewStream(cfg.Seed, 0, "sim/home"),
		phaseRand: stats.NewStream(cfg.Seed, 0, "sim/phase"),
		heap:      make(eventHeap, 0, 1024),
	}
	for i := 0; i < top.Clusters; i++ {
		n := &top.Nodes[i]
		c := &Cluster{Index: i, Name: n.Name, Procs: n.Processors, Speed: n.Speed, Free: n.Processors, Up: true}
		sched := n.Scheduler
		if cfg.LocalScheduler != "" {
			sched = cfg.LocalScheduler
		}
		c.easy, c.conservative = sched == "easy", sched == "conservative"
		s.clusters = append(s.clusters, c)
		s.allClusters = append(s.allClusters, i)
		s.maxProcs = max(s.maxProcs, c.Procs)
	}
	s.downs = make([]int, len(s.clusters))
	s.info.init(s)
	return s, nil
}

func (s *Sim) outages() error {
	for _, o := range s.cfg.Outages {
		i, ok := s.top.Index(o.Cluster)
		if !ok || i >= s.top.Clusters {
			return fmt.Errorf("outage of %q: not a cluster of the topology", o.Cluster)
		}
		s.push(event{at: o.At, kind: evDown, a: int32(i)})
		if o.For > 0 {
			s.push(event{at: o.At + o.For, kind: evUp, a: int32(i)})
		}
	}
	return nil
}

// checkInvariants makes Run check the processor accounting of every
// cluster at the end of a run (tests set it).
var checkInvariants = false

func (s *Sim) invariants() error {
	for _, c := range s.clusters {
		busy := 0
		for _, j := range c.running {
			busy += j.Procs
			if j.state != jobRunning || s.clusters[j.Cluster] != c {
				return fmt.Errorf("cluster %s: job %s in its running list is not running there", c.Name, j.ID)
			}
		}
		switch {
		case !c.Up && (c.Free != 0 || c.Held != 0 || busy != 0):
			return fmt.Errorf("cluster %s is down with %d idle, %d held, %d busy processors", c.Name, c.Free, c.Held, busy)
		case c.Up && c.Free+c.Held+busy+c.Failed != c.Procs:
			return fmt.Errorf("cluster %s: %d idle + %d held + %d busy + %d failed != %d processors", c.Name, c.Free, c.Held, busy, c.Failed, c.Procs)
		case c.Free < 0 || c.Held < 0 || c.Failed < 0 || c.Failed > c.Procs:
			return fmt.Errorf("cluster %s: %d idle, %d held", c.Name, c.Free, c.Held)
		}
	}
	return nil
}

func (s *Sim) push(e event) {
	e.seq = s.seq
	s.seq++
	s.heap.push(e)
}

// loop runs events until the end: the last arrival (default), or, with
// CoolDown, until every job has ended or the cool-down limit is reached.
func (s *Sim) loop() error {
	for {
		if s.next == nil && !s.srcDone {
			if err := s.fetch(); err != nil {
				return err
			}
		}
		if s.cfg.Horizon > 0 && s.pastHorizon() {
			s.horizonCut = true
			return nil
		}
		if s.next != nil && (len(s.heap) == 0 || s.next.Submit <= s.heap[0].at) {
			j := s.next
			s.next = nil
			s.now = j.Submit
			if s.ser != nil && s.now >= s.seriesEdge {
				s.ser.tick()
			}
			s.arriveSource(j)
			continue
		}
		if len(s.heap) == 0 {
			return nil
		}
		if s.next == nil { // every job has arrived
			if !s.cfg.CoolDown && s.heap[0].at > s.lastArrival {
				return nil
			}
			if s.cfg.CoolDown && (s.active == 0 && s.unreleased == 0 || s.heap[0].at > s.lastArrival+s.cfg.CoolDownLimit) {
				return nil
			}
		}
		ev := s.heap.pop()
		s.now = ev.at
		if s.ser != nil && s.now >= s.seriesEdge {
			s.ser.tick()
		}
		s.events++
		s.handle(&ev)
	}
}

func (s *Sim) fetch() error {
	ok, err := s.src.Next(&s.w)
	if err != nil {
		return err
	}
	if !ok {
		s.srcDone = true
		return nil
	}
	j, err := s.convert(&s.w, s.arrived)
	if err != nil {
		return err
	}
	if j.Submit < s.lastArrival {
		return fmt.Errorf("job %s: submitted at %v, before the job before it (%v): jobs must come in submission order", j.ID, j.Submit, s.lastArrival)
	}
	s.lastArrival = j.Submit
	s.next = j
	return nil
}

func (s *Sim) arrive(j *Job) {
	j.Seq = s.arrived
	s.arrived++
	s.events++
	if s.obs != nil {
		s.obs.Arrived(j)
	}
	if !s.arch.Fits(j) {
		j.state = jobRejected
		s.acc.rejected++
		s.dropped(j)
		if j.wf != nil {
			s.taskEnded(j, false, s.now)
		}
		return
	}
	s.active++
	s.arch.Arrive(j)
}

func (s *Sim) handle(ev *event) {
	switch ev.kind {
	case evEnd:
		if j := ev.j; j.state == jobRunning && j.gen == uint32(ev.n) {
			s.finish(j)
		}
	case evDown:
		s.down(s.clusters[ev.a])
	case evUp:
		s.up(s.clusters[ev.a])
	case evInfo:
		s.info.apply(int(ev.a), int(ev.n), ev.v)
	case evRefresh:
		s.info.refresh()
	case evSnap:
		s.info.showSnap()
	case evArch:
		s.arch.Event(ev.code, ev.a, ev.j, ev.n)
	case evDyn, evRepair:
		s.dynEvent(ev)
	case evRelease:
		s.arriveTask(ev.j)
	}
}

// Start runs a job on a cluster now, on its idle processors or, when
// fromHeld, on processors held for it (a DMM delegation).
func (s *Sim) Start(j *Job, c *Cluster, fromHeld bool) {
	if fromHeld {
		c.Held -= j.Procs
	} else {
		c.Free -= j.Procs
	}
	if c.Free < 0 || c.Held < 0 || !c.Up {
		panic(fmt.Sprintf("sim: job %s started on %s without room (free %d, held %d, up %v)", j.ID, c.Name, c.Free, c.Held, c.Up))
	}
	if j.state != jobRunning && j.Restarts == 0 {
		s.acc.started++
	}
	j.state = jobRunning
	j.Cluster = c.Index
	j.Start = s.now
	j.End = s.now + j.RunTime(c.Speed)
	j.slot = len(c.running)
	c.running = append(c.running, j)
	s.push(event{at: j.End, kind: evEnd, j: j, n: int64(j.gen)})
	s.changed(c)
	if s.obs != nil {
		s.obs.Started(j)
	}
}

func (s *Sim) unlink(c *Cluster, j *Job) {
	last := len(c.running) - 1
	c.running[j.slot] = c.running[last]
	c.running[j.slot].slot = j.slot
	c.running[last] = nil
	c.running = c.running[:last]
}

func (s *Sim) finish(j *Job) {
	c := s.clusters[j.Cluster]
	s.unlink(c, j)
	c.Free += j.Procs
	j.state = jobDone
	s.active--
	s.lastEnd = s.now
	s.accountFinished(j, s.top.Relate(j.Home, c.Index))
	s.acc.chains += int64(j.Chain)
	s.countKeepAlives(j, s.now)
	s.changed(c)
	if s.obs != nil {
		s.obs.Ended(j)
	}
	s.arch.Ended(j)
	if c.queue.len() > 0 {
		s.Dispatch(c)
	}
	if j.wf != nil {
		s.taskEnded(j, true, s.now)
	}
}

// accountFinished adds a finished job's wait, response, bounded slowdown,
// busy time and goodput (split by where it ran: rel) to the run's sums.
func (s *Sim) accountFinished(j *Job, rel topology.Relation) {
	run, wait, resp := sec(j.End-j.Start), sec(j.Start-j.Submit), sec(j.End-j.Submit)
	a := &s.acc
	a.finished++
	a.wait += wait
	a.resp += resp
	if bound := max(run, sec(s.cfg.SlowdownBound)); bound > 0 {
		a.bsd += max(1, resp/bound)
	} else {
		a.bsd++ // τ = 0 and a job of no work: resp/0 has no value; it counts as 1, the least a slowdown is
	}
	cpu := float64(j.Procs) * run
	a.busy += cpu
	a.goodput[rel] += cpu
}

// Kill ends a job's run without success (its lease expired); the
// architecture's Killed decides what becomes of it.
func (s *Sim) Kill(j *Job) {
	c := s.clusters[j.Cluster]
	s.stop(j)
	c.Free += j.Procs
	s.changed(c)
	s.arch.Killed(j)
}

// stop takes a running job off its cluster: the time it ran is busy and
// wasted; it will start again from the beginning.
func (s *Sim) stop(j *Job) {
	c := s.clusters[j.Cluster]
	s.unlink(c, j)
	cpu := float64(j.Procs) * sec(s.now-j.Start)
	s.acc.busy += cpu
	s.acc.wasted += cpu
	s.acc.restarts++
	s.countKeepAlives(j, s.now)
	j.gen++
	j.state = jobQueued
	j.Restarts++
	j.Cluster = -1
}

func (s *Sim) down(c *Cluster) {
	if s.downs[c.Index]++; s.downs[c.Index] > 1 {
		return
	}
	c.Up = false
	c.Free, c.Held = 0, 0
	killed := slices.Clone(c.running)
	for _, j := range killed {
		s.stop(j)
	}
	s.changed(c)
	for _, j := range killed {
		s.arch.Killed(j)
	}
	s.arch.ClusterDown(c)
}

func (s *Sim) up(c *Cluster) {
	if s.downs[c.Index] == 0 {
		return
	}
	if s.downs[c.Index]--; s.downs[c.Index] > 0 {
		return
	}
	c.Up = true
	c.Free = c.Procs - c.Failed
	s.changed(c)
	s.arch.ClusterUp(c)
	s.Dispatch(c)
}

// Changed tells the engine that cluster c's idle processors changed other
// than by Start or a job's end (DMM's processors held for a delegation).
func (s *Sim) Changed(c *Cluster) { s.changed(c) }

// Touch marks a change no report taken before it shows (a job a router
// sent), and is its version.
func (s *Sim) Touch() uint64 { s.version++; return s.version }

// CountAttempt and CountOffer count DMM's delegation attempts and offers.
func (s *Sim) CountAttempt() { s.acc.attempts++ }
func (s *Sim) CountOffer()   { s.acc.offers++ }

func (s *Sim) changed(c *Cluster) {
	s.version++
	s.info.changed(c)
}

func (s *Sim) countKeepAlives(j *Job, until time.Duration) {
	if s.keepAlives && until > j.Start {
		s.bus.Send(KeepAlive, int64((until-j.Start)/s.cfg.KeepAlivePeriod))
		if s.ser != nil {
			s.ser.keepAlives(j.Start, until, s.cfg.KeepAlivePeriod)
		}
	}
}

func sec(d time.Duration) float64 { return d.Seconds() }

// The architectures' view of the engine.

// Now is the virtual clock.
func (s *Sim) Now() time.Duration { return s.now }

// Seed is the run's seed (a core of the run's own draws its load from it).
func (s *Sim) Seed() uint64 { return s.cfg.Seed }

// LeaseTerm is how long a lease not renewed lasts (the engine's
// lease_term).
func (s *Sim) LeaseTerm() time.Duration { return s.cfg.LeaseTerm }

// Topology is the simulated system.
func (s *Sim) Topology() *topology.Topology { return s.top }

// Clusters are the clusters, by index.
func (s *Sim) Clusters() []*Cluster { return s.clusters }

// MaxProcs is the size of the largest cluster.
func (s *Sim) MaxProcs() int { return s.maxProcs }

// Bus is the message bus.
func (s *Sim) Bus() *Bus { return &s.bus }

// Selection is the job selection policy.
func (s *Sim) Selection() Selection { return s.sel }

// Schedule adds an architecture event: Event(code, a, j, n) at time at.
func (s *Sim) Schedule(at time.Duration, code uint8, a int32, j *Job, n int64) {
	s.push(event{at: at, kind: evArch, code: code, a: a, j: j, n: n})
}

// Phase is when a periodic cycle first runs: 0 with AlignedCycles, else
// uniform in [0, period) from the run's "phase" stream (drawn in call
// order, so the same architecture and seed give the same phases).
func (s *Sim) Phase(period time.Duration) time.Duration {
	if s.cfg.AlignedCycles {
		return 0
	}
	return time.Duration(s.phaseRand.Int64N(int64(period)))
}

// CountKeepAlives makes the engine count a KeepAlive every
// KeepAlivePeriod of every run (the architectures with leases).
func (s *Sim) CountKeepAlives() { s.keepAlives = true }

// Delegated records a delegation hop (DMM).
func (s *Sim) Delegated(j *Job) {
	if j.Delegations == 0 {
		s.acc.delegated++
	}
	j.Delegations++
	s.acc.delegations++
}

// LeaseExpired records an expired lease.
func (s *Sim) LeaseExpired() { s.acc.leasesExpired++ }
