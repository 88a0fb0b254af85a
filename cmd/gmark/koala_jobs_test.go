package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/submitter/koalatarget"
	"github.com/gmark/gmark/workload"
)

// 'gmark koala jobs' shows why a queued job waits, site by site.
func TestKoalaJobsSaysWhyAJobWaits(t *testing.T) {
	g, err := grid.Parse("g.toml", []byte("name = \"two\"\n[[cluster]]\nname = \"A\"\nprocessors = 4\n[[cluster]]\nname = \"B\"\nprocessors = 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := koalatarget.StartLocal(g, filepath.Join(t.TempDir(), "core.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Stop() })
	post := func(path, body string) {
		req, _ := http.NewRequest("POST", l.Endpoint+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+l.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %s", path, resp.Status)
		}
	}
	post("/v1/clusters/B/down", `{"reason": "maintenance"}`)
	j := workload.Job{ID: "1-0", Kind: workload.Unitary, Type: "swf", SiteType: workload.Single, App: workload.App{Name: "swf"},
		Components: []workload.Component{{Site: workload.AnySite, Count: 6}}}
	post("/v1/jobs", `{"job": `+string(j.AppendJSON(nil))+`, "key": "run/1-0/1"}`)
	ctx := context.Background()
	var out strings.Builder
	if err := runKoalaJobs(ctx, koalaJobsOptions{Endpoint: l.Endpoint, State: "queued"}, &out); err != nil {
		t.Fatal(err)
	}
	want := "placement: A: too small: 4 processors; component 0 needs 6. B: out of service: maintenance"
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2 || !strings.HasSuffix(lines[1], want) {
		t.Errorf("koala jobs:\n%s\nwant a line ending %q", out.String(), want)
	}
	out.Reset()
	if err := runKoalaJobs(ctx, koalaJobsOptions{Endpoint: l.Endpoint, JSON: true, IDs: []string{"run/1-0/1"}}, &out); err != nil {
		t.Fatal(err)
	}
	var jobs []server.JobView
	if err := json.Unmarshal([]byte(out.String()), &jobs); err != nil || len(jobs) != 1 || len(jobs[0].Why) != 2 ||
		jobs[0].Why[0].Code.String() != "too_small" || jobs[0].Why[1].Detail != "maintenance" {
		t.Errorf("koala jobs --json: %v\n%s", err, out.String())
	}
	var usage usageError
	if err := runKoalaJobs(ctx, koalaJobsOptions{Endpoint: l.Endpoint, State: "waiting"}, &out); !errors.As(err, &usage) {
		t.Errorf("an unknown state: %v, want a usage error", err)
	}
	if err := runKoalaJobs(ctx, koalaJobsOptions{Endpoint: l.Endpoint, IDs: []string{"nope"}}, &out); err == nil || !strings.Contains(err.Error(), `no job "nope"`) {
		t.Errorf("an unknown job: %v", err)
	}
}
