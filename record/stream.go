package record

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

// RunRecording records a run made without the submitter job by job, as its
// jobs end: the records RecordRun writes, the same rows, but written
// through a Recorder (group commits of up to 2,048 records, from its own
// goroutine) as they are given, so that the caller keeps only the jobs in
// progress and memory does not grow with the run. Start it with
// StartRecording, give it each job with Add, end it with Finish.
//
// Unlike RecordRun, the run is not one transaction: the store holds the
// run's opening and the jobs recorded so far while it goes on, and a run
// that is never finished has no end record (as a submitter's that was
// killed). The rows are in the order the jobs were given, not the
// workload's.
type RunRecording struct {
	ctx    context.Context
	run    FinishedRun
	w      *Workload
	rec    *Recorder
	sum    *Summary
	delays Delays
	added  int // jobs given to Add
	last   uint64
	// recorded are the jobs a resumed recording found in the store (by
	// id): Add counts them and writes nothing (ResumeRecording).
	recorded map[string]bool
}

// maxQueued is how many records a RunRecording lets wait for the store
// before Add waits: the store writes slower than a simulation makes jobs,
// and an unbounded queue would hold the run.
const maxQueued = 4 * maxBatch

// StartRecording reads the workload of run (its digest and counts, once,
// streaming) and opens the run in st: its project, scenario, run row and
// first provenance record. run.Jobs and run.Annotations are not read
// (Add and Finish take them).
func StartRecording(ctx context.Context, st *store.Store, run FinishedRun) (*RunRecording, error) {
	w, err := ReadWorkload(run.WorkloadDir)
	if err != nil {
		return nil, err
	}
	w.Close() // its jobs come through Add
	if w.Tasks > 0 || w.Units != w.Count {
		return nil, fmt.Errorf("%s holds composite jobs: only unitary jobs can be recorded this way", w.Path)
	}
	open, err := run.opening(w)
	if err != nil {
		return nil, err
	}
	if ok, err := st.RunExists(run.RunID); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("run %s: %w", run.RunID, ErrRunExists)
	}
	if err := st.Write(ctx, open.Insert); err != nil {
		return nil, err
	}
	return newRunRecording(ctx, st, run, w), nil
}

// ErrRunExists is StartRecording's error for a run id already in the store.
var ErrRunExists = errors.New("a run of this id is already in the store (--resume continues one a killed process left unfinished)")

// ErrUnknownRun, ErrRunEnded and ErrRunMismatch are the errors of a run
// that cannot be continued (ResumeRecording, the submitter's --resume);
// they are usage errors.
var (
	ErrUnknownRun  = errors.New("no such run")
	ErrRunEnded    = errors.New("the run has already ended")
	ErrRunMismatch = errors.New("the run was made with another workload or target")
)

func newRunRecording(ctx context.Context, st *store.Store, run FinishedRun, w *Workload) *RunRecording {
	return &RunRecording{ctx: ctx, run: run, w: w, rec: NewRecorder(st),
		sum: &Summary{RunID: run.RunID, Jobs: map[string]int{}, Tasks: map[string]int{}}}
}

// ResumeRecording continues the recording of run.RunID, which a process
// killed before Finish left without an end record. The caller gives every
// job of the workload again, with the same outcomes (a deterministic
// simulation remakes them): Add writes the jobs the store does not hold
// yet and counts the others, so the finished run has the rows an
// uninterrupted recording would have. Each job's records were written in
// one transaction, so a job is in the store whole or not at all.
//
// The run must have been opened from the same workload, target, target
// configuration, scheduler parameters and input files (its first
// provenance record); the resumption adds a provenance record of its own
// and a run-resume event. It holds the ids of the recorded jobs until they
// are given again (about 100 bytes a job).
func ResumeRecording(ctx context.Context, st *store.Store, run FinishedRun) (*RunRecording, error) {
	if run.RunID == "" {
		return nil, fmt.Errorf("%w: no run id", ErrUnknownRun)
	}
	w, err := ReadWorkload(run.WorkloadDir)
	if err != nil {
		return nil, err
	}
	w.Close()
	open, err := run.opening(w)
	if err != nil {
		return nil, err
	}
	provs, err := resumableRecording(st, open)
	if err != nil {
		return nil, err
	}
	recorded := map[string]bool{}
	if err := st.ScanFinalTops(run.RunID, func(id string) error { recorded[id] = true; return nil }); err != nil {
		return nil, err
	}
	openRecs, err := st.OpenRecords(run.RunID) // jobs recorded without a row: left running
	if err != nil {
		return nil, err
	}
	for _, x := range openRecs.Submissions {
		recorded[x.JobID] = true
	}
	prov := open.prov
	prov.Seq = provs
	resumed := store.Event{RunID: run.RunID, TimeNS: time.Now().UnixNano(), Kind: EventRunResume,
		Payload: fmt.Sprintf(`{"provenance_seq":%d,"recorded_jobs":%d}`, provs, len(recorded))}
	if err := st.Write(ctx, func(tx *store.Tx) error {
		if err := tx.InsertProvenance(prov); err != nil {
			return err
		}
		return tx.InsertEvent(resumed)
	}); err != nil {
		return nil, err
	}
	r := newRunRecording(ctx, st, run, w)
	r.recorded = recorded
	return r, nil
}

