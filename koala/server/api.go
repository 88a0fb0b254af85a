package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/koala/clock"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/jdf"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/workload"
)

// Handler is the HTTP API (docs/koala.md documents it). A request without
// the token is answered only under localhost or an IP address as Host
// (httpapi.HostCheck), or the name the server listens on.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", s.health)
	mux.HandleFunc("POST /v1/jobs", s.auth(s.submit))
	mux.HandleFunc("GET /v1/jobs", s.listJobs)
	mux.HandleFunc("GET /v1/jobs/{id}", s.getJob)
	mux.HandleFunc("DELETE /v1/jobs/{id}", s.auth(s.cancelJob))
	mux.HandleFunc("GET /v1/clusters", s.clusters)
	mux.HandleFunc("POST /v1/clusters/{name}/down", s.auth(s.clusterDown))
	mux.HandleFunc("POST /v1/clusters/{name}/up", s.auth(s.clusterUp))
	mux.HandleFunc("POST /v1/clusters/{name}/local-jobs", s.auth(s.localJob))
	mux.HandleFunc("GET /v1/utilization", s.utilization)
	mux.HandleFunc("POST /v1/run/begin", s.auth(s.begin))
	mux.HandleFunc("GET /v1/deadlines", s.deadlines)
	mux.HandleFunc("GET /v1/events", s.auth(s.events)) // the jobs' whole history, held open: the token's
	mux.HandleFunc("GET /metrics", s.metrics)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { noRoute(mux, w, r) })
	s.mu.Lock()
	names := s.listenNames
	s.mu.Unlock()
	return httpapi.HostCheck(s.cfg.Token, names, limitBodies(mux))
}

// noRoute answers a request no route takes, in JSON like every other
// answer: 405 with Allow when the path has routes for other methods, else
// 404.
func noRoute(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host}
		if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		fail(w, http.StatusMethodNotAllowed, "%s %s: this route takes %s", r.Method, r.URL.Path, strings.Join(allow, ", "))
		return
	}
	fail(w, http.StatusNotFound, "no route %s %s (docs/koala.md lists the API)", r.Method, r.URL.Path)
}

type apiError = httpapi.Error

func writeJSON(w http.ResponseWriter, status int, v any) { httpapi.WriteJSON(w, status, v) }

func fail(w http.ResponseWriter, status int, format string, args ...any) {
	httpapi.Fail(w, status, format, args...)
}

// auth requires the server's token, as "Authorization: Bearer TOKEN", on
// state-changing requests and on the event stream.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return httpapi.RequireToken(s.cfg.Token, "gmark-koala", h)
}

func decodeJSON(r io.Reader, v any) error { return httpapi.DecodeJSON(r, v) }

// errNoJob is returned by a command that looked up a job the core does not
// know; do answers it with 404.
type errNoJob string

func (e errNoJob) Error() string {
	return fmt.Sprintf("no job %q (give the id the server returned, or the idempotency key)", string(e))
}

func (s *Server) do(w http.ResponseWriter, r *http.Request, fn func() (any, error)) (any, bool) {
	v, err := s.Do(r.Context(), fn)
	if err != nil {
		var noJob errNoJob
		switch {
		case errors.As(err, &noJob):
			fail(w, http.StatusNotFound, "%v", err)
		case errors.Is(err, errShuttingDown):
			fail(w, http.StatusServiceUnavailable, "%v", err)
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			fail(w, http.StatusServiceUnavailable, "%v", err)
		default:
			fail(w, http.StatusInternalServerError, "%v", err)
		}
		return nil, false
	}
	return v, true
}

