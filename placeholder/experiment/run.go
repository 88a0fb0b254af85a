package experiment

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
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
func Experiment(sp *Spec) (*Report, error) { return ExperimentWith(sp, Options{}) }

// ExperimentWith runs the experiment with options for scaled time (a spec
// with time_scale; docs/placeholder.md): then the placeholders are real
// processes and the report is not deterministic.
func ExperimentWith(sp *Spec, o Options) (*Report, error) {
	if err := sp.Check(); err != nil {
		return nil, err
	}
	r := &Report{Name: sp.Name}
	byMode := map[string]*Result{}
	faulty := sp.faulty() || sp.Watchdog != nil
	for _, m := range sp.Modes {
		run := simulate
		if sp.TimeScale > 0 {
			run = func(sp *Spec, m string) (*outcome, error) { return scaled(sp, m, o) }
		}
		out, err := run(sp, m)
		if err != nil {
			return nil, fmt.Errorf("%s run: %w", m, err)
		}
		if !faulty && (out.report.Once != len(sp.Units) || len(out.runs) != len(sp.Units)) {
			return nil, fmt.Errorf("%s run: %d of %d jobs ran (once: %d)", m, len(out.runs), len(sp.Units), out.report.Once)
		}
		res, err := measure(sp, m, out.runs)
		if err != nil {
			return nil, fmt.Errorf("%s run: %w", m, err)
		}
		if faulty {
			f := out.faults
			res.Faults = &f
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

// Event kinds: a placeholder starts and pulls; its pull gets through
// after retries; its job ends; its report gets through after retries; it
// vanishes (lost, or its site stopped); the watchdog runs.
const (
	evStart = iota
	evPull
	evEnd
	evReport
	evVanish
	evTick
)

// event is something due at t to placeholder local of site (job: the job
// it runs, from start; att its attempt).
type event struct {
	t     float64
	seq   int64
	kind  int
	site  int
	local string
	att   int64
	job   int
	start float64
	next  string  // evReport: the successor's local id
	end   float64 // evReport: when the job ended
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

// MaxTicks bounds the watchdog's runs in one simulated run.
const MaxTicks = 1000000

// phKey is a placeholder of the run: its site and local id.
type phKey struct {
	site  int
	local string
}

// sim is one run: the metaqueue, the event queue, the local ids, and what
// the emulated sites hold.
type sim struct {
	sp      *Spec
	mq      *metaqueue.Virtual
	wd      metaqueue.Watchdog
	q       events
	seq     int64
	local   []int
	runs    []JobRun
	pending int // events other than the watchdog's
	ticks   int

	alive       map[phKey]bool   // queued or running at its site
	dead        map[phKey]bool   // killed by the watchdog: its events are void
	running     map[phKey]*event // the job a placeholder runs
	pendingLoss [][]float64
	rng         []*rand.Rand
	svc         []*rand.Rand // service-time draws
	faults      Faults
}

func (s *sim) push(e *event) {
	s.seq++
	e.seq = s.seq
	if e.kind != evTick {
		s.pending++
	}
	heap.Push(&s.q, e)
}

// submit queues a new placeholder at site i at time t; it starts after
// the site's queue wait, unless the site has stopped executing by then.
func (s *sim) submit(i int, t float64) string {
	s.local[i]++
	id := strconv.Itoa(s.local[i])
	s.alive[phKey{i, id}] = true
	if start := t + s.sp.Sites[i].QueueWait; !s.stopped(i, start) {
		s.push(&event{t: start, kind: evStart, site: i, local: id, job: -1})
	}
	return id
}

// outcome is a run's executions and what became of its jobs.
type outcome struct {
	runs   []JobRun
	report *metaqueue.Report
	faults Faults
}

// simulate runs the workload one way: static (each job pinned to its
// site by the split) or through placeholders (any job to any site). Both
// go through the metaqueue with classic placeholders: with pinned jobs a
// site's placeholders work through its own list and are refused when it is
// done, as the thesis's user scripts stop.
func simulate(sp *Spec, mode string) (*outcome, error) {
	s := &sim{sp: sp, mq: metaqueue.NewVirtual(), wd: sp.watchdog(), local: make([]int, len(sp.Sites)),
		alive: map[phKey]bool{}, dead: map[phKey]bool{}, running: map[phKey]*event{}}
	gs := metaqueue.GroupSpec{Name: group, Policy: metaqueue.FCFS}
	for i, st := range sp.Sites {
		gs.Sites = append(gs.Sites, site.Spec{Name: st.Name, Kind: site.Zinf, Mode: site.Classic})
		s.pendingLoss = append(s.pendingLoss, append([]float64(nil), st.Lost...))
		s.rng = append(s.rng, rand.New(rand.NewPCG(sp.Seed, uint64(i))))
		s.svc = append(s.svc, serviceRNG(sp.Seed, i))
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
	if sp.faulty() || sp.Watchdog != nil {
		s.push(&event{t: s.wd.Interval.Seconds(), kind: evTick})
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	rep, err := s.mq.Report(group)
	if err != nil {
		return nil, err
	}
	s.settle(rep)
	return &outcome{runs: s.runs, report: rep, faults: s.faults}, nil
}

// loop is the one event loop of the placeholder model (CONTRIBUTING.md:
// one engine per model). It is not sim's engine because that one models
// grids of processors under architectures, not sites of a rate and the
// pilots that pull from the metaqueue; what it steps is the live server's
// own state machine, metaqueue.Virtual.
func (s *sim) loop() error {
	for s.q.Len() > 0 {
		e := heap.Pop(&s.q).(*event)
		if e.kind != evTick {
			s.pending--
		}
		if e.kind != evTick && s.dead[phKey{e.site, e.local}] {
			continue
		}
		var err error
		switch e.kind {
		case evStart:
			err = s.start(e)
		case evPull:
			err = s.pull(e)
		case evEnd:
			err = s.end(e)
		case evReport:
			err = s.report(e)
		case evVanish:
			s.vanish(e, e.t)
		case evTick:
			if s.ticks++; s.ticks > MaxTicks {
				return fmt.Errorf("more than %d runs of the watchdog (every %v s, at %.0f s): give a longer interval", MaxTicks, s.wd.Interval.Seconds(), e.t)
			}
			s.tick(e.t)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// start: the placeholder starts and calls the metaqueue, which answers
// now, or after retries, or never (the placeholder gives up and leaves).
func (s *sim) start(e *event) error {
	when, ok, retried := s.sp.reach(e.t)
	if retried && ok {
		s.faults.Retried++
	}
	k := phKey{e.site, e.local}
	switch {
	case !ok:
		s.faults.GaveUp++
		delete(s.alive, k)
		return nil
	case when > e.t:
		s.push(&event{t: when, kind: evPull, site: e.site, local: e.local, job: -1})
		return nil
	}
	return s.pull(e)
}

// pull: the call gets through; refused, the placeholder leaves (exit
// 111); given a job, it runs it, unless it is cut short.
func (s *sim) pull(e *event) error {
	k := phKey{e.site, e.local}
	if s.stopped(e.site, e.t) {
		delete(s.alive, k) // the site stopped while the call was retried
		return nil
	}
	st := s.sp.Sites[e.site]
	id := metaqueue.Ident{Site: st.Name, Host: "emulated", LocalID: e.local}
	rep, err := s.mq.Pull(at(e.t), group, metaqueue.PullRequest{Ident: id, Seq: 1})
	if err != nil {
		return err
	}
	if rep.Order == nil {
		delete(s.alive, k)
		return s.mq.Dequeue(at(e.t), group, metaqueue.DequeueRequest{Ident: id, Reason: rep.Stop})
	}
	j, err := strconv.Atoi(rep.Order.Command)
	if err != nil || j < 0 || j >= len(s.sp.Units) {
		return fmt.Errorf("the metaqueue gave out %q", rep.Order.Command)
	}
	f := st.finish(e.t, s.sp.Units[j]*s.factor(e.site))
	ev := &event{t: f, kind: evEnd, site: e.site, local: e.local, att: rep.Order.Attempt, job: j, start: e.t}
	if c, cut := s.cut(e.site, e.t, f); cut {
		ev.t, ev.kind = c, evVanish
	}
	s.running[k] = ev
	s.push(ev)
	return nil
}

// end: the job ended; the placeholder resubmits itself to its site's
// queue, then reports done with its successor's id, and exits. A report
// whose retries run out is lost (the placeholder exits with an error).
func (s *sim) end(e *event) error {
	k := phKey{e.site, e.local}
	delete(s.running, k)
	delete(s.alive, k)
	st := s.sp.Sites[e.site]
	s.runs = append(s.runs, JobRun{Job: e.job, Site: st.Name, Units: s.sp.Units[e.job], Start: e.start, End: e.t})
	next := s.submit(e.site, e.t)
	when, ok, retried := s.sp.reach(e.t)
	if !ok {
		s.faults.GaveUp++
		return nil
	}
	r := &event{t: when, kind: evReport, site: e.site, local: e.local, att: e.att, job: e.job, start: e.start, next: next, end: e.t}
	if !retried {
		return s.report(r)
	}
	s.faults.Retried++
	s.push(r)
	return nil
}

func (s *sim) report(e *event) error {
	st := s.sp.Sites[e.site]
	return s.mq.Done(at(e.t), group, metaqueue.DoneRequest{Ident: metaqueue.Ident{Site: st.Name, Host: "emulated", LocalID: e.local},
		Attempt: e.att, Started: at(e.start), Ended: at(e.end), NewID: e.next, Resubmitted: at(e.end)})
}

// vanish: the placeholder is gone at t, its job cut short, with no report
// and no successor.
func (s *sim) vanish(e *event, t float64) {
	k := phKey{e.site, e.local}
	delete(s.running, k)
	delete(s.alive, k)
	s.faults.Lost = append(s.faults.Lost, JobRun{Job: e.job, Site: s.sp.Sites[e.site].Name, Units: s.sp.Units[e.job], Start: e.start, End: t})
}

// tick runs the watchdog (and its probe), kills what it says and submits
// the fresh placeholders; it runs again while jobs remain and something
// can still happen.
func (s *sim) tick(t float64) {
	tasks := s.mq.Watch(at(t), s.wd)
	if s.wd.Probe {
		tasks = append(tasks, s.mq.Probe(at(t), s.wd, s.isAlive)...)
	}
	for _, task := range tasks {
		i := s.siteIndex(task.Site)
		if task.Kill != "" {
			k := phKey{i, task.Kill}
			s.faults.Killed++
			if e := s.running[k]; e != nil {
				s.vanish(e, t)
			}
			delete(s.alive, k)
			s.dead[k] = true
		}
		if task.Submit {
			s.faults.Replaced++
			local := s.submit(i, t)
			s.mq.Register(at(t), group, task.Site, local, task.Reason, at(t))
		}
	}
	waiting, bound := s.mq.Remaining(group)
	recoverable := bound > 0 && (s.wd.ExecFailure > 0 || s.wd.Probe)
	if waiting+bound > 0 && (s.pending > 0 || recoverable) {
		s.push(&event{t: t + s.wd.Interval.Seconds(), kind: evTick})
	}
}

func (s *sim) isAlive(siteName, local string) bool {
	return s.alive[phKey{s.siteIndex(siteName), local}]
}

func (s *sim) siteIndex(name string) int {
	for i, st := range s.sp.Sites {
		if st.Name == name {
			return i
		}
	}
	return -1
}

// settle fills the faults from the metaqueue's report: jobs done once,
// listed duplicated (or maybe) with their reasons, failed, unfinished.
func (s *sim) settle(rep *metaqueue.Report) {
	f := &s.faults
	f.Once = rep.Once
	f.Requeued = s.mq.Actions()["requeue"]
	execs := map[int]int{}
	for _, r := range s.runs {
		execs[r.Job]++
	}
	list := func(in []metaqueue.JobRuns) []Listed {
		var out []Listed
		for _, j := range in {
			idx := int(j.Job - 1)
			out = append(out, Listed{Job: idx, Reason: j.Reason, Runs: execs[idx]})
		}
		return out
	}
	f.Duplicated, f.Maybe, f.Failed = list(rep.Duplicate), list(rep.Possible), list(rep.Failed)
	for _, id := range rep.Unfinished {
		f.Unfinished = append(f.Unfinished, int(id-1))
	}
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
