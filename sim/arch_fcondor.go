package sim

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// fcondor: Condor with flocking (Table 8.1), as optimistic as the thesis
// makes it. Each job manager (one per user and home cluster) is attached
// to one site manager at a time, first its home one. Each matchmaking
// cycle (300 s) a site manager serves the job managers attached to it in
// fair-share order (least decayed past usage first; usage decays with a
// half-life of HalfLife) and gives each every demand it can meet, jobs that
// cannot be served being bypassed by jobs that can. A job manager left
// with unmet demands switches to the next site manager of its flock list
// (every cluster, from its home on in topology order: any job manager may
// reach any site manager); one whose demands are all met goes back home.
// When a site manager fails, the job managers attached to it fail over to
// the next one at once (sequential failover). A job manager that moves is
// served from its new site manager's next matchmaking cycle: not by a
// cycle of that site manager at the instant it moved (with aligned cycles
// the next SM's cycle can come later in the same instant, which would let
// a job manager be served by two site managers at once).
//
// Messages: as condor, plus a NotifyBroker each time a job manager moves
// to another site manager.
type fcondor struct {
	hooks
	s        *Sim
	jms      []*fjm
	attached [][]*fjm
	dispatch Dispatch
	period   time.Duration // the matchmaking cycle
	halfLife float64
	order    []*fjm // scratch
}

// fjm is a job manager of fcondor.
type fjm struct {
	id, home, cur int
	idle          jobQueue
	usage         float64 // decayed processor-seconds
	at            time.Duration
	running       int           // processors in use
	movedAt       time.Duration // when it last moved to another site manager (-1: never)
}

// FCondorSettings are fcondor's.
type FCondorSettings struct {
	HalfLife time.Duration `toml:"half_life"` // the fair-share usage decay half-life (1 day)
}

// fcondorReads are the settings fcondor reads: the matchmakers' and
// its own.
type fcondorReads struct {
	MatchSettings
	FCondorSettings
}

// Default: a day.
func (f *FCondorSettings) Default() { f.HalfLife = 24 * time.Hour }

// Check: a half-life within the periods' range.
func (f *FCondorSettings) Check() error { return checkPeriod("half_life", f.HalfLife, false) }

func init() {
	register("fcondor", func(set fcondorReads) (Architecture, error) {
		d, err := NewDispatch(set.Dispatch)
		return &fcondor{dispatch: d, period: set.MatchPeriod, halfLife: set.HalfLife.Seconds()}, err
	}, func(set *fcondorReads, _ *EngineSettings) { set.Dispatch = "fcfs-bypass" })
}

func (a *fcondor) Name() string { return "fcondor" }

func (a *fcondor) Init(s *Sim) error {
	a.s = s
	a.attached = make([][]*fjm, len(s.Clusters()))
	s.CountKeepAlives()
	startCycles(s, codeMatch, a.period, len(s.Clusters()))
	return nil
}

func (a *fcondor) Fits(j *Job) bool { return j.Procs <= a.s.MaxProcs() }

func (a *fcondor) jm(j *Job) *fjm {
	for len(a.jms) <= j.JM {
		a.jms = append(a.jms, nil)
	}
	m := a.jms[j.JM]
	if m == nil {
		m = &fjm{id: j.JM, home: j.Home, cur: -1, at: a.s.Now(), movedAt: -1}
		a.jms[j.JM] = m
	}
	return m
}

func (a *fcondor) Arrive(j *Job) {
	m := a.jm(j)
	a.s.Bus().Send(NotifyBroker, 1)
	m.idle.push(j)
	if m.cur < 0 {
		a.attach(m, a.nextUp(m, m.home, true))
	}
}

func (a *fcondor) Ended(j *Job) {
	m := a.jms[j.JM]
	m.account(a.s.Now(), a.halfLife)
	m.running -= j.Procs
	a.s.Bus().Send(MatchClaimRelease, 1)
	a.s.Bus().Send(JobDataExchange, 1)
}

func (a *fcondor) Killed(j *Job) {
	m := a.jms[j.JM]
	m.account(a.s.Now(), a.halfLife)
	m.running -= j.Procs
	m.idle.pushFront(j)
	if m.cur < 0 {
		a.attach(m, a.nextUp(m, m.home, true))
	}
}

// ClusterDown: the job managers attached to the failed site manager fail
// over to the next one.
func (a *fcondor) ClusterDown(c *Cluster) {
	for _, m := range slices.Clone(a.attached[c.Index]) {
		a.move(m, a.nextUp(m, c.Index, false))
	}
}

func (a *fcondor) Event(code uint8, i int32, _ *Job, _ int64) {
	s := a.s
	s.Schedule(s.Now()+a.period, codeMatch, i, nil, 0)
	c := s.Clusters()[i]
	if !c.Up {
		return
	}
	s.Bus().Send(NotifyBroker, 1)
	a.order = a.order[:0]
	for _, m := range a.attached[i] {
		if m.idle.len() > 0 && !m.justMoved(s.Now()) {
			m.account(s.Now(), a.halfLife)
			a.order = append(a.order, m)
		}
	}
	s.Bus().Send(Negotiate, int64(len(a.order)))
	slices.SortFunc(a.order, func(x, y *fjm) int { return cmp.Or(cmp.Compare(x.usage, y.usage), cmp.Compare(x.id, y.id)) })
	for _, m := range a.order {
		matchQueue(s, &m.idle, c, a.dispatch.Blocking(), func(j *Job) { m.running += j.Procs })
	}
	for _, m := range slices.Clone(a.attached[i]) {
		switch {
		case m.justMoved(s.Now()):
			// it waits for this site manager's next cycle
		case m.idle.len() > 0:
			a.move(m, a.nextUp(m, int(i), false))
		case m.cur != m.home && s.Clusters()[m.home].Up:
			a.detach(m)
			a.attach(m, m.home)
		}
	}
}

// nextUp is the next site manager of m's flock list after from (from
// itself when inclusive) whose cluster is up; from when none is.
func (a *fcondor) nextUp(m *fjm, from int, inclusive bool) int {
	n := len(a.s.Clusters())
	start := 1
	if inclusive {
		start = 0
	}
	for k := start; k <= n; k++ {
		if i := (from + k) % n; a.s.Clusters()[i].Up {
			return i
		}
	}
	return from
}

func (a *fcondor) move(m *fjm, to int) {
	if to == m.cur {
		return
	}
	a.detach(m)
	a.s.Bus().Send(NotifyBroker, 1)
	a.attach(m, to)
	m.movedAt = a.s.Now()
}

// justMoved tells whether m moved to its site manager at now.
func (m *fjm) justMoved(now time.Duration) bool { return m.movedAt == now }

func (a *fcondor) attach(m *fjm, i int) {
	m.cur = i
	a.attached[i] = append(a.attached[i], m)
}

func (a *fcondor) detach(m *fjm) {
	if m.cur < 0 {
		return
	}
	l := a.attached[m.cur]
	if k := slices.Index(l, m); k >= 0 {
		a.attached[m.cur] = slices.Delete(l, k, k+1)
	}
	m.cur = -1
}

// account brings m's decayed usage up to now: usage decays by half every
// half-life, and the processors it runs add to it continuously.
func (m *fjm) account(now time.Duration, halfLife float64) {
	dt := (now - m.at).Seconds()
	if dt <= 0 {
		return
	}
	f := math.Exp2(-dt / halfLife)
	m.usage = m.usage*f + float64(m.running)*halfLife/math.Ln2*(1-f)
	m.at = now
}
