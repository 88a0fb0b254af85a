// Package core is the bundled scheduler: a multi-cluster co-allocating
// scheduler in the style of KOALA (Mohamed's thesis). Jobs wait in four
// priority placement queues scanned at a fixed interval; a placement policy
// chooses execution and file sites for every component at once; processors
// are soft-reserved inside the scheduler and claimed from the clusters' local
// resource managers (which have no reservations) by the Incremental Claiming
// Policy as the job's files arrive; runners start the components; faults take
// clusters out and send jobs back to the queues. A cluster's local resource
// manager is emulated (package lrm) or a real controller the core talks to
// through a Controller (lrm = "slurm": package slurmlrm; see remote.go).
//
// The core is a deterministic discrete-event state machine: it never reads a
// clock. Time enters only through Advance(now), which runs every internal
// event (scans, claims, job ends, background load) due by then, in order. A
// driver calls Advance with a live clock (package server) or jumps from event
// to event in simulated time (Simulate), so the same code runs live and simulated.
// The core is not safe for concurrent use: one goroutine drives it.
package core

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/lrm"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/workload"
)

// Core is the scheduler.
type Core struct {
	grid     *grid.Grid
	cfg      grid.Scheduler
	now      time.Time
	start    time.Time
	clusters []*cluster // by name
	byName   map[string]*cluster
	policies map[string]placement.Policy
	policyOf map[string]placement.Policy // by the name a job gives (policy)
	jobs     map[string]*Job
	order    []*Job // every job, in submission order
	keys     map[string]string
	queues   [4][]qent
	lazy     [4]lazyQueue // the queues' lazy jobs (lazy.go)
	lazyN    int          // lazy jobs in all
	rrCycle  []Priority
	rrPos    int
	timers   timerHeap
	timerSeq uint64
	eventSeq uint64
	sink     Sink
	// sendBuf holds the events being delivered, one a nesting level
	// (send); sendDepth is the level.
	sendBuf   [4]Event
	sendDepth int
	// skip: the kinds the sink does not take (KindFilter), not built;
	// skipTry and skipWhy: placement_try and placement_failed among them.
	skip             map[EventKind]bool
	skipTry, skipWhy bool
	exec             Executor
	rng              *rand.Rand
	nextLRM          int64
	nextJob          int
	queued           int // jobs in the placement queues
	waiting          int // jobs with a start deadline waiting for a try (deadline.go)

	measureFrom  time.Time         // start of the period Utilization reports on
	measureMark  time.Time         // the same, known as soon as MeasureFrom is called
	local        localStats        // local users' jobs (localload.go)
	localFrom    time.Time         // when the local workloads started (zero: held, origin.go)
	localFirst   []*timer          // their first arrivals
	localArrived bool              // a local workload's job has arrived
	origin       time.Time         // the run's workload origin (Begin), or zero
	originSince  time.Time         // when Begin declared it (core time): jobs submitted before count their deadlines from their submission
	deferLocal   bool              // hold local scheduling (see claimTry)
	deferredLRMs map[*cluster]bool // clusters whose local queue waits for a schedule
	hopelessWhy  placement.Failure // the reasons of the last job the cheap checks refused (see place)
	hopelessGen  uint64            // the infoGen they were found with, or 0

	// The information service's view, for reasons that stand while it
	// does not change (see hopeless): infoGen changes whenever the view
	// does; infoSeen is the view it stands for, infoNow the last one made.
	infoGen uint64
	// produced are the replicas of the files jobs wrote (produced.go).
	produced map[string][]string
	infoSeen []placement.Site
	infoNow  *placement.Info

	// For the scans of long queues (scan.go): the reasons shared by the
	// jobs that ask alike, found with the view of whyGen; the cheap
	// checks' figures of the view of idleGen; the array of the queue
	// before the last scan, for the next.
	whys               []*whyEntry
	whyLast            map[whyKey]*whyEntry // the last entry made for each key, of any view
	whyClasses         uint64               // the last class given (whyEntry.class)
	whyGen             uint64
	idleGen            uint64
	idleMax, idleTotal int
	spare              []qent
	fastTries          uint64 // tries made tryHopeless's way (for the tests)
	bulkTries          uint64 // tries made in bulk (lazy.go; for the tests)

	// Forget (retain.go): drop jobs as they end; onEnd sees each.
	forget  bool
	onEnd   func(*Job)
	dropped int // jobs in order that ended since it was last compacted
	forgot  forgotten
}

