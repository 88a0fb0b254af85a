package submitter

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// Target is a system jobs are submitted to: a scheduler (Slurm, the bundled
// core over HTTP), the local machine, or nothing at all (dryrun).
//
// The Runner calls Watch once, before any other method; then Submit, Find,
// Track and Cancel from any goroutine, concurrently; then Close. A target
// reports what happens to the jobs it was given (by Submit, or by Find and
// Track on resume) through the Reporter, from any goroutine, until Close: a
// target with an event stream forwards its events, a target without one
// polls.
type Target interface {
	// Name is the target's registry name (slurm, local, dryrun, …).
	Name() string
	// Caps tells what the target can do.
	Caps() Caps
	// Watch starts the target's reporting. It returns an error only when the
	// target cannot work at all (the event stream cannot be opened, a
	// command is missing); transient trouble later is the target's to retry,
	// to annotate, and at last to report as failures of the jobs concerned.
	Watch(ctx context.Context, r Reporter) error
	// Submit submits one unitary job (a top-level job or a composite job's
	// task). Errors that may pass (an unreachable controller, a timeout) are
	// wrapped with target.Transient (package submitter/target): the Runner
	// retries them with backoff under the same key, asking Find first when
	// the target can, so a submission that got through before the error is
	// not made twice. Other errors fail the job.
	Submit(ctx context.Context, s *Submission) (Receipt, error)
	// Find looks for a submission made under s.Key whose outcome the Runner
	// did not record (it crashed between the two records, or a submit call
	// failed in a way that leaves it unknown). When found the target tracks
	// the job from then on, as if Submit had returned the receipt.
	Find(ctx context.Context, s *Submission) (r Receipt, found bool, err error)
	// Track resumes tracking a job submitted by an earlier process of the
	// same run (--resume), whose receipt was recorded.
	Track(ctx context.Context, s *Submission, r Receipt) error
	// Cancel stops a submitted job, queued or running. The target reports
	// the job Cancelled (or its real end, if it finished first).
	Cancel(ctx context.Context, s *Submission) error
	// Close stops reporting and releases the target's resources. It does not
	// cancel jobs.
	Close() error
}

// An Originator is a target that sets where a new run's schedule starts
// (the bundled core: its local workloads start from the run's origin).
// The Runner calls Origin once, after Watch and before the first
// submission, with the earliest anchor it would use; the schedule starts
// at the time returned (the earliest, or later). Not called on --resume.
type Originator interface {
	Origin(ctx context.Context, earliest time.Time, speedup float64) (time.Time, error)
}

// A Finisher is a target with figures of the whole run to record when it
// ends (the bundled core's deadline metrics): the Runner calls Finish once,
// after every job is final and before the run's end is recorded, and
// records what it annotates with the run. Not called on an interrupted run.
type Finisher interface {
	Finish(ctx context.Context, r Reporter)
}

// Caps are the capabilities of a Target.
type Caps struct {
	// Find: the target can find a submission by its key after a crash.
	// Without it, a submission whose outcome was not recorded is made again
	// on resume, which only dryrun may do.
	Find bool
	// RejectsDuplicateKeys: the target itself refuses a second submission
	// under a key it has seen (the bundled core), so resubmitting is safe even
	// without Find.
	RejectsDuplicateKeys bool
	// Cancel: Cancel works. Otherwise jobs left at the end of the tail are
	// recorded cancelled without being stopped.
	Cancel bool
	// Events: the target pushes state changes (an event stream) rather than
	// polling; for information.
	Events bool
	// CoAllocates: the target places the components of one job together
	// (a real co-allocating scheduler), rather than one by one.
	CoAllocates bool
	// Dependencies: the target waits for a composite job's dependencies
	// itself (Slurm's --dependency=afterok, when configured so): the
	// Runner submits a task as soon as its predecessors are submitted,
	// naming them in Submission.After, rather than once they succeeded.
	Dependencies bool
}

// Submission is one submit call: a unitary job under an idempotency key.
type Submission struct {
	Key      string        // "<run>/<job>/<attempt>": unique per run, job and attempt
	RunID    string        // the run
	Job      *workload.Job // the unitary job or task; not to be modified
	Attempt  int           // 1 for the first submission of the job, 2… for task retries
	ParentID string        // the composite job of a task; "" for a top-level job
	// After are the target ids (Receipt.TargetID) of the submissions this
	// task must wait for, when the target waits for a composite job's
	// dependencies itself (Caps.Dependencies); the target starts it only
	// once they have all succeeded, and cancels it if one of them fails.
	After []string
}

// Receipt is what a target says when it accepts a job (record.Receipt:
// the Target contract names it here, so that a target needs no other
// package to implement it).
type Receipt = record.Receipt

// State is what a job is doing, as a target reports it (record.State,
// named here for the Target contract as Receipt is).
type State = record.State

// The states a target reports.
const (
	Queued    = record.Queued
	Running   = record.Running
	Succeeded = record.Succeeded
	Failed    = record.Failed
	Cancelled = record.Cancelled
)

// Update is a state change of one job.
type Update struct {
	Key   string    // the submission's key
	State State     // the new state
	Time  time.Time // when the change was observed
	Start time.Time // when the job started, as the target says; zero if unknown or not started
	End   time.Time // when it ended, as the target says; zero if not ended
	// Submitted is when the target accepted the job, by the target's own
	// clock (Slurm's submit_time); zero when the target does not say.
	Submitted  time.Time
	ExitStatus *int     // the job's exit status, when it ended and one is known
	Reason     string   // why it failed or was cancelled
	Sites      []string // where it ran, when known
	// Summary is the application's final JSON line, when the target can
	// read the job's output.
	Summary string
	// Detail is target-specific, recorded as the event payload (for
	// example the scheduler's own record of the job).
	Detail json.RawMessage
	// TargetID, when not empty, is the target's new id for the job: one of
	// its parts was submitted again (a Slurm component claimed anew).
	TargetID string
}

// Reporter receives what targets observe. Its methods never block for long
// and may be called from any goroutine.
type Reporter interface {
	// Report delivers a job's state change.
	Report(u Update)
	// Annotate records an observation about the target itself, such as a
	// cluster status sample or an outage, as an annotation of the run.
	// The kinds target-error, target-recovered and target-warning are
	// also written to the run's log (standard error unless --quiet).
	Annotate(kind, key, value string)
}
