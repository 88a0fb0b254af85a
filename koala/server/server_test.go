package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/workload"
)

const token = "s3cret"

// start runs a server on a real loopback port with a grid whose clock runs
// 1000 times faster than the wall clock, so emulated jobs end quickly.
func start(t testing.TB, state string) (*httptest.Server, *Server, context.CancelFunc) {
	return startScaled(t, state, 1000)
}

func startScaled(t testing.TB, state string, scale float64) (*httptest.Server, *Server, context.CancelFunc) {
	t.Helper()
	return startWith(t, state, scale, HTTPLimits{})
}

// startWith starts a server with these HTTP limits (zero: the defaults).
func startWith(t testing.TB, state string, scale float64, limits HTTPLimits) (*httptest.Server, *Server, context.CancelFunc) {
	t.Helper()
	g, err := grid.Load("../../examples/das2.toml")
	if err != nil {
		t.Fatal(err)
	}
	g.Scheduler.TimeScale = scale
	for i := range g.Clusters {
		g.Clusters[i].Background = grid.Background{}
	}
	if state == "" {
		state = filepath.Join(t.TempDir(), "state.db")
	}
	srv, err := New(Config{Grid: g, State: state, Token: token, MaxWait: 20 * time.Millisecond, HTTP: limits})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	// A real loopback listener with the server's own limits, as serve runs it.
	ln, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: srv.HTTPServer()}
	hs.Start()
	stop := func() {
		hs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	}
	t.Cleanup(func() {
		select {
		case <-srv.done:
		default:
			stop()
		}
	})
	return hs, srv, stop
}

func request(t testing.TB, method, url, body, contentType string, auth bool) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if auth {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func jobJSON(id string, procs int, runtime time.Duration) string {
	j := workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered, RunTime: runtime,
		App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: procs}}}
	return string(j.AppendJSON(nil))
}

func submitBody(id string, procs int, runtime time.Duration, key string) string {
	return fmt.Sprintf(`{"job":%s,"policy":"WF","priority":"high","key":%q}`, jobJSON(id, procs, runtime), key)
}

func waitState(t *testing.T, base, id, want string) JobView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := request(t, "GET", base+"/v1/jobs/"+id, "", "", false)
		var v JobView
		if code == http.StatusOK {
			_ = json.Unmarshal(body, &v)
			if string(v.State) == want {
				return v
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: %d %s, never %s", id, code, body, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTokenIsRequiredToChangeState(t *testing.T) {
	hs, _, _ := start(t, "")
	for _, c := range []struct{ method, path string }{
		{"POST", "/v1/jobs"}, {"DELETE", "/v1/jobs/k1"}, {"POST", "/v1/clusters/fs0/down"},
		{"POST", "/v1/clusters/fs0/up"}, {"POST", "/v1/clusters/fs0/local-jobs"},
	} {
		code, body := request(t, c.method, hs.URL+c.path, submitBody("a", 1, time.Minute, ""), "application/json", false)
		if code != http.StatusUnauthorized || !strings.Contains(string(body), "token") {
			t.Errorf("%s %s without a token: %d %s", c.method, c.path, code, body)
		}
		req, _ := http.NewRequest(c.method, hs.URL+c.path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer wrong")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s with a wrong token: %d", c.method, c.path, resp.StatusCode)
		}
	}
	// Reading needs no token.
	for _, path := range []string{"/v1/health", "/v1/jobs", "/v1/clusters", "/v1/utilization", "/metrics"} {
		if code, body := request(t, "GET", hs.URL+path, "", "", false); code != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
}

func TestSubmitRunAndObserve(t *testing.T) {
	hs, _, _ := start(t, "")
	code, body := request(t, "POST", hs.URL+"/v1/jobs", submitBody("1-0", 16, 60*time.Second, "run1/1-0"), "application/json", true)
	if code != http.StatusCreated {
		t.Fatalf("submit: %d %s", code, body)
	}
	var v JobView
	if err := json.Unmarshal(body, &v); err != nil || v.ID == "" || v.Name != "1-0" || v.Key != "run1/1-0" {
		t.Fatalf("submit reply %s (%v)", body, err)
	}
	// The same key again: refused, naming the first job.
	code, body = request(t, "POST", hs.URL+"/v1/jobs", submitBody("1-0", 16, 60*time.Second, "run1/1-0"), "application/json", true)
	if code != http.StatusConflict || !strings.Contains(string(body), `"id":"`+v.ID+`"`) {
		t.Errorf("duplicate key: %d %s", code, body)
	}
	done := waitState(t, hs.URL, v.ID, "finished")
	if done.Start == nil || done.End == nil || done.End.Sub(*done.Start) != 60*time.Second || len(done.Sites) != 1 {
		t.Errorf("finished job %+v", done)
	}
	// The job can be looked up by its key too.
	if code, _ := request(t, "GET", hs.URL+"/v1/jobs/run1%2F1-0", "", "", false); code != http.StatusOK {
		t.Errorf("lookup by key: %d", code)
	}
	// The event stream replays the job's timeline from the database.
	code, body = request(t, "GET", hs.URL+"/v1/events?since=0&follow=false", "", "", true)
	if code != http.StatusOK {
		t.Fatalf("events: %d", code)
	}
	var kinds []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e struct {
				Kind string `json:"kind"`
				Job  string `json:"job"`
			}
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			if e.Job == v.ID {
				kinds = append(kinds, e.Kind)
			}
		}
	}
	want := "submitted placed claim_try claimed started component_start component_end finished"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events of the job:\n got %s\nwant %s", got, want)
	}
	// Metrics in Prometheus text format.
	_, body = request(t, "GET", hs.URL+"/metrics", "", "", false)
	for _, line := range []string{`gmark_koala_jobs{state="finished"} 1`, "gmark_koala_submissions_total 1", "gmark_koala_rejected_total 1",
		`gmark_koala_processors{cluster="fs0",use="total"} 144`} {
		if !strings.Contains(string(body), line) {
			t.Errorf("metrics lack %q:\n%s", line, body)
		}
	}
}

