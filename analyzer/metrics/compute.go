package metrics

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gmark/gmark/stats/sampstat"
)

// Options tune Compute.
type Options struct {
	// Tau is the bounded slowdown's threshold τ (DefaultTau when 0).
	Tau time.Duration
	// A run submitted with --speedup X is reported in workload time by
	// default: durations × X, rates ÷ X. Ratios (slowdown, utilization,
	// success rate) do not change; the submission delay stays in wall time
	// (it is the submitter's accuracy, which a speedup does not compress),
	// and the wall-clock makespan is given beside the workload one.
	// WallTime reports it in wall time instead, as observed.
	WallTime bool
	// Bins is the number of intervals of the time series (100 when 0).
	Bins int
	// MaxGroups caps the rows of the per-type, per-site and per-user tables;
	// the smallest groups are merged into "(other)" (50 when 0).
	MaxGroups int
	// IncludeWarm counts the warm jobs of a trace replay's warm start like
	// any other. By default they are left out of every job metric; the
	// processors they hold still count in the utilization.
	IncludeWarm bool
}

// leftOut tells whether a job is left out of the job metrics: a warm job,
// unless they are included.
func (o Options) leftOut(j *Job) bool { return j.Warm && !o.IncludeWarm }

func (o Options) withDefaults() Options {
	if o.Tau == 0 {
		o.Tau = DefaultTau
	}
	if o.Bins <= 0 {
		o.Bins = 100
	}
	if o.MaxGroups <= 0 {
		o.MaxGroups = 50
	}
	return o
}

// Counts are jobs by final state.
type Counts struct {
	Submitted    int `json:"submitted"` // every job of the run, whether or not it was submitted
	Succeeded    int `json:"succeeded"`
	Failed       int `json:"failed"`
	Cancelled    int `json:"cancelled"`
	NeverStarted int `json:"never_started"`
}

func (c *Counts) add(state string) {
	c.Submitted++
	switch state {
	case Succeeded:
		c.Succeeded++
	case Failed:
		c.Failed++
	case Cancelled:
		c.Cancelled++
	case NeverStarted:
		c.NeverStarted++
	}
}

// SuccessRate is succeeded / submitted (NaN for no jobs).
func (c Counts) SuccessRate() float64 {
	if c.Submitted == 0 {
		return math.NaN()
	}
	return float64(c.Succeeded) / float64(c.Submitted)
}

// ReasonCount is how many jobs ended in a state for one reason.
type ReasonCount struct {
	State  string  `json:"state"`
	Reason string  `json:"reason"`
	Count  int     `json:"count"`
	Rate   float64 `json:"rate"` // of the submitted jobs
}

// Group is one row of a per-type, per-site or per-user table.
type Group struct {
	Key         string  `json:"key"`
	Jobs        int     `json:"jobs"`
	Succeeded   int     `json:"succeeded"`
	SuccessRate float64 `json:"success_rate"`
	MeanWait    float64 `json:"mean_wait_s"`
	P50Wait     float64 `json:"p50_wait_s"`
	P95Wait     float64 `json:"p95_wait_s"`
	MeanRun     float64 `json:"mean_run_s"`
	MeanBSld    float64 `json:"mean_bsld"`
	ProcSeconds float64 `json:"processor_seconds"`
}

// TimeSeries are the run's metrics over time, in Bins equal intervals from
// the first submission to the last end.
type TimeSeries struct {
	BinSeconds float64   `json:"bin_s"`
	T          []float64 `json:"t_s"` // start of each bin, seconds since the first submission
	// Utilization is busy processor-seconds / (processors × bin) per bin;
	// nil when the system size is unknown.
	Utilization []float64 `json:"utilization,omitempty"`
	// Goodput is the processor-seconds of successful jobs in each bin per
	// second of the bin: the processors' worth of useful work delivered.
	Goodput []float64 `json:"goodput_processors"`
	// Throughput is the jobs that succeeded in each bin, per hour.
	Throughput []float64 `json:"throughput_per_h"`
}

