package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

// A job with a start deadline through the API: its own Wait-X policy and
// L_p in the request, its deadline and next try in its view, and its start
// at the deadline (the server runs 1000 core seconds per wall second).
func TestSubmitWithDeadline(t *testing.T) {
	hs, _, _ := start(t, "")
	j := workload.Job{ID: "d", Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered, RunTime: time.Minute,
		Deadline: 2000 * time.Second, App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: 4}, {Site: "*", Count: 4}}}
	body := fmt.Sprintf(`{"job":%s,"deadline_policy":"wait-100","deadline_l":0.5}`, j.AppendJSON(nil))
	code, resp := request(t, "POST", hs.URL+"/v1/jobs", body, "application/json", true)
	if code != http.StatusCreated {
		t.Fatalf("submit: %d %s", code, resp)
	}
	var v JobView
	if err := json.Unmarshal(resp, &v); err != nil {
		t.Fatal(err)
	}
	// Ignored until D − 100 s: pure RPP's series from the submission with
	// its tries before then skipped (waitx_first_try = "skip", the
	// default): gaps to D of 1000, 500, 250, 125, 62.5 s, tried at D − 62.5 s.
	if v.Deadline == nil || v.NextTry == nil || v.Deadline.Sub(v.Submitted) != 2000*time.Second || v.Deadline.Sub(*v.NextTry) != 62500*time.Millisecond {
		t.Fatalf("view: deadline %v, next try %v, submitted %v", v.Deadline, v.NextTry, v.Submitted)
	}
	done := waitState(t, hs.URL, v.ID, "finished")
	if done.Start == nil || !done.Start.Equal(*v.Deadline) || done.NextTry != nil {
		t.Errorf("finished: started %v, deadline %v, next try %v", done.Start, v.Deadline, done.NextTry)
	}
	for _, bad := range []string{`"deadline_l":2`, `"deadline_policy":"soon"`} {
		code, resp := request(t, "POST", hs.URL+"/v1/jobs", fmt.Sprintf(`{"job":%s,%s}`, j.AppendJSON(nil), bad), "application/json", true)
		if code != http.StatusBadRequest || !strings.Contains(string(resp), "deadline") {
			t.Errorf("%s: %d %s, want 400 about the deadline", bad, code, resp)
		}
	}
}
