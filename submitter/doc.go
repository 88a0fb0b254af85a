// Package submitter submits a workload on schedule to a target system and
// records everything that happens to its jobs in the results store.
//
// # Where things are
//
// Run (run.go) is the entry point: it reads the workload directory, records
// a new run (or prepares a --resume, resume.go), starts the goroutines below
// and, when every job is final, records the run's end. Its Config and
// Settings are in config.go. What is recorded, and how, is package record's:
// the run's identity, its opening with its provenance, the rows, the
// Recorder and the summary; the submitter says when.
//
//   - The dispatcher (dispatch.go) is the one goroutine that sleeps on the
//     schedule: it writes each job's intent ahead of time and, at the job's
//     instant (its offset divided by the speedup), pushes it to the workers.
//   - The workers (dispatch.go) make the submit calls, with retries and
//     backoff for transient errors, and send each outcome to the loop.
//   - The loop (loop.go) is the one goroutine that owns the run's state: it
//     takes submit results, the target's updates and the dispatcher's
//     messages, and decides what happens next.
//   - The Recorder (record.Recorder) writes to the store from one
//     goroutine, in group commits; everything else only queues records.
//
// The per-job state the loop owns is in job.go: a top is one top-level job
// of the workload, a track one submission (a job or a task, one attempt)
// from intent to outcome. The records the store gets (job rows, events,
// submissions and their results, the run's end) are built by package
// record (record.JobRow, the one place a job row is made, for live runs and
// for runs recorded without the Runner: record.RecordRun, all at once;
// record.RunRecording, job by job as they end: the bundled core's
// simulator); rows.go turns a track into what they take. The end of the
// tail (--tail) and cancellation are in tail.go; progress and the
// summary's notes in summary.go.
//
// # How a job flows through
//
//  1. Intent. The dispatcher (fillWindow, prepare) makes a track for the
//     job (newTrack), with its idempotency key (record.Key: run/job/attempt), and
//     queues its intent record (the submissions table); the record is
//     committed before the submission is made, so a crash never loses a
//     submission.
//  2. Submit. At the job's instant a worker calls Target.Submit (Find first
//     when the outcome of an earlier try is unknown) and sends the
//     submitResult to the loop, which records it (submission_results) and
//     the "submitted" event (onResult).
//  3. Events. The target reports Updates (queued, running, and an outcome)
//     through the Reporter from its own goroutines; the loop applies them to
//     the track in order (onUpdate, apply), recording an event for each.
//  4. Result row. At the outcome the loop finalizes the track (finish.go):
//     a unitary job gets its row (JobRow) and is final; a composite job's
//     task tells the job's DAG (dag.go), which releases the tasks whose
//     predecessors succeeded, retries a failed one, or skips those that can
//     no longer run; the composite job gets its row once every task is
//     final. When every top-level job is final the run is complete.
//
// # Resume
//
// Every submission is recorded twice: its intent before the submit call and
// its result after. On --resume (resume.go, prepareResume) the store is read
// back in phases: the run and its settings (resumableRun), what was recorded
// of every submission (readRecords), then job by job (restoreJobs) what is
// done (a job row), in flight (a result: tracked again with Target.Track),
// unknown (an intent and no result: dispatched again with Find first, so
// nothing is submitted twice) or still to come (no intent: scheduled as
// usual, the schedule shifted by the time the submitter was away:
// shiftSchedule). startResume hands the loop what was found before the
// dispatcher starts.
//
// # Tail
//
// With a tail (Settings.HasTail), once every job has been submitted the run
// waits Settings.Tail, then cancels what is left (tail.go): the tasks not
// yet released are recorded never-started, the submitted jobs are cancelled
// at the target, queued ones first.
package submitter