// health says the server is up, and how its clock relates to the wall
// clock: core time = origin + scale x (wall time - wall_origin). Clients
// that mix their own wall-clock times with the core's (the submitter)
// convert with it. processors is the grid's size as the core runs it (a
// Slurm cluster's read from its controller at start), which a report needs
// and the grid file may not say.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	n := 0
	for _, c := range s.cfg.Grid.Clusters {
		n += c.Processors
	}
	v := map[string]any{"ok": true, "grid": s.cfg.Grid.Name, "uptime_s": time.Since(s.started).Seconds(), "processors": n}
	if w := s.cfg.Grid.Scheduler.LocalWarmup.Duration; w > 0 {
		v["local_warmup_s"] = w.Seconds() // what a run's origin is moved by (POST /v1/run/begin)
	}
	if sc, ok := s.clock.(*clock.Scaled); ok {
		v["clock"] = map[string]any{"scale": sc.Scale, "origin": sc.Origin.UTC(), "wall_origin": sc.WallOrigin.UTC()}
	}
	writeJSON(w, http.StatusOK, v)
}

// submitRequest is the JSON form of a submission.
type submitRequest struct {
	Job      json.RawMessage `json:"job"` // a workload.jsonl job
	Policy   string          `json:"policy,omitempty"`
	Priority string          `json:"priority,omitempty"`
	Runner   string          `json:"runner,omitempty"`
	Key      string          `json:"key,omitempty"`
	// A job with a start deadline: its own Wait-X policy and L_p
	// (docs/deadlines.md); empty and 0 take the grid's.
	DeadlinePolicy string  `json:"deadline_policy,omitempty"`
	DeadlineL      float64 `json:"deadline_l,omitempty"`
}

// submit accepts a job as JSON (application/json: {"job": …, "policy": …})
// or as a KOALA/RSL JDF (any other content type; options in the query:
// ?policy=CF&priority=high&runner=krunner&key=K).
func (s *Server) submit(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body) // bounded by limitBodies
	if err != nil {
		bodyError(w, err)
		return
	}
	var spec workload.Job
	var req submitRequest
	ct := r.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/json") {
		if err := decodeJSON(bytes.NewReader(body), &req); err != nil {
			fail(w, http.StatusBadRequest, "request: %v", err)
			return
		}
		if len(req.Job) == 0 {
			fail(w, http.StatusBadRequest, `request: missing "job"`)
			return
		}
		j, err := workload.ParseJob(req.Job)
		if err != nil {
			fail(w, http.StatusBadRequest, "job: %v", err)
			return
		}
		spec = j
	} else {
		q := r.URL.Query()
		req = submitRequest{Policy: q.Get("policy"), Priority: q.Get("priority"), Runner: q.Get("runner"), Key: q.Get("key"),
			DeadlinePolicy: q.Get("deadline_policy")}
		if l := q.Get("deadline_l"); l != "" {
			if req.DeadlineL, err = strconv.ParseFloat(l, 64); err != nil {
				fail(w, http.StatusBadRequest, "deadline_l %q is not a number", l)
				return
			}
		}
		j, err := jdf.Parse("jdf", body)
		if err != nil {
			fail(w, http.StatusBadRequest, "%v", err)
			return
		}
		spec = *j
		if spec.ID == "" {
			spec.ID = "jdf"
		}
	}
	// The key is kept with the job, looked up in URLs and printed: the rule
	// of ids, with '/' between them (names.CheckKey).
	if req.Key != "" {
		if err := names.CheckKey(req.Key); err != nil {
			fail(w, http.StatusBadRequest, "%v", err)
			return
		}
	}
	opts := core.Options{Policy: req.Policy, Key: req.Key, DeadlinePolicy: req.DeadlinePolicy, DeadlineL: req.DeadlineL}
	prio := req.Priority
	if prio == "" {
		prio = s.cfg.Grid.Scheduler.DefaultPriority
	}
	if opts.Priority, err = core.ParsePriority(prio); err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	if req.Runner != "" {
		if opts.Runner, err = core.ParseRunner(req.Runner); err != nil {
			fail(w, http.StatusBadRequest, "%v", err)
			return
		}
	}
	type outcome struct {
		view JobView
		err  error
	}
	v, ok := s.do(w, r, func() (any, error) {
		j, err := s.core.Submit(spec, opts)
		if err != nil {
			if errors.Is(err, core.ErrDuplicateKey) {
				return outcome{view: viewOf(j), err: err}, nil
			}
			return outcome{err: err}, nil
		}
		return outcome{view: viewOf(j)}, nil
	})
	if !ok {
		return
	}
	o := v.(outcome)
	s.stats.mu.Lock()
	if o.err != nil {
		s.stats.rejected++
	} else {
		s.stats.submissions++
	}
	s.stats.mu.Unlock()
	switch {
	case errors.Is(o.err, core.ErrDuplicateKey):
		writeJSON(w, http.StatusConflict, apiError{Error: o.err.Error(), ID: o.view.ID})
	case o.err != nil:
		fail(w, http.StatusBadRequest, "%v", o.err)
	default:
		w.Header().Set("Location", "/v1/jobs/"+o.view.ID)
		writeJSON(w, http.StatusCreated, o.view)
	}
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, ok := s.do(w, r, func() (any, error) {
		j, found := s.core.Job(id)
		if !found {
			j, found = s.core.JobByKey(id)
		}
		if !found {
			return nil, errNoJob(id)
		}
		return viewOf(j), nil
	})
	if ok {
		writeJSON(w, http.StatusOK, v)
	}
}

