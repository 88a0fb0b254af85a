package gwa

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"
)

// The GWA analysis toolbox (thesis §3.3.5): totals, utilization, arrival
// patterns, the distributions of the main job characteristics, per-user and
// per-site breakdowns, status counts and the trace ranking. The Analyzer
// streams: its state is time-binned counters, one entry per distinct user,
// group and site, and, within a memory budget (ExactBudget), each job's
// times and the values of the distributions, so that its percentiles are
// exact and every figure is a function of the set of jobs, whatever the
// order of the lines. Past the budget it keeps bounded sketches and sweeps
// the jobs in the order they come, and says what that leaves inexact.

// AnalysisOptions tune an analysis.
type AnalysisOptions struct {
	// Processors is the system size for utilization; 0 takes the header's
	// MaxProcs, else its MaxNodes (one processor per node), else an
	// estimate: the peak of processors in use at once (see peakLoad).
	Processors int
	// TopN is the number of top users listed (default 10).
	TopN int
	// ReportedWork is the number of publications using the trace, the sixth
	// ranking category; it cannot be computed from a trace, so the category
	// is left out unless ReportedWorkKnown.
	ReportedWork      int
	ReportedWorkKnown bool
	// NoCDF leaves the CDF points out of the summaries.
	NoCDF bool
	// ExactBudget is the bytes kept for exact statistics (each job's
	// times, the distributions' values): 0 takes DefaultExactBudget, a
	// negative value keeps none (sketches and streaming from the start).
	ExactBudget int64
}

// Analyzer accumulates the analysis of one trace, one record at a time.
type Analyzer struct {
	opts AnalysisOptions
	hdr  *Header
	loc  *time.Location

	jobs                int64
	first, last, maxEnd float64
	maxJobProcs         float64
	cpuSeconds          float64
	status              [8]int64 // -1 … 5, then other

	iat, wait, run, procs, mem, cpu Sketch

	users  map[string]*groupStat
	groups map[string]struct{}
	sites  map[string]*groupStat

	seqJobs, parJobs, unknownSize int64
	seqCPU, parCPU                float64
	pow2Jobs, pow2Parallel        int64 // jobs whose size is a power of two (1 = 2^0 included), and those > 1

	// budget bounds what is kept for exact statistics. While it lasts,
	// kept holds every job's submission and run (timesKept), and the
	// inter-arrival times and the peak of processors in use at once are
	// computed from them in Result, in submit order whatever the order of
	// the records. When it runs out, the jobs kept so far are fed in
	// submit order to the streaming state (the inter-arrival sketch and
	// the peak's sweep), and every later record goes there as it comes;
	// lateDisorder records that one came before a job already streamed,
	// which only a sort of the whole trace could have placed.
	budget       *ExactBudget
	kept         keptTimes
	timesKept    bool
	streamed     bool    // a job went to the streaming state
	maxSubmit    float64 // the latest submission streamed
	lateDisorder bool
	peak         peakLoad

	// wf holds the tasks of workflow traces, for the last end that their
	// dependencies allow (lastEndOfWorkflows).
	wf map[string][]flowTask

	busy     timeBins // processor-seconds per hour
	running  dayCounter
	perDay   []int64
	perHour  []int64   // the cumulative view of short traces (Arrivals.PerHour)
	times    []float64 // submit times while there are at most exactArrivals (Arrivals.Times)
	manyJobs bool      // more than exactArrivals binned: times is dropped
	byHour   [24]int64
	byDay    [7]int64 // Monday first
	clamped  int64    // records whose times fell outside the binned range

	lastHourKey  int64
	lastHourSlot [2]int // hour of day, weekday (Monday = 0)

	perGroup groupAccumulator
}

// groupStat counts one user's or one site's jobs.
type groupStat struct {
	jobs    int64
	cpu     float64
	runSum  float64
	runN    int64
	waitSum float64
	waitN   int64
}

// NewAnalyzer starts an analysis of a trace with header h.
func NewAnalyzer(h *Header, opts AnalysisOptions) *Analyzer {
	if opts.TopN <= 0 {
		opts.TopN = 10
	}
	if h == nil {
		h = &Header{}
	}
	a := &Analyzer{opts: opts, hdr: h, loc: time.UTC, users: map[string]*groupStat{},
		groups: map[string]struct{}{}, sites: map[string]*groupStat{}, lastHourKey: math.MinInt64}
	a.busy.width = 3600
	switch {
	case opts.ExactBudget == 0:
		a.budget = NewExactBudget(DefaultExactBudget)
	default:
		a.budget = NewExactBudget(opts.ExactBudget)
	}
	for _, sk := range []*Sketch{&a.wait, &a.run, &a.procs, &a.mem, &a.cpu} {
		sk.useBudget(a.budget)
	}
	a.timesKept = !a.budget.Spent()
	if h.TimeZone != "" {
		if loc, err := time.LoadLocation(h.TimeZone); err == nil {
			a.loc = loc
		}
	}
	return a
}

