package record

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

// FinishedRun is a run made without the submitter, to record with RecordRun:
// the bundled core's simulation of a workload (koala simulate --db), or a
// run imported from elsewhere. It is recorded with the same records as a
// run the submitter makes, built by the same functions (JobRow, Key, the run's
// opening records, its end status and summary), so a report or a query
// cannot tell them apart by their shape.
type FinishedRun struct {
	WorkloadDir  string
	Target       string // the target's name, as recorded (runs.target)
	TargetConfig any    // the target's configuration, recorded in the provenance
	Settings     any    // the run's settings (runs.settings)

	Project     string   // default "default"
	Scenario    string   // default: the workload directory's name
	RunID       string   // default NewRunID()
	CommandLine []string // recorded in the provenance, its secrets redacted; default os.Args
	Inputs      Inputs   // recorded in the provenance: the input files, the scheduler's parameters

	// Jobs is what became of each job of the workload: one per top-level
	// job, each unitary and submitted once.
	Jobs []FinishedJob
	// Annotations are about the run (their RunID is set).
	Annotations []store.Annotation
	// EndNS is when the run ended, and Elapsed how long it took, by the
	// run's own clock.
	EndNS   int64
	Elapsed time.Duration
}

// FinishedJob is one job of a FinishedRun and its single submission.
type FinishedJob struct {
	JobID string
	// Outcome makes the job's row (Attempts is 1 when left 0).
	Outcome
	// IntentNS and DoneNS are when the submission's intent and result were
	// recorded; 0 means at Outcome.ScheduledNS.
	IntentNS, DoneNS int64
	Tries            int    // submit calls made; 0 means 1
	Error            string // why the submission failed; "" when the target accepted the job
	// Events are the job's events, in order (their RunID, JobID and
	// Attempt are set).
	Events []store.Event
}

// RecordRun records a finished run in st, in one transaction: its opening
// records, each job's submission (intent and result), events and row, the
// annotations, and the run's end. The run is completed when every job has
// a final state, aborted otherwise (a job without one gets no row). It
// returns the run's summary as recorded.
func RecordRun(ctx context.Context, st *store.Store, run FinishedRun) (*Summary, error) {
	w, err := readWorkloadJobs(run.WorkloadDir)
	if err != nil {
		return nil, err
	}
	jobs, err := finishedInOrder(w, run.Jobs)
	if err != nil {
		return nil, err
	}
	open, err := run.opening(w)
	if err != nil {
		return nil, err
	}
	sum := &Summary{RunID: run.RunID, Jobs: map[string]int{}, Tasks: map[string]int{}, Elapsed: run.Elapsed}
	var delays Delays
	err = st.Write(ctx, func(tx *store.Tx) error {
		if err := open.Insert(tx); err != nil {
			return err
		}
		for i := range jobs {
			if err := recordFinishedJob(tx, run.RunID, &w.jobs[i], jobs[i], sum, &delays); err != nil {
				return err
			}
		}
		for _, a := range run.Annotations {
			a.RunID = run.RunID
			if err := tx.InsertAnnotation(a); err != nil {
				return err
			}
		}
		final := 0
		for _, n := range sum.Jobs {
			final += n
		}
		sum.Status = EndStatus(final, len(w.jobs))
		sum.Delay = delays.Stats()
		return tx.InsertRunEnd(RunEndRow(run.RunID, run.EndNS, sum.Status, SummaryRecord(sum, 0, run.Elapsed)))
	})
	if err != nil {
		return nil, err
	}
	return sum, nil
}

// finishedInOrder orders jobs as the workload w has them, and checks that
// there is one for each of its jobs, each unitary.
func finishedInOrder(w *Workload, jobs []FinishedJob) ([]*FinishedJob, error) {
	index := make(map[string]int, len(w.jobs))
	for i := range w.jobs {
		index[w.jobs[i].ID] = i
	}
	out := make([]*FinishedJob, len(w.jobs))
	for k := range jobs {
		f := &jobs[k]
		i, ok := index[f.JobID]
		switch {
		case !ok:
			return nil, fmt.Errorf("job %s is not in the workload", f.JobID)
		case out[i] != nil:
			return nil, fmt.Errorf("job %s is given twice", f.JobID)
		case w.jobs[i].Kind == workload.Composite:
			return nil, fmt.Errorf("job %s is composite: only unitary jobs can be recorded this way", f.JobID)
		}
		out[i] = f
	}
	for i, f := range out {
		if f == nil {
			return nil, fmt.Errorf("job %s has no outcome", w.jobs[i].ID)
		}
	}
	return out, nil
}

