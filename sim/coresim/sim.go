package coresim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/workload"
)

// TargetName is the target name of a run the bundled core simulated
// (gmark koala simulate --db).
const TargetName = "koala-sim"

// Start is where a simulation's clock starts: simulated runs stand
// apart from real ones in the store.
var Start = sim.CoreOrigin

// Options are the settings of a simulation.
type Options struct {
	Priority core.Priority // of every job
	Runner   core.Runner   // of every job
	Warmup   time.Duration // background load runs this long before the first job (at least the grid's local_warmup)
	Limit    time.Duration // the simulation stops after this much simulated time
	Events   core.Sink     // receives every event of the core; nil: none
	// Records keeps a record of every job (Simulation.Jobs, Arrivals), for
	// Record (the results store) and callers that read each job. Without
	// it the summary is counted as the jobs end, and the simulation's
	// memory does not grow with the workload.
	Records bool
	// DB, when set, records the simulation in a results store as it runs
	// (record.RunRecording): each job's records as it ends, so that
	// memory holds only the jobs in progress, not the workload's. The
	// rows are those Record writes; FinishRecord ends the record.
	DB *DB
}

// DB is where a simulation records itself as it runs (Options.DB).
type DB struct {
	Store *store.Store
	RunInfo
}

// Simulation is a workload run through the bundled core in simulated time.
type Simulation struct {
	Grid     *grid.Grid
	Dir      string // the workload directory
	Core     *core.Core
	First    time.Time // the first job's origin: Start plus the warm-up
	Arrivals []Arrival // every job of the workload, in its order (Options.Records)
	Refused  []error   // one per job the core refused
	Warmup   time.Duration
	Deadline time.Time // the simulation's limit: jobs due after it were never submitted
	MaxQueue int       // the most jobs the placement queues held after a scan
	// Jobs is every job the core accepted, in submission order, as it
	// ended or as it was when the simulation stopped (Options.Records).
	// The core itself drops its jobs as they end (core.Forget): what the
	// store needs of each is kept here.
	Jobs []Job

	records bool
	db      *simStream // Options.DB's recording; nil without
	tally   simTally   // of the jobs the core accepted, for the summary
	arrived int        // the jobs of the workload
	lastAt  time.Time  // the last one's due time
}

// simTally is what the summary counts of the jobs the core accepted.
type simTally struct {
	jobs, finished, failed, ended, started, claimTries, coAllocated int
	reasons                                                         map[string]int // of the failed jobs
	end                                                             time.Time      // the last end
	wait, ftt, placement                                            time.Duration
}

func (t *simTally) add(j *Job) {
	t.jobs++
	switch j.State {
	case core.Finished:
		t.finished++
	case core.Failed:
		t.failed++
		if t.reasons == nil {
			t.reasons = map[string]int{}
		}
		t.reasons[j.Reason]++
	}
	if !j.End.IsZero() {
		t.ended++
		if j.End.After(t.end) {
			t.end = j.End
		}
	}
	if !j.Start.IsZero() {
		t.started++
		t.wait += j.Start.Sub(j.Submitted)
	}
	t.ftt += j.FTT
	t.placement += j.PlacementTime
	t.claimTries += j.ClaimTries
	if j.CoAllocated {
		t.coAllocated++
	}
}

// keep counts a job the core accepted, as it ended or as the simulation
// left it, and keeps its record when asked to.
func (s *Simulation) keep(j *core.Job) {
	r := simJob(j)
	s.tally.add(&r)
	if s.records {
		s.Jobs = append(s.Jobs, r)
	}
	if s.db != nil {
		s.db.ended(s, &r)
	}
}

// Arrival is a job of the workload: its id and when it is due. The
// simulation reads the jobs one at a time (the core gets each as it is
// due) and keeps only this of each.
type Arrival struct {
	ID string
	At time.Time
}

// Job is what a simulation keeps of a job the core accepted.
type Job struct {
	ID    string // the core's
	Name  string // the workload's (Spec.ID)
	State core.State
	// Reason: why it failed, was cancelled or re-placed (core.Job.Reason).
	Reason                string
	Submitted, Start, End time.Time
	FTT, PlacementTime    time.Duration // the last placement's file transfer time; the time spent in placement queues
	PlacementTries        int
	ClaimTries            int
	Restarts              int
	Sites                 []string // distinct, in component order
	CoAllocated           bool
	RunTimeSource         core.RunTimeSource
	seq                   int // submission order
}

