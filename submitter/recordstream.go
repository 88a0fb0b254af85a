package submitter

import (
	"context"
	"fmt"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

// RunRecording records a run made without the Runner job by job, as its
// jobs end: the records RecordRun writes, the same rows, but written
// through a Recorder (group commits of up to 2,048 records, from its own
// goroutine) as they are given, so that the caller keeps only the jobs in
// progress and memory does not grow with the run. Start it with
// StartRecording, give it each job with Add, end it with Finish.
//
// Unlike RecordRun, the run is not one transaction: the store holds the
// run's opening and the jobs recorded so far while it goes on, and a run
// that is never finished has no end record (as a Runner's that was
// killed). The rows are in the order the jobs were given, not the
// workload's.
type RunRecording struct {
	ctx    context.Context
	run    FinishedRun
	w      *workloadInfo
	rec    *Recorder
	sum    *Summary
	delays Delays
	added  int // jobs given to Add
	last   uint64
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
	w, err := readWorkload(run.WorkloadDir)
	if err != nil {
		return nil, err
	}
	w.close() // its jobs come through Add
	if w.tasks > 0 || w.units != w.count {
		return nil, fmt.Errorf("%s holds composite jobs: only unitary jobs can be recorded this way", w.path)
	}
	open, err := run.opening(w)
	if err != nil {
		return nil, err
	}
	if err := st.Write(ctx, open.insert); err != nil {
		return nil, err
	}
	return &RunRecording{ctx: ctx, run: run, w: w, rec: NewRecorder(st),
		sum: &Summary{RunID: run.RunID, Jobs: map[string]int{}, Tasks: map[string]int{}}}, nil
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
	if r.added != r.w.count {
		err := fmt.Errorf("%d of the workload's %d jobs were recorded", r.added, r.w.count)
		r.rec.Close()
		return nil, err
	}
	runID, total, sum := r.run.RunID, r.w.count, r.sum
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
		sum.Status = endStatus(final, total)
		sum.Delay = r.delays.Stats()
		return tx.InsertRunEnd(runEndRecord(runID, endNS, sum.Status, summaryRecord(sum, 0, elapsed)))
	})
	if err := r.rec.Close(); err != nil {
		return nil, err
	}
	return sum, nil
}

// Abort stops the recording without an end record, after the records
// queued so far are written.
func (r *RunRecording) Abort() error { return r.rec.Close() }
