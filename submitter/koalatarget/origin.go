package koalatarget

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
)

// Origin implements submitter.Originator: it declares the run's origin to
// the core (POST /v1/run/begin) at the anchor the submitter would use, so
// that the core starts its local workloads there (less the warm-up,
// Config.Warmup or else the grid's local_warmup, by which the anchor
// moves later), counts start deadlines
// from it and measures from it: as a simulation of the same workload does
// (docs/deadlines.md). A core that cannot take it (its origin set by an
// earlier run, a core without the call) leaves the run as it was, with a
// target-warning; so does a schedule compressed other than the core's
// clock (--speedup against a core of another time scale), where workload
// times are not core times.
func (t *Target) Origin(ctx context.Context, earliest time.Time, speedup float64) (time.Time, error) {
	if math.Abs(speedup-t.scale) > 1e-9*t.scale {
		t.rep.Annotate(record.AnnotationKoala, "origin", fmt.Sprintf("not declared: the schedule runs %g times faster than real time, the core's clock %g "+
			"(start deadlines count from each submission)", speedup, t.scale))
		return earliest, nil
	}
	w := t.cfg.Warmup
	if w == 0 {
		w = t.localWarmup // the grid's: the core applies it to a run that names none
	}
	for try := 0; ; try++ {
		anchor := earliest.Add(time.Duration(float64(w) / t.scale))
		ans, status, err := t.begin(ctx, t.core(anchor), w)
		switch {
		case err != nil:
			return time.Time{}, err
		case status == http.StatusOK:
			if !ans.Aligned {
				t.rep.Annotate(record.AnnotationTargetWarning, "origin", fmt.Sprintf("the core's local workloads started at %s, before the run's origin "+
					"less the warm-up (a core started without --await-run): they stand against the workload otherwise than in a simulation",
					ans.LocalFrom.Format(time.RFC3339Nano)))
			}
			v, _ := json.Marshal(ans)
			t.rep.Annotate(record.AnnotationKoala, "origin", string(v))
			return anchor, nil
		case status == http.StatusConflict && try < 3 && !strings.Contains(ans.Error, "already set"):
			earliest = earliest.Add(time.Second) // the core's clock passed it meanwhile
		default:
			t.rep.Annotate(record.AnnotationTargetWarning, "origin", fmt.Sprintf("the core did not take the run's origin (%d %s): "+
				"start deadlines count from each submission", status, ans.Error))
			return earliest, nil
		}
	}
}

// originAnswer is the core's answer to /v1/run/begin (or its error).
type originAnswer struct {
	Origin    time.Time `json:"origin"`
	LocalFrom time.Time `json:"local_from"`
	Aligned   bool      `json:"aligned"`
	Error     string    `json:"error"`
}

// begin posts the run's origin (core time) and warm-up.
func (t *Target) begin(ctx context.Context, origin time.Time, warmup time.Duration) (originAnswer, int, error) {
	body, _ := json.Marshal(map[string]any{"origin": origin, "warmup_s": warmup.Seconds()})
	resp, err := t.do(ctx, "POST", "/v1/run/begin", body, "application/json")
	if err != nil {
		return originAnswer{}, 0, fmt.Errorf("declaring the run's origin to the core: %v", err)
	}
	defer resp.Body.Close()
	var ans originAnswer
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&ans)
	return ans, resp.StatusCode, nil
}

// core converts a wall-clock time to the core's clock (the inverse of wall).
func (t *Target) core(wall time.Time) time.Time {
	if t.scale == 1 && t.origin.Equal(t.wallOrigin) {
		return wall
	}
	return t.origin.Add(time.Duration(float64(wall.Sub(t.wallOrigin)) * t.scale))
}

// Finish implements submitter.Finisher: the core's figures of jobs with
// start deadlines and of its local users' jobs (GET /v1/deadlines, over
// the measured period: from the run's origin to now) are recorded as the
// run's record.AnnotationKoalaDeadlines, as 'gmark koala simulate --db' records them,
// when the run had either. A core that does not answer leaves a
// target-warning.
func (t *Target) Finish(ctx context.Context, r submitter.Reporter) {
	resp, err := t.do(ctx, "GET", "/v1/deadlines", nil, "")
	if err != nil {
		r.Annotate(record.AnnotationTargetWarning, "deadlines", fmt.Sprintf("the core's deadline figures: %v", err))
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var d struct {
		GlobalJobs int `json:"global_jobs"`
		LocalJobs  int `json:"local_jobs"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &d) != nil {
		r.Annotate(record.AnnotationTargetWarning, "deadlines", fmt.Sprintf("the core's deadline figures: %s %s", resp.Status, bytes.TrimSpace(b)))
		return
	}
	if d.GlobalJobs > 0 || d.LocalJobs > 0 {
		r.Annotate(record.AnnotationKoalaDeadlines, "summary", string(bytes.TrimSpace(b)))
	}
}
