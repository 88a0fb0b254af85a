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
	period   time.Duration // the matchmaking cycle
}

// Event codes of the architectures.
const (
	codeMatch uint8 = iota + 1
	codeDelegate
	codeLease
)

func init() {
	register("condor", func(set struct{ MatchSettings }) (Architecture, error) {
		d, err := NewDispatch(set.Dispatch)
		return &condor{dispatch: d, period: set.MatchPeriod}, err
	}, nil)
}

func (a *condor) Name() string { return "condor" }

func (a *condor) Init(s *Sim) error {
	a.s = s
	a.q = make([]jobQueue, len(s.Clusters()))
	a.users = make([]userCount, len(s.Clusters()))
	s.CountKeepAlives()
	startCycles(s, codeMatch, a.period, len(s.Clusters()))
	return nil
}

func (a *condor) Fits(j *Job) bool { return j.Procs <= a.s.Clusters()[j.Home].Procs }

func (a *condor) Arrive(j *Job) {
	a.s.Bus().Send(NotifyBroker, 1)
	a.q[j.Home].push(j)
	a.users[j.Home].add(j.JM, 1)
}

func (a *condor) Ended(j *Job) {
	a.s.Bus().Send(MatchClaimRelease, 1)
	a.s.Bus().Send(JobDataExchange, 1)
}

func (a *condor) Killed(j *Job) {
	a.q[j.Home].pushFront(j)
	a.users[j.Home].add(j.JM, 1)
}

func (a *condor) Event(code uint8, i int32, _ *Job, _ int64) {
	s := a.s
	s.Schedule(s.Now()+a.period, codeMatch, i, nil, 0)
	c := s.Clusters()[i]
	if !c.Up {
		return
	}
	s.Bus().Send(NotifyBroker, 1)
	s.Bus().Send(Negotiate, int64(a.users[i].n))
	matchQueue(s, &a.q[i], c, a.dispatch.Blocking(), func(j *Job) { a.users[i].add(j.JM, -1) })
}