// simJob is what a simulation keeps of a job.
func simJob(j *core.Job) Job {
	seq, _ := strconv.Atoi(strings.TrimPrefix(j.ID, "k"))
	sites := j.Sites()
	return Job{ID: j.ID, Name: j.Spec.ID, State: j.State, Reason: j.Reason, Submitted: j.Submitted, Start: j.Start, End: j.End,
		FTT: j.FTT, PlacementTime: j.TotalPlacementTime, PlacementTries: j.PlacementTries, ClaimTries: j.ClaimTries,
		Restarts: j.Restarts, Sites: sites, CoAllocated: len(sites) > 1, RunTimeSource: j.RunTimeSource, seq: seq}
}

// queueWatch passes the core's events on and keeps the longest placement
// queue they report.
type queueWatch struct {
	next core.Sink
	max  int
}

// Takes implements core.KindFilter: queue lengths, and what the next sink takes.
func (q *queueWatch) Takes(kind core.EventKind) bool {
	return kind == core.EvQueueLength || q.next != nil && core.Takes(q.next, kind)
}

func (q *queueWatch) Event(e *core.Event) {
	if e.Kind == core.EvQueueLength {
		q.max = max(q.max, e.Count)
	}
	if q.next != nil {
		q.next.Event(e)
	}
}

