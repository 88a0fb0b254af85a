package metrics

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/stats/sampstat"
)

// NoJobRan is what the report says of a run in which no job started.
const NoJobRan = "no job ran (none started)"

// Compute computes the metrics of a run in one pass over its jobs. Each
// job's figures are computed once (figuresOf) and given to the views
// that use them: the resources it used (every unitary job and task), the
// tasks of composite jobs, the top-level jobs' samples, and the per-type,
// per-user and per-site groups. finish turns the views into RunMetrics.
func Compute(rd *RunData, opts Options) *RunMetrics {
	c := newComputation(rd, opts.withDefaults())
	c.series = true
	for i := range rd.Jobs {
		c.add(&rd.Jobs[i])
	}
	m := c.finish()
	s := &m.Samples
	m.Workflows, s.JobWorkflowSlowdown, s.JobCPEfficiency = workflows(rd, c.f, c.compositeAt, len(s.JobSubmit))
	return m
}

// figures are a job's times, in seconds scaled to the report's time base,
// each with whether it is defined for the job.
type figures struct {
	wait, run, resp, slowdown, bsld, delay          float64
	hasWait, hasRun, hasSlowdown, hasBSld, hasDelay bool
	procSec                                         float64 // processor-seconds, scaled
}

// figuresOf computes a job's figures with durations scaled by f.
func figuresOf(j *Job, f float64, tau time.Duration) figures {
	var fig figures
	if w, ok := Wait(j); ok {
		fig.wait, fig.hasWait = w*f, true
	}
	if r, ok := RunTime(j); ok {
		resp, _ := Response(j)
		fig.run, fig.resp, fig.hasRun = r*f, resp*f, true
		// The bounded slowdown with the times scaled: max(1, resp / max(run, τ)).
		if d := max(r*f, tau.Seconds()); d <= 0 {
			fig.bsld = 1
		} else {
			fig.bsld = max(1, resp*f/d)
		}
		fig.hasBSld = true
	}
	fig.slowdown, fig.hasSlowdown = Slowdown(j)
	fig.delay, fig.hasDelay = Delay(j)
	fig.procSec = ProcessorSeconds(j) * f
	return fig
}

// computation is Compute's state: the metrics being built and one
// accumulator per view.
type computation struct {
	rd   *RunData
	opts Options
	// f converts the store's durations of jobs to the report's clock (the
	// core's time scale in workload time, else 1); fs the span's (the
	// speedup when the span is in workload time, else 1): Clocks.
	f, fs  float64
	t0, t1 int64 // the run's interval: first submission to last end
	ran    bool  // some job started or ended
	spans  bool  // the run has a span: some job ran, and its times are in order
	m      *RunMetrics

	use    resourceUse
	tasks  taskView
	groups groupViews

	reasons  map[[2]string]int  // (state, reason class) of the jobs that did not succeed
	taskGood map[string]float64 // a composite job's goodput: its succeeded tasks' processor-seconds
	// compositeAt is each composite job's index in the top-level jobs'
	// samples (the workflow metrics fill theirs).
	compositeAt map[string]int
	// series keeps the per-job series of the samples (JobSubmit …
	// JobDelay: the regression gate's); Stream keeps none.
	series bool
	// sv are the views Compute makes from rd.Jobs after the pass, made
	// during it instead (Stream, which gives each job to them before add);
	// nil for Compute.
	sv *streamViews
}

// resourceUse accumulates the processor-seconds of unitary jobs and tasks:
// busy, and good (of the jobs that succeeded), unscaled.
type resourceUse struct{ busy, good float64 }

// taskView accumulates the tasks of composite jobs.
type taskView struct {
	perJob                map[string]*taskCounts
	wait, run, resp, bsld []float64
}

type taskCounts struct{ tasks, failed, retries int }

// groupViews are the per-type, per-user and per-site tables.
type groupViews struct {
	byType, byUser, bySite map[string]*groupAcc
	siteSplit              map[string][]string // a job's recorded sites, split
}

func newComputation(rd *RunData, opts Options) *computation {
	c := baseComputation(rd, opts)
	c.m.Samples = newSamples(len(rd.Jobs), true)
	t0, t1, ran := interval(rd.Jobs)
	c.setInterval(t0, t1, ran)
	for i := range rd.Jobs {
		if j := &rd.Jobs[i]; j.Parent != "" && j.State == Succeeded {
			c.taskGood[j.Parent] += ProcessorSeconds(j)
		}
	}
	return c
}