// OpGroup is the operational level of a group of composite jobs (workflows,
// bags of tasks) of one type.
type OpGroup struct {
	Type        string           `json:"type"`
	Jobs        int              `json:"jobs"`
	Succeeded   int              `json:"succeeded"`
	SuccessRate float64          `json:"success_rate"`
	Tasks       int              `json:"tasks"`
	FailedTasks int              `json:"failed_tasks"` // failed, cancelled or never started
	Retries     int              `json:"retries"`      // Σ (attempts − 1) over the tasks
	Makespan    sampstat.Summary `json:"makespan_s"`   // last task end − first task submission, per completed composite job
}

// Operational is the operational level: composite jobs as aggregates, and
// their sub-jobs.
type Operational struct {
	All    OpGroup   `json:"all"`
	ByType []OpGroup `json:"by_type"`
	// The sub-jobs (tasks), each on its own.
	TaskWait      sampstat.Summary `json:"task_wait_s"`
	TaskRun       sampstat.Summary `json:"task_run_s"`
	TaskResponse  sampstat.Summary `json:"task_response_s"`
	TaskBSlowdown sampstat.Summary `json:"task_bounded_slowdown"`
}

// Phase is one part of the response-time breakdown.
type Phase struct {
	Name string  `json:"name"`
	Mean float64 `json:"mean_s"`
}

// Breakdown is the mean response time split into phases, over the jobs
// whose every phase is known.
type Breakdown struct {
	Jobs   int     `json:"jobs"`
	Source string  `json:"source"`
	Phases []Phase `json:"phases"`
}

// CoreMetrics are the bundled core's own figures.
type CoreMetrics struct {
	Jobs           int              `json:"jobs"` // jobs the core recorded figures for
	Placement      sampstat.Summary `json:"placement_s"`
	Transfer       sampstat.Summary `json:"transfer_s"`
	ClaimTries     sampstat.Summary `json:"claim_tries"`
	PlacementTries int              `json:"placement_tries"` // failed placement tries, in all
	Replacements   int              `json:"replacements"`
	Restarts       int              `json:"restarts"`
	// WastedProcSeconds is processor time claimed and held idle until the
	// job's start (PWT); NaN when unknown.
	WastedProcSeconds float64          `json:"wasted_processor_s"`
	WastedSource      string           `json:"wasted_source"`
	TimeScale         float64          `json:"time_scale"`
	Utilization       *CoreUtilization `json:"utilization,omitempty"`
	// Deadlines: jobs with start deadlines and local users' jobs, as the
	// core counted them in a simulated run (nil when not recorded).
	Deadlines *CoreDeadlines `json:"deadlines,omitempty"`
}

// Samples are the per-job values behind the summaries, for plots and the
// regression gate. The distribution samples are sorted ascending.
type Samples struct {
	Wait, Run, Response, Slowdown, BSlowdown, Delay []float64
	// Pairs of (wait, run) of completed jobs, in arrival order, for the
	// slowdown-fairness scatter plot; nil when Stream made the samples
	// (WaitRunPairs gives them either way).
	PairWait, PairRun []float64
	// WaitByType: wait times of each top-level job type (unsorted).
	WaitByType map[string][]float64
	// Per top-level job, in the order recorded, for resampling run-level
	// metrics: submit and end (seconds since the run's first submission,
	// NaN when unknown), whether it succeeded, and its processor-seconds
	// when it did (0 otherwise). These series, to JobDelay, are nil when
	// Stream made the samples.
	JobSubmit, JobEnd, JobGoodput []float64
	JobOK                         []bool
	// The same jobs' wait, run, response, bounded slowdown and submission
	// delay, NaN where undefined (the regression gate resamples them in
	// submission order).
	JobWait, JobRun, JobResponse, JobBSld, JobDelay []float64
	// JobWorkflowSlowdown and JobCPEfficiency are the composite jobs'
	// slowdown against their critical path and critical-path efficiency
	// (NaN for other jobs, nil when the run has no composite job).
	JobWorkflowSlowdown, JobCPEfficiency []float64
	// JobsPerSite counts the jobs (and tasks) that ran on each site.
	JobsPerSite map[string]int
	// Jobs counts the top-level jobs of the samples (the length of the
	// per-job series, when they are kept); LastSubmit is the latest of
	// their submissions, seconds since the run's first (0 when none).
	Jobs       int
	LastSubmit float64
	// Arrival is the mean wait of consecutive top-level jobs, for the
	// figure of the wait in arrival order, when the per-job series are
	// not kept (Stream); ArrivalWaits gives it either way.
	Arrival *ArrivalWaits
	// pairs hold PairWait and PairRun when Stream made the samples (they
	// are nil then): WaitRunPairs gives them either way.
	pairs *pairLog
}