func TestSubmitKoalaJDF(t *testing.T) {
	hs, _, _ := start(t, "")
	j := workload.Job{ID: "3-1", Kind: workload.Unitary, Type: "smpi", SiteType: workload.SemiOrdered, WallTime: 10 * time.Minute,
		App:        workload.App{Name: "smpi", Params: []workload.Param{{Key: "supersteps", Value: "5"}}},
		Components: []workload.Component{{Site: "*", Count: 4}, {Site: "fs2", Count: 2}},
		Files:      []workload.File{{Name: "file-2g", Size: 2 << 30}}}
	p, _ := printers.Lookup("koala")
	var buf bytes.Buffer
	if err := p.Print(&buf, &j, printers.Config{}); err != nil {
		t.Fatal(err)
	}
	code, body := request(t, "POST", hs.URL+"/v1/jobs?policy=CF&key=jdf-1", buf.String(), "text/x-koala-jdf", true)
	if code != http.StatusCreated {
		t.Fatalf("JDF submit: %d %s", code, body)
	}
	var v JobView
	_ = json.Unmarshal(body, &v)
	if v.Name != "3-1" || len(v.Components) != 2 || v.Components[1].Fixed != "fs2" || v.Policy != "CF" {
		t.Errorf("parsed job %s", body)
	}
	// A malformed JDF: 400 with the parser's positioned message.
	code, body = request(t, "POST", hs.URL+"/v1/jobs", "+( &(count=4)(executable=\"gmark\")", "text/plain", true)
	if code != http.StatusBadRequest || !strings.Contains(string(body), "jdf:1:") {
		t.Errorf("malformed JDF: %d %s", code, body)
	}
	for _, bad := range []string{`{"job":{"id":"x"}}`, `{"job":` + jobJSON("x", 1, 0) + `,"priority":"urgent"}`, `{"nope":1}`, `not json`} {
		if code, body := request(t, "POST", hs.URL+"/v1/jobs", bad, "application/json", true); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}
	// A job too large for the grid is refused.
	if code, body := request(t, "POST", hs.URL+"/v1/jobs", submitBody("big", 400, time.Minute, ""), "application/json", true); code != http.StatusBadRequest {
		t.Errorf("oversized job: %d %s", code, body)
	}
}