// baseComputation is a computation of no job yet, its interval unset.
func baseComputation(rd *RunData, opts Options) *computation {
	clocks := newClocks(rd, opts.WallTime)
	c := &computation{rd: rd, opts: opts, f: clocks.JobFactor(), fs: clocks.SpanFactor(), reasons: map[[2]string]int{}, taskGood: map[string]float64{}}
	c.m = &RunMetrics{RunID: rd.ID, Project: rd.Project, Scenario: rd.Scenario, Target: rd.Target, Status: rd.Status,
		Speedup: clocks.Speedup, TimeBase: clocks.Base(), Clocks: clocks, TauS: opts.Tau.Seconds(), Processors: rd.Processors,
		ProcessorsSource: rd.ProcessorsSource, Utilization: math.NaN(), Notes: slices.Clone(rd.Notes)}
	c.tasks.perJob = map[string]*taskCounts{}
	c.groups = groupViews{byType: map[string]*groupAcc{}, byUser: map[string]*groupAcc{}, bySite: map[string]*groupAcc{}, siteSplit: map[string][]string{}}
	return c
}

// setInterval sets the run's interval (interval's figures).
func (c *computation) setInterval(t0, t1 int64, ran bool) {
	c.t0, c.t1, c.ran = t0, t1, ran
	c.spans = c.ran && c.t0 != 0 && c.t1 >= c.t0
	c.m.StartNS = c.t0
	if c.spans {
		c.m.EndNS = c.t1
	}
}

// newSamples makes the samples of n jobs, the per-job series too when
// series is set.
func newSamples(n int, series bool) Samples {
	var s Samples
	for _, p := range []*[]float64{&s.Wait, &s.Run, &s.Response, &s.Slowdown, &s.BSlowdown, &s.Delay} {
		*p = make([]float64, 0, n)
	}
	if series {
		s.PairWait, s.PairRun = make([]float64, 0, n), make([]float64, 0, n)
		for _, p := range []*[]float64{&s.JobSubmit, &s.JobEnd, &s.JobGoodput, &s.JobWait, &s.JobRun, &s.JobResponse, &s.JobBSld, &s.JobDelay} {
			*p = make([]float64, 0, n)
		}
		s.JobOK = make([]bool, 0, n)
	}
	s.WaitByType = map[string][]float64{}
	s.JobsPerSite = map[string]int{}
	return s
}

// interval is the run's span: from the first submission (or scheduled
// instant) to the last end (or start, or submission). ran tells whether
// any job started or ended: without, the run has no span (no job ran, and
// the last end is missing: no figure is made of it).
func interval(jobs []Job) (t0, t1 int64, ran bool) {
	for i := range jobs {
		j := &jobs[i]
		ran = ran || j.StartNS != 0 || j.EndNS != 0
		for _, t := range []int64{j.SubmitNS, j.ScheduledNS} {
			if t != 0 && (t0 == 0 || t < t0) {
				t0 = t
			}
		}
		for _, t := range []int64{j.EndNS, j.StartNS, j.SubmitNS} {
			if t > t1 {
				t1 = t
			}
		}
	}
	return t0, t1, ran
}

// add gives a job to the views it belongs to. A warm job left out of the
// metrics only holds processors: it counts in the utilization.
func (c *computation) add(j *Job) {
	if j.Warm {
		if j.Parent == "" {
			c.m.WarmJobs++
		}
		if c.opts.leftOut(j) {
			c.use.busy += ProcessorSeconds(j)
			return
		}
	}
	fig := figuresOf(j, c.f, c.opts.Tau)
	if !j.Composite() { // unitary jobs and tasks use processors and sites
		c.addUse(j, &fig)
	}
	if j.Parent != "" {
		c.addTask(j, &fig)
		return
	}
	c.addJob(j, &fig)
	for _, g := range []struct {
		m   map[string]*groupAcc
		key string
	}{{c.groups.byType, j.Type}, {c.groups.byUser, j.User}} {
		switch {
		case g.key == "":
		case c.sv != nil:
			group(g.m, g.key).addSharing(j, &fig, c.m.Samples.Wait)
		default:
			group(g.m, g.key).add(j, &fig)
		}
	}
}

func group(m map[string]*groupAcc, key string) *groupAcc {
	g := m[key]
	if g == nil {
		g = &groupAcc{}
		m[key] = g
	}
	return g
}