// WaitRunPairs are PairRun and PairWait, made from the compact pairs of a
// streamed run.
func (s *Samples) WaitRunPairs() (run, wait []float64) {
	if s.pairs == nil {
		return s.PairRun, s.PairWait
	}
	return s.pairs.decode()
}

// RunMetrics are the metrics of one run.
type RunMetrics struct {
	RunID    string  `json:"run_id"`
	Project  string  `json:"project"`
	Scenario string  `json:"scenario"`
	Target   string  `json:"target"`
	Status   string  `json:"status"`
	Speedup  float64 `json:"speedup"`
	TimeBase string  `json:"time_base"` // "wall", "workload" (some figures converted) or "simulated"; Clocks says which
	Clocks   Clocks  `json:"clocks"`    // the clock of each kind of figure
	TauS     float64 `json:"tau_s"`

	StartNS int64 `json:"start_ns,omitempty"` // first submission (or scheduled instant); absent (0) with no jobs
	EndNS   int64 `json:"end_ns,omitempty"`   // last end; absent (0) when no job ran

	Jobs        Counts        `json:"jobs"`  // top-level jobs (unitary and composite)
	Tasks       Counts        `json:"tasks"` // sub-jobs of composite jobs
	SuccessRate float64       `json:"success_rate"`
	FailureRate float64       `json:"failure_rate"` // 1 − success rate: failed, cancelled and never started
	Failures    []ReasonCount `json:"failures"`
	CoAllocated int           `json:"coallocated"`
	// CensoredWaits are jobs cancelled before they started: their wait is
	// only known to exceed the time until the cancellation.
	CensoredWaits int `json:"censored_waits"`
	// WarmJobs are the warm jobs of a trace replay's warm start; they are in
	// the counts and statistics only when WarmIncluded.
	WarmJobs     int  `json:"warm_jobs"`
	WarmIncluded bool `json:"warm_included"`

	Wait      sampstat.Summary `json:"wait_s"`
	Run       sampstat.Summary `json:"run_s"`
	Response  sampstat.Summary `json:"response_s"`
	Slowdown  sampstat.Summary `json:"slowdown"`
	BSlowdown sampstat.Summary `json:"bounded_slowdown"`
	Delay     sampstat.Summary `json:"submission_delay_s"`

	Makespan    float64 `json:"makespan_s"`          // last end − first submission; NaN when no job ran (NoSpan)
	WallSpan    float64 `json:"wall_makespan_s"`     // the makespan in wall time, whatever the clocks
	Throughput  float64 `json:"throughput_per_h"`    // succeeded top-level jobs per hour of the makespan
	Goodput     float64 `json:"goodput_processor_s"` // processor-seconds of successful jobs and tasks
	GoodputRate float64 `json:"goodput_processors"`  // Goodput / makespan
	// Utilization is busy processor-seconds / (Processors × makespan); NaN
	// when the system size is unknown.
	Utilization      float64 `json:"utilization"`
	Processors       int     `json:"processors"`
	ProcessorsSource string  `json:"processors_source"`

	// NoSpan says why the run has no makespan (no job ran, or its times
	// are missing); "" when it has one.
	NoSpan string `json:"no_span,omitempty"`

	Series    TimeSeries   `json:"series"`
	ByType    []Group      `json:"by_type"`
	BySite    []Group      `json:"by_site"`
	ByUser    []Group      `json:"by_user,omitempty"`
	Composite *Operational `json:"composite,omitempty"`
	// Workflows are the composite jobs' figures against their critical
	// paths; nil when the run has no composite job.
	Workflows *WorkflowMetrics `json:"workflows,omitempty"`
	Breakdown Breakdown        `json:"breakdown"`
	Core      *CoreMetrics     `json:"core,omitempty"`
	// Coallocation is the co-allocation overhead; nil when no co-allocated
	// job has a start recorded for each of its components.
	Coallocation *Coallocation `json:"coallocation,omitempty"`
	Notes        []string      `json:"notes,omitempty"`

	Samples Samples `json:"-"`
}

