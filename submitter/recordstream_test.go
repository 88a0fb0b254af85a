package submitter

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// A RunRecording refuses what RecordRun refuses, job by job: an outcome
// given for another job, a run finished before every job of its workload
// was given (no end record then), a cancelled context; a run given every
// job ends completed, with one row per job, in the order given.
func TestRunRecordingEdges(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", time.Second), unitary("1-2", 2*time.Second)}
	dir := testkit.WriteWorkload(t, jobs...)
	outcome := func(id string) FinishedJob {
		return FinishedJob{JobID: id, Outcome: Outcome{State: store.Succeeded, ScheduledNS: 1, SubmitNS: 1, StartNS: 2, EndNS: 3}}
	}
	for _, c := range []struct {
		name  string
		give  []int // indexes of jobs given, in order
		other bool  // give job 0's outcome for job 1
		want  string
	}{
		{"every job, out of order", []int{2, 0, 1}, false, ""},
		{"none", nil, false, "0 of the workload's 3 jobs were recorded"},
		{"two of three", []int{0, 1}, false, "2 of the workload's 3 jobs were recorded"},
		{"another job's outcome", []int{1}, true, "the outcome of job 1-0 given for job 1-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := openStore(t)
			r, err := StartRecording(context.Background(), st, FinishedRun{WorkloadDir: dir, Target: "dryrun", RunID: "r", CommandLine: []string{"gmark"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range c.give {
				f := outcome(jobs[i].ID)
				if c.other {
					f = outcome(jobs[0].ID)
				}
				if err = r.Add(&jobs[i], f); err != nil {
					break
				}
			}
			var sum *Summary
			if err == nil {
				sum, err = r.Finish(nil, 10, time.Second)
			} else {
				r.Abort()
			}
			_, ended, _ := st.RunEnd("r")
			rows, _ := st.Jobs("r")
			switch {
			case c.want == "" && (err != nil || !ended || sum.Status != store.RunCompleted || len(rows) != 3 || rows[0].JobID != "1-2"):
				t.Fatalf("error %v, ended %v, summary %+v, %d rows", err, ended, sum, len(rows))
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || ended):
				t.Fatalf("error %v (want %q), ended %v", err, c.want, ended)
			}
		})
	}
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := StartRecording(ctx, st, FinishedRun{WorkloadDir: dir, Target: "dryrun", RunID: "r", CommandLine: []string{"gmark"}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := r.Add(&jobs[0], outcome(jobs[0].ID)); err == nil {
		t.Error("Add after the context was cancelled: no error")
	}
	r.Abort()
	if _, err := StartRecording(context.Background(), st, FinishedRun{WorkloadDir: t.TempDir() + "/none", RunID: "x"}); err == nil {
		t.Error("a missing workload: no error")
	}
}