// Add analyses one record. Records may come in any order: within the
// budget every figure is the same for any order of the same records.
func (a *Analyzer) Add(r *Record) {
	a.jobs++
	t := r.SubmitTime
	if a.jobs == 1 {
		a.first, a.last = t, t
	} else {
		a.first = math.Min(a.first, t)
		a.last = math.Max(a.last, t)
	}

	st := r.Status
	if st < -1 || st > 5 {
		a.status[7]++
	} else {
		a.status[st+1]++
	}

	addKnown(&a.wait, r.WaitTime)
	if rt, ok := r.KnownRunTime(); ok {
		a.run.Add(rt)
	} else {
		a.run.AddMissing()
	}
	p := r.Procs()
	if p > 0 {
		a.procs.Add(p)
	} else {
		a.procs.AddMissing()
	}
	addKnown(&a.mem, r.UsedMemory)
	addKnown(&a.cpu, r.AvgCPUTimeUsed)
	a.maxJobProcs = math.Max(a.maxJobProcs, p)

	cpu := r.CPUTime()
	a.cpuSeconds += cpu
	a.perGroup.add(r, cpu)
	switch {
	case p == 1:
		a.seqJobs++
		a.seqCPU += cpu
		a.pow2Jobs++
	case p > 1:
		a.parJobs++
		a.parCPU += cpu
		if powerOfTwo(p) {
			a.pow2Jobs++
			a.pow2Parallel++
		}
	default:
		a.unknownSize++
		a.seqCPU += cpu // a job of unknown size counts as one processor
	}

	if !missingString(r.UserID) {
		u := a.users[r.UserID]
		if u == nil {
			u = &groupStat{}
			a.users[r.UserID] = u
		}
		u.jobs++
		u.cpu += cpu
	}
	if !missingString(r.GroupID) {
		if _, ok := a.groups[r.GroupID]; !ok {
			a.groups[r.GroupID] = struct{}{}
		}
	}
	if site := r.Site(); site != "" {
		s := a.sites[site]
		if s == nil {
			s = &groupStat{}
			a.sites[site] = s
		}
		s.jobs++
		s.cpu += cpu
		if rt, ok := r.KnownRunTime(); ok {
			s.runSum += rt
			s.runN++
		}
		if r.WaitTime != Missing {
			s.waitSum += r.WaitTime
			s.waitN++
		}
	}

	// Time-binned counters: arrivals, load, running jobs.
	if t < 0 || t > maxBinnedSeconds {
		a.clamped++
	} else {
		day := int(t / 86400)
		for len(a.perDay) <= day {
			a.perDay = append(a.perDay, 0)
		}
		a.perDay[day]++
		if !a.manyJobs {
			a.times = append(a.times, t)
			if a.manyJobs = len(a.times) > exactArrivals; a.manyJobs {
				a.times = nil
			}
		}
		if hour := int(t / 3600); day < hourlyArrivalDays {
			for len(a.perHour) <= hour {
				a.perHour = append(a.perHour, 0)
			}
			a.perHour[hour]++
		}
		hod, dow := a.slot(t)
		a.byHour[hod]++
		a.byDay[dow]++
	}
	jt := jobTimes{submit: t, start: r.Start(), end: r.Start()}
	if r.RunTime > 0 {
		s := r.Start()
		e := s + r.RunTime
		a.maxEnd = math.Max(a.maxEnd, e)
		pp := p
		if pp <= 0 {
			pp = 1
		}
		jt.end, jt.procs = e, pp
		if s >= 0 && e <= maxBinnedSeconds {
			a.busy.add(s, e, pp)
			a.running.add(s, e)
		} else {
			a.clamped++
		}
	} else {
		a.maxEnd = math.Max(a.maxEnd, r.Start())
	}
	if r.WorkflowID != "" {
		a.addTask(r)
	}
	a.addTimes(jt)
}

// jobTimes is what the inter-arrival times and the peak of processors in
// use need of a job: its submission, and the processors it held from start
// to end (end == start: it did not run).
type jobTimes struct{ submit, start, end, procs float64 }

// jobTimesBytes is the memory of one jobTimes, charged to the budget.
const jobTimesBytes = 32

// keptTimes holds jobs' times in chunks: growing never copies what is
// held, so the memory is what the budget was charged.
type keptTimes struct {
	chunks [][]jobTimes
	n      int
}

// keptChunk is the jobs of a chunk (2 MiB).
const keptChunk = 1 << 16

func (k *keptTimes) len() int { return k.n }

// each calls f with every job kept.
func (k *keptTimes) each(f func(jobTimes)) {
	for _, c := range k.chunks {
		for _, jt := range c {
			f(jt)
		}
	}
}

// addTimes keeps a job's times within the budget, or streams them.
func (a *Analyzer) addTimes(jt jobTimes) {
	k := &a.kept
	if a.timesKept && (len(k.chunks) == 0 || len(k.chunks[len(k.chunks)-1]) == keptChunk) {
		if a.budget.take(keptChunk * jobTimesBytes) {
			k.chunks = append(k.chunks, make([]jobTimes, 0, keptChunk))
		}
	}
	if a.timesKept && !a.budget.Spent() {
		last := &k.chunks[len(k.chunks)-1]
		*last = append(*last, jt)
		k.n++
		return
	}
	if a.timesKept {
		a.dropTimes()
	}
	a.stream(jt)
}

// dropTimes ends the exact statistics of the jobs' times: the jobs kept so
// far go to the streaming state in submit order, as a sorted trace would
// have given them.
func (a *Analyzer) dropTimes() {
	all := make([]jobTimes, 0, a.kept.len())
	a.kept.each(func(jt jobTimes) { all = append(all, jt) })
	a.kept, a.timesKept = keptTimes{}, false
	slices.SortFunc(all, func(x, y jobTimes) int { return cmp.Compare(x.submit, y.submit) })
	for _, jt := range all {
		a.stream(jt)
	}
}