// listJobs lists jobs, optionally of one state (?state=running), in
// submission order.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	state := r.URL.Query().Get("state")
	switch core.State(state) {
	case "", core.Queued, core.Claiming, core.Running, core.Finished, core.Failed, core.Cancelled:
	default:
		fail(w, http.StatusBadRequest, "state %q: give queued, claiming, running, finished, failed or cancelled", state)
		return
	}
	v, ok := s.do(w, r, func() (any, error) {
		out := []JobView{}
		for _, j := range s.core.Jobs() {
			if state == "" || string(j.State) == state {
				out = append(out, viewOf(j))
			}
		}
		return out, nil
	})
	if ok {
		writeJSON(w, http.StatusOK, v)
	}
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, ok := s.do(w, r, func() (any, error) {
		j, found := s.core.Job(id)
		if !found {
			return nil, errNoJob(id)
		}
		// A job that cannot be cancelled (it already ended) is a
		// conflict, not a server failure: answered as a value.
		if err := s.core.Cancel(j.ID, "cancelled through the API"); err != nil {
			return err.Error(), nil
		}
		return nil, nil
	})
	if !ok {
		return
	}
	if msg, conflict := v.(string); conflict {
		fail(w, http.StatusConflict, "%s", msg)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": id, "state": string(core.Cancelled)})
}

func (s *Server) clusters(w http.ResponseWriter, r *http.Request) {
	if v, ok := s.do(w, r, func() (any, error) { return s.core.Clusters(), nil }); ok {
		writeJSON(w, http.StatusOK, v)
	}
}

func (s *Server) clusterDown(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Reason string `json:"reason"`
	}
	raw, err := io.ReadAll(r.Body) // bounded by limitBodies
	if err != nil {
		bodyError(w, err)
		return
	}
	if len(bytes.TrimSpace(raw)) > 0 { // the body, and the reason, are optional
		if err := decodeJSON(bytes.NewReader(raw), &body); err != nil {
			fail(w, http.StatusBadRequest, `body: %v (want {"reason": "…"} or nothing)`, err)
			return
		}
	}
	name := r.PathValue("name")
	if body.Reason == "" {
		body.Reason = "taken down through the API"
	}
	s.clusterChange(w, r, func() error { return s.core.SetClusterDown(name, body.Reason) })
}

func (s *Server) clusterUp(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.clusterChange(w, r, func() error { return s.core.SetClusterUp(name) })
}

