package koalatarget

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
)

// A run on a core with local workloads declares its origin: the core's
// local workloads start there (aligned), each job's start deadline is the
// origin plus the workload's deadline to the nanosecond however late its
// submission landed, and when the run ends the core's deadline figures
// are recorded with it (the koala-deadlines annotation the report reads).
// With the grid's local_warmup the local workloads start that long before
// the origin, which the run moves later by as much.
func TestRunDeclaresItsOriginAndRecordsDeadlines(t *testing.T) {
	for _, warmup := range []time.Duration{0, 10 * time.Minute} {
		t.Run(fmt.Sprint("local_warmup ", warmup), func(t *testing.T) { runWithOrigin(t, warmup) })
	}
}

func runWithOrigin(t *testing.T, warmup time.Duration) {
	g, err := grid.Load("../../examples/deadlines/grid.toml")
	if err != nil {
		t.Fatal(err)
	}
	g.Scheduler.TimeScale = 200
	g.Scheduler.LocalWarmup.Duration = warmup
	l, err := StartLocal(g, filepath.Join(t.TempDir(), "core.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Stop() })
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tg, err := New(Config{Endpoint: l.Endpoint, Token: l.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	jobs := testkit.DeadlineJobs(4)
	res, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...),
		Store: st, Target: tg, Settings: submitter.Settings{Workers: 2, Speedup: 200}})
	if err != nil {
		t.Fatal(err)
	}
	var origin struct {
		Origin    time.Time `json:"origin"`
		LocalFrom time.Time `json:"local_from"`
		Aligned   bool      `json:"aligned"`
	}
	as, err := st.Annotations(res.RunID, "koala")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		if a.Key == "origin" {
			if err := json.Unmarshal([]byte(a.Value), &origin); err != nil {
				t.Fatalf("origin %s: %v", a.Value, err)
			}
		}
	}
	if !origin.Aligned || origin.Origin.IsZero() || !origin.LocalFrom.Equal(origin.Origin.Add(-warmup)) {
		t.Fatalf("origin %+v: want aligned, the local workloads from the origin less %v", origin, warmup)
	}
	for _, j := range jobs {
		vs, err := server.GetJobs(context.Background(), http.DefaultClient, l.Endpoint, "", []string{res.RunID + "/" + j.ID + "/1"})
		if err != nil || len(vs) != 1 || vs[0].Deadline == nil {
			t.Fatalf("job %s: %+v %v", j.ID, vs, err)
		}
		v := vs[0]
		if got := v.Deadline.Sub(origin.Origin); got != j.Deadline {
			t.Errorf("job %s: deadline origin + %v, want + %v (submitted at origin + %v)", j.ID, got, j.Deadline, v.Submitted.Sub(origin.Origin))
		}
	}
	ds, err := st.Annotations(res.RunID, record.AnnotationKoalaDeadlines)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deadline annotations %v (%v), want one", ds, err)
	}
	var d struct {
		GlobalJobs    int `json:"global_jobs"`
		GlobalStarted int `json:"global_started"`
		LocalJobs     int `json:"local_jobs"`
	}
	if err := json.Unmarshal([]byte(ds[0].Value), &d); err != nil || d.GlobalJobs != len(jobs) || d.GlobalStarted > d.GlobalJobs || d.LocalJobs == 0 {
		t.Errorf("deadlines %s (%v): want %d global jobs and some local ones", ds[0].Value, err, len(jobs))
	}
}

// A schedule compressed otherwise than the core's clock declares no
// origin (workload times are not core times there), and a core whose
// origin an earlier run set leaves the next run's as it was: both runs
// complete, and say why in a koala annotation or a warning.
func TestOriginNotDeclared(t *testing.T) {
	l := startCore(t) // time scale 100
	for _, c := range []struct {
		speedup float64
		kind    string
		want    string
	}{
		{1, "koala", "not declared"},
		{100, "koala", "\"aligned\":true"},
		{100, "target-warning", "already set"},
	} {
		rep := newReporter()
		tg := newTarget(t, l, rep)
		earliest := time.Now().Add(100 * time.Millisecond)
		got, err := tg.Origin(context.Background(), earliest, c.speedup)
		if err != nil || !got.Equal(earliest) {
			t.Errorf("speedup %g: %v, %v; want the earliest anchor", c.speedup, got, err)
		}
		notes := fmt.Sprint(rep.notes["origin"])
		if !containsAll(notes, c.kind, c.want) {
			t.Errorf("speedup %g: notes %s, want %s about %q", c.speedup, notes, c.kind, c.want)
		}
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
