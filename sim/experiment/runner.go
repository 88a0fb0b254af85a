package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/filelock"
	"github.com/gmark/gmark/internal/version"
	"github.com/gmark/gmark/sim"
)

// RunOptions say how an experiment is executed.
type RunOptions struct {
	DB          string   // the results store
	Parallel    int      // runs at once (default GOMAXPROCS)
	CommandLine []string // recorded in the invocation's provenance
	// Jobs records each run's per-job schedule with its result
	// (store.SimJob), and adds it to the runs recorded before without
	// one: they are run again, and their jobs recorded only when the run
	// gives the result recorded before.
	Jobs bool
	// Started is called once the runs to do are known; Done after each
	// run that ended (ok or not). Both may be nil.
	Started func(planned, done, todo int)
	Done    func(r *Run, err error)
}

// Summary is what an execution did.
type Summary struct {
	ExperimentID int64
	Digest       string
	Planned      int // runs of the experiment
	AlreadyDone  int // found in the store with a result
	Ran          int // run and recorded now
	JobsAdded    int // runs recorded before whose per-job rows were added now (RunOptions.Jobs)
	Failed       int
	Interrupted  bool
}

// RanText says how many runs ran ("ran N runs"), and with jobs (the
// --jobs of gmark sim run) how many recorded ones were run again for their
// per-job rows; without, it reads as before the per-job rows existed.
func (s Summary) RanText(jobs bool) string {
	if !jobs {
		return fmt.Sprintf("ran %d runs", s.Ran)
	}
	return fmt.Sprintf("ran %d runs (%d again for their jobs)", s.Ran, s.JobsAdded)
}

// ErrBusy is returned when another process executes an experiment on the
// same store.
var ErrBusy = errors.New("another gmark sim run is working on this results store")

// lockSuffix names the lock of the store's experiments, beside the store's
// real path: one process at a time runs experiments on a store, whatever
// name it is given (filelock.ForFile; the kernel's lock: a process killed
// with kill -9 holds it no longer).
const lockSuffix = ".sim.lock"