// stream adds a job's times to the streaming state: the gap since the
// latest submission to the inter-arrival sketch, its run to the sweep of
// the peak. A job submitted before the latest one streamed (lateDisorder)
// has no known gap: the jobs between were not kept.
func (a *Analyzer) stream(jt jobTimes) {
	switch {
	case !a.streamed:
		a.iat.AddMissing()
		a.streamed, a.maxSubmit = true, jt.submit
	case jt.submit >= a.maxSubmit:
		a.iat.Add(jt.submit - a.maxSubmit)
		a.maxSubmit = jt.submit
	default:
		a.iat.AddMissing()
		a.lateDisorder = true
	}
	if jt.end > jt.start {
		a.peak.add(jt.submit, jt.start, jt.end, jt.procs)
	}
}

// powerOfTwo tells whether a size is 2^k for a whole k >= 0.
func powerOfTwo(p float64) bool {
	frac, exp := math.Frexp(p)
	return frac == 0.5 && exp >= 1
}

func addKnown(s *Sketch, v float64) {
	if v == Missing {
		s.AddMissing()
	} else {
		s.Add(v)
	}
}

// slot is the hour of day and weekday (Monday = 0) of offset t: in the
// trace's time zone when the time base is known, else counted from the
// trace's start. Computed once per hour of trace time.
func (a *Analyzer) slot(t float64) (int, int) {
	key := int64(t / 3600)
	if key == a.lastHourKey {
		return a.lastHourSlot[0], a.lastHourSlot[1]
	}
	var hod, dow int
	if a.hdr.UnixStartTime != 0 {
		tm := time.Unix(a.hdr.UnixStartTime+int64(t), 0).In(a.loc)
		hod, dow = tm.Hour(), (int(tm.Weekday())+6)%7
	} else {
		hod, dow = int(key%24), int((key/24)%7)
	}
	// Cache only when the whole hour maps to one slot (zones with
	// fractional offsets do not).
	if a.hdr.UnixStartTime == 0 || (a.hdr.UnixStartTime%3600 == 0 && a.loc == time.UTC) {
		a.lastHourKey, a.lastHourSlot = key, [2]int{hod, dow}
	}
	return hod, dow
}

// hourlyArrivalDays is the longest trace (in days from the time base)
// whose arrivals are also counted per hour (Arrivals.PerHour).
const hourlyArrivalDays = 62

// exactArrivals is the most jobs whose submit times are kept for an exact
// cumulative view (Arrivals.Times): each is two points of the figure.
const exactArrivals = 5000

// maxBinnedSeconds bounds the time-binned counters (about 114 years of
// hourly bins): times beyond are counted in Clamped, not binned.
const maxBinnedSeconds = 1 << 20 * 3600

// timeBins accumulates processor-seconds per bin in O(1) per job: partial
// first and last bins directly, the full bins between through a difference
// array of processor counts.
type timeBins struct {
	width float64
	busy  []float64
	rate  []float64
}

func (b *timeBins) grow(n int) {
	for len(b.busy) < n {
		b.busy = append(b.busy, 0)
		b.rate = append(b.rate, 0)
	}
}

func (b *timeBins) add(s, e, p float64) {
	w := b.width
	b1, b2 := int(s/w), int(e/w)
	b.grow(b2 + 2)
	if b1 == b2 {
		b.busy[b1] += p * (e - s)
		return
	}
	b.busy[b1] += p * (float64(b1+1)*w - s)
	b.busy[b2] += p * (e - float64(b2)*w)
	if b2 > b1+1 {
		b.rate[b1+1] += p
		b.rate[b2] -= p
	}
}

// totals returns the processor-seconds of each bin.
func (b *timeBins) totals() []float64 {
	out := make([]float64, len(b.busy))
	r := 0.0
	for i := range b.busy {
		r += b.rate[i]
		out[i] = b.busy[i] + r*b.width
	}
	for len(out) > 0 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out
}

// dayCounter counts the jobs running at some time during each day.
type dayCounter struct{ diff []int64 }

func (d *dayCounter) add(s, e float64) {
	d1 := int(s / 86400)
	d2 := int(math.Ceil(e/86400)) - 1
	d2 = max(d2, d1)
	for len(d.diff) < d2+2 {
		d.diff = append(d.diff, 0)
	}
	d.diff[d1]++
	d.diff[d2+1]--
}

func (d *dayCounter) counts() []int64 {
	out := make([]int64, len(d.diff))
	var r int64
	for i, v := range d.diff {
		r += v
		out[i] = r
	}
	for len(out) > 0 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out
}

// Analysis is the result of analysing a trace. Times are seconds.
type Analysis struct {
	Trace         TraceInfo     `json:"trace"`
	Totals        Totals        `json:"totals"`
	Status        StatusCounts  `json:"status"`
	Distributions Distributions `json:"distributions"`
	Arrivals      Arrivals      `json:"arrivals"`
	Utilization   Utilization   `json:"utilization"`
	Size          SizeSplit     `json:"sequential_parallel"`
	Users         UserStats     `json:"users"`
	Sites         []SiteStat    `json:"sites"`
	Ranking       Signature     `json:"ranking"`
	Read          *ReadStats    `json:"read,omitempty"`
	// Warnings are what a reader of the figures must know: a system size
	// the jobs exceed, statistics that the order of the lines left unknown.
	Warnings []string `json:"warnings,omitempty"`
	// Groups is the per-group view, for the figures (not in the JSON).
	Groups *GroupAnalysis `json:"-"`
}

