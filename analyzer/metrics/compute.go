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
	// slowdown-fairness scatter plot.
	PairWait, PairRun []float64
	// WaitByType: wait times of each top-level job type (unsorted).
	WaitByType map[string][]float64
	// Per top-level job, in the order recorded, for resampling run-level
	// metrics: submit and end (seconds since the run's first submission,
	// NaN when unknown), whether it succeeded, and its processor-seconds
	// when it did (0 otherwise).
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
}

func (g *groupAcc) add(j *Job, fig *figures) {
	g.jobs++
	if j.State == Succeeded {
		g.ok++
	}
	if fig.hasWait {
		g.wait = append(g.wait, fig.wait)
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
	ts := TimeSeries{}
	if t1 <= t0 || t1-t0 < 0 { // no time, or a span beyond int64 (absurd times)
		return ts
	}
	width := float64(t1-t0) / float64(bins) // ns
	ts.BinSeconds = width / 1e9 * f
	ts.T = make([]float64, bins)
	for i := range ts.T {
		ts.T[i] = float64(i) * ts.BinSeconds
	}
	busy := make([]float64, bins) // processor-ns
	good := make([]float64, bins)
	done := make([]float64, bins)
	dBusy := make([]float64, bins+1) // difference arrays for whole bins
	dGood := make([]float64, bins+1)
	spread := func(s, e int64, p float64, acc, diff []float64) {
		// A job can start before the first submission on a clock coarser
		// than the submitter's (Slurm's whole seconds): only [t0, t1]
		// is binned.
		s, e = max(s, t0), min(e, t1)
		if e <= s {
			return
		}
		a, b := float64(s-t0)/width, float64(e-t0)/width
		ia, ib := min(int(a), bins-1), min(int(b), bins-1)
		if ia == ib {
			acc[ia] += p * (b - a) * width
			return
		}
		acc[ia] += p * (float64(ia+1) - a) * width
		acc[ib] += p * (b - float64(ib)) * width
		if ib > ia+1 { // whole bins ia+1 … ib−1
			diff[ia+1] += p * width
			diff[ib] -= p * width
		}
	}
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		out := opts.leftOut(j) // busy, but not good work of the run
		if j.Parent == "" && !out && j.State == Succeeded && j.EndNS >= t0 && j.EndNS <= t1 {
			done[min(int(float64(j.EndNS-t0)/width), bins-1)]++
		}
		if j.Composite() || !j.Started() || j.EndNS <= j.StartNS {
			continue
		}
		p := float64(j.Processors)
		spread(j.StartNS, j.EndNS, p, busy, dBusy)
		if j.State == Succeeded && !out {
			spread(j.StartNS, j.EndNS, p, good, dGood)
		}
	}
	run1, run2 := 0.0, 0.0
	for i := range bins {
		run1 += dBusy[i]
		run2 += dGood[i]
		busy[i] += run1
		good[i] += run2
	}
	ts.Goodput = make([]float64, bins)
	ts.Throughput = make([]float64, bins)
	for i := range bins {
		ts.Goodput[i] = good[i] / width
		ts.Throughput[i] = done[i] / (ts.BinSeconds / 3600)
	}
	if rd.Processors > 0 {
		ts.Utilization = make([]float64, bins)
		for i := range bins {
			ts.Utilization[i] = busy[i] / (width * float64(rd.Processors))
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
	var n int
	var delay, wait, run, place, claim, hold, placeSim float64
	live := rd.Koala != nil && !rd.Koala.Simulated
	sim := rd.Koala != nil && rd.Koala.Simulated
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		if j.Parent != "" || j.Composite() || !j.Completed() || opts.leftOut(j) {
			continue
		}
		var cj *CoreJob
		if rd.Koala != nil {
			cj = rd.Koala.Jobs[j.ID]
			if cj == nil || (live && !cj.HasPhases) {
				continue
			}
		}
		w, _ := Wait(j)
		r, _ := RunTime(j)
		d, _ := Delay(j)
		n++
		delay += d
		wait += w * f
		run += r * f
		if live {
			place += cj.Place * f
			claim += cj.Claim * f
			hold += cj.Hold * f
		}
		if sim {
			placeSim += min(cj.Placement, w) * f
		}
	}
	b := Breakdown{Jobs: n}
	if n == 0 {
		b.Source = "no completed job with every phase known"
		return b
	}
	k := 1 / float64(n)
	switch {
	case live:
		b.Source = "the bundled core's events (koala-event annotations): submitted → placed → claimed → started → ended"
		// The submitter's wait includes the request's latency: the part not
		// seen by the core goes to "submission (target latency)".
		rest := wait - place - claim - hold
		b.Phases = []Phase{{"submission delay", delay * k}, {"placement", place * k}, {"claiming (placed → claimed)", claim * k},
			{"held idle (claimed → started)", hold * k}, {"other (target latency)", max(0, rest) * k}, {"run", run * k}}
	case sim:
		b.Source = "the simulated core's per-job placement time (koala simulate --db)"
		b.Phases = []Phase{{"submission delay", delay * k}, {"placement", placeSim * k},
			{"placed → started (file transfer, claiming)", (wait - placeSim) * k}, {"run", run * k}}
	default:
		b.Source = "job records: scheduled → submitted → started → ended"
		b.Phases = []Phase{{"submission delay", delay * k}, {"wait", wait * k}, {"run", run * k}}
	}
	return b
}

// coreMetrics summarizes the bundled core's per-job figures.
func coreMetrics(rd *RunData, f float64, opts Options) *CoreMetrics {
	k := rd.Koala
	c := &CoreMetrics{TimeScale: k.TimeScale, Utilization: k.Utilization, Deadlines: k.Deadlines, WastedProcSeconds: math.NaN()}
	var placement, transfer, tries []float64
	wasted, wastedN := 0.0, 0
	// The jobs' sizes are read only when the core did not account for the
	// wasted time (a live run): a map of every job costs 100 MB a million.
	counted := k.Simulated && k.Utilization != nil && rd.Processors > 0
	var procs map[string]int
	if !counted {
		procs = make(map[string]int, len(rd.Jobs))
	}
	out := map[string]bool{}
	for i := range rd.Jobs {
		if !counted {
			procs[rd.Jobs[i].ID] = rd.Jobs[i].Processors
		}
		if opts.leftOut(&rd.Jobs[i]) {
			out[rd.Jobs[i].ID] = true
		}
	}
	for id, j := range k.Jobs {
		if out[id] {
			continue
		}
		c.Jobs++
		if !math.IsNaN(j.Placement) {
			placement = append(placement, j.Placement*f)
		}
		transfer = append(transfer, j.Transfer*f)
		tries = append(tries, float64(j.ClaimTries))
		c.PlacementTries += j.PlacementTries
		c.Replacements += j.Replacements
		c.Restarts += j.Restarts
		if j.HasPhases {
			wasted += j.Hold * f * float64(procs[id])
			wastedN++
		}
	}
	c.Placement = sampstat.Summarize(placement)
	c.Transfer = sampstat.Summarize(transfer)
	c.ClaimTries = sampstat.Summarize(tries)
	switch {
	case counted:
		c.WastedProcSeconds = k.Utilization.Wasted * float64(rd.Processors) * k.Utilization.Seconds * f
		c.WastedSource = "the core's accounting: wasted fraction × grid processors × measured seconds"
	case wastedN > 0:
		c.WastedProcSeconds = wasted
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