// groupAcc accumulates one group.
type groupAcc struct {
	jobs, ok int
	wait     []float64
	runSum   float64
	runN     int
	bsldSum  float64
	bsldN    int
	procSec  float64
	// share says whether the group's waits are the first shared of the
	// samples' (Samples.Wait), kept there and not copied: while every
	// wait so far is the group's (addSharing). 0: not known yet.
	share  int8
	shared int
}

const (
	sharing    = 1
	notSharing = 2
)

func (g *groupAcc) add(j *Job, fig *figures) {
	if fig.hasWait {
		g.wait = append(g.wait, fig.wait)
	}
	g.count(j, fig)
}

// addSharing is add, for a group added to after the job's wait is in all
// (the samples' waits): while every wait of all is the group's, the
// group keeps none of its own (a run of one job type: 8 bytes a job
// less). The first wait of another group's job ends the sharing: the
// group copies the waits it shared.
func (g *groupAcc) addSharing(j *Job, fig *figures, all []float64) {
	if g.share == 0 {
		g.share = notSharing
		if n := len(all); n == 0 || fig.hasWait && n == 1 {
			g.share = sharing
		}
	}
	if g.share == sharing && fig.hasWait {
		if len(all) == g.shared+1 {
			g.shared++
			g.count(j, fig)
			return
		}
		g.unshare(all)
	}
	g.add(j, fig)
}

// unshare gives the group its own copy of the waits it shares.
func (g *groupAcc) unshare(all []float64) {
	if g.share == sharing {
		g.wait = append(make([]float64, 0, 2*g.shared), all[:g.shared]...)
	}
	g.share = notSharing
}

// sharedWaits gives the group its waits at the end of a pass, all being
// the samples' waits before they are sorted: all itself when they are
// all the group's.
func (g *groupAcc) sharedWaits(all []float64) {
	if g.share == sharing && g.shared == len(all) {
		g.wait, g.share = all, notSharing
		return
	}
	g.unshare(all)
}

// count counts a job of the group, but its wait.
func (g *groupAcc) count(j *Job, fig *figures) {
	g.jobs++
	if j.State == Succeeded {
		g.ok++
	}
	if fig.hasRun {
		g.runSum += fig.run
		g.runN++
	}
	if fig.hasBSld {
		g.bsldSum += fig.bsld
		g.bsldN++
	}
	g.procSec += fig.procSec
}

func (g *groupAcc) row(key string) Group {
	r := Group{Key: key, Jobs: g.jobs, Succeeded: g.ok, SuccessRate: float64(g.ok) / float64(g.jobs),
		MeanWait: math.NaN(), P50Wait: math.NaN(), P95Wait: math.NaN(), MeanRun: math.NaN(), MeanBSld: math.NaN(), ProcSeconds: g.procSec}
	if len(g.wait) > 0 {
		slices.Sort(g.wait)
		sum := 0.0
		for _, w := range g.wait {
			sum += w
		}
		r.MeanWait = sum / float64(len(g.wait))
		r.P50Wait, r.P95Wait = sampstat.Quantile(g.wait, 0.5), sampstat.Quantile(g.wait, 0.95)
	}
	if g.runN > 0 {
		r.MeanRun = g.runSum / float64(g.runN)
	}
	if g.bsldN > 0 {
		r.MeanBSld = g.bsldSum / float64(g.bsldN)
	}
	return r
}