// TraceInfo names the trace and its time base.
type TraceInfo struct {
	Name          string `json:"name"`
	Format        Format `json:"format"`
	UnixStartTime int64  `json:"unix_start_time"`       // 0: unknown
	Start         string `json:"start,omitempty"`       // the base as RFC 3339, in TimeZone
	TimeZone      string `json:"time_zone"`             // the zone of hour-of-day and weekday counts
	TimeBase      string `json:"time_base"`             // "header", "absolute" (normalized) or "relative"
	Clamped       int64  `json:"clamped,omitempty"`     // records outside the binned time range
	HeaderJobs    int    `json:"header_jobs,omitempty"` // MaxJobs from the header
}

// Totals are the trace's sizes.
type Totals struct {
	Jobs       int64 `json:"jobs"`
	Users      int   `json:"users"`
	Groups     int   `json:"groups"`
	Sites      int   `json:"sites"`
	Processors int   `json:"processors"` // the system size used for utilization
	// ProcessorsEstimated: Processors is an estimate (Utilization).
	ProcessorsEstimated bool    `json:"processors_estimated"`
	MaxJobProcs         float64 `json:"max_job_processors"`
	FirstSubmit         Stat    `json:"first_submit"`
	LastSubmit          Stat    `json:"last_submit"`
	Span                Stat    `json:"span"` // last − first submit
	LastEnd             Stat    `json:"last_end"`
	CPUYears            float64 `json:"cpu_years"` // processor-years consumed: Σ run time × size
	// Goodput is CPU-years consumed per year of trace (first submit to last
	// end), the unit of the thesis's Table 3.3.
	Goodput Stat `json:"goodput_cpu_years_per_year"`
}

// MarshalJSON adds the reasons of absent statistics (see Stat).
func (t Totals) MarshalJSON() ([]byte, error) {
	type plain Totals
	return withAbsent(plain(t))
}

// StatusCounts counts jobs by GWF/SWF status.
type StatusCounts struct {
	Completed int64 `json:"completed"` // 1
	Failed    int64 `json:"failed"`    // 0
	Cancelled int64 `json:"cancelled"` // 5
	Partial   int64 `json:"partial"`   // 2, 3, 4 (SWF partial executions)
	Unknown   int64 `json:"unknown"`   // -1
}

// Distributions are the six job characteristics of the thesis's Fig. 3.3.
type Distributions struct {
	InterArrival *Summary `json:"inter_arrival"` // s, between consecutive submissions
	Wait         *Summary `json:"wait"`          // s
	RunTime      *Summary `json:"run_time"`      // s
	Parallelism  *Summary `json:"parallelism"`   // processors per job
	Memory       *Summary `json:"memory"`        // KB per processor
	CPUTime      *Summary `json:"cpu_time"`      // s, average CPU time per processor
}

// Arrivals are submission counts by time slot.
type Arrivals struct {
	ByHour    [24]int64 `json:"by_hour"`    // hour of day 0 … 23
	ByWeekday [7]int64  `json:"by_weekday"` // Monday … Sunday
	PerDay    []int64   `json:"per_day"`    // days from the time base
	// PerHour is the count per hour from the time base, for traces of at
	// most hourlyArrivalDays days: their cumulative view at a day's
	// resolution would draw a day's arrivals as a ramp over the day.
	PerHour []int64 `json:"per_hour,omitempty"`
	// Times are the submit times (s from the time base, sorted) of a
	// trace of at most exactArrivals binned jobs, for its cumulative
	// view drawn exactly; nil for a larger one.
	Times   []float64 `json:"-"`
	PeakDay int64     `json:"peak_day"` // most submissions in a day
}

// Utilization is the system's load over time.
type Utilization struct {
	Processors int `json:"processors"`
	// ProcessorsSource says where Processors comes from: "option" (--procs),
	// "header MaxProcs", "header MaxNodes" (one processor per node), the
	// estimate (ProcessorsEstimate), or "unknown".
	ProcessorsSource string `json:"processors_source"`
	// ProcessorsEstimated is set when Processors is the estimate: the trace
	// gives no system size, and the peak of processors in use at once (a
	// lower bound on the size) stands for it. Utilization is then an upper
	// bound, and the ranking's cores and utilization rest on the estimate.
	ProcessorsEstimated bool      `json:"processors_estimated"`
	Average             Stat      `json:"average"`       // busy / (processors × (last end − first submit))
	Daily               []float64 `json:"daily"`         // per day from the time base
	BusiestMonth        string    `json:"busiest_month"` // e.g. 2005-11, or "days 0-29"
	BusiestHourly       []float64 `json:"busiest_month_hourly"`
	// PeakProcessors is the most processors in use at once (each job
	// holding its size, 1 when unknown, from its start to its end), and
	// PeakAt when (s from the time base): the estimate when the trace
	// gives no size, a check of the size it gives.
	PeakProcessors float64 `json:"peak_processors"`
	PeakAt         Stat    `json:"peak_at"`
	// Spike is the most jobs running during one day (the thesis's Table 3.3).
	Spike         int64   `json:"spike_jobs_per_day"`
	RunningPerDay []int64 `json:"running_per_day"`
}

