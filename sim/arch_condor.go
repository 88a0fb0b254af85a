package sim

import "time"

// condor: independent Condor-like clusters (Table 8.1): each cluster's
// site manager matches its queue to its idle processors once per
// matchmaking cycle (300 s, Condor's NEGOTIATOR_INTERVAL), taking jobs in
// arrival order, without fair-share. The local dispatch policy is FCFS
// without bypass by default (the thesis's cluster model); "fcfs-bypass"
// lets jobs that fit pass a job that does not.
//
// Messages per job: NotifyBroker (the job advertised to its site
// manager), MatchClaimRelease ×3 (match, claim, release), JobDataExchange
// ×2, KeepAlive every KeepAlivePeriod of its run; per cycle of each site
// manager: NotifyBroker (the cluster's resource state) and one Negotiate
// per job manager with jobs waiting there.
type condor struct {
	hooks
	s        *Sim
	q        []jobQueue
	users    []userCount
	dispatch Dispatch
}

// Event codes of the architectures.
const (
	codeMatch uint8 = iota + 1
	codeDelegate
	codeLease
)

func init() {
	register("condor", func(cfg *Config) (Architecture, error) {
		d, err := NewDispatch(cfg.Dispatch)
		return &condor{dispatch: d}, err
	})
}

func (a *condor) Name() string { return "condor" }

func (a *condor) Init(s *Sim) error {
	a.s = s
	a.q = make([]jobQueue, len(s.clusters))
	a.users = make([]userCount, len(s.clusters))
	s.CountKeepAlives()
	startCycles(s, codeMatch, s.cfg.MatchPeriod, len(s.clusters))
	return nil
}

// startCycles schedules the first cycle of n site managers, each at its
// phase.
func startCycles(s *Sim, code uint8, period time.Duration, n int) {
	for i := 0; i < n; i++ {
		s.Schedule(s.Phase(period), code, int32(i), nil, 0)
	}
}

func (a *condor) Fits(j *Job) bool { return j.Procs <= a.s.clusters[j.Home].Procs }

func (a *condor) Arrive(j *Job) {
	a.s.bus.Send(NotifyBroker, 1)
	a.q[j.Home].push(j)
	a.users[j.Home].add(j.JM, 1)
}

func (a *condor) Ended(j *Job) {
	a.s.bus.Send(MatchClaimRelease, 1)
	a.s.bus.Send(JobDataExchange, 1)
}

func (a *condor) Killed(j *Job) {
	a.q[j.Home].pushFront(j)
	a.users[j.Home].add(j.JM, 1)
}

func (a *condor) Event(code uint8, i int32, _ *Job, _ int64) {
	s := a.s
	s.Schedule(s.now+s.cfg.MatchPeriod, codeMatch, i, nil, 0)
	c := s.clusters[i]
	if !c.Up {
		return
	}
	s.bus.Send(NotifyBroker, 1)
	s.bus.Send(Negotiate, int64(a.users[i].n))
	matchQueue(s, &a.q[i], c, a.dispatch.Blocking(), func(j *Job) { a.users[i].add(j.JM, -1) })
}

// matchQueue is a matchmaking pass of one site manager over its queue:
// eligible jobs in order start on the cluster's idle processors; a job
// that does not fit stops the pass when blocking, else it is passed over.
func matchQueue(s *Sim, q *jobQueue, c *Cluster, blocking bool, took func(*Job)) {
	limit := s.sel.Eligible(q.len())
	for k := 0; k < limit && k < q.len() && c.Free > 0; {
		j := q.at(k)
		if j.Procs > c.Free {
			if blocking {
				return
			}
			k++
			continue
		}
		q.remove(k)
		limit--
		took(j)
		startMatched(s, j, c, false)
	}
}

// startMatched starts a matched job: match and claim, the job's data in.
func startMatched(s *Sim, j *Job, c *Cluster, fromHeld bool) {
	s.bus.Send(MatchClaimRelease, 2)
	s.bus.Send(JobDataExchange, 1)
	s.Start(j, c, fromHeld)
}

// userCount counts the job managers with work waiting at a site manager
// (one Negotiate each per cycle).
type userCount struct {
	m map[int]int
	n int
}

func (u *userCount) add(jm, d int) {
	if u.m == nil {
		u.m = map[int]int{}
	}
	old := u.m[jm]
	now := old + d
	switch {
	case old == 0 && now > 0:
		u.n++
	case old > 0 && now == 0:
		u.n--
	}
	if now == 0 {
		delete(u.m, jm)
	} else {
		u.m[jm] = now
	}
}
