package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
)

// fuzzServer is a running server for the fuzz target, made afresh every
// fuzzRecycle requests so that the jobs the fuzzer submits do not pile up.
type fuzzServer struct {
	dir   string
	n     int
	srv   *Server
	h     http.Handler
	stop  func()
	grid  *grid.Grid
	state int
}

const fuzzRecycle = 2000

func (fs *fuzzServer) handler(t *testing.T) http.Handler {
	if fs.srv != nil && fs.n < fuzzRecycle {
		fs.n++
		return fs.h
	}
	if fs.stop != nil {
		fs.stop()
	}
	fs.state++
	g := *fs.grid
	srv, err := New(Config{Grid: &g, State: filepath.Join(fs.dir, "state-"+strconv.Itoa(fs.state)+".db"),
		Token: token, MaxWait: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	fs.srv, fs.h, fs.n = srv, srv.Handler(), 1
	fs.stop = func() { cancel(); <-done }
	return fs.h
}

// FuzzAPI sends any request to every route of the API, as a client could:
// any method, path, query, content type, token and body. Whatever comes in,
// the handler does not panic, answers a status of the API's list (or a
// redirect of an unclean path to its clean form), and every error is a
// JSON object with a non-empty "error".
func FuzzAPI(f *testing.F) {
	g, err := grid.Load("../../examples/das2.toml")
	if err != nil {
		f.Fatal(err)
	}
	g.Scheduler.TimeScale = 1000
	for i := range g.Clusters {
		g.Clusters[i].Background = grid.Background{}
	}
	fs := &fuzzServer{dir: f.TempDir(), grid: g}
	f.Cleanup(func() {
		if fs.stop != nil {
			fs.stop()
		}
	})
	job := jobJSON("1-0", 2, time.Minute)
	jdfBody := `&(count=2)(executable="gmark")(arguments="app" "sser" "--supersteps" "2")(maxWallTime=5)`
	seeds := []struct {
		method byte
		target string
		ct     byte
		auth   byte
		body   string
	}{
		{1, "/v1/jobs", 0, 1, `{"job":` + job + `,"policy":"WF","key":"k"}`},
		{1, "/v1/jobs", 0, 1, `{"job":` + job + `} trailing`},
		{1, "/v1/jobs", 0, 1, `{"job":` + strings.Replace(job, "{", `{"walltime":-5,`, 1) + `}`},
		{1, "/v1/jobs?policy=CF&priority=low&runner=drunner&key=j", 1, 1, jdfBody},
		{1, "/v1/jobs?priority=urgent", 1, 1, jdfBody},
		{1, "/v1/jobs", 1, 2, `+( &(count=4)(executable="gmark")`},
		{0, "/v1/jobs?state=running", 0, 0, ""},
		{0, "/v1/jobs?state=%ff%00", 0, 0, ""},
		{0, "/v1/jobs/k1", 0, 0, ""},
		{0, "/v1/jobs/k", 0, 0, ""},
		{2, "/v1/jobs/k1", 0, 1, ""},
		{2, "/v1/jobs/nope", 0, 1, ""},
		{0, "/v1/clusters", 0, 0, ""},
		{1, "/v1/clusters/fs0/down", 0, 1, `{"reason":"maintenance"}`},
		{1, "/v1/clusters/fs0/up", 0, 1, ""},
		{1, "/v1/clusters/nope/down", 0, 1, ""},
		{1, "/v1/clusters/fs1/local-jobs", 0, 1, `{"size":8,"runtime":"10m"}`},
		{1, "/v1/clusters/fs1/local-jobs", 0, 1, `{"size":-8,"runtime":"-10m"}`},
		{1, "/v1/clusters/fs1/local-jobs", 0, 1, `{"size":99999999999,"runtime":"9999999h"}`},
		{0, "/v1/utilization", 0, 0, ""},
		{0, "/v1/deadlines", 0, 0, ""},
		{1, "/v1/run/begin", 0, 1, `{"origin":"2100-01-01T00:00:00Z","warmup_s":60}`},
		{1, "/v1/run/begin", 0, 1, `{"origin":"1970-01-01T00:00:00Z","warmup_s":1e308}`},
		{1, "/v1/run/begin", 0, 1, `{"origin":"0001-01-01T00:00:00Z","warmup_s":-0}`},
		{1, "/v1/run/begin", 0, 1, `{"origin":"9999-12-31T23:59:59.999999999Z","warmup_s":999999999}`},
		{0, "/v1/events?since=0&follow=false", 0, 1, ""},
		{0, "/v1/events?since=now", 0, 1, ""},
		{0, "/v1/events?since=-1", 0, 1, ""},
		{0, "/v1/events?since=18446744073709551615&follow=false", 0, 1, ""},
		{0, "/metrics", 0, 0, ""},
		{0, "/v1/health", 0, 0, ""},
		{3, "/v1/jobs", 0, 1, ""},
		{0, "/nowhere", 0, 0, ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, s.ct, s.auth, []byte(s.body))
	}
	methods := []string{"GET", "POST", "DELETE", "PUT", "HEAD", "PATCH"}
	types := []string{"application/json", "text/plain", "", "application/json; charset=utf-8"}
	auths := []string{"", "Bearer " + token, "bearer wrong", "Basic " + token}
	ok := map[int]bool{200: true, 201: true, 400: true, 401: true, 403: true, 404: true, 405: true, 409: true, 413: true}
	f.Fuzz(func(t *testing.T, method byte, target string, ct, auth byte, body []byte) {
		if !strings.HasPrefix(target, "/") {
			return
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		// A following event stream never ends by itself: the client goes
		// away after a moment.
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, methods[int(method)%len(methods)], "http://127.0.0.1"+u.RequestURI(), strings.NewReader(string(body)))
		if err != nil {
			return
		}
		if c := types[int(ct)%len(types)]; c != "" {
			req.Header.Set("Content-Type", c)
		}
		if a := auths[int(auth)%len(auths)]; a != "" {
			req.Header.Set("Authorization", a)
		}
		rec := httptest.NewRecorder()
		fs.handler(t).ServeHTTP(rec, req)
		if rec.Code == http.StatusTemporaryRedirect || rec.Code == http.StatusMovedPermanently || rec.Code == http.StatusPermanentRedirect {
			// The router sends an unclean path ("/.", "//v1") to its clean form.
			if rec.Header().Get("Location") == "" {
				t.Fatalf("%s %s: redirect without a Location", req.Method, target)
			}
			return
		}
		// The harness's client left (its 50 ms passed, as on a loaded
		// machine) before the core answered: 503 is the server's answer to a
		// request whose client is gone, not a finding.
		gone := ctx.Err() != nil && rec.Code == http.StatusServiceUnavailable
		if !ok[rec.Code] && !gone {
			t.Fatalf("%s %s: status %d: %s", req.Method, target, rec.Code, rec.Body.String())
		}
		if rec.Code >= 400 && req.Method != "HEAD" {
			var e apiError
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("%s %s: %d with a body that is not a JSON error: %q", req.Method, target, rec.Code, rec.Body.String())
			}
		}
	})
}