func (s *Server) clusterChange(w http.ResponseWriter, r *http.Request, change func() error) {
	v, ok := s.do(w, r, func() (any, error) {
		if err := change(); err != nil {
			return err, nil
		}
		return s.core.Clusters(), nil
	})
	if !ok {
		return
	}
	if err, isErr := v.(error); isErr {
		fail(w, http.StatusNotFound, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// localJob adds a local user's job to a cluster: background load by hand.
func (s *Server) localJob(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Size    int    `json:"size"`
		Runtime string `json:"runtime"`
	}
	raw, err := io.ReadAll(r.Body) // bounded by limitBodies
	if err != nil {
		bodyError(w, err)
		return
	}
	if err := decodeJSON(bytes.NewReader(raw), &body); err != nil {
		fail(w, http.StatusBadRequest, `body: %v (want {"size": 8, "runtime": "10m"})`, err)
		return
	}
	rt, err := time.ParseDuration(body.Runtime)
	if err != nil {
		fail(w, http.StatusBadRequest, "runtime: %v", err)
		return
	}
	name := r.PathValue("name")
	v, ok := s.do(w, r, func() (any, error) { return s.core.SubmitLocalJob(name, body.Size, rt), nil })
	if !ok {
		return
	}
	if err, _ := v.(error); err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"cluster": name, "size": body.Size, "runtime": body.Runtime})
}

func (s *Server) utilization(w http.ResponseWriter, r *http.Request) {
	if v, ok := s.do(w, r, func() (any, error) { return s.core.Utilization(), nil }); ok {
		writeJSON(w, http.StatusOK, v)
	}
}

// events streams every event with seq > since as Server-Sent Events (one
// "data:" line of JSON per event, its seq as the id), first from the
// database, then live. since=now starts after the last stored event;
// follow=false stops after the stored ones. At most the limits' StreamCap
// streams are served at once: one more is a 503, so that streams never
// take the connections other requests need.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if n, most := s.streams.Add(1), s.cfg.HTTP.StreamCap(); n > int64(most) {
		s.streams.Add(-1)
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "5")
		fail(w, http.StatusServiceUnavailable, "%d event streams are open, the most this server serves at once: close one, or try again later", most)
		return
	}
	defer s.streams.Add(-1)
	q := r.URL.Query()
	var since uint64
	switch v := q.Get("since"); v {
	case "", "now":
	default:
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			fail(w, http.StatusBadRequest, "since %q: give an event's seq (0 or more) or now", v)
			return
		}
		since = n
	}
	if q.Get("since") == "now" {
		// Only what happens from now on: a client that asks for the
		// current state of the jobs it cares about does not need the past.
		last, err := s.store.LastSeq()
		if err != nil {
			fail(w, http.StatusInternalServerError, "%v", err)
			return
		}
		since = last
	}
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			fail(w, http.StatusBadRequest, "Last-Event-ID %q: give the id of the last event read", id)
			return
		}
		since = n
	}
	var follow bool
	switch v := q.Get("follow"); v {
	case "", "true":
		follow = true
	case "false":
	default:
		fail(w, http.StatusBadRequest, "follow %q: give true or false", v)
		return
	}
	// The stream outlives the server's read and write timeouts: clear them
	// (an expired read deadline would cancel the request), and instead give
	// every write its own deadline, so that a client that stopped reading is
	// cut off; the keep-alive comments find clients that went away.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	writeTimeout := s.cfg.HTTP.WriteTimeout
	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(writeTimeout)) }
	flush := func() bool { deadline(); return rc.Flush() == nil }
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var sub *subscriber
	if follow {
		sub = s.stream.subscribe() // before reading history: nothing falls in between
		defer s.stream.unsubscribe(sub)
	}
	last := since
	write := func(seq uint64, data []byte) bool {
		if seq <= last {
			return true
		}
		last = seq
		deadline()
		_, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", seq, data)
		return err == nil
	}
	for {
		batch, err := s.store.Events(last, 1000)
		if err != nil {
			deadline()
			fmt.Fprintf(w, "event: error\ndata: %q\n\n", err.Error())
			return
		}
		for _, e := range batch {
			if !write(e.Seq, e.Data) {
				return
			}
		}
		if len(batch) < 1000 {
			break
		}
	}
	if !flush() || !follow {
		return
	}
	keepAlive := time.NewTicker(s.cfg.HTTP.StreamKeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepAlive.C:
			deadline()
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case ev, open := <-sub.ch:
			if !open {
				deadline()
				fmt.Fprintf(w, "event: error\ndata: %q\n\n", "the client fell behind; reconnect with since="+strconv.FormatUint(last, 10))
				return
			}
			if !write(ev.seq, ev.data) {
				return
			}
		}
		if !flush() {
			return
		}
	}
}

