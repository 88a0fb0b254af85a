// Package record is the run record: what every producer of runs (the live
// submitter, the bundled core's simulation, a run recorded after the fact)
// writes into the results store, and how.
//
// It owns a run's identity (NewRunID, Key, CheckRunID), the states of its
// jobs (State) and its summary (Summary, Delays); the rows the store gets
// (JobRow, IntentRow, RunEndRow: the one place each is built); the
// Recorder, which writes them in group commits from one goroutine; the
// workload a run is made of, read once for its digest and counts
// (ReadWorkload); and the opening of a run with its provenance
// (NewOpening), a finished run recorded whole (RecordRun) or job by job
// as its jobs end (StartRecording, ResumeRecording).
//
// It sits below every producer and above the store (analyzer/store): it
// imports no producer (submitter, sim, koala/…), so each of them records
// through it without climbing.
package record
