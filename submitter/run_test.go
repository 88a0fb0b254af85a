package submitter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

func mixedWorkload() []workload.Job {
	jobs := []workload.Job{}
	for i := 0; i < 10; i++ {
		jobs = append(jobs, unitary(fmt.Sprintf("1-%d", i), time.Duration(i)*5*time.Millisecond))
	}
	jobs = append(jobs, composite("2-0", 20*time.Millisecond, []string{"a", "b", "c", "d"}, "a>b", "a>c", "b>d", "c>d"))
	jobs = append(jobs, unitary("1-10", 60*time.Millisecond))
	return jobs
}

// A dryrun run records every job, task and composite job once, with
// provenance, events, and the run's end.
func TestDryRunRecordsEverything(t *testing.T) {
	dir := testkit.WriteWorkload(t, mixedWorkload()...)
	st := openStore(t)
	sum, err := Run(context.Background(), Config{WorkloadDir: dir, Store: st, Target: NewDryRun(), Project: "p", Scenario: "s",
		CommandLine: []string{"gmark", "submit"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != store.RunCompleted || sum.Jobs[store.Succeeded] != 12 || sum.Tasks[store.Succeeded] != 4 {
		t.Fatalf("summary %+v", sum)
	}
	if sum.Delay.N != 11+1 { // 11 unitary jobs and the composite's root task
		t.Fatalf("delays counted: %d", sum.Delay.N)
	}
	rows := byID(t, st, sum.RunID)
	if len(rows) != 11+1+4 {
		t.Fatalf("%d rows", len(rows))
	}
	run, err := st.Run(sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var prev int64
	for i := 0; i < 10; i++ {
		r := rows[fmt.Sprintf("1-%d", i)]
		if r.State != store.Succeeded || r.SubmitNS == 0 || r.StartNS == 0 || r.EndNS == 0 || r.TargetID == "" || r.Attempts != 1 {
			t.Fatalf("row %+v", r)
		}
		if r.DelayNS < 0 || r.SubmitNS < r.ScheduledNS {
			t.Fatalf("submitted before its time: %+v", r)
		}
		if r.OffsetNS != int64(i)*int64(5*time.Millisecond) || r.ScheduledNS-prev != int64(5*time.Millisecond) && i > 0 {
			t.Fatalf("schedule: %+v (previous %d)", r, prev)
		}
		prev = r.ScheduledNS
	}
	c := rows["2-0"]
	if c.Kind != "composite" || c.State != store.Succeeded || c.StartNS == 0 || c.EndNS < c.StartNS {
		t.Fatalf("composite row %+v", c)
	}
	if d := rows["2-0.d"]; d.ParentID != "2-0" || d.SubmitNS < rows["2-0.b"].EndNS || d.SubmitNS < rows["2-0.c"].EndNS {
		t.Fatalf("d submitted before its predecessors ended: %+v", d)
	}
	if err := st.VerifyProvenance(sum.RunID); err != nil {
		t.Fatal(err)
	}
	ps, _ := st.Provenance(sum.RunID)
	if ps[0].SpecSHA256 != "00" || *ps[0].Seed != 42 || ps[0].Target != "dryrun" || ps[0].WorkloadSHA256 != run.WorkloadSHA256 {
		t.Fatalf("provenance %+v", ps[0])
	}
	if _, ended, _ := st.RunEnd(sum.RunID); !ended {
		t.Fatal("no run end")
	}
	subs, _ := st.Submissions(sum.RunID)
	results, _ := st.Results(sum.RunID)
	if len(subs) != 15 || len(results) != 15 {
		t.Fatalf("%d submissions, %d results", len(subs), len(results))
	}
	// Every submission was recorded before it was made.
	intent := map[string]int64{}
	for _, s := range subs {
		intent[s.Key] = s.IntentNS
	}
	for _, r := range results {
		if !r.OK || r.SubmitNS < intent[r.Key] {
			t.Fatalf("result %+v before its intent %d", r, intent[r.Key])
		}
	}
}

// Speedup divides the offsets.
func TestSpeedup(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", time.Second), unitary("1-2", 3*time.Second)}
	st := openStore(t)
	cfg := Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: NewDryRun()}
	cfg.Speedup = 20
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows := byID(t, st, sum.RunID)
	if d := rows["1-1"].ScheduledNS - rows["1-0"].ScheduledNS; d != int64(50*time.Millisecond) {
		t.Fatalf("1-1 scheduled %v after 1-0", time.Duration(d))
	}
	if d := rows["1-2"].ScheduledNS - rows["1-0"].ScheduledNS; d != int64(150*time.Millisecond) {
		t.Fatalf("1-2 scheduled %v after 1-0", time.Duration(d))
	}
	if rows["1-2"].SubmitNS < rows["1-2"].ScheduledNS {
		t.Fatal("submitted early")
	}
}

// A target that fails with transient errors is retried with backoff and
// the job goes through; a permanent error fails the job at once; a target
// that keeps failing fails the job after the retries, with the reason.
func TestTransientRetries(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", 0), unitary("1-2", 0)}
	st := openStore(t)
	b := newBooks()
	f := newFake(b)
	f.transientFails = 2
	f.permanent = map[string]bool{"1-1": true}
	cfg := Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: f}
	cfg.Backoff = time.Millisecond
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows := byID(t, st, sum.RunID)
	if rows["1-0"].State != store.Succeeded || rows["1-2"].State != store.Succeeded {
		t.Fatalf("rows %+v", rows)
	}
	if r := rows["1-1"]; r.State != store.Failed || !strings.Contains(r.Reason, "rejected") || r.SubmitNS != 0 {
		t.Fatalf("permanent failure: %+v", r)
	}
	if b.calls[record.Key(sum.RunID, "1-1", 1)] != 1 {
		t.Fatalf("permanent error retried: %d calls", b.calls[record.Key(sum.RunID, "1-1", 1)])
	}
	results, _ := st.Results(sum.RunID)
	for _, r := range results {
		if strings.HasSuffix(r.Key, "1-0/1") && (r.Tries != 3 || !r.OK) {
			t.Fatalf("result %+v", r)
		}
	}
	ev, _ := st.Events(sum.RunID, "1-0")
	retries := 0
	for _, e := range ev {
		if e.Kind == "retry" {
			retries++
		}
	}
	if retries != 2 || sum.Retries != 4 {
		t.Fatalf("retry events %d, summary retries %d", retries, sum.Retries)
	}

	// Now a target that never recovers.
	b2 := newBooks()
	f2 := newFake(b2)
	f2.transientFails = 1000
	cfg = Config{WorkloadDir: testkit.WriteWorkload(t, jobs[:1]...), Store: st, Target: f2}
	cfg.Backoff, cfg.SubmitRetries, cfg.RetryFor = time.Millisecond, 3, -1
	sum, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := byID(t, st, sum.RunID)["1-0"]
	if r.State != store.Failed || !strings.Contains(r.Reason, "after 4 tries") || !strings.Contains(r.Reason, "unreachable") {
		t.Fatalf("row %+v", r)
	}
	if len(sum.Notes) == 0 || !strings.Contains(strings.Join(sum.Notes, "\n"), "unreachable") {
		t.Fatalf("notes %v", sum.Notes)
	}
}

// Composite tasks that fail are retried when asked; without retries their
// dependants fail with the reason.
func TestCompositeRetries(t *testing.T) {
	for _, retries := range []int{0, 1} {
		t.Run(fmt.Sprint("retries=", retries), func(t *testing.T) {
			jobs := []workload.Job{composite("2-0", 0, []string{"a", "b", "c"}, "a>b", "b>c")}
			st := openStore(t)
			f := newFake(newBooks())
			f.failRun = map[string]int{"2-0.b": 1}
			cfg := Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: f}
			cfg.Retries = retries
			sum, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			rows := byID(t, st, sum.RunID)
			b, c, top := rows["2-0.b"], rows["2-0.c"], rows["2-0"]
			if retries == 1 {
				if b.State != store.Succeeded || b.Attempts != 2 || c.State != store.Succeeded || top.State != store.Succeeded {
					t.Fatalf("b %+v c %+v top %+v", b, c, top)
				}
				return
			}
			if b.State != store.Failed || *b.ExitStatus != 1 || c.State != store.Failed || c.Reason != "predecessor 2-0.b failed" ||
				c.SubmitNS != 0 || top.State != store.Failed {
				t.Fatalf("b %+v c %+v top %+v", b, c, top)
			}
		})
	}
}

// The tail cancels what is left, and records it.
func TestTail(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), composite("2-0", 0, []string{"a", "b"}, "a>b")}
	st := openStore(t)
	b := newBooks()
	f := newFake(b)
	f.hold = true
	cfg := Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: f}
	cfg.Tail, cfg.HasTail = 100*time.Millisecond, true
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows := byID(t, st, sum.RunID)
	if r := rows["1-0"]; r.State != store.Cancelled || r.StartNS == 0 || r.EndNS == 0 || !strings.Contains(r.Reason, "tail") {
		t.Fatalf("1-0 %+v", r)
	}
	if r := rows["2-0.b"]; r.State != store.NeverStarted || r.SubmitNS != 0 {
		t.Fatalf("2-0.b %+v", r)
	}
	if r := rows["2-0"]; r.State != store.Cancelled {
		t.Fatalf("2-0 %+v", r)
	}
	if !b.cancelled[record.Key(sum.RunID, "1-0", 1)] || !b.cancelled[record.Key(sum.RunID, "2-0.a", 1)] {
		t.Fatalf("not cancelled at the target: %v", b.cancelled)
	}
}