// JobView is a job as the API shows it (GET /v1/jobs/{id}).
type JobView struct {
	ID                 string          `json:"id"`
	Key                string          `json:"key,omitempty"`
	Name               string          `json:"name"` // the job's id in its workload
	State              core.State      `json:"state"`
	Reason             string          `json:"reason,omitempty"`
	Policy             string          `json:"policy,omitempty"`
	Priority           string          `json:"priority"`
	Runner             core.Runner     `json:"runner"`
	Submitted          time.Time       `json:"submitted"`
	JPT                *time.Time      `json:"jpt,omitempty"`
	JCT                *time.Time      `json:"jct,omitempty"`
	JST                *time.Time      `json:"jst,omitempty"`
	OrigJST            *time.Time      `json:"orig_jst,omitempty"`
	Deadline           *time.Time      `json:"deadline,omitempty"` // the start deadline, if any
	NextTry            *time.Time      `json:"next_try,omitempty"` // a job with a deadline waiting: its next try
	FTT                float64         `json:"ftt_s"`
	Start              *time.Time      `json:"start,omitempty"`
	End                *time.Time      `json:"end,omitempty"`
	PlacementTries     int             `json:"placement_tries"`
	ClaimTries         int             `json:"claim_tries"`
	Placements         int             `json:"placements"`
	Restarts           int             `json:"restarts"`
	TotalPlacementTime float64         `json:"total_placement_s"`
	Sites              []string        `json:"sites,omitempty"`
	CoAllocated        bool            `json:"coallocated"`
	Components         []ComponentView `json:"components"`

	// Why says, per site, why the job's last placement try failed: a
	// queued job's reasons to wait (empty once it is placed).
	Why []placement.Reason `json:"why,omitempty"`
}

// ComponentView is a component of a job as the API shows it.
type ComponentView struct {
	Size      int        `json:"size"`
	Fixed     string     `json:"fixed,omitempty"`
	Site      string     `json:"site,omitempty"`
	FileSites []string   `json:"file_sites,omitempty"`
	Transfer  float64    `json:"transfer_s"`
	ClaimedAt *time.Time `json:"claimed_at,omitempty"`
	Start     *time.Time `json:"start,omitempty"`
	Done      bool       `json:"done"`
	OK        bool       `json:"ok"`
	// On a real cluster: submitted, not started yet; the controller's job
	// id of the current submission.
	Pending bool   `json:"pending,omitempty"`
	LRMID   string `json:"lrm_id,omitempty"`
}