// MarshalJSON adds the reasons of absent statistics (see Stat).
func (u Utilization) MarshalJSON() ([]byte, error) {
	type plain Utilization
	return withAbsent(plain(u))
}

// SizeSplit compares sequential and parallel jobs.
type SizeSplit struct {
	SequentialJobs int64   `json:"sequential_jobs"`
	ParallelJobs   int64   `json:"parallel_jobs"`
	UnknownSize    int64   `json:"unknown_size"`
	SequentialCPU  float64 `json:"sequential_cpu_seconds"`
	ParallelCPU    float64 `json:"parallel_cpu_seconds"`
	// PowerOfTwoJobs are the jobs whose size is a power of two, 1 = 2^0
	// included; PowerOfTwoShare is their share of the jobs of known size,
	// and ParallelPowerOfTwoShare the share of sizes 2, 4, 8, … among the
	// parallel jobs (the thesis's "job requests for power-of-two sizes",
	// §3.4, does not say whether 1 counts: both are given).
	PowerOfTwoJobs          int64 `json:"power_of_two_jobs"`
	PowerOfTwoShare         Stat  `json:"power_of_two_share"`
	ParallelPowerOfTwoShare Stat  `json:"parallel_power_of_two_share"`
}

// MarshalJSON adds the reasons of absent statistics (see Stat).
func (s SizeSplit) MarshalJSON() ([]byte, error) {
	type plain SizeSplit
	return withAbsent(plain(s))
}

// UserStats are the per-user breakdown.
type UserStats struct {
	Count    int         `json:"count"`
	TopByJob []UserShare `json:"top_by_jobs"`
	TopByCPU []UserShare `json:"top_by_cpu"`
}

// UserShare is one user's share of the trace.
type UserShare struct {
	User     string  `json:"user"`
	Jobs     int64   `json:"jobs"`
	CPU      float64 `json:"cpu_seconds"`
	JobShare Stat    `json:"job_share"`
	CPUShare Stat    `json:"cpu_share"`
}

// MarshalJSON adds the reasons of absent statistics (see Stat).
func (u UserShare) MarshalJSON() ([]byte, error) {
	type plain UserShare
	return withAbsent(plain(u))
}

// SiteStat is one site's share of the trace.
type SiteStat struct {
	Site     string  `json:"site"`
	Name     string  `json:"name,omitempty"`
	Jobs     int64   `json:"jobs"`
	CPU      float64 `json:"cpu_seconds"`
	MeanRun  Stat    `json:"mean_run_time"`
	MeanWait Stat    `json:"mean_wait"`
}

// MarshalJSON adds the reasons of absent statistics (see Stat).
func (s SiteStat) MarshalJSON() ([]byte, error) {
	type plain SiteStat
	return withAbsent(plain(s))
}

// Result finishes the analysis. The Analyzer may go on accepting records.
func (a *Analyzer) Result() *Analysis {
	if a.timesKept && a.budget.Spent() {
		a.dropTimes()
	}
	r := &Analysis{Trace: a.traceInfo()}
	withCDF := !a.opts.NoCDF
	r.Distributions = Distributions{
		InterArrival: a.interArrivals(withCDF), Wait: a.wait.Summary(withCDF), RunTime: a.run.Summary(withCDF),
		Parallelism: a.procs.Summary(withCDF), Memory: a.mem.Summary(withCDF), CPUTime: a.cpu.Summary(withCDF),
	}
	if a.lateDisorder {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the trace is not in submit order, and it has more jobs than the memory budget of exact statistics keeps (%s): "+
			"its inter-arrival times are not known, and an estimated system size is a weaker lower bound (the sweep in file order and the busiest hour); sort it by submit time (docs/trace.md)", budgetText(a.budget.Limit())))
	}
	st := a.status
	r.Status = StatusCounts{Unknown: st[0] + st[7], Failed: st[1], Completed: st[2], Partial: st[3] + st[4] + st[5], Cancelled: st[6]}
	r.Size = SizeSplit{SequentialJobs: a.seqJobs, ParallelJobs: a.parJobs, UnknownSize: a.unknownSize,
		SequentialCPU: a.seqCPU, ParallelCPU: a.parCPU, PowerOfTwoJobs: a.pow2Jobs,
		PowerOfTwoShare:         ratio(float64(a.pow2Jobs), float64(a.seqJobs+a.parJobs), whyNoSizes),
		ParallelPowerOfTwoShare: ratio(float64(a.pow2Parallel), float64(a.parJobs), whyNoParallel)}
	span := a.totals(&r.Totals)
	r.Arrivals = Arrivals{ByHour: a.byHour, ByWeekday: a.byDay, PerDay: a.perDay}
	if len(a.perDay) <= hourlyArrivalDays {
		r.Arrivals.PerHour = a.perHour
	}
	if a.times != nil {
		r.Arrivals.Times = slices.Clone(a.times)
		slices.Sort(r.Arrivals.Times)
	}
	for _, n := range a.perDay {
		r.Arrivals.PeakDay = max(r.Arrivals.PeakDay, n)
	}
	if r.Arrivals.PerDay == nil {
		r.Arrivals.PerDay = []int64{}
	}
	r.Warnings = append(r.Warnings, a.utilization(&r.Utilization, span)...)
	r.Totals.Processors, r.Totals.ProcessorsEstimated = r.Utilization.Processors, r.Utilization.ProcessorsEstimated
	r.Users = a.userShares()
	r.Sites = a.siteStats()
	r.Groups = a.perGroup.result(a.opts.TopN)
	// Ranking: reported work only when given.
	work := -1
	if a.opts.ReportedWorkKnown {
		work = a.opts.ReportedWork
	}
	r.Ranking = Classify(r.Totals.facts(&r.Utilization, work))
	return r
}