func (g *groupAcc) merge(o *groupAcc) {
	g.jobs += o.jobs
	g.ok += o.ok
	g.wait = append(g.wait, o.wait...)
	g.runSum += o.runSum
	g.runN += o.runN
	g.bsldSum += o.bsldSum
	g.bsldN += o.bsldN
	g.procSec += o.procSec
}

// groups turns accumulators into rows, largest first, merging the smallest
// beyond max into "(other)".
func groups(m map[string]*groupAcc, maxRows int) []Group {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(m[b].jobs, m[a].jobs); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var out []Group
	var other *groupAcc
	for i, k := range keys {
		if i >= maxRows-1 && len(keys) > maxRows {
			if other == nil {
				other = &groupAcc{}
			}
			other.merge(m[k])
			continue
		}
		out = append(out, m[k].row(k))
	}
	if other != nil {
		out = append(out, other.row("(other)"))
	}
	return out
}

func (m *RunMetrics) hasComposite(rd *RunData) bool {
	for i := range rd.Jobs {
		if rd.Jobs[i].Composite() {
			return true
		}
	}
	return false
}

// series bins utilization, goodput and throughput over [t0, t1].
func series(rd *RunData, t0, t1 int64, bins int, f float64, opts Options) TimeSeries {
	acc := newSeriesAcc(t0, t1, bins, f)
	if acc == nil {
		return TimeSeries{}
	}
	for i := range rd.Jobs {
		acc.add(&rd.Jobs[i], opts.leftOut(&rd.Jobs[i]))
	}
	return acc.finish(rd.Processors)
}

// seriesAcc bins the jobs one at a time: series's state.
type seriesAcc struct {
	t0, t1           int64
	bins             int
	width            float64 // ns
	ts               TimeSeries
	busy, good, done []float64 // processor-ns, and jobs ended
	dBusy, dGood     []float64 // difference arrays for whole bins
}

// newSeriesAcc is the state of a series of bins over [t0, t1], its bins'
// times scaled by f; nil for no time, or a span beyond int64 (absurd
// times).
func newSeriesAcc(t0, t1 int64, bins int, f float64) *seriesAcc {
	if t1 <= t0 || t1-t0 < 0 {
		return nil
	}
	a := &seriesAcc{t0: t0, t1: t1, bins: bins, width: float64(t1-t0) / float64(bins)}
	a.ts.BinSeconds = a.width / 1e9 * f
	a.ts.T = make([]float64, bins)
	for i := range a.ts.T {
		a.ts.T[i] = float64(i) * a.ts.BinSeconds
	}
	a.busy, a.good, a.done = make([]float64, bins), make([]float64, bins), make([]float64, bins)
	a.dBusy, a.dGood = make([]float64, bins+1), make([]float64, bins+1)
	return a
}

// spread adds p processors over [s, e] to acc and diff. A job can start
// before the first submission on a clock coarser than the submitter's
// (Slurm's whole seconds): only [t0, t1] is binned.
func (a *seriesAcc) spread(s, e int64, p float64, acc, diff []float64) {
	t0, width, bins := a.t0, a.width, a.bins
	s, e = max(s, t0), min(e, a.t1)
	if e <= s {
		return
	}
	x, y := float64(s-t0)/width, float64(e-t0)/width
	ia, ib := min(int(x), bins-1), min(int(y), bins-1)
	if ia == ib {
		acc[ia] += p * (y - x) * width
		return
	}
	acc[ia] += p * (float64(ia+1) - x) * width
	acc[ib] += p * (y - float64(ib)) * width
	if ib > ia+1 { // whole bins ia+1 … ib−1
		diff[ia+1] += p * width
		diff[ib] -= p * width
	}
}

