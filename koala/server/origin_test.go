package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/persist"
	"github.com/gmark/gmark/workload"
)

// startDeadlines serves examples/deadlines/grid.toml (local workloads on
// four clusters) 1000 times faster than the wall clock.
func startDeadlines(t *testing.T, await bool) *httptest.Server {
	t.Helper()
	hs, _ := startDeadlinesOn(t, filepath.Join(t.TempDir(), "state.db"), await)
	return hs
}

// startDeadlinesOn is startDeadlines on a given state; stop stops it.
func startDeadlinesOn(t *testing.T, state string, await bool) (hs *httptest.Server, stop func()) {
	t.Helper()
	g, err := grid.Load("../../examples/deadlines/grid.toml")
	if err != nil {
		t.Fatal(err)
	}
	g.Scheduler.TimeScale = 1000
	srv, err := New(Config{Grid: g, State: state, Token: token, MaxWait: 20 * time.Millisecond, AwaitRun: await})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	hs = httptest.NewServer(srv.Handler())
	var once sync.Once
	stop = func() {
		once.Do(func() {
			hs.Close()
			cancel()
			if err := <-done; err != nil {
				t.Errorf("server: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return hs, stop
}

// coreNow reads the server's clock from /v1/health: its core time now.
func coreNow(t *testing.T, base string) time.Time {
	t.Helper()
	_, b := request(t, "GET", base+"/v1/health", "", "", false)
	var h struct {
		Clock struct {
			Scale      float64   `json:"scale"`
			Origin     time.Time `json:"origin"`
			WallOrigin time.Time `json:"wall_origin"`
		} `json:"clock"`
	}
	if err := json.Unmarshal(b, &h); err != nil || h.Clock.Scale == 0 {
		t.Fatalf("health %s: %v", b, err)
	}
	return h.Clock.Origin.Add(time.Duration(float64(time.Since(h.Clock.WallOrigin)) * h.Clock.Scale))
}

// localJobs is the local users' jobs the server's core counts.
func localJobs(t *testing.T, base string) int {
	t.Helper()
	code, b := request(t, "GET", base+"/v1/deadlines", "", "", false)
	var d struct {
		LocalJobs int `json:"local_jobs"`
	}
	if code != http.StatusOK || json.Unmarshal(b, &d) != nil {
		t.Fatalf("deadlines: %d %s", code, b)
	}
	return d.LocalJobs
}

func begin(t *testing.T, base string, origin time.Time, warmupS float64) (int, beginAnswer, string) {
	t.Helper()
	code, b := request(t, "POST", base+"/v1/run/begin", fmt.Sprintf(`{"origin":%q,"warmup_s":%g}`, origin.Format(time.RFC3339Nano), warmupS), "application/json", true)
	var a beginAnswer
	_ = json.Unmarshal(b, &a)
	return code, a, string(b)
}

// A core serving with AwaitRun holds its local workloads until a run
// declares its origin; then they start at the origin less the warm-up.
func TestAwaitRunHoldsLocalWorkloads(t *testing.T) {
	hs := startDeadlines(t, true)
	time.Sleep(300 * time.Millisecond) // 300 core seconds: about 16 local jobs, were they not held
	if n := localJobs(t, hs.URL); n != 0 {
		t.Fatalf("%d local jobs before the run's origin", n)
	}
	origin := coreNow(t, hs.URL).Add(100 * time.Second)
	code, a, body := begin(t, hs.URL, origin, 50)
	if code != http.StatusOK || !a.Aligned || !a.LocalFrom.Equal(origin.Add(-50*time.Second)) || !a.Origin.Equal(origin) {
		t.Fatalf("begin: %d %s", code, body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for localJobs(t, hs.URL) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no local job after the origin")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, _, body := begin(t, hs.URL, origin.Add(time.Hour), 0); code != http.StatusConflict || !strings.Contains(body, "already set") {
		t.Errorf("a second origin: %d %s", code, body)
	}
}

// Without AwaitRun the local workloads run from the core's start: a run's
// origin is taken, but says it is not aligned. Bad requests are refused.
func TestBeginEdges(t *testing.T) {
	hs := startDeadlines(t, false)
	deadline := time.Now().Add(20 * time.Second)
	for localJobs(t, hs.URL) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no local job from the core's start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	now := coreNow(t, hs.URL)
	for _, c := range []struct {
		body string
		auth bool
		code int
		want string
	}{
		{`{"origin":"` + now.Add(time.Hour).Format(time.RFC3339Nano) + `"}`, false, http.StatusUnauthorized, ""},
		{`{}`, true, http.StatusBadRequest, "origin"},
		{`{"origin":"` + now.Add(time.Hour).Format(time.RFC3339Nano) + `","warmup_s":-1}`, true, http.StatusBadRequest, "warm-up"},
		{`{"origin":"yesterday"}`, true, http.StatusBadRequest, "body"},
		{`{"origin":"` + now.Add(-time.Hour).Format(time.RFC3339Nano) + `"}`, true, http.StatusConflict, "before the core's time"},
		{`{"origin":"` + now.Add(time.Hour).Format(time.RFC3339Nano) + `","warmup_s":7200}`, true, http.StatusConflict, "before the core's time"},
	} {
		code, b := request(t, "POST", hs.URL+"/v1/run/begin", c.body, "application/json", c.auth)
		if code != c.code || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %s, want %d about %q", c.body, code, b, c.code, c.want)
		}
	}
	origin := now.Add(time.Hour)
	code, a, body := begin(t, hs.URL, origin, 0)
	if code != http.StatusOK || a.Aligned || !a.LocalFrom.Before(now) {
		t.Errorf("begin on a core whose local jobs run: %d %s, want taken, not aligned", code, body)
	}
}

// A core restarted with AwaitRun on a state it ran on before (a resumed
// run, which declares no origin) starts its local workloads at once.
func TestAwaitRunRestartedStartsLocalWorkloads(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	hs, stop := startDeadlinesOn(t, state, true)
	time.Sleep(300 * time.Millisecond) // scans: events, committed
	if n := localJobs(t, hs.URL); n != 0 {
		t.Fatalf("%d local jobs while held", n)
	}
	stop()
	hs, _ = startDeadlinesOn(t, state, true)
	deadline := time.Now().Add(20 * time.Second)
	for localJobs(t, hs.URL) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the restarted core holds its local workloads")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// submitDeadline submits a job whose workload says: submitted at 100 s,
// start deadline at 5,000 s (from the workload's start), and returns the
// deadline the core gave it and the job's id.
func submitDeadline(t *testing.T, base, id string) (time.Time, string) {
	t.Helper()
	j := workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered, RunTime: time.Minute,
		Submit: 100 * time.Second, Deadline: 5000 * time.Second, App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: 2}}}
	code, resp := request(t, "POST", base+"/v1/jobs", fmt.Sprintf(`{"job":%s}`, j.AppendJSON(nil)), "application/json", true)
	var v JobView
	if code != http.StatusCreated || json.Unmarshal(resp, &v) != nil || v.Deadline == nil {
		t.Fatalf("submit: %d %s", code, resp)
	}
	return *v.Deadline, v.ID
}

// jobDeadline is a job's start deadline as the core shows it.
func jobDeadline(t *testing.T, base, id string) time.Time {
	t.Helper()
	code, resp := request(t, "GET", base+"/v1/jobs/"+id, "", "", true)
	var v JobView
	if code != http.StatusOK || json.Unmarshal(resp, &v) != nil || v.Deadline == nil {
		t.Fatalf("job %s: %d %s", id, code, resp)
	}
	return *v.Deadline
}

// A run's origin is kept with the core's state: after a restart (a crash,
// a kill) the deadlines of the run's jobs, restored or submitted later,
// count from it, as before; a job submitted before the run declared it
// keeps counting from its submission; a core on a fresh state counts them
// from each submission.
func TestOriginSurvivesRestart(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	hs, stop := startDeadlinesOn(t, state, false)
	early, earlyID := submitDeadline(t, hs.URL, "early") // before the run's origin: from its submission
	origin := coreNow(t, hs.URL).Add(30 * time.Second)
	if code, _, body := begin(t, hs.URL, origin, 0); code != http.StatusOK {
		t.Fatalf("begin: %d %s", code, body)
	}
	want := origin.Add(5000 * time.Second)
	before, beforeID := submitDeadline(t, hs.URL, "before")
	if !before.Equal(want) || early.Equal(want) {
		t.Fatalf("deadlines before the restart: %v (submitted before the origin), %v; want the origin %v + 5000 s for the second only", early, before, origin)
	}
	stop()
	hs, stop = startDeadlinesOn(t, state, false)
	if d, _ := submitDeadline(t, hs.URL, "after"); !d.Equal(want) {
		t.Errorf("deadline %v after the restart, want the origin %v + 5000 s", d, origin)
	}
	if d := jobDeadline(t, hs.URL, beforeID); !d.Equal(want) {
		t.Errorf("restored: deadline %v, want %v", d, want)
	}
	if d := jobDeadline(t, hs.URL, earlyID); !d.Equal(early) {
		t.Errorf("restored, submitted before the origin: deadline %v, want %v as before", d, early)
	}
	if code, _, body := begin(t, hs.URL, coreNow(t, hs.URL).Add(time.Hour), 0); code != http.StatusConflict || !strings.Contains(body, "already set") {
		t.Errorf("a second origin after the restart: %d %s", code, body)
	}
	stop()

	fresh, _ := startDeadlinesOn(t, filepath.Join(t.TempDir(), "state.db"), false)
	now := coreNow(t, fresh.URL)
	d, _ := submitDeadline(t, fresh.URL, "no-origin")
	if lead := d.Sub(now); lead < 4900*time.Second || lead > 4900*time.Second+time.Minute {
		t.Errorf("without an origin the deadline is %v after the submission, want 4,900 s (5,000 − 100) and the submission's lag", lead)
	}
}

// A state whose kept origin cannot be read is refused with what is wrong,
// not taken as a run without one.
func TestBadKeptOrigin(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	st, err := persist.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetMeta(originMeta, "soon"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	g, err := grid.Load("../../examples/deadlines/grid.toml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Grid: g, State: state, Token: token}); err == nil || !strings.Contains(err.Error(), `the state's run origin "soon"`) {
		t.Errorf("New: %v", err)
	}
}

// A run that names no warm-up gets the grid's local_warmup: its local
// workloads start that long before its origin, the answer says the run
// is aligned, and /v1/health tells clients the warm-up to leave room for.
func TestBeginTakesTheGridsWarmup(t *testing.T) {
	g, err := grid.Load("../../examples/deadlines/grid.toml")
	if err != nil {
		t.Fatal(err)
	}
	g.Scheduler.TimeScale = 1000
	g.Scheduler.LocalWarmup.Duration = 50 * time.Second
	srv, err := New(Config{Grid: g, State: filepath.Join(t.TempDir(), "state.db"), Token: token, MaxWait: 20 * time.Millisecond, AwaitRun: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	hs := httptest.NewServer(srv.Handler())
	defer func() { hs.Close(); cancel(); <-done }()
	_, b := request(t, "GET", hs.URL+"/v1/health", "", "", false)
	var h struct {
		LocalWarmupS float64 `json:"local_warmup_s"`
	}
	if err := json.Unmarshal(b, &h); err != nil || h.LocalWarmupS != 50 {
		t.Errorf("health %s: local_warmup_s %v, want 50", b, h.LocalWarmupS)
	}
	origin := coreNow(t, hs.URL).Add(100 * time.Second)
	code, a, body := begin(t, hs.URL, origin, 0)
	if code != http.StatusOK || !a.Aligned || !a.LocalFrom.Equal(origin.Add(-50*time.Second)) {
		t.Errorf("begin with no warm-up: %d %s, want aligned, local workloads from the origin less 50 s", code, body)
	}
}
