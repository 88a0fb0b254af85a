package koalatarget

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/workload"
)

// whyGrid is the hand-built grid of the placement-reason tests: A has 8
// processors, B 16 and a 1 TB file (a week away from A at 1 MB/s). The
// core's clock runs 100 times faster than the wall clock: a scan every
// 0.6 s.
const whyGrid = `name = "why"
[scheduler]
policy = "WF"
time_scale = 100
[network]
default_bandwidth = "1MB/s"
[[cluster]]
name = "A"
processors = 8
failure_rate = %g
[[cluster]]
name = "B"
processors = 16
[[file]]
name = "big"
size = "1TB"
sites = ["B"]
`

// coreCall makes one state-changing request of the core's API.
func coreCall(t *testing.T, l *Local, path, body string) {
	t.Helper()
	req, err := http.NewRequest("POST", l.Endpoint+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+l.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s %s: %s", path, body, resp.Status)
	}
}

func unitary(id string, files []workload.File, sizes ...int) workload.Job {
	j := workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered, RunTime: time.Minute,
		App: workload.App{Name: "swf"}, Files: files}
	for _, n := range sizes {
		j.Components = append(j.Components, workload.Component{Site: workload.AnySite, Count: n})
	}
	return j
}

// codes renders reasons as "A:busy B:down".
func codes(rs []placement.Reason) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.Site+":"+r.Code.String())
	}
	return strings.Join(parts, " ")
}