// cluster is the core's view of one site.
type cluster struct {
	cfg      grid.Cluster
	lrm      *lrm.Cluster
	soft     int // processors placed on but not yet claimed (KOALA's soft reservation)
	held     int // processors claimed but not yet executing (wasted until the start time)
	running  int // processors executing grid components
	errors   int // consecutive soft errors
	disabled string
	acct     accounting
	cacheAt  time.Time
	cacheIdl int
	dummies  map[int64]bool // background jobs started by the controller

	ctl         Controller // the real local resource manager (lrm = "slurm"); nil: emulated
	unreachable string     // why the controller does not answer, or ""
	// remoteLocal: the controller's other running jobs, newest start
	// first; killed: those the core killed (id → processors) while the
	// controller still reports them.
	remoteLocal []LocalJob
	killed      map[string]int
}

// Executor runs jobs. The runners start a job's components together, so
// an executor starts them together. The emulated executor returns each
// component's run time and the core ends the components by timer; an
// executor of real processes returns nil and reports each component's end
// through Core.ComponentExited.
type Executor interface {
	// Start begins executing job j, whose component i runs on sites[i] at
	// relative processor speed speeds[i].
	Start(j *Job, sites []string, speeds []float64) (runtimes []time.Duration, err error)
	// Stop kills a job started earlier.
	Stop(j *Job)
}

// A Screener is an Executor that can tell at submission that it would not
// run a job (process execution refuses paths that leave the job's directory
// and outputs over the grid's max_output): the job is refused with the
// reason instead of failing later.
type Screener interface {
	Screen(spec *workload.Job) error
}

// New builds a core for a grid, starting at time start. sink receives every
// event (nil discards them); exec runs components (nil: emulated timers).
// A grid with real clusters needs NewWith.
func New(g *grid.Grid, start time.Time, sink Sink, exec Executor) (*Core, error) {
	return NewWith(g, start, sink, exec, nil)
}

// NewWith is New for a grid with real clusters (lrm = "slurm"): ctls gives
// each one's controller, by cluster name.
func NewWith(g *grid.Grid, start time.Time, sink Sink, exec Executor, ctls map[string]Controller) (*Core, error) {
	c := &Core{grid: g, cfg: g.Scheduler, now: start, start: start, byName: map[string]*cluster{},
		policies: map[string]placement.Policy{}, jobs: map[string]*Job{}, keys: map[string]string{},
		sink: sink, exec: exec, rng: stats.NewStream(g.Scheduler.Seed, 0, "koala")}
	if c.sink == nil {
		c.sink = discard{}
	}
	c.filterKinds()
	if c.exec == nil {
		c.exec = Emulated{DefaultRuntime: g.Scheduler.DefaultRuntime.Duration}
	}
	names := make([]string, len(g.Clusters))
	for i, gc := range g.Clusters {
		s, err := lrm.ParseScheduler(gc.LocalScheduler)
		if err != nil {
			return nil, err
		}
		cl := &cluster{cfg: gc, lrm: lrm.New(gc.Name, gc.Processors, s), dummies: map[int64]bool{}, ctl: ctls[gc.Name]}
		switch {
		case gc.Real() && cl.ctl == nil:
			return nil, fmt.Errorf("cluster %s has lrm = %q: the core needs its controller (gmark koala serve and gmark run connect it; a simulation cannot drive a real cluster)", gc.Name, gc.LRM)
		case !gc.Real() && cl.ctl != nil:
			return nil, fmt.Errorf("cluster %s is emulated: it takes no controller", gc.Name)
		case gc.Processors < 1:
			return nil, fmt.Errorf("cluster %s: its processors were not read from its controller (grid.ResolveProcessors)", gc.Name)
		}
		cl.acct.last, cl.acct.sampleStart = start, start
		c.clusters = append(c.clusters, cl)
		c.byName[gc.Name] = cl
		names[i] = gc.Name
	}
	for _, name := range placement.Names() {
		p, _ := placement.New(name, names)
		c.policies[name] = p
	}
	if _, err := c.policy(g.Scheduler.Policy); err != nil {
		return nil, err
	}
	w := g.Scheduler.GroupWeights
	q := g.Scheduler.QueueWeights
	for i := 0; i < w[0]; i++ {
		c.rrCycle = appendN(c.rrCycle, SuperHigh, q[0])
		c.rrCycle = appendN(c.rrCycle, High, q[1])
	}
	for i := 0; i < w[1]; i++ {
		c.rrCycle = appendN(c.rrCycle, Low, q[2])
		c.rrCycle = appendN(c.rrCycle, SuperLow, q[3])
	}
	c.at(start.Add(c.cfg.ScanInterval.Duration), c.scanTick)
	c.at(start.Add(c.cfg.UtilizationSample.Duration), c.sampleTick)
	for _, cl := range c.clusters {
		if cl.cfg.Background.Enabled() {
			cl := cl
			c.at(start, func() { c.backgroundTick(cl) })
		}
	}
	c.startLocalLoads(start)
	for _, e := range g.Events {
		e := e
		c.at(start.Add(e.At.Duration), func() {
			if e.Action == "down" {
				_ = c.SetClusterDown(e.Cluster, "scheduled outage (grid.toml)")
			} else {
				_ = c.SetClusterUp(e.Cluster)
			}
		})
	}
	return c, nil
}

