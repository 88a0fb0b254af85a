package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/workload"
)

// A page of another site whose name was rebound to 127.0.0.1 (DNS
// rebinding) sends its own name as Host: without the token, every route
// refuses it (403), the JSON reads included; under localhost or an IP
// address, or with the token, the same requests are answered.
func TestHostIsChecked(t *testing.T) {
	hs, _, _ := start(t, "")
	port := hs.URL[strings.LastIndex(hs.URL, ":"):]
	cases := []struct {
		host  string
		auth  bool
		allow bool
	}{
		{"127.0.0.1" + port, false, true},
		{"localhost" + port, false, true},
		{"LocalHost", false, true},
		{"[::1]" + port, false, true},
		{"10.1.2.3" + port, false, true},
		{"rebound.example" + port, false, false},
		{"localhost.rebound.example" + port, false, false},
		{"127.0.0.1.nip.example" + port, false, false},
		{"rebound.example" + port, true, true},
	}
	for _, path := range []string{"/v1/jobs", "/v1/jobs/k1", "/v1/clusters", "/v1/utilization", "/v1/deadlines", "/metrics", "/v1/health"} {
		for _, tc := range cases {
			req, _ := http.NewRequest("GET", hs.URL+path, nil)
			req.Host = tc.host
			if tc.auth {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			refused := resp.StatusCode == http.StatusForbidden && strings.Contains(string(body), "Host")
			if refused == tc.allow {
				t.Errorf("GET %s, Host %q, token %v: %d %.120s", path, tc.host, tc.auth, resp.StatusCode, body)
			}
		}
	}
}

// An idempotency key follows the rule of ids, with '/' between them
// (names.CheckKey): a key of 10 KB, or with a NUL, a newline, a
// bidirectional-text control or an emoji, is refused (400), by JSON and by
// a JDF's query alike, and no job is made.
func TestKeysAreChecked(t *testing.T) {
	hs, _, _ := start(t, "")
	j := workload.Job{ID: "3-1", Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered, WallTime: 10 * time.Minute,
		App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: 4}}}
	p, _ := printers.Lookup("koala")
	var jdf bytes.Buffer
	if err := p.Print(&jdf, &j, printers.Config{}); err != nil {
		t.Fatal(err)
	}
	bad := []string{strings.Repeat("k", 10<<10), "run/1\x00", "run/1\n2", "run\u202e/1", "run/\U0001F600", "/run/1", "run 1"}
	for i, key := range bad {
		k, _ := json.Marshal(key)
		code, body := request(t, "POST", hs.URL+"/v1/jobs", fmt.Sprintf(`{"job":%s,"key":%s}`, jobJSON(fmt.Sprint("b", i), 1, time.Minute), k), "application/json", true)
		if code != http.StatusBadRequest || !strings.Contains(string(body), "key") {
			t.Errorf("JSON, key %.40q: %d %.200s", key, code, body)
		}
		code, body = request(t, "POST", hs.URL+"/v1/jobs?key="+url.QueryEscape(key), jdf.String(), "text/x-koala-jdf", true)
		if code != http.StatusBadRequest || !strings.Contains(string(body), "key") {
			t.Errorf("JDF, key %.40q: %d %.200s", key, code, body)
		}
	}
	if code, body := request(t, "GET", hs.URL+"/v1/jobs", "", "", false); code != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("jobs after the refusals: %d %s", code, body)
	}
	if code, body := request(t, "POST", hs.URL+"/v1/jobs", submitBody("ok", 1, time.Minute, "run-7/1-0.3/1"), "application/json", true); code != http.StatusCreated {
		t.Errorf("a good key: %d %s", code, body)
	}
}