func TestCancelAndClusters(t *testing.T) {
	hs, _, _ := start(t, "")
	_, body := request(t, "POST", hs.URL+"/v1/jobs", submitBody("long", 8, 24*time.Hour, ""), "application/json", true)
	var v JobView
	_ = json.Unmarshal(body, &v)
	waitState(t, hs.URL, v.ID, "running")
	if code, body := request(t, "DELETE", hs.URL+"/v1/jobs/"+v.ID, "", "", true); code != http.StatusOK {
		t.Fatalf("cancel: %d %s", code, body)
	}
	waitState(t, hs.URL, v.ID, "cancelled")
	if code, _ := request(t, "DELETE", hs.URL+"/v1/jobs/"+v.ID, "", "", true); code != http.StatusConflict {
		t.Errorf("cancelling twice: %d", code)
	}
	if code, _ := request(t, "DELETE", hs.URL+"/v1/jobs/k999", "", "", true); code != http.StatusNotFound {
		t.Errorf("cancel of an unknown job: %d", code)
	}
	// Looking up an id or key the core does not know is a 404 with a
	// message, not a crashed handler (an empty reply): the koala target's
	// crash recovery asks exactly this of every intent without a result.
	for _, id := range []string{"k999", "no-such-key", "%00", "j-1"} {
		code, body := request(t, "GET", hs.URL+"/v1/jobs/"+id, "", "", false)
		if code != http.StatusNotFound || !strings.Contains(string(body), "no job") {
			t.Errorf("GET unknown job %q: %d %s", id, code, body)
		}
	}
	code, body := request(t, "POST", hs.URL+"/v1/clusters/fs3/down", `{"reason":"maintenance"}`, "application/json", true)
	if code != http.StatusOK || !strings.Contains(string(body), `"disabled":"maintenance"`) {
		t.Errorf("down: %d %s", code, body)
	}
	if code, body := request(t, "POST", hs.URL+"/v1/clusters/fs3/up", "", "", true); code != http.StatusOK || strings.Contains(string(body), "maintenance") {
		t.Errorf("up: %d %s", code, body)
	}
	if code, _ := request(t, "POST", hs.URL+"/v1/clusters/nope/down", "", "", true); code != http.StatusNotFound {
		t.Errorf("unknown cluster: %d", code)
	}
	if code, body := request(t, "POST", hs.URL+"/v1/clusters/fs1/local-jobs", `{"size":8,"runtime":"10m"}`, "application/json", true); code != http.StatusCreated {
		t.Errorf("local job: %d %s", code, body)
	}
}

