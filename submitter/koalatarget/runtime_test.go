package koalatarget

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/apps"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/workload"
)

// runTimeJobs: a hello job with no run time (the model's), an swf job with
// one (the job's) and a program gmark does not know (default_runtime).
func runTimeJobs() []workload.Job {
	one := []workload.Component{{Site: "*", Count: 1}}
	return []workload.Job{
		{ID: "hello", Kind: workload.Unitary, Type: "hello", SiteType: workload.Single, App: workload.App{Name: "hello"}, Components: one},
		{ID: "swf", Kind: workload.Unitary, Type: "swf", SiteType: workload.Single, RunTime: 30 * time.Second,
			App: workload.App{Name: "swf", Params: []workload.Param{{Key: "runtime", Value: "30"}}}, Components: one},
		{ID: "exec", Kind: workload.Unitary, Type: "exec", SiteType: workload.Single,
			App: workload.App{Name: "exec", Params: []workload.Param{{Key: "executable", Value: "/bin/true"}}}, Components: one},
	}
}

var runTimeWant = map[string]struct {
	source string
	rt     func(t *testing.T) time.Duration
}{
	"hello": {"model", func(t *testing.T) time.Duration {
		d, err := apps.RunTime("hello", nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}},
	"swf":  {"job", func(*testing.T) time.Duration { return 30 * time.Second }},
	"exec": {"default", func(*testing.T) time.Duration { return time.Minute }},
}

// A run on the core records, in each job's started event, the core's
// event, which says how long the job was emulated for and why; the query
// docs/store.md gives reads it.
func TestStartedDetailSaysWhereTheRunTimeCameFrom(t *testing.T) {
	l := startCore(t)
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
	res, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, runTimeJobs()...),
		Store: st, Target: tg, Settings: submitter.Settings{Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	conn, release, err := st.QueryConn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	rows, err := conn.QueryContext(context.Background(), `
SELECT job_id, json_extract(payload, '$.detail.runtime_source') AS source,
       json_extract(payload, '$.detail.runtime_ns') / 1e9 AS runtime_s
FROM events WHERE run_id = ? AND kind = 'started' ORDER BY id;`, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var job, source string
		var secs float64
		if err := rows.Scan(&job, &source, &secs); err != nil {
			t.Fatal(err)
		}
		want := runTimeWant[job]
		if d := time.Duration(secs * 1e9); source != want.source || (d-want.rt(t)).Abs() > time.Microsecond {
			t.Errorf("%s: started %v from %q, want %v from %q", job, d, source, want.rt(t), want.source)
		}
		seen[job] = true
	}
	if err := rows.Err(); err != nil || len(seen) != len(runTimeWant) {
		t.Errorf("started events of %v (%v), want %d", seen, err, len(runTimeWant))
	}
}

// A simulated run records the same in its events' payloads.
func TestSimulatedEventsSayWhereTheRunTimeCameFrom(t *testing.T) {
	g, err := grid.Parse("g.toml", []byte("name = \"one\"\n[[cluster]]\nname = \"A\"\nprocessors = 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "wl")
	if err := workload.WriteDir(dir, runTimeJobs(), &workload.Manifest{}, false); err != nil {
		t.Fatal(err)
	}
	s, err := Simulate(g, dir, SimOptions{Limit: time.Hour, Records: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.finishedJobs()); n != len(runTimeJobs()) {
		t.Fatalf("%d jobs recorded, want %d", n, len(runTimeJobs()))
	}
	for _, f := range s.finishedJobs() {
		want := runTimeWant[f.JobID]
		if got := time.Duration(f.EndNS - f.StartNS); got != want.rt(t) {
			t.Errorf("%s: ran %v, want %v", f.JobID, got, want.rt(t))
		}
		if len(f.Events) < 2 {
			t.Fatalf("%s: events %+v", f.JobID, f.Events)
		}
		for _, ev := range f.Events {
			var p struct {
				Source string `json:"runtime_source"`
			}
			if err := json.Unmarshal([]byte(ev.Payload), &p); err != nil || p.Source != want.source {
				t.Errorf("%s %s: payload %s, want runtime_source %q", f.JobID, ev.Kind, ev.Payload, want.source)
			}
		}
	}
}
