package metaqueue

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/gmark/gmark/internal/httpapi"
)

// Body limits: a bulk add may carry many jobs; every other request is small.
const (
	MaxAddBody   = 64 << 20
	MaxOtherBody = 64 << 10
)

// Handler is the HTTP API (docs/placeholder.md documents it). Reading needs
// no token; every request that changes state, the placeholders' included,
// needs it (the thesis's ident verification).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return httpapi.RequireToken(s.cfg.Token, "gmark-placeholder", h)
	}
	mux.HandleFunc("GET /v1/health", s.health)
	mux.HandleFunc("GET /v1/groups", s.listGroups)
	mux.HandleFunc("POST /v1/groups", auth(s.putGroup))
	mux.HandleFunc("GET /v1/groups/{g}", s.getGroup)
	mux.HandleFunc("POST /v1/groups/{g}/jobs", auth(s.addJobs))
	mux.HandleFunc("GET /v1/groups/{g}/jobs", s.listJobs)
	mux.HandleFunc("DELETE /v1/groups/{g}/jobs/{id}", auth(s.removeJob))
	mux.HandleFunc("GET /v1/groups/{g}/placeholders", s.listPlaceholders)
	mux.HandleFunc("POST /v1/groups/{g}/start", auth(s.start))
	mux.HandleFunc("POST /v1/groups/{g}/stop", auth(s.stop))
	mux.HandleFunc("POST /v1/groups/{g}/pull", auth(s.pull))
	mux.HandleFunc("POST /v1/groups/{g}/done", auth(s.doneJob))
	mux.HandleFunc("POST /v1/groups/{g}/dequeue", auth(s.dequeue))
	mux.HandleFunc("GET /v1/groups/{g}/actions", s.listActions)
	mux.HandleFunc("GET /v1/groups/{g}/report", s.report)
	mux.HandleFunc("GET /v1/groups/{g}/status", s.statusJSON)
	mux.HandleFunc("GET /{$}", s.statusPage)
	mux.HandleFunc("GET /status", s.statusPage)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.Fail(w, http.StatusNotFound, "no route %s %s (docs/placeholder.md lists the API)", r.Method, r.URL.Path)
	})
	// A request without the token is answered only under localhost or an
	// IP address as Host (httpapi.HostCheck): a page of another site
	// whose name was rebound to 127.0.0.1 (DNS rebinding) reads nothing.
	// The server listens on loopback only, so no other name is its own.
	return httpapi.HostCheck(s.cfg.Token, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int64(MaxOtherBody)
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/jobs") {
			n = MaxAddBody
		}
		r.Body = http.MaxBytesReader(w, r.Body, n)
		mux.ServeHTTP(w, r)
	}))
}

// HTTPServer is an http.Server for the API with the server's limits.
func (s *Server) HTTPServer() *http.Server { return s.cfg.HTTP.Server(s.Handler()) }

// Listen listens on addr and serves at most the limits' MaxConns at once.
func (s *Server) Listen(addr string) (net.Listener, error) { return s.cfg.HTTP.Listen(addr) }

// answer writes v, or err with its status.
func answer(w http.ResponseWriter, status int, v any, err error) {
	if err == nil {
		httpapi.WriteJSON(w, status, v)
		return
	}
	var nf errNotFound
	var cf errConflict
	var bd errBad
	switch {
	case errors.As(err, &nf):
		httpapi.Fail(w, http.StatusNotFound, "%v", err)
	case errors.As(err, &cf):
		httpapi.Fail(w, http.StatusConflict, "%v", err)
	case errors.As(err, &bd):
		httpapi.Fail(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, errShuttingDown), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		httpapi.Fail(w, http.StatusServiceUnavailable, "%v", err)
	default:
		httpapi.Fail(w, http.StatusInternalServerError, "%v", err)
	}
}

// read decodes a request body into v, answering the error itself.
func read(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		httpapi.BodyError(w, err)
		return false
	}
	if err := httpapi.DecodeJSON(bytes.NewReader(b), v); err != nil {
		httpapi.Fail(w, http.StatusBadRequest, "the request body: %v", err)
		return false
	}
	return true
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"ok": true, "stats": s.Stats()})
}

func (s *Server) listGroups(w http.ResponseWriter, r *http.Request) {
	v, err := s.Groups(r.Context())
	answer(w, http.StatusOK, v, err)
}

func (s *Server) putGroup(w http.ResponseWriter, r *http.Request) {
	var gs GroupSpec
	if read(w, r, &gs) {
		v, err := s.PutGroup(r.Context(), gs)
		answer(w, http.StatusOK, v, err)
	}
}