// resumableRecording checks that the run open would make can continue the
// run of its id in st, and returns how many provenance records it has.
func resumableRecording(st *store.Store, open *Opening) (int, error) {
	id := open.run.ID
	run, err := st.Run(id)
	if errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("%w: %s", ErrUnknownRun, id)
	} else if err != nil {
		return 0, err
	}
	if _, ended, err := st.RunEnd(id); err != nil {
		return 0, err
	} else if ended {
		return 0, fmt.Errorf("%w: %s", ErrRunEnded, id)
	}
	provs, err := st.Provenance(id)
	if err != nil {
		return 0, err
	}
	if len(provs) == 0 {
		return 0, fmt.Errorf("run %s has no provenance record", id)
	}
	was, now := provs[0], open.prov
	for _, c := range []struct{ what, was, now string }{
		{"workload.jsonl SHA-256", run.WorkloadSHA256, open.run.WorkloadSHA256},
		{"target", run.Target, open.run.Target},
		{"settings", run.Settings, open.run.Settings},
		{"target configuration", was.TargetConfig, now.TargetConfig},
		{"scheduler parameters", was.Scheduler, now.Scheduler},
		{"input files", inputDigests(was.Inputs), inputDigests(now.Inputs)},
	} {
		if c.was != c.now {
			return 0, fmt.Errorf("%w: run %s was made with %s %s, not %s", ErrRunMismatch, id, c.what, c.was, c.now)
		}
	}
	return len(provs), nil
}

// inputDigests names the input files by role and content, not by path (a
// resumption may name them from another directory).
func inputDigests(in []store.Input) string {
	var b strings.Builder
	for _, x := range in {
		fmt.Fprintf(&b, "%s:%s ", x.Role, x.SHA256)
	}
	return strings.TrimSpace(b.String())
}

// RunID is the id of the run being recorded.
func (r *RunRecording) RunID() string { return r.run.RunID }

// Add queues the records of job j of the workload (unitary) and what
// became of it, as RecordRun writes them. It waits only when the store is
// behind by more than maxQueued records; its error is the store's, or the
// job's.
func (r *RunRecording) Add(j *workload.Job, f FinishedJob) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	if j.Kind == workload.Composite {
		return fmt.Errorf("job %s is composite: only unitary jobs can be recorded this way", j.ID)
	}
	if f.JobID != j.ID {
		return fmt.Errorf("the outcome of job %s given for job %s", f.JobID, j.ID)
	}
	r.added++
	if r.recorded[j.ID] {
		delete(r.recorded, j.ID)
		r.last = r.rec.Add(func(*store.Tx) error { countFinishedJob(&f, r.sum, &r.delays); return nil })
		return r.rec.Err()
	}
	job := *j
	runID := r.run.RunID
	r.last = r.rec.Add(func(tx *store.Tx) error { return recordFinishedJob(tx, runID, &job, &f, r.sum, &r.delays) })
	if r.last > maxQueued {
		return r.rec.Wait(r.last - maxQueued)
	}
	return r.rec.Err()
}

// Finish records the annotations and the run's end (at endNS, after
// elapsed by the run's clock), waits for every record to be committed,
// and returns the run's summary as recorded. Every job of the workload
// must have been given to Add; when not, the run gets no end record.
func (r *RunRecording) Finish(annotations []store.Annotation, endNS int64, elapsed time.Duration) (*Summary, error) {
	if r.added != r.w.Count {
		err := fmt.Errorf("%d of the workload's %d jobs were recorded", r.added, r.w.Count)
		r.rec.Close()
		return nil, err
	}
	runID, total, sum := r.run.RunID, r.w.Count, r.sum
	sum.Elapsed = elapsed
	r.rec.Add(func(tx *store.Tx) error {
		for _, a := range annotations {
			a.RunID = runID
			if err := tx.InsertAnnotation(a); err != nil {
				return err
			}
		}
		final := 0
		for _, n := range sum.Jobs {
			final += n
		}
		sum.Status = EndStatus(final, total)
		sum.Delay = r.delays.Stats()
		return tx.InsertRunEnd(RunEndRow(runID, endNS, sum.Status, SummaryRecord(sum, 0, elapsed)))
	})
	if err := r.rec.Close(); err != nil {
		return nil, err
	}
	return sum, nil
}

// Abort stops the recording without an end record, after the records
// queued so far are written.
func (r *RunRecording) Abort() error { return r.rec.Close() }