// The in-flight cap holds jobs back.
func TestMaxInFlight(t *testing.T) {
	var jobs []workload.Job
	for i := 0; i < 12; i++ {
		jobs = append(jobs, unitary(fmt.Sprintf("1-%d", i), 0))
	}
	st := openStore(t)
	b := newBooks()
	f := newFake(b)
	f.submitDelay = 2 * time.Millisecond
	cfg := Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: f}
	cfg.MaxInFlight = 2
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Jobs[store.Succeeded] != 12 || b.maxRun > 2 {
		t.Fatalf("summary %+v, max running %d", sum.Jobs, b.maxRun)
	}
}

// Interrupting a run and resuming it completes it without submitting any
// job twice; a submission whose intent was recorded but whose result was
// not (the crash window) is found at the target, not made again.
func TestResumeIdempotent(t *testing.T) {
	var jobs []workload.Job
	for i := 0; i < 40; i++ {
		jobs = append(jobs, unitary(fmt.Sprintf("1-%d", i), time.Duration(i)*10*time.Millisecond))
	}
	jobs = append(jobs, composite("2-0", 100*time.Millisecond, []string{"a", "b", "c"}, "a>b", "b>c"))
	dir := testkit.WriteWorkload(t, jobs...)
	st := openStore(t)
	b := newBooks()
	ctx, cancel := context.WithCancel(context.Background())
	var runID string
	f := newFake(b)
	f.onSubmit = func(n int) {
		if n == 10 {
			cancel() // interrupted after the 10th submission
		}
	}
	cfg := Config{WorkloadDir: dir, Store: st, Target: f, OnStart: func(id string) { runID = id }}
	sum, err := Run(ctx, cfg)
	if !errors.Is(err, ErrInterrupted) || sum.Status != "interrupted" {
		t.Fatalf("first run: %v %+v", err, sum)
	}
	done := byID(t, st, runID)
	if len(done) >= 44 {
		t.Fatalf("%d jobs done at the interrupt", len(done))
	}

	// The crash window: an intent recorded, the job submitted at the
	// target, the result never recorded.
	subs, _ := st.Submissions(runID)
	results, _ := st.Results(runID)
	have := map[string]bool{}
	for _, r := range results {
		have[r.Key] = true
	}
	key := ""
	for _, s := range subs {
		if !have[s.Key] {
			key = s.Key
		}
	}
	if key == "" {
		t.Fatal("no submission in the crash window (intent without result) after the interrupt")
	}
	b.submits[key] = 1

	sum, err = Run(context.Background(), Config{WorkloadDir: dir, Store: st, Target: newFake(b), Resume: runID})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != store.RunCompleted || sum.Jobs[store.Succeeded] != 41 || sum.Tasks[store.Succeeded] != 3 || sum.Recovered != 1 {
		t.Fatalf("resumed: %+v", sum)
	}
	for k, n := range b.submits {
		if n != 1 {
			t.Fatalf("%s submitted %d times", k, n)
		}
	}
	if len(b.submits) != 40+3 {
		t.Fatalf("%d keys submitted", len(b.submits))
	}
	rows := byID(t, st, runID)
	if len(rows) != 44 {
		t.Fatalf("%d rows", len(rows))
	}
	results, _ = st.Results(runID)
	for _, r := range results {
		if r.Key == key && !r.Recovered {
			t.Fatalf("crash-window submission not recovered: %+v", r)
		}
	}
	ps, _ := st.Provenance(runID)
	if len(ps) != 2 || ps[1].Seq != 1 {
		t.Fatalf("provenance records: %d", len(ps))
	}
	// A finished run cannot be resumed.
	if _, err := Run(context.Background(), Config{WorkloadDir: dir, Store: st, Target: newFake(b), Resume: runID}); !errors.Is(err, record.ErrRunEnded) {
		t.Fatalf("resume of a finished run: %v", err)
	}
	if _, err := Run(context.Background(), Config{WorkloadDir: dir, Store: st, Target: newFake(b), Resume: "nope"}); !errors.Is(err, record.ErrUnknownRun) {
		t.Fatalf("resume of an unknown run: %v", err)
	}
}

