package experiment

import (
	"container/heap"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gmark/gmark/placeholder/metaqueue"
	"github.com/gmark/gmark/placeholder/site"
)

// JobRun is one job as it ran: where, its units, when it started and ended
// (seconds from the start of the experiment, when every job is there).
type JobRun struct {
	Job   int     `json:"job"` // index in the workload, from 0
	Site  string  `json:"site"`
	Units float64 `json:"units"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Report is an experiment's outcome: one Result per mode, and the makespan
// ratio static / placeholder when both ran.
type Report struct {
	Name  string    `json:"name"`
	Runs  []*Result `json:"runs"`
	Ratio float64   `json:"ratio,omitempty"`
}

// Experiment runs the workload of sp over its sites in each of its modes,
// in simulated time. It is deterministic: the same spec gives the same
// report.
func Experiment(sp *Spec) (*Report, error) {
	if err := sp.Check(); err != nil {
		return nil, err
	}
	r := &Report{Name: sp.Name}
	byMode := map[string]*Result{}
	for _, m := range sp.Modes {
		runs, err := simulate(sp, m)
		if err != nil {
			return nil, fmt.Errorf("%s run: %w", m, err)
		}
		res, err := measure(sp, m, runs)
		if err != nil {
			return nil, fmt.Errorf("%s run: %w", m, err)
		}
		byMode[m] = res
		r.Runs = append(r.Runs, res)
	}
	if s, p := byMode[Static], byMode[Placeholder]; s != nil && p != nil && p.Makespan > 0 {
		r.Ratio = s.Makespan / p.Makespan
	}
	return r, nil
}

// group is the metaqueue group of an experiment.
const group = "experiment"

// epoch is the simulated clock's time 0 as the metaqueue sees it.
var epoch = time.Unix(0, 0).UTC()

func at(t float64) time.Time { return epoch.Add(time.Duration(math.Round(t * 1e9))) }

// event is a placeholder starting (job < 0: it pulls) or its job ending.
type event struct {
	t     float64
	seq   int64
	site  int
	local string
	att   int64
	job   int
	start float64
}

type events []*event

func (e events) Len() int { return len(e) }
func (e events) Less(i, j int) bool {
	if e[i].t != e[j].t {
		return e[i].t < e[j].t
	}
	return e[i].seq < e[j].seq
}
func (e events) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)   { *e = append(*e, x.(*event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// sim is one run: the metaqueue, the event queue, the local ids.
type sim struct {
	sp    *Spec
	mq    *metaqueue.Virtual
	q     events
	seq   int64
	local []int
	runs  []JobRun
}

func (s *sim) push(e *event) {
	s.seq++
	e.seq = s.seq
	heap.Push(&s.q, e)
}

// submit queues a new placeholder at site i at time t; it starts after
// the site's queue wait.
func (s *sim) submit(i int, t float64) string {
	s.local[i]++
	id := strconv.Itoa(s.local[i])
	s.push(&event{t: t + s.sp.Sites[i].QueueWait, site: i, local: id, job: -1})
	return id
}

// simulate runs the workload one way: static (each job pinned to its
// site by the split) or through placeholders (any job to any site). Both
// go through the metaqueue with classic placeholders: with pinned jobs a
// site's placeholders work through its own list and are refused when it is
// done, as the thesis's user scripts stop.
func simulate(sp *Spec, mode string) ([]JobRun, error) {
	s := &sim{sp: sp, mq: metaqueue.NewVirtual(), local: make([]int, len(sp.Sites))}
	gs := metaqueue.GroupSpec{Name: group, Policy: metaqueue.FCFS}
	for _, st := range sp.Sites {
		gs.Sites = append(gs.Sites, site.Spec{Name: st.Name, Kind: site.Zinf, Mode: site.Classic})
	}
	if err := s.mq.PutGroup(epoch, gs); err != nil {
		return nil, err
	}
	jobs := make([]metaqueue.NewJob, len(sp.Units))
	k := 0
	for i, c := range sp.Split {
		for range c {
			jobs[k].Command = strconv.Itoa(k)
			if mode == Static {
				jobs[k].Site = sp.Sites[i].Name
			}
			k++
		}
	}
	if _, err := s.mq.AddJobs(epoch, group, jobs); err != nil {
		return nil, err
	}
	for i, st := range sp.Sites {
		for range st.Placeholders {
			s.submit(i, 0)
		}
	}
	for s.q.Len() > 0 {
		e := heap.Pop(&s.q).(*event)
		var err error
		if e.job < 0 {
			err = s.start(e)
		} else {
			err = s.end(e)
		}
		if err != nil {
			return nil, err
		}
	}
	rep, err := s.mq.Report(group)
	if err != nil {
		return nil, err
	}
	if rep.Once != len(sp.Units) || len(s.runs) != len(sp.Units) {
		return nil, fmt.Errorf("%d of %d jobs ran (once: %d)", len(s.runs), len(sp.Units), rep.Once)
	}
	return s.runs, nil
}

// start: the placeholder starts and pulls; refused, it leaves (exit 111).
func (s *sim) start(e *event) error {
	st := s.sp.Sites[e.site]
	id := metaqueue.Ident{Site: st.Name, Host: "emulated", LocalID: e.local}
	rep, err := s.mq.Pull(at(e.t), group, metaqueue.PullRequest{Ident: id, Seq: 1})
	if err != nil {
		return err
	}
	if rep.Order == nil {
		return s.mq.Dequeue(at(e.t), group, metaqueue.DequeueRequest{Ident: id, Reason: rep.Stop})
	}
	j, err := strconv.Atoi(rep.Order.Command)
	if err != nil || j < 0 || j >= len(s.sp.Units) {
		return fmt.Errorf("the metaqueue gave out %q", rep.Order.Command)
	}
	s.push(&event{t: st.finish(e.t, s.sp.Units[j]), site: e.site, local: e.local, att: rep.Order.Attempt, job: j, start: e.t})
	return nil
}

// end: the job ended; the placeholder resubmits itself to its site's
// queue, reports done with its successor's id, and exits.
func (s *sim) end(e *event) error {
	st := s.sp.Sites[e.site]
	next := s.submit(e.site, e.t)
	err := s.mq.Done(at(e.t), group, metaqueue.DoneRequest{Ident: metaqueue.Ident{Site: st.Name, Host: "emulated", LocalID: e.local},
		Attempt: e.att, Started: at(e.start), Ended: at(e.t), NewID: next, Resubmitted: at(e.t)})
	if err != nil {
		return err
	}
	s.runs = append(s.runs, JobRun{Job: e.job, Site: st.Name, Units: s.sp.Units[e.job], Start: e.start, End: e.t})
	return nil
}

// rateAt is the site's rate at t and until when it holds (+Inf: for ever).
func (st *Site) rateAt(t float64) (float64, float64) {
	for _, l := range st.Load {
		switch {
		case t < l.From:
			return st.Rate, l.From
		case t < l.To:
			return l.Rate, l.To
		}
	}
	return st.Rate, math.Inf(1)
}

// finish is when a job of u units started at t ends at this site.
func (st *Site) finish(t, u float64) float64 {
	for {
		r, until := st.rateAt(t)
		if math.IsInf(until, 1) || r*(until-t) >= u {
			return t + u/r
		}
		u -= r * (until - t)
		t = until
	}
}