// traceInfo is what the header tells of the trace's time base.
func (a *Analyzer) traceInfo() TraceInfo {
	h := a.hdr
	ti := TraceInfo{Format: h.Format, UnixStartTime: h.UnixStartTime, TimeZone: a.loc.String(), TimeBase: "relative",
		Clamped: a.clamped, HeaderJobs: h.MaxJobs}
	if h.UnixStartTime != 0 {
		ti.TimeBase = "header"
		if h.AbsoluteBase {
			ti.TimeBase = "absolute"
		}
		ti.Start = time.Unix(h.UnixStartTime, 0).In(a.loc).Format(time.RFC3339)
	} else {
		ti.TimeZone = "relative to the trace start"
	}
	return ti
}

// totals fills in the counts and times of the trace and returns its span:
// the time from the first submission to the last end, the interval of
// goodput and utilization; 0 when there is none.
func (a *Analyzer) totals(t *Totals) (span float64) {
	t.Jobs, t.Users, t.Groups, t.Sites = a.jobs, len(a.users), len(a.groups), len(a.sites)
	t.MaxJobProcs, t.CPUYears = a.maxJobProcs, a.cpuSeconds/(365*86400)
	if a.jobs == 0 {
		t.FirstSubmit, t.LastSubmit, t.Span, t.LastEnd, t.Goodput = absent(whyNoJobs), absent(whyNoJobs), absent(whyNoJobs), absent(whyNoJobs), absent(whyNoJobs)
		return 0
	}
	t.FirstSubmit, t.LastSubmit, t.Span = known(a.first), known(a.last), known(a.last-a.first)
	t.LastEnd = known(math.Max(math.Max(a.maxEnd, a.last), a.lastEndOfWorkflows()))
	span = t.LastEnd.Value - t.FirstSubmit.Value
	t.Goodput = ratio(a.cpuSeconds, span, whyNoSpan)
	return span
}

// ProcessorsEstimate is the ProcessorsSource of an estimated system size.
const ProcessorsEstimate = "estimated: the peak of processors in use at once, a lower bound"

// utilization: the system size (from the options, the header, or an
// estimate), the average over span, per day, and the busiest month hour
// by hour. It returns the warnings: a given size that the jobs exceed.
func (a *Analyzer) utilization(u *Utilization, span float64) []string {
	busy := a.busy.totals()
	peak, at := a.peakInUse()
	u.PeakProcessors, u.PeakAt = peak, absent(whyNoneRan)
	if peak > 0 {
		u.PeakAt = known(at)
	}
	switch {
	case a.opts.Processors > 0:
		u.Processors, u.ProcessorsSource = a.opts.Processors, "option"
	case a.hdr.MaxProcs > 0:
		u.Processors, u.ProcessorsSource = a.hdr.MaxProcs, "header MaxProcs"
	case a.hdr.MaxNodes > 0:
		// SWF counts whole nodes as processors when a system allocates
		// nodes; a trace that gives MaxNodes and no MaxProcs is taken to
		// have one processor per node.
		u.Processors, u.ProcessorsSource = a.hdr.MaxNodes, "header MaxNodes"
	default:
		u.Processors = a.estimateProcessors(peak, busy, span)
		u.ProcessorsSource, u.ProcessorsEstimated = ProcessorsEstimate, u.Processors > 0
	}
	if u.Processors == 0 {
		u.ProcessorsSource = "unknown"
	}
	switch {
	case a.jobs == 0:
		u.Average = absent(whyNoJobs)
	case u.Processors == 0:
		u.Average = absent(whyNoSize)
	default:
		u.Average = ratio(a.cpuSeconds, float64(u.Processors)*span, whyNoSpan)
	}
	if u.Processors > 0 {
		procs := float64(u.Processors)
		for d := 0; d*24 < len(busy); d++ {
			sum := 0.0
			for hb := d * 24; hb < min(len(busy), d*24+24); hb++ {
				sum += busy[hb]
			}
			u.Daily = append(u.Daily, sum/(procs*86400))
		}
		start, end, label := a.busiestMonth(busy)
		u.BusiestMonth = label
		for hb := start; hb < end; hb++ {
			u.BusiestHourly = append(u.BusiestHourly, busy[hb]/(procs*a.busy.width))
		}
	}
	// Lists are empty, never null: null means an absent statistic.
	if u.Daily == nil {
		u.Daily = []float64{}
	}
	if u.BusiestHourly == nil {
		u.BusiestHourly = []float64{}
	}
	u.RunningPerDay = a.running.counts()
	for _, n := range u.RunningPerDay {
		u.Spike = max(u.Spike, n)
	}
	if u.ProcessorsEstimated || u.Processors == 0 || !(peak > float64(u.Processors)) {
		return nil
	}
	hourly := 0.0
	for _, v := range u.BusiestHourly {
		hourly = math.Max(hourly, v)
	}
	for _, v := range u.Daily {
		hourly = math.Max(hourly, v)
	}
	over := ""
	if hourly > 1 {
		over = fmt.Sprintf(", the busiest hour %.0f%%", 100*hourly)
	}
	size := int(min(math.Ceil(peak-1e-9*peak), MaxProcs))
	return []string{fmt.Sprintf("the jobs use up to %s processors at once (at %s s), more than the %d of the system size (%s): its utilization passes 100%% (the average %s%s); --procs %d takes the measured peak as the size",
		strconv.FormatFloat(peak, 'f', -1, 64), strconv.FormatFloat(at, 'f', -1, 64), u.Processors, u.ProcessorsSource, percent(u.Average, 2), over, size)}
}