// A burst of garbage: random bytes as JDFs and JSON bodies. Every request
// gets an answer (400), and the server then still serves.
func TestSurvivesGarbage(t *testing.T) {
	hs, _, _ := start(t, "")
	r := rand.New(rand.NewPCG(1, 2))
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for w := 0; w < 8; w++ {
		seed := r.Uint64()
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(seed, 0))
			for i := 0; i < 250; i++ {
				n := rr.IntN(2048)
				b := make([]byte, n)
				for k := range b {
					b[k] = byte(rr.IntN(256))
				}
				if i%3 == 0 { // garbage shaped like a JDF
					b = append([]byte("+( &(count="), b...)
				}
				ct := "text/plain"
				if i%2 == 0 {
					ct = "application/json"
				}
				code, _ := request(t, "POST", hs.URL+"/v1/jobs", string(b), ct, true)
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if codes[http.StatusBadRequest] != 2000 {
		t.Errorf("answers to 2000 garbage requests: %v", codes)
	}
	if code, _ := request(t, "POST", hs.URL+"/v1/jobs", submitBody("ok", 1, time.Second, ""), "application/json", true); code != http.StatusCreated {
		t.Errorf("after the burst a good submission got %d", code)
	}
}

// State survives a restart: jobs and keys are still known.
func TestRestartKeepsJobs(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	hs, _, stop := start(t, state)
	_, body := request(t, "POST", hs.URL+"/v1/jobs", submitBody("a", 1, time.Minute, "key-a"), "application/json", true)
	var a JobView
	_ = json.Unmarshal(body, &a)
	waitState(t, hs.URL, a.ID, "finished")
	stop()
	hs2, _, _ := start(t, state)
	if v := waitState(t, hs2.URL, a.ID, "finished"); v.Key != "key-a" {
		t.Errorf("after restart: %+v", v)
	}
	if code, _ := request(t, "POST", hs2.URL+"/v1/jobs", submitBody("a", 1, time.Minute, "key-a"), "application/json", true); code != http.StatusConflict {
		t.Errorf("a key from before the restart was accepted again: %d", code)
	}
	_, body = request(t, "POST", hs2.URL+"/v1/jobs", submitBody("b", 1, time.Minute, "key-b"), "application/json", true)
	var b JobView
	_ = json.Unmarshal(body, &b)
	if b.ID == a.ID || b.ID == "" {
		t.Errorf("new job id %q collides with %q", b.ID, a.ID)
	}
}

// A wall time outside its range is refused with the
// reason, through JSON and through a JDF; nothing is queued for it.
func TestWallTimeOutOfRangeIsRefused(t *testing.T) {
	hs, _, _ := start(t, "")
	withWall := func(wall string) string {
		j := jobJSON("w", 1, time.Minute)
		return `{"job":` + strings.Replace(j, `{`, `{"walltime":`+wall+`,`, 1) + `}`
	}
	jdfWith := func(minutes string) string {
		return `&(count=1)(executable="gmark")(arguments="app" "hello")(maxWallTime=` + minutes + `)`
	}
	cases := []struct {
		name, body, contentType, want string
	}{
		{"negative", withWall("-5"), "application/json", "walltime -5s out of range"},
		{"below a second", withWall("0.000001"), "application/json", "walltime 1µs is out of range"},
		{"absurd", withWall("1e9"), "application/json", "walltime"},
		{"JDF absurd", jdfWith("999999999"), "text/plain", "maxWallTime"},
		{"JDF zero", jdfWith("0"), "text/plain", "maxWallTime"},
		{"JDF negative", jdfWith("-3"), "text/plain", "maxWallTime"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := request(t, "POST", hs.URL+"/v1/jobs", tc.body, tc.contentType, true)
			var e apiError
			if code != http.StatusBadRequest || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, tc.want) {
				t.Errorf("%d %s", code, body)
			}
		})
	}
	if code, body := request(t, "GET", hs.URL+"/v1/jobs", "", "", false); code != http.StatusOK || string(bytes.TrimSpace(body)) != "[]" {
		t.Errorf("refused jobs were kept: %d %s", code, body)
	}
}

// The auth scheme is case-insensitive (RFC 7235); other
// schemes and empty tokens are still refused.
func TestAuthSchemeIsCaseInsensitive(t *testing.T) {
	hs, _, _ := start(t, "")
	cases := []struct {
		header string
		want   int
	}{
		{"Bearer " + token, http.StatusCreated},
		{"bearer " + token, http.StatusCreated},
		{"BEARER " + token, http.StatusCreated},
		{"bEaReR   " + token, http.StatusCreated},
		{"Bearer", http.StatusUnauthorized},
		{"Bearer ", http.StatusUnauthorized},
		{"Basic " + token, http.StatusUnauthorized},
		{"Bearertoken" + token, http.StatusUnauthorized},
		{token, http.StatusUnauthorized},
		{"bearer wrong", http.StatusForbidden},
	}
	for i, tc := range cases {
		req, _ := http.NewRequest("POST", hs.URL+"/v1/jobs", strings.NewReader(submitBody("a", 1, time.Second, fmt.Sprint("auth-", i))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", tc.header)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Authorization: %q: %d %s, want %d", tc.header, resp.StatusCode, body, tc.want)
		}
	}
}

