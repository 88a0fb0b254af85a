package sim

import "time"

// The site managers' shared parts: the cycles of the matchmaking site
// managers (condor, fcondor, DMM), their matchmaking pass and the start of
// a matched job, the count of job managers waiting at one, and the soft
// reservations of the job-routing schedulers (central, hier).

// MatchSettings are the matchmaking site managers' (condor, fcondor, dmm).
type MatchSettings struct {
	MatchPeriod time.Duration `toml:"match_period"` // matchmaking cycle (300 s)
	// Dispatch is the local dispatch: "fcfs" (condor's default) or
	// "fcfs-bypass" (fcondor's and DMM's).
	Dispatch string `toml:"dispatch"`
}

// Default: the matchmaking site managers' defaults.
func (m *MatchSettings) Default() {
	*m = MatchSettings{MatchPeriod: 300 * time.Second, Dispatch: "fcfs"}
}

// Check: the matchmaking site managers' settings.
func (m *MatchSettings) Check() error {
	if err := checkPeriod("match_period", m.MatchPeriod, false); err != nil {
		return err
	}
	if _, err := NewDispatch(m.Dispatch); err != nil {
		return &SettingError{Key: "dispatch", Msg: err.Error()}
	}
	return nil
}

// ReserveSettings are the job routers' (central, hier).
type ReserveSettings struct {
	// CentralReserve: a router counts processors it sent to a cluster
	// against the cluster's idle count until a snapshot shows them (KOALA's
	// soft reservation). Without it, it sends jobs to a cluster as long as
	// the last snapshot shows it idle, and the cluster queues them (the
	// reading under which the thesis's T1 curves shift by exactly δ).
	CentralReserve bool `toml:"central_reserve"`
}

// Default: reservations on.
func (r *ReserveSettings) Default() { r.CentralReserve = true }

// Check: nothing to check.
func (r *ReserveSettings) Check() error { return nil }

// startCycles schedules the first cycle of n site managers, each at its
// phase.
func startCycles(s *Sim, code uint8, period time.Duration, n int) {
	for i := 0; i < n; i++ {
		s.Schedule(s.Phase(period), code, int32(i), nil, 0)
	}
}

// matchQueue is a matchmaking pass of one site manager over its queue:
// eligible jobs in order start on the cluster's idle processors; a job
// that does not fit stops the pass when blocking, else it is passed over.
func matchQueue(s *Sim, q *jobQueue, c *Cluster, blocking bool, took func(*Job)) {
	limit := s.Selection().Eligible(q.len())
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
	s.Bus().Send(MatchClaimRelease, 2)
	s.Bus().Send(JobDataExchange, 1)
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
	r.reserved = make([]int, len(s.Clusters()))
	r.pending = make([][]reservation, len(s.Clusters()))
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
	v := r.s.Touch() // the push itself is a change: a report taken before it does not show it
	r.reserved[c] += procs
	r.pending[c] = append(r.pending[c], reservation{v, procs})
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
