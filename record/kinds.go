package record

// The kinds of a run's events (the events table), as every producer of
// runs records them and the report reads them. A job's change of state is
// also an event: of the kind of its outcome (Succeeded, Failed, Cancelled),
// EventQueued, or EventStarted for Running.
const (
	// Of the run (no job).
	EventRunStart    = "run-start"    // the run began: {"anchor_ns", "settings", "jobs", "tasks", "target"}
	EventRunResume   = "run-resume"   // a later process took the run up again (--resume): {"anchor_ns", "shift_ns", …}
	EventRunEnd      = "run-end"      // every job is final: {"status"}
	EventInterrupted = "interrupted"  // the process was stopped before: the summary so far
	EventTailStart   = "tail-start"   // the last submission was made and the tail began: {"tail_ns"}
	EventTailExpired = "tail-expired" // the tail ended: what is left is cancelled

	// Of a job (or task) and one of its attempts.
	EventSubmitted    = "submitted"     // the target accepted the submission: {"target_id", "delay_ns", "tries"}
	EventRecovered    = "recovered"     // a submission found at the target after a restart, as EventSubmitted
	EventSubmitFailed = "submit-failed" // the target refused it, or every try failed: {"error", "tries"}
	EventRetry        = "retry"         // a submit call tried again, or a failed task submitted again
	EventQueued       = string(Queued)  // the target queued the job: {"detail"}
	EventStarted      = "started"       // the job is running: {"start_ns", "sites", "detail"}
	EventReleased     = "released"      // a composite job's task whose predecessors are done
	EventSkipped      = "skipped"       // a task that will never run (a predecessor failed): {"reason"}
	EventDAG          = "dag"           // a composite job's dependencies, {"deps": [[from, to], …]} by task id
)

// The kinds of a run's annotations (observations of the target itself,
// not of one job).
const (
	// A target's trouble, written to the run's log as well.
	AnnotationTargetError     = "target-error"     // a cluster or service stopped answering, keyed by its name
	AnnotationTargetRecovered = "target-recovered" // it answers again
	AnnotationTargetWarning   = "target-warning"   // something the run's figures depend on is not as expected

	AnnotationClusterStatus = "cluster-status" // a sample of a cluster's jobs by state (the Slurm target)

	// A component of a co-allocated job started (ComponentStart as JSON),
	// keyed by the submission key: what every co-allocating target writes,
	// and the report's co-allocation overhead reads.
	AnnotationComponentStart = "component-start"

	// The bundled core's facts of a run: Key processors, time_scale, origin,
	// event-stream (the koala target).
	AnnotationKoala = "koala"
	// A core event of a job that is not a change of its state (placed,
	// claim_try, claimed, replaced, component_start, …), keyed by the
	// submission key, the core's event as value (the koala target).
	AnnotationKoalaEvent = "koala-event"
	// The core's utilization at the end of a simulated run (CoreUtilization,
	// Key summary).
	AnnotationKoalaUtilization = "koala-utilization"
	// The core's deadline figures (CoreDeadlines, Key summary).
	AnnotationKoalaDeadlines = "koala-deadlines"
)

// ClaimAnnotation is the kind of the annotations of the target named
// target about claiming the components of co-allocated jobs ("slurm-claim",
// "arc-claim", …), keyed by the submission key.
func ClaimAnnotation(target string) string { return target + "-claim" }

// LoggedAnnotation reports whether annotations of kind are also written to
// the run's log: the target's trouble.
func LoggedAnnotation(kind string) bool {
	return kind == AnnotationTargetError || kind == AnnotationTargetRecovered || kind == AnnotationTargetWarning
}