// peakInUse is the most processors in use at once and when it was reached:
// the exact sweep of the kept jobs in submit order, else the streaming
// sweep's (a lower bound when it cut intervals, see peakLoad).
func (a *Analyzer) peakInUse() (peak, at float64) {
	if !a.timesKept {
		return a.peak.result()
	}
	n := 0
	a.kept.each(func(jt jobTimes) {
		if jt.end > jt.start && jt.procs > 0 {
			n++
		}
	})
	ev := make([]loadEvent, 0, 2*n)
	a.kept.each(func(jt jobTimes) {
		if jt.end > jt.start && jt.procs > 0 {
			ev = append(ev, loadEvent{jt.start, jt.procs}, loadEvent{jt.end, -jt.procs})
		}
	})
	// Intervals are half-open: at one instant, ends come before starts.
	slices.SortFunc(ev, func(x, y loadEvent) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		return cmp.Compare(x.delta, y.delta)
	})
	load := 0.0
	for _, e := range ev {
		if load += e.delta; load > peak {
			peak, at = load, e.t
		}
	}
	return peak, at
}

// interArrivals summarizes the gaps between consecutive submissions: of
// every job, sorted by submit time, while their times are kept; else the
// streaming sketch's (no value when the records came out of order past
// the budget).
func (a *Analyzer) interArrivals(withCDF bool) *Summary {
	if !a.timesKept {
		if a.lateDisorder {
			sum := (&Sketch{missing: a.jobs}).Summary(false)
			for _, p := range []*Stat{&sum.Min, &sum.Max, &sum.Mean, &sum.Std, &sum.CV, &sum.P5, &sum.P25, &sum.Median, &sum.P75, &sum.P90, &sum.P95, &sum.P99} {
				*p = absent(whyUnordered)
			}
			return sum
		}
		return a.iat.Summary(withCDF)
	}
	submits := make([]float64, 0, a.kept.len())
	a.kept.each(func(jt jobTimes) { submits = append(submits, jt.submit) })
	slices.Sort(submits)
	gaps := NewSketch(NewExactBudget(math.MaxInt64))
	for i := range submits {
		if i == 0 {
			gaps.AddMissing() // the first job has no gap before it
			continue
		}
		gaps.Add(submits[i] - submits[i-1])
	}
	return gaps.Summary(withCDF)
}

// flowTask is a task of a workflow trace, for lastEndOfWorkflows.
type flowTask struct {
	id         string
	start, run float64 // run 0 when unknown
	deps       []string
}

// addTask keeps a workflow task (the workflow reader holds the trace
// anyway, within its bounds).
func (a *Analyzer) addTask(r *Record) {
	if a.wf == nil {
		a.wf = map[string][]flowTask{}
	}
	run := 0.0
	if rt, ok := r.KnownRunTime(); ok {
		run = rt
	}
	a.wf[r.WorkflowID] = append(a.wf[r.WorkflowID], flowTask{id: r.JobID, start: r.Start(), run: run, deps: slices.Clone(r.Dependencies)})
}

// lastEndOfWorkflows is when the last task of the workflow traces could
// end: a task starts at its own start (its submission, or its recorded
// start) but not before its predecessors have ended, in topological order
// of each workflow (a predecessor the trace lacks, left out by a
// selection, holds nothing back; tasks on a cycle, which the workflow
// reader refuses, keep their own end). -Inf without workflows.
func (a *Analyzer) lastEndOfWorkflows() float64 {
	last := math.Inf(-1)
	for _, tasks := range a.wf {
		idx := make(map[string]int, len(tasks))
		for i, t := range tasks {
			idx[t.id] = i
		}
		indeg := make([]int, len(tasks))
		next := make([][]int, len(tasks))
		for i, t := range tasks {
			for _, d := range t.deps {
				if p, ok := idx[d]; ok && p != i {
					next[p] = append(next[p], i)
					indeg[i]++
				}
			}
		}
		start := make([]float64, len(tasks))
		var queue []int
		for i, t := range tasks {
			start[i] = t.start
			if indeg[i] == 0 {
				queue = append(queue, i)
			}
		}
		done := make([]bool, len(tasks))
		for len(queue) > 0 {
			i := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			done[i] = true
			end := start[i] + tasks[i].run
			last = math.Max(last, end)
			for _, j := range next[i] {
				start[j] = math.Max(start[j], end)
				if indeg[j]--; indeg[j] == 0 {
					queue = append(queue, j)
				}
			}
		}
		for i, t := range tasks {
			if !done[i] {
				last = math.Max(last, t.start+t.run)
			}
		}
	}
	return last
}