// add bins a job; out: it is left out of the job metrics (busy, but not
// good work of the run).
func (a *seriesAcc) add(j *Job, out bool) {
	if j.Parent == "" && !out && j.State == Succeeded && j.EndNS >= a.t0 && j.EndNS <= a.t1 {
		a.done[min(int(float64(j.EndNS-a.t0)/a.width), a.bins-1)]++
	}
	if j.Composite() || !j.Started() || j.EndNS <= j.StartNS {
		return
	}
	p := float64(j.Processors)
	a.spread(j.StartNS, j.EndNS, p, a.busy, a.dBusy)
	if j.State == Succeeded && !out {
		a.spread(j.StartNS, j.EndNS, p, a.good, a.dGood)
	}
}

// finish turns the bins into the series; utilization against processors
// (none when 0).
func (a *seriesAcc) finish(processors int) TimeSeries {
	ts, bins, width := a.ts, a.bins, a.width
	busy, good, done := a.busy, a.good, a.done
	run1, run2 := 0.0, 0.0
	for i := range bins {
		run1 += a.dBusy[i]
		run2 += a.dGood[i]
		busy[i] += run1
		good[i] += run2
	}
	ts.Goodput = make([]float64, bins)
	ts.Throughput = make([]float64, bins)
	for i := range bins {
		ts.Goodput[i] = good[i] / width
		ts.Throughput[i] = done[i] / (ts.BinSeconds / 3600)
	}
	if processors > 0 {
		ts.Utilization = make([]float64, bins)
		for i := range bins {
			ts.Utilization[i] = busy[i] / (width * float64(processors))
		}
	}
	return ts
}

// operational computes the composite jobs' aggregates.
func operational(rd *RunData, f float64, opts Options, tasksOf func(id string) (tasks, failed, retries int)) *Operational {
	byType := map[string]*OpGroup{}
	makespans := map[string][]float64{}
	all := &OpGroup{Type: "all"}
	var allMS []float64
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		if !j.Composite() || j.Parent != "" || opts.leftOut(j) {
			continue
		}
		g := byType[j.Type]
		if g == nil {
			g = &OpGroup{Type: j.Type}
			byType[j.Type] = g
		}
		n, failed, retries := tasksOf(j.ID)
		for _, x := range []*OpGroup{g, all} {
			x.Jobs++
			if j.State == Succeeded {
				x.Succeeded++
			}
			x.Tasks += n
			x.FailedTasks += failed
			x.Retries += retries
		}
		if r, ok := Response(j); ok {
			makespans[j.Type] = append(makespans[j.Type], r*f)
			allMS = append(allMS, r*f)
		}
	}
	op := &Operational{}
	all.SuccessRate = float64(all.Succeeded) / float64(max(all.Jobs, 1))
	all.Makespan = sampstat.Summarize(allMS)
	op.All = *all
	for t, g := range byType {
		g.SuccessRate = float64(g.Succeeded) / float64(max(g.Jobs, 1))
		g.Makespan = sampstat.Summarize(makespans[t])
		op.ByType = append(op.ByType, *g)
	}
	slices.SortFunc(op.ByType, func(a, b OpGroup) int { return strings.Compare(a.Type, b.Type) })
	return op
}

// breakdown splits the mean response time into phases. Every run has
// submission delay → wait → run; for the bundled core the wait is split
// further by the core's events.
func breakdown(rd *RunData, f float64, opts Options) Breakdown {
	b := newBreakdownAcc(rd, f)
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		var cj *CoreJob
		if rd.Koala != nil {
			cj = rd.Koala.Jobs[j.ID]
		}
		b.add(j, cj, opts)
	}
	return b.finish()
}

// breakdownAcc sums the phases one job at a time: breakdown's state.
type breakdownAcc struct {
	f                                            float64
	live, sim, core                              bool
	n                                            int
	delay, wait, run, place, claim, hold, placeS float64
}

func newBreakdownAcc(rd *RunData, f float64) *breakdownAcc {
	return &breakdownAcc{f: f, core: rd.Koala != nil, live: rd.Koala != nil && !rd.Koala.Simulated, sim: rd.Koala != nil && rd.Koala.Simulated}
}

