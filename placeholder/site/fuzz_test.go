package site

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadConfig: an agent.json as a hand, a full disk or anything else
// leaves it. An error names the file; a configuration read is one JSON
// value (a second one after it was ignored), passes the site checks and,
// written as Write writes it, reads back the same.
func FuzzReadConfig(f *testing.F) {
	good := `{"server":"http://127.0.0.1:9","token_file":"/t","group":"g","site":{"name":"a","kind":"zinf","dir":"/d"},` +
		`"gmark":"/bin/gmark","script":"/d/placeholder.zinf","retries":5,"retry_wait":"10m0s"}`
	for _, s := range []string{good, good + ` {"server":"x"}`, good[:40], `{"server":"s","group":"g","script":"x","site":{"name":"a","kind":"koala","koala":"http://h:1","cluster":"c"}}`,
		`{"server":"s","group":"g","script":"x","site":{"name":"a b","kind":"zinf"}}`, `{"retry_wait":"-1s"}`, `{"bogus":1}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "agent.json")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := ReadConfig(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("%q: error %q does not name the file", b, err)
			}
			return
		}
		if !json.Valid(b) {
			t.Fatalf("%q: read, though it is not one JSON value", b)
		}
		if err := cfg.Site.Check(); err != nil {
			t.Fatalf("%q: read, but its site fails the checks: %v", b, err)
		}
		out, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o600); err != nil {
			t.Fatal(err)
		}
		back, err := ReadConfig(path)
		if err != nil || !reflect.DeepEqual(back, cfg) {
			t.Fatalf("%q: read as %+v, written as %s, read back as %+v, %v", b, cfg, out, back, err)
		}
	})
}

// FuzzKoalaSite: a koala site reads any answer of the core (any status,
// any body) to a submission, a listing of its jobs and of its clusters.
// An error says it is the core's; a job id taken is one the site can kill
// by; the placeholders alive are among those asked about; the free
// processors are a count the cluster can have.
func FuzzKoalaSite(f *testing.F) {
	answers := make(chan [2]any, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := <-answers
		w.WriteHeader(a[0].(int))
		w.Write(a[1].([]byte))
	}))
	f.Cleanup(srv.Close)
	k := newKoala(Spec{Name: "s", Kind: Koala, Koala: srv.URL, Cluster: "A", CPUs: 1}, "/d/placeholder.koala")
	for _, s := range []struct {
		op     byte
		status int
		body   string
	}{
		{0, 201, `{"id":"k12"}`},
		// A job id the site could not kill by, and a negative count of
		// idle processors, were taken.
		{0, 201, `{"id":"../k1?x"}`},
		{0, 201, `{"id":""}`},
		{1, 200, `[{"id":"k1","state":"running"},{"id":"k2","state":"finished"},{"id":"k9","state":"queued"}]`},
		{2, 200, `[{"name":"A","idle":2},{"name":"B","idle":7}]`},
		{2, 200, `[{"name":"A","idle":-3}]`},
		{2, 200, `[{"name":"B","idle":1}]`},
		{0, 400, `{"error":"bad job"}`},
		{1, 503, `busy`},
		{2, 200, `{}`},
	} {
		f.Add(s.op, s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, op byte, status int, body []byte) {
		if status < 200 || status > 599 || status >= 300 && status < 400 {
			return // the client follows redirects: not an answer of the core
		}
		answers <- [2]any{status, body}
		ctx := context.Background()
		var err error
		switch op % 3 {
		case 0:
			var id string
			if id, err = k.Submit(ctx); err == nil {
				if id == "" || strings.ContainsAny(id, "/?#") {
					t.Fatalf("%d %q: job id %q taken", status, body, id)
				}
			}
		case 1:
			var alive map[string]bool
			if alive, err = k.Alive(ctx, []string{"k1", "k2", "k3"}); err == nil {
				for id := range alive {
					if id != "k1" && id != "k2" && id != "k3" {
						t.Fatalf("%q: %s alive, not asked about", body, id)
					}
				}
			}
		case 2:
			var n int
			if n, err = k.Free(ctx); err == nil && (n < 0 || n > 1<<20) {
				t.Fatalf("%d %q: %d processors free", status, body, n)
			}
		}
		if err != nil && !strings.HasPrefix(err.Error(), "koala") {
			t.Fatalf("%d %q: error %q does not say it is the core's", status, body, err)
		}
		if err == nil && status >= 300 {
			t.Fatalf("%d %q: taken", status, body)
		}
	})
}