// A run's settings are kept with it, and the end summary is JSON.
func TestRunRecordsSettings(t *testing.T) {
	st := openStore(t)
	cfg := Config{WorkloadDir: testkit.WriteWorkload(t, []workload.Job{unitary("1-0", 0)}...), Store: st, Target: NewDryRun()}
	cfg.Workers, cfg.Speedup, cfg.Retries = 3, 2.5, 1
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run, _ := st.Run(sum.RunID)
	var s Settings
	if err := json.Unmarshal([]byte(run.Settings), &s); err != nil || s.Workers != 3 || s.Speedup != 2.5 || s.Retries != 1 {
		t.Fatalf("settings %s %v", run.Settings, err)
	}
	end, _, _ := st.RunEnd(sum.RunID)
	var m map[string]any
	if err := json.Unmarshal([]byte(end.Summary), &m); err != nil || m["jobs"] == nil {
		t.Fatalf("summary %s %v", end.Summary, err)
	}
}

// When the store fails the run stops submitting at once (a submission that
// cannot be recorded must not be made) and Run reports the failure.
func TestStoreFailureStops(t *testing.T) {
	var jobs []workload.Job
	for i := 0; i < 50; i++ {
		jobs = append(jobs, unitary(fmt.Sprintf("1-%d", i), time.Duration(i)*10*time.Millisecond))
	}
	st := openStore(t)
	b := newBooks()
	f := newFake(b)
	f.onSubmit = func(n int) {
		if n == 5 {
			st.DB().Close() // the disk went away
		}
	}
	_, err := Run(context.Background(), Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: f})
	if err == nil || errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "results store") {
		t.Fatalf("Run: %v", err)
	}
	b.mu.Lock()
	n := len(b.submits)
	b.mu.Unlock()
	if n >= 50 {
		t.Fatalf("%d jobs submitted after the store failed", n)
	}
}
