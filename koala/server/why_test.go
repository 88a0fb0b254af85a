package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/placement"
)

// A queued job says why it waits, through the API (GetJobs, as `gmark koala
// jobs` reads it) and once in the event stream however many scans it waits.
func TestQueuedJobSaysWhy(t *testing.T) {
	hs, _, _ := start(t, "") // DAS-2: only fs0 (144 processors) takes 100
	if code, body := request(t, "POST", hs.URL+"/v1/clusters/fs0/down", `{"reason": "maintenance"}`, "", true); code != http.StatusOK {
		t.Fatalf("down: %d %s", code, body)
	}
	code, body := request(t, "POST", hs.URL+"/v1/jobs", submitBody("big", 100, time.Minute, "run1/big/1"), "application/json", true)
	if code != http.StatusCreated {
		t.Fatalf("submit: %d %s", code, body)
	}
	want := "fs0: out of service: maintenance. fs1: too small: 56 processors; component 0 needs 100. " +
		"fs2: too small: 56 processors; component 0 needs 100. fs3: too small: 64 processors; component 0 needs 100. " +
		"fs4: too small: 64 processors; component 0 needs 100"
	var v JobView
	if err := json.Unmarshal(body, &v); err != nil || placement.Summary(v.Why) != want {
		t.Fatalf("the submission's answer says why %q (%v), want %q", placement.Summary(v.Why), err, want)
	}
	ctx := context.Background()
	for {
		jobs, err := GetJobs(ctx, http.DefaultClient, hs.URL, "", []string{"run1/big/1"})
		if err != nil {
			t.Fatal(err)
		}
		if v = jobs[0]; v.PlacementTries >= 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if v.State != "queued" || placement.Summary(v.Why) != want {
		t.Errorf("after %d tries: %s, why %q", v.PlacementTries, v.State, placement.Summary(v.Why))
	}
	// Three tries, one placement_failed event.
	_, body = request(t, "GET", hs.URL+"/v1/events?since=0&follow=false", "", "", true)
	failed := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e struct {
				Kind    string             `json:"kind"`
				Reasons []placement.Reason `json:"reasons"`
			}
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			if e.Kind == "placement_failed" {
				failed++
				if placement.Summary(e.Reasons) != want {
					t.Errorf("placement_failed says %q", placement.Summary(e.Reasons))
				}
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d placement_failed events, want 1", failed)
	}
	// The table `gmark koala jobs` prints.
	queued, err := GetJobs(ctx, http.DefaultClient, hs.URL+"/", "queued", nil)
	if err != nil || len(queued) != 1 {
		t.Fatalf("queued jobs: %v %v", queued, err)
	}
	var out strings.Builder
	if err := WriteJobs(&out, queued); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[1], " queued ") ||
		!strings.HasSuffix(lines[1], "placement: "+want) {
		t.Errorf("table:\n%s", out.String())
	}
	if _, err := GetJobs(ctx, http.DefaultClient, hs.URL, "", []string{"nope"}); err == nil || !strings.Contains(err.Error(), `no job "nope"`) {
		t.Errorf("an unknown job: %v", err)
	}
	if _, err := GetJobs(ctx, http.DefaultClient, hs.URL, "waiting", nil); err == nil || !strings.Contains(err.Error(), "give queued") {
		t.Errorf("an unknown state: %v", err)
	}
	// fs0 comes back: the job is placed and has no reason to wait left.
	if code, _ := request(t, "POST", hs.URL+"/v1/clusters/fs0/up", "", "", true); code != http.StatusOK {
		t.Fatalf("up: %d", code)
	}
	v = waitState(t, hs.URL, v.ID, "finished")
	if len(v.Why) != 0 {
		t.Errorf("a finished job says why it waits: %v", v.Why)
	}
}