// budgetText writes a budget in bytes as MiB or GiB.
func budgetText(b int64) string {
	if b >= 1<<30 && b%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", b>>30)
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// estimateProcessors is a lower bound on the system size: the peak of
// processors in use at once, and at least the average load over span and
// over the busiest hour (the same thing unless the streaming sweep cut some
// job's interval, see peakLoad), so that the utilization on it is at most
// 100%. 0 when no job ran.
func (a *Analyzer) estimateProcessors(peak float64, busy []float64, span float64) int {
	est := peak
	if span > 0 {
		est = math.Max(est, a.cpuSeconds/span)
	}
	for _, b := range busy {
		est = math.Max(est, b/a.busy.width)
	}
	return int(min(math.Ceil(est-1e-9*est), MaxProcs))
}

// userShares lists the TopN users by jobs and by CPU time.
func (a *Analyzer) userShares() UserStats {
	var us UserStats
	us.Count = len(a.users)
	names := make([]string, 0, len(a.users))
	for n := range a.users {
		names = append(names, n)
	}
	share := func(n string) UserShare {
		g := a.users[n]
		return UserShare{User: n, Jobs: g.jobs, CPU: g.cpu,
			JobShare: ratio(float64(g.jobs), float64(a.jobs), whyNoJobs),
			CPUShare: ratio(g.cpu, a.cpuSeconds, whyNoCPU)}
	}
	// top lists the TopN users by key, largest first, ties by name.
	top := func(key func(*groupStat) float64) (list []UserShare) {
		sort.Slice(names, func(i, j int) bool {
			x, y := key(a.users[names[i]]), key(a.users[names[j]])
			if x != y {
				return x > y
			}
			return names[i] < names[j]
		})
		for _, n := range names[:min(len(names), a.opts.TopN)] {
			list = append(list, share(n))
		}
		return list
	}
	us.TopByJob = append([]UserShare{}, top(func(u *groupStat) float64 { return float64(u.jobs) })...)
	us.TopByCPU = append([]UserShare{}, top(func(u *groupStat) float64 { return u.cpu })...)
	return us
}

// siteStats lists every site, most jobs first.
func (a *Analyzer) siteStats() []SiteStat {
	sites := []SiteStat{}
	for n, s := range a.sites {
		ss := SiteStat{Site: n, Jobs: s.jobs, CPU: s.cpu}
		if name := a.hdr.SiteName(n); name != n {
			ss.Name = name
		}
		ss.MeanRun = ratio(s.runSum, float64(s.runN), whyNoRunTimes)
		ss.MeanWait = ratio(s.waitSum, float64(s.waitN), whyNoWaits)
		sites = append(sites, ss)
	}
	sort.Slice(sites, func(i, j int) bool {
		if sites[i].Jobs != sites[j].Jobs {
			return sites[i].Jobs > sites[j].Jobs
		}
		return sites[i].Site < sites[j].Site
	})
	return sites
}

// facts are what the ranking needs of an analysis; a size or utilization
// the trace does not tell is unknown (-1), not 0 stars.
func (t *Totals) facts(u *Utilization, reportedWork int) TraceFacts {
	f := TraceFacts{Sites: t.Sites, Cores: u.Processors, Users: t.Users, Jobs: t.Jobs, Utilization: -1, ReportedWork: reportedWork,
		CoresEstimated: u.ProcessorsEstimated}
	if u.Processors == 0 {
		f.Cores = -1
	}
	if u.Average.OK() {
		f.Utilization = 100 * u.Average.Value
	}
	return f
}

// Facts are the analysis's ranking facts with reportedWork publications
// (-1: unknown).
func (r *Analysis) Facts(reportedWork int) TraceFacts {
	return r.Totals.facts(&r.Utilization, reportedWork)
}

// busiestMonth finds the month with the most processor-seconds: calendar
// months in the trace's zone when the time base is known, else 30-day
// periods from the start. It returns its hour-bin range and a label.
func (a *Analyzer) busiestMonth(busy []float64) (start, end int, label string) {
	type month struct {
		start, end int
		sum        float64
		label      string
	}
	var months []month
	for hb := range busy {
		var key string
		if a.hdr.UnixStartTime != 0 {
			key = time.Unix(a.hdr.UnixStartTime+int64(hb)*3600, 0).In(a.loc).Format("2006-01")
		} else {
			d := hb / 720
			key = fmt.Sprintf("days %d-%d", d*30, d*30+29)
		}
		if len(months) == 0 || months[len(months)-1].label != key {
			months = append(months, month{start: hb, end: hb, label: key})
		}
		m := &months[len(months)-1]
		m.end = hb + 1
		m.sum += busy[hb]
	}
	best := -1
	for i, m := range months {
		if best < 0 || m.sum > months[best].sum {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, ""
	}
	return months[best].start, months[best].end, months[best].label
}

// Analyze reads r to the end and returns its analysis with the reader's
// statistics. progress, when not nil, is called every 64 Ki records.
func Analyze(r Reader, opts AnalysisOptions, progress func(records int64)) (*Analysis, error) {
	a := NewAnalyzer(r.Header(), opts)
	if _, err := ForEach(r, func(rec *Record) error {
		a.Add(rec)
		if progress != nil && a.jobs&0xffff == 0 {
			progress(a.jobs)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	res := a.Result()
	res.Read = r.Stats()
	return res, nil
}