// Execute runs the runs of the experiment that the store has no result
// for, Parallel at a time, and records each as it ends: a run is recorded
// whole (one transaction) or not at all, so an execution killed at any
// point loses only the runs in progress, and the next one does them again
// from the start. When ctx is cancelled the runs in progress stop, nothing
// of them is recorded, and Summary.Interrupted is set.
func Execute(ctx context.Context, e *Experiment, o RunOptions) (*Summary, error) {
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
	defer collectLessOften()()
	s, err := Open(ctx, e, o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	x := &execution{Session: s, inFlight: map[string]bool{}}
	if err := x.run(); err != nil {
		return x.sum, err
	}
	return x.sum, nil
}

// Session is an execution's hold on its store: the store's lock, the
// experiment and this invocation recorded. Execute runs the runs in this
// process; package sim/slurmarray has them run elsewhere and records their
// results through it.
type Session struct {
	e      *Experiment
	st     *store.Store
	o      RunOptions
	ctx    context.Context
	sum    *Summary
	inv    int64
	unlock func()
}

// Open takes the store's lock (ErrBusy when another process holds it),
// opens the store and records the experiment (when this definition is
// new: its scenarios and planned runs) and this invocation's provenance.
func Open(ctx context.Context, e *Experiment, o RunOptions) (*Session, error) {
	if err := os.MkdirAll(filepath.Dir(o.DB), 0o755); err != nil {
		return nil, err
	}
	release, err := filelock.ForFile(o.DB, lockSuffix)
	var busy *filelock.BusyError
	if errors.As(err, &busy) {
		pid := busy.Pid
		if pid == "" {
			pid = "unknown"
		}
		return nil, fmt.Errorf("%w (pid %s holds %s): wait for it to end, or give another --db; the runs it finishes are kept", ErrBusy, pid, busy.Path)
	}
	if err != nil {
		return nil, err
	}
	st, err := store.Open(o.DB)
	if err != nil {
		release()
		return nil, err
	}
	s := &Session{e: e, st: st, o: o, ctx: ctx, sum: &Summary{Planned: e.NumRuns()}, unlock: release}
	if err := s.record(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the store and releases its lock.
func (s *Session) Close() {
	s.st.Close()
	s.unlock()
}

// Store is the session's results store.
func (s *Session) Store() *store.Store { return s.st }

// Invocation is the id of this invocation's record.
func (s *Session) Invocation() int64 { return s.inv }

// Summary is what the session has done so far; its owner fills it in.
func (s *Session) Summary() *Summary { return s.sum }

// execution is one Execute at work.
type execution struct {
	*Session

	mu       sync.Mutex
	inFlight map[string]bool // digests being run (two runs of one definition are run once)
}

// record writes the experiment (when new: its scenarios and planned runs)
// and this invocation's provenance.
func (x *Session) record() error {
	def, digest, err := x.e.Definition()
	if err != nil {
		return err
	}
	x.sum.Digest = digest
	now := time.Now().UnixNano()
	scenarios := make([]store.SimScenario, len(x.e.Scenarios))
	for i, s := range x.e.Scenarios {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		scenarios[i] = store.SimScenario{Index: i, Name: s.Name, Definition: string(b)}
	}
	inv, err := x.invocation(now)
	if err != nil {
		return err
	}
	var runErr error
	err = x.st.Write(x.ctx, func(tx *store.Tx) error {
		id, _, err := tx.EnsureSimExperiment(store.SimExperiment{Name: x.e.Name, Digest: digest, CreatedNS: now, Definition: string(def)},
			scenarios, x.sum.Planned, func(i int) store.SimRun {
				r, err := x.e.Run(i)
				if err != nil {
					runErr = err
					return store.SimRun{}
				}
				return store.SimRun{Index: i, ScenarioID: int64(r.Scenario.Index), Arch: r.Arch, Load: r.Load, Rep: r.Rep,
					Seed: r.Seed, Digest: r.Digest, Definition: string(r.Definition)}
			})
		if err != nil {
			return err
		}
		if runErr != nil {
			return runErr
		}
		x.sum.ExperimentID = id
		inv.ExperimentID = id
		x.inv, err = tx.InsertSimInvocation(inv)
		return err
	})
	return err
}

// invocation is this process's provenance.
func (x *Session) invocation(now int64) (store.SimInvocation, error) {
	return NewInvocation(x.e, x.o.CommandLine, x.o.Parallel, now)
}

// NewInvocation is the provenance of this process working on e: who ran
// what, where, with which build, from which files (their contents, but
// for traces, which are kept by digest only).
func NewInvocation(e *Experiment, commandLine []string, parallel int, now int64) (store.SimInvocation, error) {
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	uname := ""
	if u, err := user.Current(); err == nil {
		uname = u.Username
	}
	cl, err := json.Marshal(commandLine)
	if err != nil {
		return store.SimInvocation{}, err
	}
	b := version.Get()
	inv := store.SimInvocation{StartedNS: now, GmarkVersion: b.Version, GmarkRevision: b.Revision, GmarkModified: b.Modified,
		GoVersion: runtime.Version(), Host: host, OSArch: runtime.GOOS + "/" + runtime.GOARCH, User: uname,
		CommandLine: string(cl), WorkingDir: wd, Parallel: parallel, Contents: map[string][]byte{}}
	add := func(role, path string, content []byte, sum string, size int64) {
		inv.Inputs = append(inv.Inputs, store.Input{Role: role, Path: path, SHA256: sum, Size: size, Stored: content != nil})
		if content != nil {
			inv.Contents[sum] = content
		}
	}
	add("experiment", e.Path, e.Source, sha256Hex(e.Source), int64(len(e.Source)))
	if e.TopologyPath != "" {
		if b, err := os.ReadFile(e.TopologyPath); err == nil {
			add("topology", e.TopologyPath, b, sha256Hex(b), int64(len(b)))
		}
	}
	traces := map[string]bool{}
	for _, s := range e.Scenarios {
		w := s.Workload
		if w.Kind == KindTrace && !traces[w.TracePath] {
			traces[w.TracePath] = true
			size := int64(0)
			if fi, err := os.Stat(w.TracePath); err == nil {
				size = fi.Size()
			}
			add("trace", w.TracePath, nil, w.TraceSHA256, size)
		}
		if w.Kind == KindWDL && !traces[w.SpecPath] {
			traces[w.SpecPath] = true
			if b, err := os.ReadFile(w.SpecPath); err == nil {
				add("workload-spec", w.SpecPath, b, w.SpecSHA256, int64(len(b)))
			}
		}
	}
	return inv, nil
}

// run dispatches the runs without a result to Parallel workers.
func (x *execution) run() error {
	todo := make(chan *Run)
	var wg sync.WaitGroup
	var failMu sync.Mutex
	var firstErr error
	for w := 0; w < x.o.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range todo {
				err := x.one(r)
				failMu.Lock()
				switch {
				case errors.Is(err, errDuplicate):
					x.sum.AlreadyDone++
					err = nil
				case errors.Is(err, errJobsAdded):
					x.sum.JobsAdded++
					err = nil
				case err == nil:
					x.sum.Ran++
				case x.ctx.Err() != nil:
					x.sum.Interrupted = true
				default:
					x.sum.Failed++
					if firstErr == nil {
						firstErr = err
					}
				}
				failMu.Unlock()
				if x.o.Done != nil && x.ctx.Err() == nil {
					x.o.Done(r, err)
				}
			}
		}()
	}
	err := x.dispatch(todo)
	close(todo)
	wg.Wait()
	if err != nil {
		return err
	}
	if x.ctx.Err() != nil {
		x.sum.Interrupted = true
		return nil
	}
	if x.sum.Failed > 0 {
		return fmt.Errorf("%d of %d runs failed (the first: %v); the others are recorded: run the same command again to retry the failed ones", x.sum.Failed, x.sum.Failed+x.sum.Ran, firstErr)
	}
	return nil
}

// Pending calls fn with every run of the experiment without a result, in
// order, until it returns false.
func (x *Session) Pending(fn func(r *Run) bool) error {
	const batch = 256
	for i := 0; i < x.sum.Planned; i += batch {
		var digests []string
		var runs []*Run
		for j := i; j < min(i+batch, x.sum.Planned); j++ {
			r, err := x.e.Run(j)
			if err != nil {
				return err
			}
			runs = append(runs, r)
			digests = append(digests, r.Digest)
		}
		done, err := x.st.SimDone(digests)
		if err != nil {
			return err
		}
		if err := x.withoutJobs(digests, done); err != nil {
			return err
		}
		for _, r := range runs {
			if !done[r.Digest] && !fn(r) {
				return nil
			}
		}
	}
	return nil
}

// dispatch sends every run without a result, in order, after counting
// them.
func (x *execution) dispatch(todo chan<- *Run) error {
	n := 0
	if err := x.Pending(func(*Run) bool { n++; return true }); err != nil {
		return err
	}
	x.sum.AlreadyDone = x.sum.Planned - n
	if x.o.Started != nil {
		x.o.Started(x.sum.Planned, x.sum.AlreadyDone, n)
	}
	return x.Pending(func(r *Run) bool {
		select {
		case todo <- r:
			return true
		case <-x.ctx.Done():
			return false
		}
	})
}

// errDuplicate: another worker runs, or ran, the same definition.
var errDuplicate = errors.New("run by another worker")

// one runs one run and records it: its attempt first, its result when it
// ends. A run whose definition another worker is running, or has run, is
// left to it.
func (x *execution) one(r *Run) error {
	x.mu.Lock()
	if x.inFlight[r.Digest] {
		x.mu.Unlock()
		return errDuplicate
	}
	x.inFlight[r.Digest] = true
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		delete(x.inFlight, r.Digest)
		x.mu.Unlock()
	}()
	// Planned twice, the run may have ended since it was dispatched.
	done := map[string]bool{}
	var err error
	if done, err = x.st.SimDone([]string{r.Digest}); err != nil {
		return err
	}
	if err := x.withoutJobs([]string{r.Digest}, done); err != nil {
		return err
	}
	if done[r.Digest] {
		return errDuplicate
	}
	if x.o.Jobs {
		if _, recorded, err := x.st.SimResultOf(r.Digest); err != nil {
			return err
		} else if recorded {
			return x.addJobs(r)
		}
	}
	start := time.Now()
	if err := x.st.Write(x.ctx, func(tx *store.Tx) error {
		return tx.InsertSimAttempt(r.Digest, x.inv, start.UnixNano())
	}); err != nil {
		return err
	}
	row, jobs, err := compute(x.ctx, x.e, r, x.o.Jobs)
	if err != nil {
		return err
	}
	defer jobs.close()
	row.InvocationID = x.inv
	return x.st.Write(x.ctx, func(tx *store.Tx) error {
		if err := tx.InsertSimResult(row); err != nil {
			return err
		}
		return jobs.insert(tx, r.Digest)
	})
}

