package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/persist"
)

// originMeta is the key of the state's meta table that keeps the run's
// origin across restarts: "ORIGIN SINCE", the origin and when it was
// declared, in Unix nanoseconds of core time.
const originMeta = "run_origin"

// resumeOrigin gives a core restarted on a state whose run declared its
// origin that origin back (core.ResumeOrigin), before its jobs are
// restored.
func resumeOrigin(c *core.Core, store *persist.Store) error {
	v, ok, err := store.Meta(originMeta)
	if err != nil || !ok {
		return err
	}
	var origin, since int64
	if _, err := fmt.Sscanf(v, "%d %d", &origin, &since); err != nil {
		return fmt.Errorf("the state's run origin %q: %v", v, err)
	}
	return c.ResumeOrigin(time.Unix(0, origin), time.Unix(0, since))
}

// beginRequest declares a run's workload origin (core.Begin): the core
// time at which the run's workload starts, and how long the local
// workloads run before it (0: the grid's [scheduler] local_warmup).
type beginRequest struct {
	Origin  time.Time `json:"origin"`
	WarmupS float64   `json:"warmup_s,omitempty"`
}

// beginAnswer says when the local workloads started: origin − warm-up
// when aligned; earlier when they were running already (a core started
// without --await-run).
type beginAnswer struct {
	Origin    time.Time `json:"origin"`
	LocalFrom time.Time `json:"local_from,omitempty"`
	Aligned   bool      `json:"aligned"`
}

// begin is POST /v1/run/begin: a submitter declares its run's origin
// before its first submission (docs/koala.md). 409 when the core cannot
// take it: an origin already set, or one too early for the warm-up.
func (s *Server) begin(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body) // bounded by limitBodies
	if err != nil {
		bodyError(w, err)
		return
	}
	var req beginRequest
	if err := decodeJSON(bytes.NewReader(raw), &req); err != nil {
		fail(w, http.StatusBadRequest, `body: %v (want {"origin": "2026-01-02T15:04:05Z", "warmup_s": 0})`, err)
		return
	}
	if req.Origin.IsZero() || !(req.WarmupS >= 0 && req.WarmupS < 1e9) {
		fail(w, http.StatusBadRequest, "body: an origin and a warm-up of 0 or more seconds are needed")
		return
	}
	warmup := time.Duration(req.WarmupS * float64(time.Second))
	type result struct {
		from    time.Time
		aligned bool
		err     error
	}
	v, ok := s.do(w, r, func() (any, error) {
		from, err := s.core.Begin(req.Origin, warmup)
		aligned := from.Equal(req.Origin.Add(-s.core.RunWarmup(warmup)))
		if err == nil {
			// Kept with the state, so that a restarted core counts the
			// deadlines of the run's later submissions from it too.
			if err := s.store.SetMeta(originMeta, fmt.Sprintf("%d %d", req.Origin.UnixNano(), s.core.OriginSince().UnixNano())); err != nil {
				return nil, fmt.Errorf("the run's origin is taken, but could not be kept with the state: %v", err)
			}
		}
		return result{from, aligned, err}, nil
	})
	if !ok {
		return
	}
	res := v.(result)
	if res.err != nil {
		fail(w, http.StatusConflict, "%v", res.err)
		return
	}
	writeJSON(w, http.StatusOK, beginAnswer{Origin: req.Origin.UTC(), LocalFrom: res.from.UTC(), Aligned: res.aligned})
}

// deadlines is GET /v1/deadlines: Ballier et al.'s figures over the
// measured period (record.CoreDeadlines; from the run's origin once one
// is declared).
func (s *Server) deadlines(w http.ResponseWriter, r *http.Request) {
	if v, ok := s.do(w, r, func() (any, error) { return s.core.Deadlines(), nil }); ok {
		writeJSON(w, http.StatusOK, v)
	}
}
