package submitter

import (
	"fmt"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// DAG is the dependency executor of one composite job: it says which tasks
// may be submitted, given what happened to the others. A task is released
// when all its predecessors have succeeded; a task that fails is submitted
// again (a new attempt, with a new idempotency key) while it has retries
// left; a task that fails for good, or is cancelled, takes every task that
// depends on it, directly or not, with it: those are never submitted and
// are recorded failed with the reason.
//
// DAG is plain bookkeeping, with no goroutines and no clock: the Runner
// calls it from one goroutine.
type DAG struct {
	Job        *workload.Job
	maxRetries int // resubmissions of a failed task; 0 = retry off
	index      map[string]int
	preds      [][]int
	succs      [][]int
	state      []taskState
	attempts   []int    // submissions made, per task
	reasons    []string // why a task failed or was skipped
	open       int      // tasks not yet final
	// atTarget: the target waits for the dependencies itself (Slurm's
	// afterok, TargetDependencies); submitted marks the tasks it has.
	atTarget  bool
	submitted []bool
}

type taskState uint8

const (
	taskPending   taskState = iota // waiting for predecessors
	taskActive                     // released: being submitted, queued or running
	taskSucceeded                  // final
	taskFailed                     // final: failed with no retries left
	taskCancelled                  // final
	taskSkipped                    // final: a predecessor failed or was cancelled; never submitted
)

// Step is a task to submit now, with its attempt number (1 for the first).
type Step struct {
	Task    int
	Attempt int
}

// Skip is a task that will never be submitted, and why.
type Skip struct {
	Task   int
	Reason string
}

// NewDAG builds the executor of a composite job; maxRetries is how many
// times a failed task is resubmitted (0: never).
func NewDAG(j *workload.Job, maxRetries int) *DAG {
	n := len(j.Tasks)
	d := &DAG{Job: j, maxRetries: maxRetries, index: make(map[string]int, n),
		preds: make([][]int, n), succs: make([][]int, n), state: make([]taskState, n),
		attempts: make([]int, n), reasons: make([]string, n), open: n}
	if maxRetries < 0 {
		d.maxRetries = 0
	}
	for i := range j.Tasks {
		d.index[j.Tasks[i].ID] = i
	}
	for _, e := range j.Deps {
		from, ok1 := d.index[e.From]
		to, ok2 := d.index[e.To]
		if !ok1 || !ok2 { // Validate rejects such jobs; be safe
			continue
		}
		d.preds[to] = append(d.preds[to], from)
		d.succs[from] = append(d.succs[from], to)
	}
	return d
}

// TargetDependencies makes the target wait for the dependencies (Caps
// Dependencies: Slurm's --dependency=afterok): a task is released once
// every predecessor has been submitted (Submitted), and its submission
// names theirs, so the target holds it until they have succeeded. A failed
// task is not retried (its dependants at the target wait for the attempt
// that failed, and the target cancels them).
func (d *DAG) TargetDependencies() {
	d.atTarget, d.maxRetries = true, 0
	d.submitted = make([]bool, len(d.state))
}

// AtTarget tells whether the target waits for the dependencies.
func (d *DAG) AtTarget() bool { return d.atTarget }

// Preds are the predecessors of task i.
func (d *DAG) Preds(i int) []int { return d.preds[i] }

// Submitted records that the target accepted task i and, when the target
// waits for the dependencies, returns the tasks released by it: those
// whose predecessors are now all submitted.
func (d *DAG) Submitted(i int) []Step {
	if !d.atTarget || d.submitted[i] {
		return nil
	}
	d.submitted[i] = true
	var next []Step
	for _, s := range d.succs[i] {
		if d.state[s] == taskPending && d.allSubmitted(s) {
			next = append(next, d.release(s))
		}
	}
	return next
}

func (d *DAG) allSubmitted(i int) bool {
	for _, p := range d.preds[i] {
		if !d.submitted[p] && d.state[p] != taskSucceeded {
			return false
		}
	}
	return true
}

// Len is the number of tasks.
func (d *DAG) Len() int { return len(d.state) }

// Task returns task i.
func (d *DAG) Task(i int) *workload.Job { return &d.Job.Tasks[i] }

// Lookup returns the index of a task by id.
func (d *DAG) Lookup(id string) (int, bool) {
	i, ok := d.index[id]
	return i, ok
}

// Attempts is the number of submissions made of task i.
func (d *DAG) Attempts(i int) int { return d.attempts[i] }

// Reason is why task i failed or was skipped.
func (d *DAG) Reason(i int) string { return d.reasons[i] }

// Done reports whether every task is final.
func (d *DAG) Done() bool { return d.open == 0 }

// Start releases the tasks that have no predecessors (or whose predecessors
// all succeeded, after Restore).
func (d *DAG) Start() []Step {
	var steps []Step
	for i := range d.state {
		if d.state[i] == taskPending && d.releasable(i) {
			steps = append(steps, d.release(i))
		}
	}
	return steps
}

func (d *DAG) releasable(i int) bool {
	for _, p := range d.preds[i] {
		if d.state[p] != taskSucceeded {
			return false
		}
	}
	return true
}

func (d *DAG) release(i int) Step {
	d.state[i] = taskActive
	d.attempts[i]++
	return Step{Task: i, Attempt: d.attempts[i]}
}

// Finish records the outcome of the current attempt of task i and returns
// what to submit next (the released successors, or a retry of i) and the
// tasks that will now never run.
func (d *DAG) Finish(i int, st State, reason string) (next []Step, skipped []Skip) {
	if d.state[i] != taskActive {
		return nil, nil // a late or duplicate report
	}
	switch st {
	case Succeeded:
		d.state[i] = taskSucceeded
		d.reasons[i] = ""
		d.open--
		for _, s := range d.succs[i] {
			if d.state[s] == taskPending && d.releasable(s) {
				next = append(next, d.release(s))
			}
		}
		return next, nil
	case Failed:
		if d.attempts[i] <= d.maxRetries {
			d.reasons[i] = reason
			d.attempts[i]++
			return []Step{{Task: i, Attempt: d.attempts[i]}}, nil
		}
		d.state[i] = taskFailed
	default: // Cancelled: not retried, as cancelling is deliberate
		d.state[i] = taskCancelled
	}
	d.reasons[i] = reason
	d.open--
	return nil, d.skipDependants(i)
}

// Cancel makes every task not yet released final without running it (the
// run's tail expired). It returns those tasks; released ones are the
// caller's to cancel at the target.
func (d *DAG) Cancel(reason string) []Skip {
	var out []Skip
	for i := range d.state {
		if d.state[i] == taskPending {
			d.state[i] = taskSkipped
			d.reasons[i] = reason
			d.open--
			out = append(out, Skip{Task: i, Reason: reason})
		}
	}
	return out
}

// skipDependants marks everything downstream of task i skipped.
func (d *DAG) skipDependants(i int) []Skip {
	verb := "failed"
	if d.state[i] == taskCancelled {
		verb = "was cancelled"
	}
	reason := fmt.Sprintf("predecessor %s %s", d.Job.Tasks[i].ID, verb)
	var out []Skip
	stack := append([]int(nil), d.succs[i]...)
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.state[s] != taskPending {
			continue
		}
		d.state[s] = taskSkipped
		d.reasons[s] = reason
		d.open--
		out = append(out, Skip{Task: s, Reason: reason})
		stack = append(stack, d.succs[s]...)
	}
	return out
}