// Simulate submits every job of the workload in dir (from gmark generate)
// at its submit time to a core of grid g, with emulated execution, in
// simulated time, until every job has ended or the limit. The core runs as
// the central architecture of the multi-grid simulator (package sim, its
// "core" model): one event loop for both. Its errors are the input's: a
// composite job, a grid the core cannot run, jobs out of submission order.
// With opts.DB, the store's too; a simulation that fails after it started
// recording leaves in the store the run's opening and the jobs that had
// ended, with no end record (as a killed 'gmark submit' leaves its run).
func Simulate(g *grid.Grid, dir string, opts Options) (*Simulation, error) {
	f, err := workload.OpenJobs(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	name := f.Name()
	// The clock starts early enough for the background band (--warmup) and
	// the local workloads (the grid's local_warmup, which Begin applies).
	warmup := max(opts.Warmup, g.Scheduler.LocalWarmup.Duration)
	s := &Simulation{Grid: g, Dir: dir, First: Start.Add(warmup), Warmup: warmup, records: opts.Records}
	src := &jobStream{r: workload.NewReader(f, name), s: s, name: name}
	model := &sim.CoreModel{Origin: s.First, Options: core.Options{Priority: opts.Priority, Runner: opts.Runner},
		Refused: func(id string, err error) { s.Refused = append(s.Refused, fmt.Errorf("job %s: %v", id, err)) }}
	watch := &queueWatch{next: opts.Events}
	k, err := core.New(g, Start, teeSink{watch, model}, nil)
	if err != nil {
		return nil, err
	}
	model.Core, s.Core = k, k
	k.Forget(s.keep)
	top, err := sim.TopologyOf(g)
	if err != nil {
		return nil, err
	}
	cfg := sim.DefaultConfig("central")
	cfg.CentralModel, cfg.Core, cfg.Seed = sim.CentralCore, model, g.Scheduler.Seed
	cfg.CoolDown, cfg.CoolDownLimit = true, sim.MaxHorizon
	// The limit counts from the first job's origin; a run is never longer
	// than the simulator's horizon (a century).
	cfg.Horizon = min(max(opts.Limit, 1), sim.MaxHorizon)
	// The run's origin is the first job's time: the local workloads start
	// there less the grid's local_warmup (as a live core's do when its run
	// begins: core.Begin), start deadlines count from it, and the
	// measurement starts there; the background band runs from the clock's
	// start.
	if _, err := k.Begin(s.First, 0); err != nil {
		return nil, err
	}
	s.Deadline = s.First.Add(opts.Limit)
	if opts.DB != nil {
		if s.db, err = startStream(s, opts.DB); err != nil {
			return nil, err
		}
	}
	_, err = sim.Run(cfg, top, src)
	if err == nil {
		err = src.drain() // the jobs due after the limit
	}
	switch {
	case src.err != nil: // the workload's own: it names the file
		err = src.err
	case err != nil:
		err = fmt.Errorf("%s: %w", name, err)
	}
	if err == nil {
		s.MaxQueue = watch.max
		for _, j := range k.Jobs() { // those that had not ended
			s.keep(j)
		}
		sort.Slice(s.Jobs, func(a, b int) bool { return s.Jobs[a].seq < s.Jobs[b].seq })
		if s.db != nil {
			err = s.db.rest(s) // the jobs the core never had
		}
	}
	if err != nil {
		if s.db != nil {
			s.db.rec.Abort()
		}
		return nil, err
	}
	return s, nil
}

// jobStream is a simulation's source: the workload's jobs, read one at a
// time as the simulator asks for them, each kept as a Arrival. err is
// the workload's error (a line that is not a job, a composite job), which
// names the file and line.
type jobStream struct {
	r    *workload.Reader
	s    *Simulation
	name string // the jobs file
	err  error
}

// Next implements sim.Source.
func (st *jobStream) Next(j *workload.Job) (bool, error) {
	next, err := st.r.Next()
	if err == io.EOF {
		return false, nil
	}
	if err == nil && next.Kind == workload.Composite {
		err = fmt.Errorf("%s: job %s is composite; simulate takes unitary jobs", st.name, next.ID)
	}
	if err != nil {
		st.err = err
		return false, err
	}
	*j = next
	s := st.s
	s.arrived++
	s.lastAt = s.First.Add(next.Submit)
	if s.records {
		s.Arrivals = append(s.Arrivals, Arrival{ID: next.ID, At: s.lastAt})
	}
	if s.db != nil {
		s.db.arrived(&next, s.lastAt)
	}
	return true, nil
}

// drain reads the jobs the simulator did not ask for; a job due after
// the limit is recorded at once (Options.DB), never submitted.
func (st *jobStream) drain() error {
	var j workload.Job
	for {
		ok, err := st.Next(&j)
		if !ok {
			return err
		}
		if db := st.s.db; db != nil {
			if err := db.afterLimit(st.s, j.ID); err != nil {
				return err
			}
		}
	}
}

// teeSink sends each event to two sinks.
type teeSink [2]core.Sink

// Takes implements core.KindFilter: what either sink takes.
func (t teeSink) Takes(kind core.EventKind) bool {
	return core.Takes(t[0], kind) || core.Takes(t[1], kind)
}

func (t teeSink) Event(e *core.Event) {
	t[0].Event(e)
	t[1].Event(e)
}

// Summary is what a simulation reports.
type Summary struct {
	Jobs            int                     `json:"jobs"`
	Finished        int                     `json:"finished"`
	Failed          int                     `json:"failed"`
	Refused         int                     `json:"refused"`
	Ended           int                     `json:"ended"` // jobs that ended before the limit: MakespanS is 0 without one
	LastArrivalS    float64                 `json:"last_arrival_s"`
	MakespanS       float64                 `json:"makespan_s"`
	MeanWaitS       float64                 `json:"mean_wait_s"`
	MeanFTTS        float64                 `json:"mean_ftt_s"`
	MeanPlacementS  float64                 `json:"mean_placement_s"`
	MeanClaimTries  float64                 `json:"mean_claim_tries"`
	CoAllocatedJobs int                     `json:"coallocated_jobs"`
	MaxQueue        int                     `json:"max_queue"` // the longest placement queue after a scan
	Utilization     core.UtilizationSummary `json:"utilization"`
	FailureReasons  map[string]int          `json:"failure_reasons,omitempty"`
	// Deadlines are Ballier et al.'s figures (docs/deadlines.md), when the
	// workload has jobs with start deadlines or the grid local workloads.
	Deadlines *record.CoreDeadlines `json:"deadlines,omitempty"`
}

// Summary sums the simulation up: job counts, means over the jobs the core
// accepted, and the core's utilization.
func (s *Simulation) Summary() Summary {
	t := &s.tally
	sum := Summary{Jobs: s.arrived, Refused: len(s.Refused), MaxQueue: s.MaxQueue, FailureReasons: map[string]int{},
		Finished: t.finished, Failed: t.failed, Ended: t.ended, CoAllocatedJobs: t.coAllocated}
	for r, n := range t.reasons {
		sum.FailureReasons[r] = n
	}
	if t.started > 0 { // a job that never started has no wait
		sum.MeanWaitS = t.wait.Seconds() / float64(t.started)
	}
	if n := t.jobs; n > 0 {
		sum.MeanFTTS = t.ftt.Seconds() / float64(n)
		sum.MeanPlacementS = t.placement.Seconds() / float64(n)
		sum.MeanClaimTries = float64(t.claimTries) / float64(n)
	}
	if s.arrived > 0 {
		sum.LastArrivalS = s.lastAt.Sub(s.First).Seconds()
	}
	if sum.Ended > 0 {
		sum.MakespanS = t.end.Sub(s.First).Seconds()
	}
	sum.Utilization = s.Core.Utilization()
	if d := s.Core.Deadlines(); d.GlobalJobs > 0 || d.LocalJobs > 0 {
		sum.Deadlines = &d
	}
	return sum
}

// RunInfo says where a simulation is recorded.
type RunInfo struct {
	Project, Scenario, RunID string   // as for submitter.Config
	GridPath                 string   // the grid file, as given
	CommandLine              []string // default os.Args
	Inputs                   record.Inputs
	// Resume continues run RunID, which a killed simulation left without
	// an end record (Options.DB only): the simulation is made again
	// from the start, and the jobs the store already holds are not
	// written twice (record.ResumeRecording).
	Resume bool
}

// Record records the simulation in the results store as if it had been
// submitted (record.RecordRun): every job submitted at its arrival with
// no delay, its start and end those of the simulation, on the simulation's
// clock (which starts at Start), with the core's figures of each job in
// its events' payloads and the core's utilization as an annotation.
func (s *Simulation) Record(ctx context.Context, st *store.Store, rec RunInfo) (*record.Summary, error) {
	if !s.records {
		return nil, fmt.Errorf("the simulation kept no record of its jobs to store (Options.Records)")
	}
	run := s.finishedRun(rec)
	run.Jobs = s.finishedJobs()
	run.Annotations, run.EndNS, run.Elapsed = s.ending()
	return record.RecordRun(ctx, st, run)
}

// finishedRun is the run's record but its jobs and its ending.
func (s *Simulation) finishedRun(rec RunInfo) record.FinishedRun {
	cfg := map[string]any{"grid": rec.GridPath, "policy": s.Grid.Scheduler.Policy, "seed": s.Grid.Scheduler.Seed,
		"warmup": s.Warmup.String(), "simulated": true}
	return record.FinishedRun{WorkloadDir: s.Dir, Target: TargetName, TargetConfig: cfg,
		Settings: map[string]any{"simulated": true}, Project: rec.Project, Scenario: rec.Scenario, RunID: rec.RunID,
		CommandLine: rec.CommandLine, Inputs: rec.Inputs}
}

// ending is the run's annotations (the core's utilization, and deadline
// figures when there are some), its end and how long it lasted, when the
// simulation has stopped.
func (s *Simulation) ending() (as []store.Annotation, endNS int64, elapsed time.Duration) {
	end := s.Core.Now()
	u, _ := json.Marshal(s.Core.Utilization())
	as = []store.Annotation{{TimeNS: end.UnixNano(), Kind: record.AnnotationKoalaUtilization, Key: "summary", Value: string(u), Source: "koala simulate"}}
	if d := s.Summary().Deadlines; d != nil {
		// Ballier et al.'s figures, read back by the report (metrics.CoreDeadlines).
		v, _ := json.Marshal(d)
		as = append(as, store.Annotation{TimeNS: end.UnixNano(), Kind: record.AnnotationKoalaDeadlines, Key: "summary",
			Value: string(v), Source: "koala simulate"})
	}
	return as, end.UnixNano(), max(0, end.Sub(s.First))
}

// refusedReason is the reason of a job the core refused; afterLimitReason
// that of a job due after the simulation's limit.
const (
	refusedReason    = "refused by the scheduler"
	afterLimitReason = "due after the simulation's limit (--limit)"
)

// finishedJobs is what became of each job, as record.RecordRun takes it.
func (s *Simulation) finishedJobs() []record.FinishedJob {
	byName := map[string]*Job{}
	for i := range s.Jobs {
		byName[s.Jobs[i].Name] = &s.Jobs[i]
	}
	out := make([]record.FinishedJob, 0, len(s.Arrivals))
	for _, a := range s.Arrivals {
		out = append(out, s.finishedJob(a, byName[a.ID]))
	}
	return out
}

// finishedJob is what became of the job that arrived as a: j is the core's
// record of it, nil when the core never had it (refused, or due after the
// limit).
func (s *Simulation) finishedJob(a Arrival, j *Job) record.FinishedJob {
	sched := a.At.UnixNano()
	f := record.FinishedJob{JobID: a.ID, Outcome: record.Outcome{ScheduledNS: sched, Attempts: 1}}
	if j == nil && a.At.After(s.Deadline) {
		// Due after the limit: never submitted, as a live run's job
		// whose time had not come.
		f.State, f.Reason, f.Attempts = store.NeverStarted, afterLimitReason, 0
		return f
	}
	if j == nil {
		f.State, f.Reason, f.Error = store.Failed, refusedReason, refusedReason
		return f
	}
	// As the koala target records it: the core's acceptance is the
	// submission's time (here its arrival), and there is no separate
	// target_submit_ns.
	f.SubmitNS = sched
	f.Receipt = record.Receipt{TargetID: "koala:" + j.ID}
	f.StartNS = unixNS(j.Start)
	f.Sites = j.Sites
	f.State, f.Reason, f.EndNS = simState(j, s.Core.Now())
	f.Events = simEvents(a, j, f.Outcome)
	return f
}

// simState is the recorded state of a job the core accepted, why, and its
// end: a job still running when the simulation stopped is cancelled then.
func simState(j *Job, stopped time.Time) (state, reason string, endNS int64) {
	switch j.State {
	case core.Finished:
		return store.Succeeded, j.Reason, unixNS(j.End)
	case core.Failed:
		return store.Failed, j.Reason, unixNS(j.End)
	case core.Cancelled:
		return store.Cancelled, j.Reason, unixNS(j.End)
	}
	reason = "the simulation ended before the job did"
	if !j.Start.IsZero() {
		return store.Cancelled, reason, stopped.UnixNano()
	}
	return store.NeverStarted, reason, unixNS(j.End)
}

// simEvents are a job's submitted, started and final events, each with the
// core's figures of the job in its payload (read back by the report:
// store.ScanSimJobFacts), and where its emulated run time came from
// (runtime_source: job, model or default; "" if it never started).
func simEvents(a Arrival, j *Job, o record.Outcome) []store.Event {
	var evs []store.Event
	for _, ev := range []struct {
		kind string
		t    time.Time
	}{{record.EventSubmitted, a.At}, {record.EventStarted, j.Start}, {o.State, j.End}} {
		if ev.t.IsZero() || ev.kind == store.NeverStarted {
			continue
		}
		payload, _ := json.Marshal(map[string]any{"start_ns": o.StartNS, "end_ns": o.EndNS, "reason": o.Reason,
			"placement_tries": j.PlacementTries, "claim_tries": j.ClaimTries, "ftt_ns": int64(j.FTT),
			"placement_ns": int64(j.PlacementTime), "restarts": j.Restarts, "runtime_source": j.RunTimeSource})
		evs = append(evs, store.Event{TimeNS: ev.t.UnixNano(), Kind: ev.kind, Payload: string(payload)})
	}
	return evs
}

func unixNS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// WriteText prints the summary for the user, of a simulation on grid
// gridName with the placement policy.
func (s Summary) WriteText(w io.Writer, gridName, policy string) {
	u := s.Utilization
	fmt.Fprintf(w, "grid %s, policy %s: %d jobs, %d finished, %d failed, %d refused\n", gridName, policy, s.Jobs, s.Finished, s.Failed, s.Refused)
	if s.Ended > 0 {
		fmt.Fprintf(w, "  last arrival %.0fs, last end %.0fs after the first arrival; placement queue at most %d jobs\n", s.LastArrivalS, s.MakespanS, s.MaxQueue)
	} else {
		fmt.Fprintf(w, "  last arrival %.0fs; no job ended before the limit; placement queue at most %d jobs\n", s.LastArrivalS, s.MaxQueue)
	}
	fmt.Fprintf(w, "  mean wait %.1fs, placement time %.1fs, file transfer %.1fs, claiming tries %.2f; %d co-allocated jobs\n",
		s.MeanWaitS, s.MeanPlacementS, s.MeanFTTS, s.MeanClaimTries, s.CoAllocatedJobs)
	fmt.Fprintf(w, "  utilization: total %.1f%% = background %.1f%% + grid jobs %.1f%% + wasted (PWT) %.2f%%; gained (PGT) %.2f%%, free for local jobs, not in the total\n",
		100*u.Total, 100*u.Background, 100*u.Grid, 100*u.Wasted, 100*u.Gained)
	if d := s.Deadlines; d != nil {
		fmt.Fprintf(w, "  start deadlines: %d of %d global jobs started at their deadline (%.1f%%); wasted %.0f processor-s\n",
			d.GlobalStarted, d.GlobalJobs, 100*d.GlobalSuccess, d.WastedProcessorS)
		fmt.Fprintf(w, "  local jobs: %d, %d finished (mean response %.1fs), %d killed (%.2f%% of those that ended, %.0f processor-s lost); %d background jobs killed\n",
			d.LocalJobs, d.LocalFinished, d.LocalResponseS, d.LocalKilled, 100*d.LocalKillRate, d.LostProcessorS, d.KilledDummies)
	}
	reasons := make([]string, 0, len(s.FailureReasons))
	for r := range s.FailureReasons {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "  failed (%d): %s\n", s.FailureReasons[r], r)
	}
}