// A JSON body is one value; trailing garbage or a second
// value is refused on every route that takes JSON, and nothing changes.
func TestJSONBodiesWithTrailingDataAreRefused(t *testing.T) {
	hs, _, _ := start(t, "")
	good := submitBody("a", 1, time.Second, "trail")
	cases := []struct{ path, body string }{
		{"/v1/jobs", good + " garbage"},
		{"/v1/jobs", good + good},
		{"/v1/jobs", good + "}"},
		{"/v1/clusters/fs0/local-jobs", `{"size": 1, "runtime": "1m"} x`},
		{"/v1/clusters/fs0/local-jobs", `{"size": 1, "runtime": "1m", "colour": "red"}`},
		{"/v1/clusters/fs0/down", `{"reason": "maintenance"} {"reason": "other"}`},
		{"/v1/clusters/fs0/down", `{"reason": 7}`},
		{"/v1/clusters/fs0/down", `not json`},
	}
	for _, tc := range cases {
		code, body := request(t, "POST", hs.URL+tc.path, tc.body, "application/json", true)
		var e apiError
		if code != http.StatusBadRequest || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Errorf("POST %s %q: %d %s", tc.path, tc.body, code, body)
		}
	}
	if code, body := request(t, "GET", hs.URL+"/v1/jobs/trail", "", "", false); code != http.StatusNotFound {
		t.Errorf("a refused submission was kept: %d %s", code, body)
	}
	code, body := request(t, "GET", hs.URL+"/v1/clusters", "", "", false)
	if code != http.StatusOK || strings.Contains(string(body), "maintenance") || !strings.Contains(string(body), `"background":0`) {
		t.Errorf("a refused cluster change was applied: %s", body)
	}
	// An empty body is still fine for taking a cluster down (the reason is optional).
	if code, body := request(t, "POST", hs.URL+"/v1/clusters/fs0/down", "", "", true); code != http.StatusOK {
		t.Errorf("down without a body: %d %s", code, body)
	}
}

// Every answer is JSON, also for a route that does not exist (404) or a
// method a route does not take (405, with Allow).
func TestUnknownRoutesAnswerJSON(t *testing.T) {
	hs, _, _ := start(t, "")
	cases := []struct {
		method, path string
		want         int
		allow        string
	}{
		{"GET", "/nowhere", http.StatusNotFound, ""},
		{"GET", "/v1/jobs/k1/extra", http.StatusNotFound, ""},
		{"PUT", "/v1/jobs", http.StatusMethodNotAllowed, "GET, POST"},
		{"POST", "/v1/health", http.StatusMethodNotAllowed, "GET"},
		{"PATCH", "/v1/jobs/k1", http.StatusMethodNotAllowed, "GET, DELETE"},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, hs.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e apiError
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != tc.want || err != nil || e.Error == "" || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d %q (Allow %q), %v", tc.method, tc.path, resp.StatusCode, e.Error, resp.Header.Get("Allow"), err)
		}
	}
}

// Numbers and names in query strings and local jobs are checked: a bad
// since, Last-Event-ID, state or follow, or a local job's run time out of
// range, is a 400 that says what is allowed.
func TestQueryAndLocalJobRanges(t *testing.T) {
	hs, _, _ := start(t, "")
	cases := []struct {
		method, path, body string
		header             string
		want               string
	}{
		{"GET", "/v1/events?since=abc&follow=false", "", "", "since"},
		{"GET", "/v1/events?since=-1&follow=false", "", "", "since"},
		{"GET", "/v1/events?since=0&follow=maybe", "", "", "follow"},
		{"GET", "/v1/events?follow=false", "", "x", "Last-Event-ID"},
		{"GET", "/v1/jobs?state=sleeping", "", "", "state"},
		{"POST", "/v1/clusters/fs0/local-jobs", `{"size": 1, "runtime": "-10m"}`, "", "runtime"},
		{"POST", "/v1/clusters/fs0/local-jobs", `{"size": 1, "runtime": "1ns"}`, "", "runtime"},
		{"POST", "/v1/clusters/fs0/local-jobs", `{"size": 1, "runtime": "100000h"}`, "", "runtime"},
		{"POST", "/v1/clusters/fs0/local-jobs", `{"size": 0, "runtime": "1m"}`, "", "processors"},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, hs.URL+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer "+token)
		if tc.header != "" {
			req.Header.Set("Last-Event-ID", tc.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e apiError
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || err != nil || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s %s (%q): %d %q", tc.method, tc.path, tc.body, resp.StatusCode, e.Error)
		}
	}
	for _, path := range []string{"/v1/events?since=0&follow=false", "/v1/events?since=now&follow=false", "/v1/events?follow=false", "/v1/jobs?state=finished"} {
		if code, body := request(t, "GET", hs.URL+path, "", "", strings.HasPrefix(path, "/v1/events")); code != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
}