func appendN(s []Priority, p Priority, n int) []Priority {
	for i := 0; i < n; i++ {
		s = append(s, p)
	}
	return s
}

type discard struct{}

func (discard) Event(*Event)         {}
func (discard) Takes(EventKind) bool { return false }

// filterKinds notes the kinds of events the sink does not take.
func (c *Core) filterKinds() {
	for _, k := range eventKinds {
		if !Takes(c.sink, k) {
			if c.skip == nil {
				c.skip = map[EventKind]bool{}
			}
			c.skip[k] = true
		}
	}
	c.skipTry, c.skipWhy = c.skip[EvPlacementTry], c.skip[EvPlacementFailed]
}

// Now is the core's current time.
func (c *Core) Now() time.Time { return c.now }

// Grid is the grid the core schedules.
func (c *Core) Grid() *grid.Grid { return c.grid }

// NextEvent is the time of the earliest pending internal event.
func (c *Core) NextEvent() (time.Time, bool) {
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.timers[0].at, true
}

// Advance runs every internal event due at or before to, in time order, and
// leaves the core's time at to (time never goes back).
func (c *Core) Advance(to time.Time) {
	for len(c.timers) > 0 && !c.timers[0].at.After(to) {
		t := heap.Pop(&c.timers).(*timer)
		if t.at.After(c.now) {
			c.now = t.at
		}
		t.fn()
	}
	if to.After(c.now) {
		c.now = to
	}
}

// emit sends an event to the sink, stamped with the time and a sequence
// number; an event of a kind the sink does not take only uses its number.
func (c *Core) emit(e Event) {
	c.eventSeq++
	if c.skip != nil && c.skip[e.Kind] {
		return
	}
	c.send(e)
}

// send is emit's delivery, apart so that an event emit does not deliver is
// not moved to the heap. The event is delivered in one of the core's own
// buffers (a sink's handler may emit again: one buffer a level), not in a
// new one each time: a simulated run delivers millions (a third of its
// allocations when each was a copy on the heap). Sinks get it for the
// call only (Sink).
//
//go:noinline
func (c *Core) send(e Event) {
	e.Seq = c.eventSeq
	e.Time = c.now
	if c.sendDepth >= len(c.sendBuf) {
		ev := new(Event) // deeper than the buffers: a copy of its own
		*ev = e
		c.sink.Event(ev)
		return
	}
	b := &c.sendBuf[c.sendDepth]
	*b = e
	c.sendDepth++
	c.sink.Event(b)
	c.sendDepth--
	*b = Event{} // keeps nothing the event pointed to alive
}

// EventCount is the number of events the core has emitted (the last
// event's sequence number), those its sink does not take included.
func (c *Core) EventCount() uint64 { return c.eventSeq }

