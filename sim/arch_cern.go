package sim

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
	register("cern", func(struct{}) (Architecture, error) { return &cern{}, nil }, nil)
}

func (a *cern) Name() string      { return "cern" }
func (a *cern) Init(s *Sim) error { a.s = s; return nil }
func (a *cern) Fits(j *Job) bool  { return j.Procs <= a.s.MaxProcs() }

func (a *cern) Arrive(j *Job) {
	a.s.Bus().Send(NotifyBroker, 1)
	a.q.push(j)
	a.pull(-1)
}

func (a *cern) Ended(j *Job) {
	a.s.Bus().Send(JobDataExchange, 1)
	a.pull(j.Cluster)
}

func (a *cern) Killed(j *Job)          { a.q.pushFront(j); a.pull(-1) }
func (a *cern) ClusterUp(c *Cluster)   { a.pull(c.Index) }
func (a *cern) ClusterDown(c *Cluster) {}

func (a *cern) pull(first int) {
	s := a.s
	n := len(s.Clusters())
	for a.q.len() > 0 {
		j := a.q.peek()
		pick := -1
		if first >= 0 && s.Clusters()[first].Up && s.Clusters()[first].Free >= j.Procs {
			pick = first
		}
		for k := 0; pick < 0 && k < n; k++ {
			i := (a.rr + k) % n
			if c := s.Clusters()[i]; c.Up && c.Free >= j.Procs {
				pick = i
				a.rr = (i + 1) % n
			}
		}
		if pick < 0 {
			return
		}
		a.q.pop()
		s.Bus().Send(Negotiate, 1)
		s.Bus().Send(JobDataExchange, 1)
		s.Start(j, s.Clusters()[pick], false)
	}
}