// errJobsAdded: a run recorded before got its per-job rows.
var errJobsAdded = errors.New("per-job rows added")

// withoutJobs marks as not done the runs done without their per-job rows,
// when they are asked for.
func (x *Session) withoutJobs(digests []string, done map[string]bool) error {
	if !x.o.Jobs {
		return nil
	}
	has, err := x.st.HasSimJobs(digests)
	if err != nil {
		return err
	}
	for _, d := range digests {
		if done[d] && !has[d] {
			done[d] = false
		}
	}
	return nil
}

// addJobs runs again a run recorded without its per-job rows and records
// them, if the run gives the result recorded (it is deterministic: a
// difference is a bug, or another build's result, and nothing is written).
func (x *execution) addJobs(r *Run) error {
	old, _, err := x.st.SimResultOf(r.Digest)
	if err != nil {
		return err
	}
	row, jobs, err := compute(x.ctx, x.e, r, true)
	if err != nil {
		return err
	}
	defer jobs.close()
	if d := sameResult(old, row); d != "" {
		return fmt.Errorf("%s: run again for its per-job rows, it gives another result than the one recorded (%s): nothing written", r, d)
	}
	if err := x.st.Write(x.ctx, func(tx *store.Tx) error { return jobs.insert(tx, r.Digest) }); err != nil {
		return err
	}
	return errJobsAdded
}

