package metaqueue

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

	"github.com/gmark/gmark/placeholder/site"
)

// apiFuzzServer is a running metaqueue for FuzzAPI, made afresh every
// apiFuzzRecycle requests so that what the fuzzer adds does not pile up.
type apiFuzzServer struct {
	dir   string
	n, id int
	h     http.Handler
	stop  func()
}

const apiFuzzRecycle = 2000

// closedCore is an address where nothing listens: the koala sites' calls
// fail at once, so that starting placeholders starts no process.
const closedCore = "http://127.0.0.1:1"

func (fs *apiFuzzServer) handler(t *testing.T) http.Handler {
	if fs.h != nil && fs.n < apiFuzzRecycle {
		fs.n++
		return fs.h
	}
	if fs.stop != nil {
		fs.stop()
	}
	fs.id++
	srv, err := New(Config{State: filepath.Join(fs.dir, "mq-"+strconv.Itoa(fs.id)+".db"), Token: "secret", Gmark: "/bin/false",
		Watchdog: Watchdog{Interval: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	g := GroupSpec{Name: "g", Sites: []site.Spec{{Name: "a", Kind: site.Koala, Koala: closedCore, Cluster: "A"},
		{Name: "b", Kind: site.Koala, Koala: closedCore, Cluster: "B", Mode: site.Pilot}}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	if _, err := srv.PutGroup(ctx, g); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddJobs(ctx, "g", []NewJob{{Key: "j1", Command: "true"}, {Command: "false", Site: "a"}}); err != nil {
		t.Fatal(err)
	}
	fs.h, fs.n = srv.Handler(), 1
	fs.stop = func() { cancel(); <-done; srv.Close() }
	return fs.h
}

// onlyKoalaSites tells whether a group body the fuzzer sends would make
// sites whose placeholders are processes or batch jobs of this machine:
// those are left out (every koala site's core is closedCore's).
func onlyKoalaSites(body []byte) bool {
	var gs GroupSpec
	if json.Unmarshal(body, &gs) != nil {
		return true // refused by the server as well
	}
	for _, s := range gs.Sites {
		if s.Kind != site.Koala || s.Koala != closedCore {
			return false
		}
	}
	return true
}

// FuzzAPI sends any request to the metaqueue's API, as a placeholder or a
// client could: any method, path, query, content type, token and body.
// Whatever comes in, the handler does not panic, answers a status of the
// API's list, and every error is a JSON object with a non-empty "error".
func FuzzAPI(f *testing.F) {
	fs := &apiFuzzServer{dir: f.TempDir()}
	f.Cleanup(func() {
		if fs.stop != nil {
			fs.stop()
		}
	})
	ident := `"group":"g","site":"a","local_id":"k1","host":"h"`
	seeds := []struct {
		method byte
		target string
		auth   byte
		body   string
	}{
		{0, "/v1/health", 0, ""},
		{0, "/v1/groups", 0, ""},
		{1, "/v1/groups", 1, `{"name":"h","policy":"fcfs","sites":[{"name":"x","kind":"koala","koala":"` + closedCore + `","cluster":"C"}]}`},
		{1, "/v1/groups", 1, `{"name":"h","sites":[{"name":"x","kind":"koala","koala":"` + closedCore + `","cluster":"C","cpus":-1}]}`},
		{0, "/v1/groups/g", 0, ""},
		{0, "/v1/groups/nope", 0, ""},
		{1, "/v1/groups/g/jobs", 1, `{"jobs":[{"key":"a","command":"echo 1","priority":3},{"command":"x","after":[1,99]}]}`},
		{1, "/v1/groups/g/jobs", 1, `{"jobs":[{"command":""}]}`},
		{1, "/v1/groups/g/jobs", 2, `{"jobs":[]}`},
		{0, "/v1/groups/g/jobs?state=waiting&after=0&limit=10&attempts=1", 0, ""},
		{0, "/v1/groups/g/jobs?after=-1&limit=999999999999", 0, ""},
		{2, "/v1/groups/g/jobs/1", 1, ""},
		{2, "/v1/groups/g/jobs/x", 1, ""},
		{0, "/v1/groups/g/placeholders?all=1", 0, ""},
		{1, "/v1/groups/g/start", 1, `{"site":"a","count":2}`},
		{1, "/v1/groups/g/start", 1, `{"site":"a","count":0}`},
		{1, "/v1/groups/g/stop", 1, `{"site":"a"}`},
		{1, "/v1/groups/g/stop", 1, `{"placeholder":1}`},
		{1, "/v1/groups/g/pull", 1, `{` + ident + `,"mode":"classic","seq":1}`},
		{1, "/v1/groups/g/pull", 1, `{` + ident + `,"mode":"pilot","seq":-1,"submitted":"0001-01-01T00:00:00Z"}`},
		{1, "/v1/groups/g/done", 1, `{` + ident + `,"attempt":1,"exit":0,"started":"2026-01-01T00:00:00Z","ended":"2025-01-01T00:00:00Z","new_id":"k2"}`},
		{1, "/v1/groups/g/dequeue", 1, `{` + ident + `,"reason":"walltime"}`},
		{0, "/v1/groups/g/actions?after=0&limit=5", 0, ""},
		{0, "/v1/groups/g/report", 0, ""},
		{0, "/v1/groups/g/status", 0, ""},
		{0, "/status", 0, ""},
		{0, "/", 0, ""},
		{3, "/v1/groups", 1, ""},
		{0, "/nowhere", 0, ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, s.auth, []byte(s.body))
	}
	methods := []string{"GET", "POST", "DELETE", "PUT", "HEAD", "PATCH"}
	auths := []string{"", "Bearer secret", "Bearer wrong", "Basic secret"}
	ok := map[int]bool{200: true, 201: true, 400: true, 401: true, 403: true, 404: true, 405: true, 409: true, 413: true}
	f.Fuzz(func(t *testing.T, method byte, target string, auth byte, body []byte) {
		if !strings.HasPrefix(target, "/") {
			return
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		m := methods[int(method)%len(methods)]
		if m == "POST" && strings.HasSuffix(u.Path, "/groups") && !onlyKoalaSites(body) {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, m, "http://127.0.0.1"+u.RequestURI(), strings.NewReader(string(body)))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if a := auths[int(auth)%len(auths)]; a != "" {
			req.Header.Set("Authorization", a)
		}
		rec := httptest.NewRecorder()
		fs.handler(t).ServeHTTP(rec, req)
		if rec.Code == http.StatusTemporaryRedirect || rec.Code == http.StatusMovedPermanently || rec.Code == http.StatusPermanentRedirect {
			if rec.Header().Get("Location") == "" {
				t.Fatalf("%s %s: redirect without a Location", m, target)
			}
			return
		}
		if !ok[rec.Code] {
			t.Fatalf("%s %s %q: status %d: %s", m, target, body, rec.Code, rec.Body.String())
		}
		if rec.Code >= 400 && m != "HEAD" {
			var e struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("%s %s: %d with a body that is not a JSON error: %q", m, target, rec.Code, rec.Body.String())
			}
		}
	})
}