func tp(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func viewOf(j *core.Job) JobView {
	v := JobView{ID: j.ID, Key: j.Opts.Key, Name: j.Spec.ID, State: j.State, Reason: j.Reason, Policy: j.Opts.Policy,
		Priority: j.Priority().String(), Runner: j.Opts.Runner, Submitted: j.Submitted.UTC(), JPT: tp(j.JPT), JCT: tp(j.JCT),
		JST: tp(j.JST), OrigJST: tp(j.OrigJST), Deadline: tp(j.Deadline), FTT: j.FTT.Seconds(), Start: tp(j.Start), End: tp(j.End),
		PlacementTries: j.PlacementTries, ClaimTries: j.ClaimTries, Placements: j.Placements, Restarts: j.Restarts,
		TotalPlacementTime: j.TotalPlacementTime.Seconds(), Sites: j.Sites(), CoAllocated: j.CoAllocated()}
	if len(j.Why) > 0 {
		v.Why = append([]placement.Reason(nil), j.Why...) // the core updates its own in place
	}
	if j.State == core.Queued && j.HasDeadline() {
		v.NextTry = tp(j.NextTry)
	}
	for _, c := range j.Components {
		v.Components = append(v.Components, ComponentView{Size: c.Size, Fixed: c.Fixed, Site: c.Site, FileSites: c.FileSites,
			Transfer: c.Transfer.Seconds(), ClaimedAt: tp(c.ClaimedAt), Start: tp(c.ExecStart), Done: c.Done, OK: c.OK,
			Pending: c.Pending, LRMID: c.LRMID})
	}
	return v
}

// metrics writes Prometheus text exposition format.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	type snap struct {
		states   map[core.State]int
		queue    int
		clusters []core.ClusterStatus
		util     core.UtilizationSummary
	}
	v, ok := s.do(w, r, func() (any, error) {
		sn := snap{states: map[core.State]int{}, queue: s.core.QueueLength(), clusters: s.core.Clusters(), util: s.core.Utilization()}
		for _, j := range s.core.Jobs() {
			sn.states[j.State]++
		}
		return sn, nil
	})
	if !ok {
		return
	}
	sn := v.(snap)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	var b strings.Builder
	b.WriteString("# HELP gmark_koala_jobs Jobs by state.\n# TYPE gmark_koala_jobs gauge\n")
	for _, st := range []core.State{core.Queued, core.Claiming, core.Running, core.Finished, core.Failed, core.Cancelled} {
		fmt.Fprintf(&b, "gmark_koala_jobs{state=%q} %d\n", st, sn.states[st])
	}
	fmt.Fprintf(&b, "# HELP gmark_koala_placement_queue_length Jobs waiting in the placement queues.\n# TYPE gmark_koala_placement_queue_length gauge\ngmark_koala_placement_queue_length %d\n", sn.queue)
	b.WriteString("# HELP gmark_koala_processors Processors of a cluster by use.\n# TYPE gmark_koala_processors gauge\n")
	for _, c := range sn.clusters {
		for _, kv := range []struct {
			k string
			v int
		}{{"total", c.Processors}, {"idle", c.Idle}, {"background", c.Background}, {"grid", c.Grid}, {"held", c.Held}, {"reserved", c.Reserved}} {
			fmt.Fprintf(&b, "gmark_koala_processors{cluster=%q,use=%q} %d\n", c.Name, kv.k, kv.v)
		}
		up := 0
		if c.Up && c.Disabled == "" {
			up = 1
		}
		fmt.Fprintf(&b, "gmark_koala_cluster_up{cluster=%q} %d\n", c.Name, up)
	}
	b.WriteString("# HELP gmark_koala_utilization Fraction of capacity used since the start, by kind.\n# TYPE gmark_koala_utilization gauge\n")
	for _, kv := range []struct {
		k string
		v float64
	}{{"background", sn.util.Background}, {"grid", sn.util.Grid}, {"wasted", sn.util.Wasted}, {"gained", sn.util.Gained}} {
		fmt.Fprintf(&b, "gmark_koala_utilization{kind=%q} %g\n", kv.k, kv.v)
	}
	s.stats.mu.Lock()
	fmt.Fprintf(&b, "# HELP gmark_koala_submissions_total Accepted submissions.\n# TYPE gmark_koala_submissions_total counter\ngmark_koala_submissions_total %d\n", s.stats.submissions)
	fmt.Fprintf(&b, "# HELP gmark_koala_rejected_total Refused submissions.\n# TYPE gmark_koala_rejected_total counter\ngmark_koala_rejected_total %d\n", s.stats.rejected)
	b.WriteString("# HELP gmark_koala_events_total Events by kind.\n# TYPE gmark_koala_events_total counter\n")
	kinds := make([]string, 0, len(s.stats.events))
	for k := range s.stats.events {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, "gmark_koala_events_total{kind=%q} %d\n", k, s.stats.events[core.EventKind(k)])
	}
	s.stats.mu.Unlock()
	fmt.Fprintf(&b, "# HELP gmark_koala_stream_clients Event-stream clients.\n# TYPE gmark_koala_stream_clients gauge\ngmark_koala_stream_clients %d\n", s.streams.Load())
	_, _ = io.WriteString(w, b.String())
}
