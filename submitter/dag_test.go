package submitter

import (
	"sort"
	"strings"
	"testing"
)

func stepIDs(d *DAG, steps []Step) string {
	var ids []string
	for _, s := range steps {
		ids = append(ids, d.Task(s.Task).ID[len(d.Job.ID)+1:])
	}
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

func taskIndex(t *testing.T, d *DAG, name string) int {
	t.Helper()
	i, ok := d.Lookup(d.Job.ID + "." + name)
	if !ok {
		t.Fatalf("no task %s", name)
	}
	return i
}

// The diamond a → b, c → d: d runs only after both b and c succeeded.
func TestDAGDiamond(t *testing.T) {
	j := composite("d", 0, []string{"a", "b", "c", "d"}, "a>b", "a>c", "b>d", "c>d")
	d := NewDAG(&j, 0)
	if got := stepIDs(d, d.Start()); got != "a" {
		t.Fatalf("start: %s", got)
	}
	next, skip := d.Finish(taskIndex(t, d, "a"), Succeeded, "")
	if got := stepIDs(d, next); got != "b,c" || len(skip) != 0 {
		t.Fatalf("after a: %s %v", got, skip)
	}
	next, _ = d.Finish(taskIndex(t, d, "b"), Succeeded, "")
	if len(next) != 0 {
		t.Fatalf("d released before c: %s", stepIDs(d, next))
	}
	next, _ = d.Finish(taskIndex(t, d, "c"), Succeeded, "")
	if got := stepIDs(d, next); got != "d" {
		t.Fatalf("after c: %s", got)
	}
	if d.Done() {
		t.Fatal("done before d")
	}
	d.Finish(taskIndex(t, d, "d"), Succeeded, "")
	if st, _ := d.Outcome(); !d.Done() || st != Succeeded {
		t.Fatalf("outcome %s done %v", st, d.Done())
	}
}

// A failure with retry off fails everything downstream, transitively, and
// nothing else; the composite job fails with the first failure.
func TestDAGFailurePropagation(t *testing.T) {
	j := composite("f", 0, []string{"a", "b", "c", "d", "e"}, "a>b", "a>c", "b>d", "d>e")
	d := NewDAG(&j, 0)
	d.Start()
	next, _ := d.Finish(taskIndex(t, d, "a"), Succeeded, "")
	if stepIDs(d, next) != "b,c" {
		t.Fatal(stepIDs(d, next))
	}
	next, skip := d.Finish(taskIndex(t, d, "b"), Failed, "exit status 3")
	if len(next) != 0 {
		t.Fatalf("released after a failure: %s", stepIDs(d, next))
	}
	var skipped []string
	for _, s := range skip {
		skipped = append(skipped, d.Task(s.Task).ID)
		if s.Reason != "predecessor f.b failed" {
			t.Errorf("reason %q", s.Reason)
		}
	}
	sort.Strings(skipped)
	if strings.Join(skipped, ",") != "f.d,f.e" {
		t.Fatalf("skipped %v", skipped)
	}
	if d.Done() {
		t.Fatal("done while c runs")
	}
	d.Finish(taskIndex(t, d, "c"), Succeeded, "")
	st, reason := d.Outcome()
	if !d.Done() || st != Failed || !strings.Contains(reason, "f.b: exit status 3") {
		t.Fatalf("outcome %s %q", st, reason)
	}
}

// With retries, a failed task is released again (attempt 2) and the run
// goes on when it succeeds; past the limit it fails for good.
func TestDAGRetry(t *testing.T) {
	j := composite("r", 0, []string{"a", "b"}, "a>b")
	d := NewDAG(&j, 2)
	d.Start()
	a := taskIndex(t, d, "a")
	next, _ := d.Finish(a, Failed, "exit status 1")
	if len(next) != 1 || next[0].Task != a || next[0].Attempt != 2 {
		t.Fatalf("retry: %+v", next)
	}
	next, _ = d.Finish(a, Succeeded, "")
	if stepIDs(d, next) != "b" || next[0].Attempt != 1 {
		t.Fatalf("after retry success: %+v", next)
	}
	b := next[0].Task
	for attempt := 2; attempt <= 3; attempt++ {
		next, _ = d.Finish(b, Failed, "boom")
		if len(next) != 1 || next[0].Attempt != attempt {
			t.Fatalf("attempt %d: %+v", attempt, next)
		}
	}
	next, _ = d.Finish(b, Failed, "boom")
	if len(next) != 0 || !d.Done() {
		t.Fatalf("retried past the limit: %+v", next)
	}
	if st, _ := d.Outcome(); st != Failed || d.Attempts(b) != 3 {
		t.Fatalf("outcome %s attempts %d", st, d.Attempts(b))
	}
}

func TestDAGCancelAndRestore(t *testing.T) {
	j := composite("c", 0, []string{"a", "b", "c"}, "a>b", "b>c")
	d := NewDAG(&j, 0)
	d.Start()
	skips := d.Cancel("tail")
	if len(skips) != 2 {
		t.Fatalf("cancel skipped %d", len(skips))
	}
	d.Finish(taskIndex(t, d, "a"), Cancelled, "tail")
	if st, _ := d.Outcome(); !d.Done() || st != Cancelled {
		t.Fatalf("outcome %s", st)
	}

	// Restore: a succeeded, b in flight → nothing to release; then b
	// succeeds and c is released.
	d = NewDAG(&j, 0)
	d.Restore(taskIndex(t, d, "a"), 1, Succeeded, false, "")
	d.Restore(taskIndex(t, d, "b"), 1, "", false, "")
	next, skip := d.Resume()
	if len(next) != 0 || len(skip) != 0 {
		t.Fatalf("resume released %v skipped %v", next, skip)
	}
	next, _ = d.Finish(taskIndex(t, d, "b"), Succeeded, "")
	if stepIDs(d, next) != "c" {
		t.Fatalf("after restore: %s", stepIDs(d, next))
	}

	// Restore with a failed task: its dependants are skipped.
	d = NewDAG(&j, 0)
	d.Restore(taskIndex(t, d, "a"), 1, Failed, false, "x")
	next, skip = d.Resume()
	if len(next) != 0 || len(skip) != 2 || !d.Done() {
		t.Fatalf("resume after failure: %v %v", next, skip)
	}
}

// When the target waits for the dependencies (Slurm's afterok), a task is
// released once its predecessors are submitted, not once they succeeded,
// and a failure is not retried.
func TestDAGTargetDependencies(t *testing.T) {
	j := composite("t", 0, []string{"a", "b", "c", "d", "e"}, "a>b", "a>c", "b>d", "c>d", "d>e")
	d := NewDAG(&j, 3)
	d.TargetDependencies()
	if got := stepIDs(d, d.Start()); got != "a" {
		t.Fatalf("start: %s", got)
	}
	if got := stepIDs(d, d.Submitted(taskIndex(t, d, "a"))); got != "b,c" {
		t.Fatalf("a submitted: %s", got)
	}
	if got := stepIDs(d, d.Submitted(taskIndex(t, d, "b"))); got != "" {
		t.Fatalf("d released before c was submitted: %s", got)
	}
	if again := d.Submitted(taskIndex(t, d, "b")); len(again) != 0 {
		t.Fatal("a task submitted twice released again")
	}
	if got := stepIDs(d, d.Submitted(taskIndex(t, d, "c"))); got != "d" {
		t.Fatalf("c submitted: %s", got)
	}
	// a succeeds: nothing to release, all is at the target.
	if next, _ := d.Finish(taskIndex(t, d, "a"), Succeeded, ""); len(next) != 0 {
		t.Fatalf("released again after a: %s", stepIDs(d, next))
	}
	// b fails: no retry (d waits at the target for this attempt); d is
	// the target's to cancel, and when it is, e, never released, is
	// skipped.
	next, skip := d.Finish(taskIndex(t, d, "b"), Failed, "exit 1")
	if len(next) != 0 || len(skip) != 0 {
		t.Fatalf("after b failed: next %s, skipped %v", stepIDs(d, next), skip)
	}
	d.Finish(taskIndex(t, d, "c"), Succeeded, "")
	_, skip = d.Finish(taskIndex(t, d, "d"), Cancelled, "DependencyNeverSatisfied")
	if len(skip) != 1 || d.Task(skip[0].Task).ID != "t.e" {
		t.Fatalf("after d was cancelled: skipped %v", skip)
	}
	if st, _ := d.Outcome(); !d.Done() || st != Failed {
		t.Fatalf("outcome %s, done %v", st, d.Done())
	}
	// Without the mode, Submitted releases nothing.
	plain := NewDAG(&j, 0)
	plain.Start()
	if next := plain.Submitted(taskIndex(t, plain, "a")); len(next) != 0 {
		t.Fatalf("released on submission without the mode: %s", stepIDs(plain, next))
	}
}