func (s *Server) getGroup(w http.ResponseWriter, r *http.Request) {
	v, err := s.Group(r.Context(), r.PathValue("g"))
	answer(w, http.StatusOK, v, err)
}

// AddRequest adds jobs.
type AddRequest struct {
	Jobs []NewJob `json:"jobs"`
}

func (s *Server) addJobs(w http.ResponseWriter, r *http.Request) {
	var req AddRequest
	if read(w, r, &req) {
		ids, err := s.AddJobs(r.Context(), r.PathValue("g"), req.Jobs)
		answer(w, http.StatusOK, map[string]any{"ids": ids}, err)
	}
}

// intParam reads a query parameter that is an integer from lo to hi.
func intParam(r *http.Request, name string, def, lo, hi int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, bad("%s=%q: an integer from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// MaxList bounds the rows of one list answer.
const MaxList = 100000

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	after, err := intParam(r, "after", 0, 0, 1<<62)
	if err == nil {
		var limit int64
		if limit, err = intParam(r, "limit", 1000, 1, MaxList); err == nil {
			var v []JobView
			v, err = s.Jobs(r.Context(), r.PathValue("g"), r.URL.Query().Get("state"), after, int(limit), r.URL.Query().Get("attempts") == "1")
			answer(w, http.StatusOK, v, err)
			return
		}
	}
	answer(w, 0, nil, err)
}

func (s *Server) removeJob(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		answer(w, 0, nil, bad("job id %q is not a number", r.PathValue("id")))
		return
	}
	err = s.RemoveJob(r.Context(), r.PathValue("g"), id)
	answer(w, http.StatusOK, map[string]any{"id": id, "state": Removed}, err)
}

func (s *Server) listPlaceholders(w http.ResponseWriter, r *http.Request) {
	v, err := s.Placeholders(r.Context(), r.PathValue("g"), r.URL.Query().Get("all") == "1")
	answer(w, http.StatusOK, v, err)
}

// StartRequest starts Count placeholders at Site.
type StartRequest struct {
	Site  string `json:"site"`
	Count int    `json:"count"`
}

func (s *Server) start(w http.ResponseWriter, r *http.Request) {
	var req StartRequest
	if read(w, r, &req) {
		v, err := s.Start(r.Context(), r.PathValue("g"), req.Site, req.Count)
		answer(w, http.StatusOK, v, err)
	}
}

// StopRequest stops one placeholder, a site's, or (neither given) the
// group's.
type StopRequest struct {
	Site        string `json:"site,omitempty"`
	Placeholder int64  `json:"placeholder,omitempty"`
}

func (s *Server) stop(w http.ResponseWriter, r *http.Request) {
	var req StopRequest
	if read(w, r, &req) {
		n, err := s.Stop(r.Context(), r.PathValue("g"), req.Site, req.Placeholder)
		answer(w, http.StatusOK, map[string]int{"stopped": n}, err)
	}
}

func (s *Server) pull(w http.ResponseWriter, r *http.Request) {
	var req PullRequest
	if read(w, r, &req) {
		v, err := s.Pull(r.Context(), r.PathValue("g"), req)
		answer(w, http.StatusOK, v, err)
	}
}

func (s *Server) doneJob(w http.ResponseWriter, r *http.Request) {
	var req DoneRequest
	if read(w, r, &req) {
		err := s.Done(r.Context(), r.PathValue("g"), req)
		answer(w, http.StatusOK, map[string]bool{"ok": true}, err)
	}
}

func (s *Server) dequeue(w http.ResponseWriter, r *http.Request) {
	var req DequeueRequest
	if read(w, r, &req) {
		err := s.Dequeue(r.Context(), r.PathValue("g"), req)
		answer(w, http.StatusOK, map[string]bool{"ok": true}, err)
	}
}

func (s *Server) listActions(w http.ResponseWriter, r *http.Request) {
	after, err := intParam(r, "after", 0, 0, 1<<62)
	if err == nil {
		var limit int64
		if limit, err = intParam(r, "limit", 1000, 1, MaxList); err == nil {
			v, err := s.Actions(r.Context(), r.PathValue("g"), after, int(limit))
			if v == nil {
				v = []Action{}
			}
			answer(w, http.StatusOK, v, err)
			return
		}
	}
	answer(w, 0, nil, err)
}

func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	v, err := s.Report(r.Context(), r.PathValue("g"))
	answer(w, http.StatusOK, v, err)
}