// addUse counts the processors a unitary job or a task used, and the
// sites it ran on.
func (c *computation) addUse(j *Job, fig *figures) {
	ps := ProcessorSeconds(j)
	c.use.busy += ps
	if j.State == Succeeded {
		c.use.good += ps
	}
	if !j.Started() {
		return
	}
	sites, ok := c.groups.siteSplit[j.Sites]
	if !ok {
		sites = j.SiteList()
		if len(sites) == 0 {
			sites = []string{"(unknown)"}
		}
		c.groups.siteSplit[j.Sites] = sites
	}
	for _, site := range sites {
		c.m.Samples.JobsPerSite[site]++
		group(c.groups.bySite, site).add(j, fig)
	}
}

// addTask counts a task of a composite job.
func (c *computation) addTask(j *Job, fig *figures) {
	c.m.Tasks.add(j.State)
	tc := c.tasks.perJob[j.Parent]
	if tc == nil {
		tc = &taskCounts{}
		c.tasks.perJob[j.Parent] = tc
	}
	tc.tasks++
	if j.State != Succeeded {
		tc.failed++
	}
	tc.retries += max(0, j.Attempts-1)
	if fig.hasWait {
		c.tasks.wait = append(c.tasks.wait, fig.wait)
	}
	if fig.hasRun {
		c.tasks.run = append(c.tasks.run, fig.run)
		c.tasks.resp = append(c.tasks.resp, fig.resp)
	}
	if fig.hasBSld {
		c.tasks.bsld = append(c.tasks.bsld, fig.bsld)
	}
}

// addJob counts a top-level job (unitary or composite) and keeps its
// samples.
func (c *computation) addJob(j *Job, fig *figures) {
	m, s := c.m, &c.m.Samples
	m.Jobs.add(j.State)
	if j.State != Succeeded {
		c.reasons[[2]string{j.State, reasonClass(j.Reason)}]++
	}
	if j.Components > 1 {
		m.CoAllocated++
	}
	if j.State == Cancelled && j.StartNS == 0 && j.SubmitNS != 0 {
		m.CensoredWaits++
	}
	if fig.hasWait {
		s.Wait = append(s.Wait, fig.wait)
		if c.sv == nil || j.Type == "" { // else the type's group keeps them (streamViews.shareWaits)
			s.WaitByType[j.Type] = append(s.WaitByType[j.Type], fig.wait)
		}
	}
	if fig.hasRun {
		s.Run = append(s.Run, fig.run)
		s.Response = append(s.Response, fig.resp)
		if s.pairs != nil {
			s.pairs.add(j.StartNS-j.SubmitNS, j.EndNS-j.StartNS)
		} else {
			s.PairWait = append(s.PairWait, fig.wait)
			s.PairRun = append(s.PairRun, fig.run)
		}
	}
	if fig.hasSlowdown {
		s.Slowdown = append(s.Slowdown, fig.slowdown)
	}
	if fig.hasBSld {
		s.BSlowdown = append(s.BSlowdown, fig.bsld)
	}
	if fig.hasDelay {
		s.Delay = append(s.Delay, fig.delay)
	}
	sub, end := math.NaN(), math.NaN()
	if j.SubmitNS != 0 && c.sv == nil { // Stream knows the first submission at the end (finishPass)
		sub = sec(j.SubmitNS-c.t0) * c.fs
		s.LastSubmit = max(s.LastSubmit, sub)
	}
	if !c.series {
		s.Jobs++
		return
	}
	if j.EndNS != 0 {
		end = sec(j.EndNS-c.t0) * c.fs
	}
	gp := 0.0
	if j.Composite() {
		gp = c.taskGood[j.ID] * c.f
	} else if j.State == Succeeded {
		gp = fig.procSec
	}
	if j.Composite() {
		if c.compositeAt == nil {
			c.compositeAt = map[string]int{}
		}
		c.compositeAt[j.ID] = len(s.JobSubmit)
	}
	s.Jobs++
	s.JobSubmit, s.JobEnd, s.JobOK, s.JobGoodput = append(s.JobSubmit, sub), append(s.JobEnd, end), append(s.JobOK, j.State == Succeeded), append(s.JobGoodput, gp)
	s.JobWait = append(s.JobWait, orNaN(fig.wait, fig.hasWait))
	s.JobRun, s.JobResponse = append(s.JobRun, orNaN(fig.run, fig.hasRun)), append(s.JobResponse, orNaN(fig.resp, fig.hasRun))
	s.JobBSld = append(s.JobBSld, orNaN(fig.bsld, fig.hasBSld))
	s.JobDelay = append(s.JobDelay, orNaN(fig.delay, fig.hasDelay))
}

