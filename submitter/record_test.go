package submitter

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// A run recorded without the Runner (record.RecordRun) has the records of a run
// the Runner makes: the same job rows, built by record.JobRow, under the same keys,
// with an end whose status and summary are computed the same way.
func TestRecordRunLikeARun(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", 10*time.Millisecond), unitary("1-2", 20*time.Millisecond)}
	jobs[1].Components = []workload.Component{{Site: "A", Count: 2}, {Site: "*", Count: 3}}
	dir := testkit.WriteWorkload(t, jobs...)
	st := openStore(t)
	live, err := Run(context.Background(), Config{WorkloadDir: dir, Store: st, Target: NewDryRun(), CommandLine: []string{"gmark"}})
	if err != nil {
		t.Fatal(err)
	}
	liveRows := byID(t, st, live.RunID)
	ids := map[string]bool{}
	for _, r := range liveRows {
		if strings.HasPrefix(r.TargetID, "dry-") {
			ids[r.TargetID] = true
		}
	}
	if len(ids) != len(jobs) {
		t.Fatalf("the dry run's target ids %v: want one of its own for each job", ids)
	}

	// The same outcomes, recorded from outside, on a clock of its own,
	// with the ids the dry run gave (in the order its workers took the
	// jobs, which a loaded machine can change).
	base := int64(946684800) * 1e9
	var fin []record.FinishedJob
	for _, j := range jobs {
		at := base + int64(j.Submit)
		fin = append(fin, record.FinishedJob{JobID: j.ID, Outcome: record.Outcome{State: store.Succeeded, ScheduledNS: at, SubmitNS: at,
			Receipt: record.Receipt{TargetID: liveRows[j.ID].TargetID}, StartNS: at, EndNS: at, ExitStatus: new(int)},
			Events: []store.Event{{TimeNS: at, Kind: "submitted", Payload: "{}"}}})
	}
	sum, err := record.RecordRun(context.Background(), st, record.FinishedRun{WorkloadDir: dir, Target: "dryrun", Jobs: fin,
		RunID: "rec-1", EndNS: base + 1e9, Elapsed: time.Second, CommandLine: []string{"gmark"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != store.RunCompleted || sum.Jobs[store.Succeeded] != 3 || sum.Submitted != 3 {
		t.Fatalf("summary %+v", sum)
	}
	rows := byID(t, st, "rec-1")
	for id, lr := range liveRows {
		r := rows[id]
		// Times differ (another clock); the rest is the same.
		if (lr.ExitStatus == nil) != (r.ExitStatus == nil) || lr.ExitStatus != nil && *lr.ExitStatus != *r.ExitStatus {
			t.Errorf("job %s: exit status %v, recorded %v", id, lr.ExitStatus, r.ExitStatus)
		}
		for _, p := range []*store.Job{&lr, &r} {
			p.RunID, p.ScheduledNS, p.SubmitNS, p.DelayNS, p.StartNS, p.EndNS, p.RecordedNS = "", 0, 0, 0, 0, 0, 0
			p.ExitStatus = nil
		}
		if fmt.Sprint(lr) != fmt.Sprint(r) {
			t.Errorf("job %s:\nlive     %+v\nrecorded %+v", id, lr, r)
		}
	}
	if r := rows["1-1"]; r.Components != `[{"site":"A","count":2},{"site":"*","count":3}]` {
		t.Errorf("components %s", r.Components)
	}
	subs, _ := st.Submissions("rec-1")
	if len(subs) != 3 || subs[0].Key != record.Key("rec-1", "1-0", 1) {
		t.Errorf("submissions %+v", subs)
	}
	end, ok, err := st.RunEnd("rec-1")
	if err != nil || !ok || end.Status != store.RunCompleted || !strings.Contains(end.Summary, `"submitted":3`) {
		t.Errorf("run end %+v %v %v", end, ok, err)
	}
	liveEnd, _, _ := st.RunEnd(live.RunID)
	if keys(t, liveEnd.Summary) != keys(t, end.Summary) {
		t.Errorf("summaries of another shape:\n%s\n%s", liveEnd.Summary, end.Summary)
	}
}

// keys is the shape of a summary (testkit.JSONKeys).
var keys = testkit.JSONKeys