// skipEvent uses the number of an event of a kind the sink does not take,
// for the hot paths that test c.skipTry or c.skipWhy before building it.
func (c *Core) skipEvent() { c.eventSeq++ }

func (c *Core) policy(name string) (placement.Policy, error) {
	if p, ok := c.policyOf[name]; ok {
		return p, nil // asked for every job, several times: New allocates
	}
	given := name
	if name == "" {
		name = c.cfg.Policy
	}
	p, err := placement.New(name, nil) // normalizes the name
	if err != nil {
		return nil, err
	}
	pol := c.policies[p.Name()]
	if c.policyOf == nil {
		c.policyOf = map[string]placement.Policy{}
	}
	if len(c.policyOf) < 64 { // names as given: a client's own spellings stay few
		c.policyOf[given] = pol
	}
	return pol, nil
}

// Errors of submissions.
var (
	ErrDuplicateKey = errors.New("a job with this idempotency key was already submitted")
	ErrUnknownJob   = errors.New("no such job")
)

// Submit accepts a unitary job. Its components keep their sizes; a component
// naming a site (not "*") is fixed there. It returns the job's core id.
func (c *Core) Submit(spec workload.Job, opts Options) (*Job, error) {
	if spec.Kind == workload.Composite {
		return nil, fmt.Errorf("composite jobs are submitted task by task (the submitter's dependency executor does this)")
	}
	if spec.Kind == "" {
		spec.Kind = workload.Unitary
	}
	if spec.ID == "" {
		spec.ID = "job"
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := checkWallTime(spec.WallTime); err != nil {
		return nil, fmt.Errorf("job %s: %v", spec.ID, err)
	}
	if sc, ok := c.exec.(Screener); ok {
		if err := sc.Screen(&spec); err != nil {
			return nil, fmt.Errorf("job %s: %v", spec.ID, err)
		}
	}
	if opts.Key != "" {
		if id, dup := c.keys[opts.Key]; dup {
			return c.jobs[id], ErrDuplicateKey
		}
	}
	if _, err := c.policy(opts.Policy); err != nil {
		return nil, err
	}
	if err := checkDeadlineOptions(opts); err != nil {
		return nil, err
	}
	if opts.Runner == "" {
		r, err := ParseRunner(c.cfg.DefaultRunner)
		if err != nil {
			return nil, err
		}
		opts.Runner = r
	}
	if err := Fits(c.grid, &spec); err != nil {
		return nil, err
	}
	c.nextJob++
	j := &Job{ID: "k" + strconv.Itoa(c.nextJob), Spec: spec, Opts: opts, State: Queued, Submitted: c.now,
		L: *c.cfg.ClaimL, priority: opts.Priority, exclude: map[string]bool{}, Deadline: deadlineOf(&spec, c.now, c.originOf(c.now))}
	c.initComponents(j)
	c.jobs[j.ID] = j
	c.order = append(c.order, j)
	if opts.Key != "" {
		c.keys[opts.Key] = j.ID
	}
	c.emit(Event{Kind: EvSubmitted, Job: j.ID, Key: opts.Key, Policy: c.policyName(j), Reason: opts.Priority.String() + " " + string(opts.Runner), JST: j.Deadline})
	if j.HasDeadline() {
		c.submitDeadline(j)
		return j, nil
	}
	c.enqueue(j)
	if *c.cfg.PlaceOnSubmit && (c.tryPlace(j, c.info()) || j.State.Terminal()) {
		c.dequeue(j)
	}
	return j, nil
}

func (c *Core) policyName(j *Job) string {
	p, _ := c.policy(j.Opts.Policy)
	return p.Name()
}

// initComponents builds the components and the placement request.
func (c *Core) initComponents(j *Job) {
	j.Components = j.Components[:0]
	j.request = placement.Request{Flexible: j.Spec.SiteType == workload.Flexible, Exclude: j.exclude}
	j.flexible = j.request.Flexible
	for i, comp := range j.Spec.Components {
		fixed := ""
		if comp.Site != workload.AnySite {
			fixed = comp.Site
		}
		j.Components = append(j.Components, Component{Size: comp.Count, Fixed: fixed})
		j.request.Components = append(j.request.Components, placement.Component{Index: i, Size: comp.Count, Site: fixed})
	}
	for _, f := range j.Spec.Files {
		j.request.Files = append(j.request.Files, placement.File{Name: f.Name, Size: f.Size})
	}
	// What the cheap checks of every placement try read (place).
	j.reqNeed, j.reqLargest, j.reqAt = 0, 0, 0
	for i, comp := range j.request.Components {
		j.reqNeed += comp.Size
		if comp.Site == "" && comp.Size > int(j.reqLargest) {
			j.reqLargest, j.reqAt = int32(min(comp.Size, math.MaxInt32)), int32(i) // the first of the largest: the policy tries it first
		}
	}
}

// Job returns a job by core id.
func (c *Core) Job(id string) (*Job, bool) {
	c.wakeAll()
	j, ok := c.jobs[id]
	return j, ok
}

// JobByKey returns the job submitted with an idempotency key.
func (c *Core) JobByKey(key string) (*Job, bool) {
	id, ok := c.keys[key]
	if !ok {
		return nil, false
	}
	c.wakeAll()
	return c.jobs[id], true
}

// Jobs lists every job in submission order (after Forget, every job that
// has not ended).
func (c *Core) Jobs() []*Job {
	c.wakeAll()
	if c.forget {
		c.compact()
	}
	return c.order
}

// Active counts the jobs not yet in a terminal state.
func (c *Core) Active() int {
	if c.forget {
		return len(c.jobs) // the jobs that ended are dropped from it
	}
	n := 0
	for _, j := range c.order {
		if !j.State.Terminal() {
			n++
		}
	}
	return n
}

// QueueLength is the number of jobs waiting for placement: in the
// placement queues, and jobs with a start deadline waiting for a try.
func (c *Core) QueueLength() int { return c.queued + c.waiting }

// Cancel stops a job wherever it is.
func (c *Core) Cancel(id string, reason string) error {
	j, ok := c.jobs[id]
	if !ok {
		return ErrUnknownJob
	}
	if j.State.Terminal() {
		return fmt.Errorf("job %s is already %s", id, j.State)
	}
	c.release(j, "the job was cancelled")
	c.dequeue(j)
	j.State, j.Reason, j.End = Cancelled, reason, c.now
	c.emit(Event{Kind: EvCancelled, Job: j.ID, Key: j.Opts.Key, Reason: reason})
	c.ended(j)
	return nil
}

// ClusterStatus is a site's state for the API.
type ClusterStatus struct {
	Name        string  `json:"name"`
	Processors  int     `json:"processors"`
	Speed       float64 `json:"speed"`
	Up          bool    `json:"up"`
	Disabled    string  `json:"disabled,omitempty"` // why it is out of service
	Idle        int     `json:"idle"`
	Background  int     `json:"background"`   // processors of local jobs
	QueuedLocal int     `json:"queued_local"` // processors of waiting local jobs
	Grid        int     `json:"grid"`         // processors executing grid components
	Held        int     `json:"held"`         // claimed, waiting for the start time (wasted)
	Reserved    int     `json:"reserved"`     // placed on, not yet claimed
	Errors      int     `json:"soft_errors"`  // consecutive soft errors
	LRM         string  `json:"lrm"`          // emulated or slurm
}

// Clusters reports every site's state.
func (c *Core) Clusters() []ClusterStatus {
	out := make([]ClusterStatus, 0, len(c.clusters))
	for _, cl := range c.clusters {
		out = append(out, ClusterStatus{Name: cl.cfg.Name, Processors: cl.cfg.Processors, Speed: cl.cfg.Speed,
			Up: !cl.lrm.Down(), Disabled: cl.disabled, Idle: cl.lrm.Idle(), Background: cl.lrm.Busy(lrm.Local),
			QueuedLocal: cl.lrm.QueuedProcessors(), Grid: cl.running, Held: cl.held, Reserved: cl.soft, Errors: cl.errors,
			LRM: cl.cfg.LRM})
		if cl.unreachable != "" && out[len(out)-1].Disabled == "" {
			out[len(out)-1].Disabled = cl.unreachable
		}
	}
	return out
}