// finish summarizes the views.
func (c *computation) finish() *RunMetrics {
	m, s, f, opts := c.m, &c.m.Samples, c.f, c.opts
	if c.sv != nil {
		c.sv.shareWaits(c)
	}
	m.SuccessRate = m.Jobs.SuccessRate()
	m.FailureRate = 1 - m.SuccessRate
	m.Failures = failures(c.reasons, m.Jobs.Submitted)
	m.Wait = sampstat.Summarize(s.Wait)
	m.Run = sampstat.Summarize(s.Run)
	m.Response = sampstat.Summarize(s.Response)
	m.Slowdown = sampstat.Summarize(s.Slowdown)
	m.BSlowdown = sampstat.Summarize(s.BSlowdown)
	m.Delay = sampstat.Summarize(s.Delay)
	m.ByType = groups(c.groups.byType, opts.MaxGroups)
	m.BySite = groups(c.groups.bySite, opts.MaxGroups)
	if len(c.groups.byUser) > 0 {
		m.ByUser = groups(c.groups.byUser, opts.MaxGroups)
	}
	m.Goodput = c.use.good * f
	m.Makespan, m.WallSpan, m.Throughput, m.GoodputRate = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if c.spans {
		span := sec(c.t1 - c.t0)
		m.Makespan, m.WallSpan = span*c.fs, span
		if span > 0 {
			m.Throughput = float64(m.Jobs.Succeeded) / (span * c.fs / 3600)
			m.GoodputRate = c.use.good / span
			if c.rd.Processors > 0 {
				m.Utilization = c.use.busy / (float64(c.rd.Processors) * span)
			}
		}
		if c.sv != nil {
			m.Series = c.sv.series.finish(c.rd.Processors)
		} else {
			m.Series = series(c.rd, c.t0, c.t1, opts.Bins, c.fs, opts)
		}
	} else {
		switch {
		case c.ran:
			m.NoSpan = "the jobs' times are missing or out of order (no submission before the last end)"
		case m.Jobs.Submitted > 0 || m.Tasks.Submitted > 0:
			m.NoSpan = NoJobRan
		default:
			m.NoSpan = "the run has no jobs"
		}
	}
	if !m.Clocks.Plain() {
		jobs, span, delay := m.Clocks.Describe()
		m.Notes = append(m.Notes, "clocks: "+jobs+"; "+span+"; "+delay)
	}
	if len(c.tasks.perJob) > 0 || c.sv == nil && m.hasComposite(c.rd) {
		m.Composite = operational(c.rd, f, opts, func(id string) (int, int, int) {
			if tc := c.tasks.perJob[id]; tc != nil {
				return tc.tasks, tc.failed, tc.retries
			}
			return 0, 0, 0
		})
		m.Composite.TaskWait = sampstat.Summarize(c.tasks.wait)
		m.Composite.TaskRun = sampstat.Summarize(c.tasks.run)
		m.Composite.TaskResponse = sampstat.Summarize(c.tasks.resp)
		m.Composite.TaskBSlowdown = sampstat.Summarize(c.tasks.bsld)
	}
	if c.sv != nil {
		c.sv.finish(c)
	} else {
		m.Breakdown = breakdown(c.rd, f, opts)
		if c.rd.Koala != nil {
			m.Core = coreMetrics(c.rd, f, opts)
		}
		m.Coallocation = coallocation(c.rd, f, opts)
	}
	m.WarmIncluded = opts.IncludeWarm && m.WarmJobs > 0
	switch {
	case m.WarmJobs > 0 && !opts.IncludeWarm:
		m.Notes = append(m.Notes, itoa(m.WarmJobs)+" warm jobs (in flight in the trace when the replayed window opened) are left out of the job metrics; "+
			"the processors they held count in the utilization (--include-warm counts them as jobs)")
	case m.WarmJobs > 0:
		m.Notes = append(m.Notes, itoa(m.WarmJobs)+" warm jobs (in flight in the trace when the replayed window opened) are counted like the others (--include-warm)")
	}
	if m.CensoredWaits > 0 {
		m.Notes = append(m.Notes, itoa(m.CensoredWaits)+" jobs were cancelled before they started: their waits are censored and not in the wait statistics")
	}
	return m
}

// failures are the jobs that did not succeed by (state, reason class),
// most frequent first.
func failures(reasons map[[2]string]int, submitted int) []ReasonCount {
	var out []ReasonCount
	for k, n := range reasons {
		out = append(out, ReasonCount{State: k[0], Reason: k[1], Count: n, Rate: float64(n) / float64(submitted)})
	}
	slices.SortFunc(out, func(a, b ReasonCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.State+a.Reason, b.State+b.Reason)
	})
	return out
}
