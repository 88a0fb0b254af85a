package record

import (
	"context"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// A job without a final state gets no row, and the run is aborted; a job
// the workload does not have, or one missing, is an error.
func TestRecordRunStatusAndErrors(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", time.Second)}
	dir := testkit.WriteWorkload(t, jobs...)
	st := openStore(t)
	run := FinishedRun{WorkloadDir: dir, Target: "x", RunID: "r-1", CommandLine: []string{"gmark"},
		Jobs: []FinishedJob{{JobID: "1-0", Outcome: Outcome{State: store.Failed, ScheduledNS: 1}, Error: "refused"}, {JobID: "1-1"}}}
	sum, err := RecordRun(context.Background(), st, run)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != store.RunAborted || sum.SubmitFailed != 1 {
		t.Errorf("summary %+v", sum)
	}
	if rows := byID(t, st, "r-1"); len(rows) != 1 || rows["1-0"].Reason != "" || rows["1-0"].SubmitNS != 0 {
		t.Errorf("rows %+v", rows)
	}
	for _, bad := range [][]FinishedJob{
		{{JobID: "1-0"}},
		{{JobID: "1-0"}, {JobID: "1-1"}, {JobID: "9-9"}},
		{{JobID: "1-0"}, {JobID: "1-0"}},
	} {
		run.RunID, run.Jobs = "r-2", bad
		if _, err := RecordRun(context.Background(), st, run); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := st.Run("r-2"); err == nil {
		t.Error("a refused run was recorded")
	}
}

// keys is the shape of a summary (testkit.JSONKeys).
var keys = testkit.JSONKeys

// A job never submitted (a simulated job due after the limit) is recorded
// as a live run records one whose time never came: a never-started row
// with no attempt, and no submission intent or result.
func TestRecordRunNeverSubmitted(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", time.Hour)}
	dir := testkit.WriteWorkload(t, jobs...)
	st := openStore(t)
	base := int64(946684800) * 1e9
	fin := []FinishedJob{
		{JobID: "1-0", Outcome: Outcome{State: store.Succeeded, ScheduledNS: base, SubmitNS: base, StartNS: base, EndNS: base + 1e9}},
		{JobID: "1-1", Outcome: Outcome{State: store.NeverStarted, Reason: "due after the limit", ScheduledNS: base + int64(time.Hour)}},
	}
	sum, err := RecordRun(context.Background(), st, FinishedRun{WorkloadDir: dir, Target: "koala-sim", Jobs: fin,
		RunID: "rec-ns", EndNS: base + 2e9, Elapsed: 2 * time.Second, CommandLine: []string{"gmark"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Jobs[store.NeverStarted] != 1 || sum.Submitted != 1 || sum.SubmitFailed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	rows := byID(t, st, "rec-ns")
	if r := rows["1-1"]; r.State != store.NeverStarted || r.Attempts != 0 || r.SubmitNS != 0 {
		t.Fatalf("row of the job never submitted: %+v", r)
	}
	subs, err := st.Submissions("rec-ns")
	if err != nil || len(subs) != 1 || subs[0].Key != Key("rec-ns", "1-0", 1) {
		t.Fatalf("submissions %+v, %v; want only 1-0's", subs, err)
	}
}