// A queued job's placement-failure reason is visible through the
// API and in the results store, for each reason, on a hand-built grid. A
// run of the real submitter puts one job that cannot be placed on the core,
// through this target; the job stays queued, and both the core's API and the
// run's store say why.
func TestPlacementReasonsThroughTheAPIAndTheStore(t *testing.T) {
	local := func(site string, n int) string {
		return fmt.Sprintf(`/v1/clusters/%s/local-jobs {"size": %d, "runtime": "8000h"}`, site, n)
	}
	// hold is a job placed on all of A whose file takes a week to arrive:
	// A's processors stay soft-reserved for it.
	hold := unitary("hold", []workload.File{{Name: "big", Size: 1 << 40}}, 8)
	hold.Components[0].Site = "A"
	cases := []struct {
		name        string
		failureRate float64  // of A
		setup       []string // "PATH BODY" requests, in order
		hold        bool     // submit the hold job first
		job         workload.Job
		want        string
	}{
		{name: "no site big enough", setup: []string{"/v1/clusters/B/down {}"},
			job: unitary("1-0", nil, 12), want: "A:too_small B:down"},
		{name: "cluster down", setup: []string{local("A", 8), `/v1/clusters/B/down {"reason": "maintenance"}`},
			job: unitary("1-0", nil, 4), want: "A:busy B:down"},
		{name: "busy", setup: []string{local("A", 6), local("B", 14)},
			job: unitary("1-0", nil, 4), want: "A:busy B:busy"},
		{name: "soft reservation", setup: []string{local("B", 14)}, hold: true,
			job: unitary("1-0", nil, 4), want: "A:reserved B:busy"},
		{name: "taken by the job's larger components", setup: []string{local("A", 2), local("B", 14)},
			job: unitary("1-0", nil, 4, 3), want: "A:taken_by_job B:busy"},
		{name: "no replica reachable",
			job: unitary("1-0", []workload.File{{Name: "nowhere", Size: 1}}, 4), want: "A:no_replica B:no_replica"},
		{name: "excluded after errors", failureRate: 1, setup: []string{local("B", 14)},
			job: unitary("1-0", nil, 4), want: "A:excluded B:busy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := grid.Parse("why.toml", []byte(fmt.Sprintf(whyGrid, tc.failureRate)))
			if err != nil {
				t.Fatal(err)
			}
			l, err := StartLocal(g, filepath.Join(t.TempDir(), "core.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Stop() })
			for _, s := range tc.setup {
				path, body, _ := strings.Cut(s, " ")
				coreCall(t, l, path, body)
			}
			if tc.hold {
				coreCall(t, l, "/v1/jobs", `{"job": `+string(hold.AppendJSON(nil))+`}`)
			}
			st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			tg, err := New(Config{Endpoint: l.Endpoint, Token: l.Token})
			if err != nil {
				t.Fatal(err)
			}
			runID := make(chan string, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := submitter.Run(ctx, submitter.Config{WorkloadDir: testkit.WriteWorkload(t, tc.job), Store: st, Target: tg,
					Settings: submitter.Settings{Workers: 1, Tail: time.Hour, HasTail: true},
					OnStart:  func(id string) { runID <- id }})
				done <- err
			}()
			var run string
			select {
			case run = <-runID:
			case err := <-done:
				t.Fatalf("the run ended before it started: %v", err)
			}
			key := run + "/1-0/1"

			// The API: the job is queued, and says why.
			var view server.JobView
			waitFor(t, "the job's reasons in the API", func() bool {
				jobs, err := server.GetJobs(ctx, http.DefaultClient, l.Endpoint, "", []string{key})
				if err == nil {
					view = jobs[0]
				}
				return err == nil && codes(view.Why) == tc.want
			})
			if view.State != "queued" {
				t.Errorf("the job is %s", view.State)
			}
			for _, r := range view.Why {
				if r.Component != 0 && !(tc.name == "taken by the job's larger components" && r.Component == 1) {
					t.Errorf("reason %+v: which component?", r)
				}
			}

			// The store: the core's placement_failed event, recorded by the
			// target as a koala-event annotation of the submission.
			var got []placement.Reason
			var raw string
			waitFor(t, "a placement_failed event in the store", func() bool {
				notes, err := st.Annotations(run, "koala-event")
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range notes {
					var e struct {
						Kind    string             `json:"kind"`
						Reasons []placement.Reason `json:"reasons"`
					}
					if json.Unmarshal([]byte(n.Value), &e) == nil && n.Key == key && e.Kind == "placement_failed" {
						got, raw = e.Reasons, n.Value
					}
				}
				return codes(got) == tc.want
			})
			var words struct {
				Reasons []struct{ Message string } `json:"reasons"`
			}
			if err := json.Unmarshal([]byte(raw), &words); err != nil || words.Reasons[0].Message != got[0].Message() {
				t.Errorf("the recorded event does not say the reason in words: %s", raw)
			}
			cancel()
			if err := <-done; err != nil && !errors.Is(err, submitter.ErrInterrupted) && !errors.Is(err, context.Canceled) {
				t.Errorf("run: %v", err)
			}
			tg.Close()
			// The query docs/store.md gives reads them as well.
			if got := storeQuery(t, st, run); got != tc.want {
				t.Errorf("docs/store.md's query: %q, want %q", got, tc.want)
			}
		})
	}
}

// storeQuery runs docs/store.md's query of placement reasons and renders
// the last change's as "A:busy B:down".
func storeQuery(t *testing.T, st *store.Store, run string) string {
	t.Helper()
	conn, release, err := st.QueryConn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	rows, err := conn.QueryContext(context.Background(), `
SELECT a.key, json_extract(a.value, '$.time') AS core_time, json_extract(r.value, '$.site') AS site,
       json_extract(r.value, '$.code') AS code, json_extract(r.value, '$.message') AS message
FROM annotations a, json_each(a.value, '$.reasons') r
WHERE a.run_id = ? AND a.kind = 'koala-event' AND json_extract(a.value, '$.kind') = 'placement_failed'
ORDER BY a.id;`, run)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	last, parts := "", []string(nil)
	for rows.Next() {
		var key, when, site, code, message string
		if err := rows.Scan(&key, &when, &site, &code, &message); err != nil {
			t.Fatal(err)
		}
		if when != last { // a later change of the reasons
			last, parts = when, nil
		}
		parts = append(parts, site+":"+code)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(parts, " ")
}

// waitFor polls cond until it holds; the deadline only ends a test that
// would otherwise hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