// Outcome is the composite job's result once Done: succeeded when every
// task succeeded; cancelled when tasks were cancelled and none failed;
// failed otherwise, with the first failure as the reason.
func (d *DAG) Outcome() (State, string) {
	failed, cancelled, skipped := 0, 0, 0
	first := ""
	for i, s := range d.state {
		switch s {
		case taskFailed:
			failed++
			if first == "" {
				first = fmt.Sprintf("%s: %s", d.Job.Tasks[i].ID, d.reasons[i])
			}
		case taskCancelled:
			cancelled++
		case taskSkipped:
			skipped++
		}
	}
	switch {
	case failed > 0:
		return Failed, fmt.Sprintf("%d of %d tasks failed, %d not run (first: %s)", failed, len(d.state), skipped, first)
	case cancelled > 0 || skipped > 0:
		return Cancelled, fmt.Sprintf("%d of %d tasks cancelled, %d not run", cancelled, len(d.state), skipped)
	}
	return Succeeded, ""
}

// Restore sets task i from the store on resume: attempts made so far, and
// its final state if it has one (Succeeded, Failed, Cancelled, or "" when
// not final). A task restored with attempts > 0 and no final state is
// active (in flight). Call Restore for every task touched, then Resume.
func (d *DAG) Restore(i, attempts int, final State, skipped bool, reason string) {
	d.attempts[i] = attempts
	d.reasons[i] = reason
	prevOpen := d.state[i] == taskPending || d.state[i] == taskActive
	switch {
	case skipped:
		d.state[i] = taskSkipped
	case final == Succeeded:
		d.state[i] = taskSucceeded
	case final == Failed:
		d.state[i] = taskFailed
	case final == Cancelled:
		d.state[i] = taskCancelled
	case attempts > 0:
		d.state[i] = taskActive
	default:
		d.state[i] = taskPending
	}
	if prevOpen && d.state[i] != taskPending && d.state[i] != taskActive {
		d.open--
	}
}

// Resume finishes a Restore: it skips what depends on failed or cancelled
// tasks and returns the tasks to release now.
func (d *DAG) Resume() (next []Step, skipped []Skip) {
	for i, s := range d.state {
		if s == taskFailed || s == taskCancelled {
			skipped = append(skipped, d.skipDependants(i)...)
		}
	}
	return d.Start(), skipped
}

// recordDAG records a composite job's dependencies as its "dag" event (the
// workflow metrics' graph: the store's rows do not hold it).
func (r *Runner) recordDAG(j *workload.Job, when time.Time) {
	deps := make([][2]string, len(j.Deps))
	for i, d := range j.Deps {
		deps[i] = [2]string{d.From, d.To}
	}
	r.event(j.ID, 0, when, record.EventDAG, map[string]any{"deps": deps})
}