// recordFinishedJob writes the records of one job of a finished run: its
// submission's intent and result, its events and its row, and counts it in
// the summary (countFinishedJob).
func recordFinishedJob(tx *store.Tx, runID string, j *workload.Job, f *FinishedJob, sum *Summary, delays *Delays) error {
	countFinishedJob(f, sum, delays)
	o := f.Outcome
	if neverSubmitted(&o) {
		// Never submitted (a simulated job due after the limit): no intent
		// and no result, as a live run records a job whose time never came.
		return tx.InsertJob(JobRow(runID, j, "", o))
	}
	if o.Attempts == 0 {
		o.Attempts = 1
	}
	intentNS, doneNS, tries := f.IntentNS, f.DoneNS, f.Tries
	if intentNS == 0 {
		intentNS = o.ScheduledNS
	}
	if doneNS == 0 {
		doneNS = o.ScheduledNS
	}
	if tries == 0 {
		tries = 1
	}
	if err := tx.InsertSubmission(IntentRow(runID, j, "", 1, o.ScheduledNS, intentNS)); err != nil {
		return err
	}
	ok := f.Error == ""
	res := store.Result{Key: Key(runID, j.ID, 1), RunID: runID, OK: ok, DoneNS: doneNS, Tries: tries, Error: f.Error,
		TargetID: o.Receipt.TargetID, Output: o.Receipt.Output, ExitStatus: o.Receipt.ExitStatus}
	if ok {
		res.SubmitNS, res.DelayNS = o.SubmitNS, o.DelayNS
	}
	if err := tx.InsertResult(res); err != nil {
		return err
	}
	for _, e := range f.Events {
		e.RunID, e.JobID, e.Attempt = runID, j.ID, 1
		if err := tx.InsertEvent(e); err != nil {
			return err
		}
	}
	if !hasRow(&o) {
		return nil // not final: no row
	}
	return tx.InsertJob(JobRow(runID, j, "", o))
}

// countFinishedJob counts one job of a finished run in the summary, as
// recordFinishedJob records it: a resumed recording counts the jobs the
// store already holds this way (ResumeRecording).
func countFinishedJob(f *FinishedJob, sum *Summary, delays *Delays) {
	o := &f.Outcome
	if neverSubmitted(o) {
		sum.Jobs[o.State]++
		return
	}
	if f.Error == "" {
		sum.Submitted++
		delays.Add(time.Duration(o.DelayNS))
	} else {
		sum.SubmitFailed++
	}
	if hasRow(o) {
		sum.Jobs[o.State]++
	}
}

// neverSubmitted is an outcome recorded without a submission (a simulated
// job due after the limit); hasRow one that gets a job row (final, or
// never started).
func neverSubmitted(o *Outcome) bool { return o.State == store.NeverStarted && o.Attempts == 0 }
func hasRow(o *Outcome) bool         { return State(o.State).Final() || o.State == store.NeverStarted }

// opening gives run an id and a command line where it has none, and makes
// its opening records (project, scenario, run row, provenance) for the
// workload w.
func (run *FinishedRun) opening(w *Workload) (*Opening, error) {
	if run.RunID == "" {
		run.RunID = NewRunID()
	}
	if run.CommandLine == nil {
		run.CommandLine = os.Args
	}
	return NewOpening(run.Project, run.Scenario, Source{RunID: run.RunID, Workload: w, Dir: run.WorkloadDir,
		Target: run.Target, TargetConfig: run.TargetConfig, Settings: run.Settings, CommandLine: run.CommandLine, Inputs: run.Inputs})
}