// sameResult names the first figure in which two results of one run
// differ ("": none); the clock's figures and the invocation are not
// compared.
func sameResult(a, b store.SimResult) string {
	switch {
	case a.Jobs != b.Jobs || a.Finished != b.Finished || a.Events != b.Events:
		return fmt.Sprintf("jobs %d/%d, finished %d/%d, events %d/%d", a.Jobs, b.Jobs, a.Finished, b.Finished, a.Events, b.Events)
	case a.Result != b.Result:
		return "the simulator's result"
	case a.Workload != b.Workload:
		return "the workload's summary"
	}
	return ""
}

// Compute runs r, a run of e, and returns its result as the store records
// it, without its invocation: the same run gives the same metrics, in this
// process or any other (finished_ns and wall_ns are the clock's).
func Compute(ctx context.Context, e *Experiment, r *Run) (store.SimResult, error) {
	row, _, err := compute(ctx, e, r, false)
	return row, err
}

// compute is Compute, with the run's per-job rows when jobs is set (nil
// otherwise; closing nil is a no-op).
func compute(ctx context.Context, e *Experiment, r *Run, jobs bool) (store.SimResult, *jobRecorder, error) {
	start := time.Now()
	top := e.top
	var rec *jobRecorder
	var obs sim.Observer
	if jobs {
		var err error
		if rec, err = newJobRecorder(top); err != nil {
			return store.SimResult{}, nil, err
		}
		obs = rec
	}
	fail := func(err error) (store.SimResult, *jobRecorder, error) {
		rec.close()
		return store.SimResult{}, nil, err
	}
	src, err := r.source(ctx, top)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", r, err))
	}
	res, ser, err := sim.RunWithSeries(r.Config, top, src, obs)
	src.Close()
	if err != nil {
		return fail(fmt.Errorf("%s: %w", r, err))
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if rec != nil {
		if err := rec.stop(); err != nil {
			return fail(fmt.Errorf("%s: %w", r, err))
		}
	}
	wl := src.acc.summary(gridTargets(top, r.Workload.ClusterLoads))
	row := resultRow(r, res, wl, 0, start)
	row.Series = storedSeries(ser)
	return row, rec, nil
}

func resultRow(r *Run, res *sim.Result, wl WorkloadSummary, inv int64, start time.Time) store.SimResult {
	rb, _ := json.Marshal(res) // numbers and strings: cannot fail
	wb, _ := json.Marshal(wl)
	row := store.SimResult{Digest: r.Digest, InvocationID: inv, FinishedNS: time.Now().UnixNano(), WallNS: int64(time.Since(start)),
		Jobs: res.Jobs, Finished: res.Finished, Utilization: res.Utilization, AWT: res.AWT, ART: res.ART, ASD: res.ASD, ASDTau: res.SlowdownTau,
		Goodput: res.Goodput, JF: res.JF, DelegationsPerJob: res.DelegationsPerJob, Events: res.Events, Workload: string(wb), Result: string(rb)}
	for i, name := range sim.MsgTypeNames() {
		row.Messages = append(row.Messages, store.SimMessage{Type: name, Count: res.Messages[i]})
	}
	return row
}

// collectLessOften lets the heap grow to five times what is live before
// a collection (GOGC=400) while runs run, unless GOGC is set, and returns
// what puts the setting back: a run's live heap is small (the jobs in the
// system), so the collector ran often (the LCG trace through the core:
// 0.86 of the CPU time, 85 MB at peak instead of 51). gmark koala simulate
// and gmark submit do the same.
func collectLessOften() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}

// String names a run for messages.
func (r *Run) String() string {
	return fmt.Sprintf("run %d (scenario %s, %s, load %g%%, repetition %d)", r.Index+1, r.Scenario.Name, r.Arch, r.Load, r.Rep)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