// add counts a job; cj is the core's record of it (nil when none).
func (b *breakdownAcc) add(j *Job, cj *CoreJob, opts Options) {
	f := b.f
	if j.Parent != "" || j.Composite() || !j.Completed() || opts.leftOut(j) {
		return
	}
	if b.core && (cj == nil || (b.live && !cj.HasPhases)) {
		return
	}
	w, _ := Wait(j)
	r, _ := RunTime(j)
	d, _ := Delay(j)
	b.n++
	b.delay += d
	b.wait += w * f
	b.run += r * f
	if b.live {
		b.place += cj.Place * f
		b.claim += cj.Claim * f
		b.hold += cj.Hold * f
	}
	if b.sim {
		b.placeS += min(cj.Placement, w) * f
	}
}

func (b *breakdownAcc) finish() Breakdown {
	n, delay, wait, run, place, claim, hold, placeSim := b.n, b.delay, b.wait, b.run, b.place, b.claim, b.hold, b.placeS
	out := Breakdown{Jobs: n}
	if n == 0 {
		out.Source = "no completed job with every phase known"
		return out
	}
	k := 1 / float64(n)
	switch {
	case b.live:
		out.Source = "the bundled core's events (koala-event annotations): submitted → placed → claimed → started → ended"
		// The submitter's wait includes the request's latency: the part not
		// seen by the core goes to "submission (target latency)".
		rest := wait - place - claim - hold
		out.Phases = []Phase{{"submission delay", delay * k}, {"placement", place * k}, {"claiming (placed → claimed)", claim * k},
			{"held idle (claimed → started)", hold * k}, {"other (target latency)", max(0, rest) * k}, {"run", run * k}}
	case b.sim:
		out.Source = "the simulated core's per-job placement time (koala simulate --db)"
		out.Phases = []Phase{{"submission delay", delay * k}, {"placement", placeSim * k},
			{"placed → started (file transfer, claiming)", (wait - placeSim) * k}, {"run", run * k}}
	default:
		out.Source = "job records: scheduled → submitted → started → ended"
		out.Phases = []Phase{{"submission delay", delay * k}, {"wait", wait * k}, {"run", run * k}}
	}
	return out
}

// coreMetrics summarizes the bundled core's per-job figures.
func coreMetrics(rd *RunData, f float64, opts Options) *CoreMetrics {
	k := rd.Koala
	acc := newCoreAcc(rd, f)
	// The jobs' sizes are read only when the core did not account for the
	// wasted time (a live run): a map of every job costs 100 MB a million.
	if !acc.counted {
		acc.procs = make(map[string]int, len(rd.Jobs))
	}
	out := map[string]bool{}
	for i := range rd.Jobs {
		if !acc.counted {
			acc.procs[rd.Jobs[i].ID] = rd.Jobs[i].Processors
		}
		if opts.leftOut(&rd.Jobs[i]) {
			out[rd.Jobs[i].ID] = true
		}
	}
	for id, j := range k.Jobs {
		if !out[id] {
			acc.add(id, j)
		}
	}
	return acc.finish()
}

// coreAcc summarizes the core's records one job at a time: coreMetrics's
// state.
type coreAcc struct {
	rd                         *RunData
	f                          float64
	c                          *CoreMetrics
	placement, transfer, tries []float64
	wasted                     float64
	wastedN                    int
	// counted: the core accounted for the wasted time (a simulated run
	// with its utilization and the system size); else procs are the jobs'
	// sizes, for the jobs whose phases are known.
	counted bool
	procs   map[string]int
	// summarized: the summaries are made (simFacts.metrics), finish only
	// says where the wasted time comes from.
	summarized bool
}

func newCoreAcc(rd *RunData, f float64) *coreAcc {
	k := rd.Koala
	return &coreAcc{rd: rd, f: f, counted: k.Simulated && k.Utilization != nil && rd.Processors > 0,
		c: &CoreMetrics{TimeScale: k.TimeScale, Utilization: k.Utilization, Deadlines: k.Deadlines, WastedProcSeconds: math.NaN()}}
}

