package sim

// sep-c: independent clusters (Table 8.1). Each job goes to its home
// cluster's queue; free processors are seen at once (ideal job routing).
// Messages: the job sent to the local resource manager and its results
// back (JobDataExchange, one each).
type sepC struct {
	hooks
	s *Sim
}

func init() {
	register("sep-c", func(struct{}) (Architecture, error) { return &sepC{}, nil }, nil)
}

func (a *sepC) Name() string { return "sep-c" }

func (a *sepC) Init(s *Sim) error { a.s = s; return nil }

// Fits: a job runs only on its home cluster.
func (a *sepC) Fits(j *Job) bool { return j.Procs <= a.s.Clusters()[j.Home].Procs }

func (a *sepC) Arrive(j *Job) {
	a.s.Bus().Send(JobDataExchange, 1)
	a.s.Enqueue(a.s.Clusters()[j.Home], j)
}

func (a *sepC) Ended(j *Job) { a.s.Bus().Send(JobDataExchange, 1) }

func (a *sepC) Killed(j *Job) { a.s.Requeue(a.s.Clusters()[j.Home], j) }