func (a *coreAcc) add(id string, j *CoreJob) {
	c, f := a.c, a.f
	c.Jobs++
	if !math.IsNaN(j.Placement) {
		a.placement = append(a.placement, j.Placement*f)
	}
	a.transfer = append(a.transfer, j.Transfer*f)
	a.tries = append(a.tries, float64(j.ClaimTries))
	c.PlacementTries += j.PlacementTries
	c.Replacements += j.Replacements
	c.Restarts += j.Restarts
	if j.HasPhases {
		a.wasted += j.Hold * f * float64(a.procs[id])
		a.wastedN++
	}
}

func (a *coreAcc) finish() *CoreMetrics {
	c, k, f := a.c, a.rd.Koala, a.f
	if !a.summarized {
		c.Placement = sampstat.Summarize(a.placement)
		c.Transfer = sampstat.Summarize(a.transfer)
		c.ClaimTries = sampstat.Summarize(a.tries)
	}
	switch {
	case a.counted:
		c.WastedProcSeconds = k.Utilization.Wasted * float64(a.rd.Processors) * k.Utilization.Seconds * f
		c.WastedSource = "the core's accounting: wasted fraction × grid processors × measured seconds"
	case a.wastedN > 0:
		c.WastedProcSeconds = a.wasted
		c.WastedSource = "Σ processors × (started − claimed) over the jobs (a lower bound: with incremental claiming, components claimed at earlier tries were held longer)"
	default:
		c.WastedSource = "unknown"
	}
	return c
}

// reasonClass groups failure reasons that differ only in a job id
// ("predecessor 2-0.b failed") or a count.
func reasonClass(r string) string {
	if r == "" {
		return "(no reason given)"
	}
	if strings.HasPrefix(r, "predecessor ") && strings.HasSuffix(r, " failed") {
		return "predecessor failed"
	}
	if strings.HasPrefix(r, "predecessor ") && strings.HasSuffix(r, " cancelled") {
		return "predecessor cancelled"
	}
	if len(r) > maxReason {
		// Cut at a character's start, not inside one (the report's text
		// and JSON would carry a broken UTF-8 sequence), and say so.
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(r[cut]) {
			cut--
		}
		r = r[:cut] + reasonCut
	}
	return r
}

// maxReason bounds a failure reason's class, in bytes; a longer reason is
// cut there (at the character's start) and ends with reasonCut.
const maxReason = 200

const reasonCut = "… (cut: the reason is longer)"

func orNaN(v float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

func itoa(n int) string { return strconv.Itoa(n) }

// NullReason says why a metric of the run is undefined (NaN), by its JSON
// name, for the JSON form's list of nulls; docs/metrics.md has the cases.
func (m *RunMetrics) NullReason(field string) string {
	switch field {
	case "success_rate", "failure_rate":
		if m.Jobs.Submitted == 0 {
			return "the run has no jobs"
		}
	case "utilization":
		if m.Processors <= 0 {
			return "the system size is unknown: pass --processors N"
		}
		return m.noSpan()
	case "throughput_per_h", "goodput_processors":
		return m.noSpan()
	case "makespan_s", "wall_makespan_s":
		return m.NoSpan
	}
	return ""
}

// noSpan says why the run's rates are undefined: it has no span, or one
// of no length.
func (m *RunMetrics) noSpan() string {
	if m.NoSpan != "" {
		return m.NoSpan
	}
	return "the run lasted no time (no job ended after the first submission)"
}

// NullReason says why a column of a per-type, per-site or per-user row is
// undefined (NaN), by its JSON name.
func (g *Group) NullReason(field string) string {
	switch field {
	case "mean_wait_s", "p50_wait_s", "p95_wait_s":
		return "no job of the group started"
	case "mean_run_s", "mean_bsld":
		return "no job of the group ran to its end"
	}
	return ""
}

// NullReason says why a figure of the core is undefined (NaN), by its JSON
// name.
func (c *CoreMetrics) NullReason(field string) string {
	if field == "wasted_processor_s" {
		return "unknown: neither the core's accounting nor its events tell it"
	}
	return ""
}
