// Package koalatarget submits jobs to gmark's bundled scheduler core over its
// HTTP API (docs/koala.md): a remote `gmark koala serve`, or one started in
// this process from a grid file. Job states come from the core's event
// stream; the core's other events (placements, failed placements with
// their reasons per site, claiming tries, re-placements) are recorded as
// annotations of the run, so the store holds each job's whole timeline as the
// core saw it.
package koalatarget

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// Config tells the target where the core is and how to submit.
type Config struct {
	Endpoint string // e.g. http://127.0.0.1:7070
	Token    string
	Policy   string // placement policy; "" for the core's default
	Priority string // "" for the core's default
	Runner   string // krunner, drunner, irunner; "" for the core's default
	Client   *http.Client
	// Warmup is how long the core's local workloads run before the run's
	// origin (Origin), in core time; the schedule starts that much later.
	Warmup time.Duration
}

// Target is the koala target.
type Target struct {
	cfg    Config
	base   string
	client *http.Client

	mu   sync.Mutex
	jobs map[string]*tracked // by submission key
	rep  submitter.Reporter

	stop context.CancelFunc
	done chan struct{}

	// The core's clock: core = origin + scale x (wall - wallOrigin). Times
	// the target reports are wall-clock times, like the submitter's own.
	scale              float64
	origin, wallOrigin time.Time
	// The grid's local_warmup: the core runs its local workloads this long
	// before a run's origin when the run names no warm-up (Config.Warmup).
	localWarmup time.Duration
}

// tracked is what the target knows of one submission.
type tracked struct {
	id    string    // the core's id
	start time.Time // when it started, once it has
}

// New checks the configuration; Watch connects.
func New(cfg Config) (*Target, error) {
	if err := cfg.CheckSettings(); err != nil {
		return nil, err
	}
	// The endpoint is recorded with the run and shown in errors: nothing
	// secret may be in it.
	if err := httpapi.CheckEndpoint("koala", cfg.Endpoint); err != nil {
		return nil, fmt.Errorf("%v (the koala target takes the token from --token-file or $GMARK_KOALA_TOKEN)", err)
	}
	if cfg.Token == "" {
		return nil, errors.New("the koala target needs the core's token: --token-file FILE (e.g. the server's STATE.token file) or $GMARK_KOALA_TOKEN")
	}
	c := cfg.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	}
	return &Target{cfg: cfg, base: strings.TrimRight(cfg.Endpoint, "/"), client: c, jobs: map[string]*tracked{}}, nil
}

// Name implements submitter.Target.
func (t *Target) Name() string { return "koala" }

// Caps implements submitter.Target: the core finds a job by its key and
// refuses a key twice, so resubmitting after a crash is always safe.
func (t *Target) Caps() submitter.Caps {
	return submitter.Caps{Find: true, RejectsDuplicateKeys: true, Cancel: true, Events: true, CoAllocates: true}
}

// Watch implements submitter.Target: it checks the core answers, then
// follows its event stream from now on (reconnecting where it left off).
func (t *Target) Watch(ctx context.Context, r submitter.Reporter) error {
	t.rep = r
	resp, err := t.do(ctx, "GET", "/v1/health", nil, "")
	if err != nil {
		return fmt.Errorf("the bundled core at %s does not answer: %v", t.base, err)
	}
	var health struct {
		Processors   int     `json:"processors"`
		LocalWarmupS float64 `json:"local_warmup_s"`
		Clock        *struct {
			Scale      float64   `json:"scale"`
			Origin     time.Time `json:"origin"`
			WallOrigin time.Time `json:"wall_origin"`
		} `json:"clock"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&health)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err != nil {
		return fmt.Errorf("the bundled core at %s answers %s to /v1/health", t.base, resp.Status)
	}
	if health.Processors > 0 {
		// The report's system size when the grid file leaves a Slurm
		// cluster's processors to its controller.
		r.Annotate(record.AnnotationKoala, "processors", strconv.Itoa(health.Processors))
	}
	if w := health.LocalWarmupS; w > 0 && w < 1e9 {
		t.localWarmup = time.Duration(w * float64(time.Second))
	}
	t.scale = 1
	if c := health.Clock; c != nil && c.Scale > 0 {
		t.scale, t.origin, t.wallOrigin = c.Scale, c.Origin, c.WallOrigin
	}
	// The report's clock of the jobs: the core emulates them t.scale times
	// faster than the wall clock, whatever the submitter's --speedup.
	r.Annotate(record.AnnotationKoala, "time_scale", strconv.FormatFloat(t.scale, 'g', -1, 64))
	// Open the stream before any submission, so no event is missed.
	// The stream lives until Close, not as long as the caller's ctx.
	sctx, cancel := context.WithCancel(context.Background())
	t.stop = cancel
	body, err := t.openStream(sctx, "now")
	if err != nil {
		cancel()
		return err
	}
	t.done = make(chan struct{})
	go t.follow(sctx, body)
	return nil
}

func (t *Target) do(ctx context.Context, method, path string, body []byte, contentType string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, t.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+t.cfg.Token)
	return t.client.Do(req)
}

func (t *Target) openStream(ctx context.Context, since string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", t.base+"/v1/events?since="+since, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+t.cfg.Token) // the stream needs it
	// The stream has no overall timeout.
	resp, err := (&http.Client{Transport: t.client.Transport}).Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("event stream: %s", resp.Status)
	}
	return resp.Body, nil
}

// wall converts a core time to the wall clock. A time the core sent that
// is out of range (before 1970, after 2242) is unknown: the zero time.
func (t *Target) wall(core time.Time) time.Time {
	if core.IsZero() {
		return core
	}
	w := core
	if !(t.scale == 1 && t.origin.Equal(t.wallOrigin)) {
		d := float64(core.Sub(t.origin)) / t.scale
		if math.Abs(d) > float64(target.MaxUnixSeconds)*1e9 {
			return time.Time{}
		}
		w = t.wallOrigin.Add(time.Duration(d))
	}
	if target.UnixSeconds(w.Unix()) == 0 {
		return time.Time{}
	}
	return w
}

// coreEvent is the part of a core event the target reads.
type coreEvent struct {
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"`
	Kind   string    `json:"kind"`
	Job    string    `json:"job"`
	Key    string    `json:"key"`
	Sites  []string  `json:"sites"`
	Reason string    `json:"reason"`
}

// follow reads the stream until Close; when the connection drops it
// reconnects after the last event it saw, with backoff, and says so in an
// annotation.
func (t *Target) follow(ctx context.Context, body io.ReadCloser) {
	defer close(t.done)
	last := uint64(0)
	backoff := 100 * time.Millisecond
	for {
		n, err := t.read(body, &last)
		body.Close()
		if ctx.Err() != nil {
			return
		}
		if n > 0 {
			backoff = 100 * time.Millisecond
		}
		if err == nil {
			err = errors.New("the stream ended")
		}
		t.rep.Annotate(record.AnnotationKoala, "event-stream", fmt.Sprintf("lost after seq %d (%v); reconnecting", last, err))
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			since := "now"
			if last > 0 {
				since = fmt.Sprint(last)
			}
			if body, err = t.openStream(ctx, since); err == nil {
				break
			}
		}
		t.resync(ctx)
	}
}

// resync asks the core for the state of every job being tracked: whatever
// happened while the stream was down is reported (the recorder ignores a
// state it has already seen).
func (t *Target) resync(ctx context.Context) {
	t.mu.Lock()
	keys := make([]string, 0, len(t.jobs))
	for k := range t.jobs {
		keys = append(keys, k)
	}
	t.mu.Unlock()
	for _, k := range keys {
		if v, found, err := t.get(ctx, k); err == nil && found {
			t.reportState(k, v)
		}
	}
}

// read handles the events of one connection.
func (t *Target) read(body io.Reader, last *uint64) (int, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e coreEvent
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			continue
		}
		if e.Time = t.wall(e.Time); e.Time.IsZero() {
			e.Time = time.Now() // when we heard of it
		}
		n++
		if e.Seq > *last {
			*last = e.Seq
		}
		t.handle(e, data)
	}
	return n, sc.Err()
}

// handle turns a core event of one of our jobs into a state change or an
// annotation.
func (t *Target) handle(e coreEvent, raw string) {
	if e.Key == "" {
		return
	}
	t.mu.Lock()
	tr, ours := t.jobs[e.Key]
	if ours && e.Kind == string(core.EvStarted) {
		tr.start = e.Time
	}
	var start time.Time
	if ours {
		start = tr.start
		if tr.id == "" {
			tr.id = e.Job
		}
	}
	t.mu.Unlock()
	if !ours {
		return
	}
	u := submitter.Update{Key: e.Key, Time: e.Time, Sites: e.Sites, Detail: json.RawMessage(raw)}
	switch core.EventKind(e.Kind) {
	case core.EvSubmitted:
		u.State = submitter.Queued
	case core.EvStarted:
		u.State, u.Start = submitter.Running, e.Time
	case core.EvFinished:
		u.State, u.Start, u.End = submitter.Succeeded, start, e.Time
	case core.EvFailed:
		u.State, u.Start, u.End, u.Reason = submitter.Failed, start, e.Time, e.Reason
	case core.EvCancelled:
		u.State, u.Start, u.End, u.Reason = submitter.Cancelled, start, e.Time, e.Reason
	default:
		t.rep.Annotate(record.AnnotationKoalaEvent, e.Key, raw)
		if e.Kind == string(core.EvComponentStart) {
			t.recordComponentStart(e.Key, raw)
		}
		return
	}
	t.rep.Report(u)
}

// coreClock is whose time the bundled core's component starts are.
const coreClock = "the bundled core's component_start events, on its clock divided by its time scale"

// recordComponentStart writes the component-start record of the core's
// component_start event raw of the submission under key: on the core's
// clock (the event's own time, before it is brought to the wall clock),
// with the core's time scale.
func (t *Target) recordComponentStart(key, raw string) {
	var e struct {
		Time      time.Time `json:"time"`
		Component int       `json:"component"`
		Cluster   string    `json:"cluster"`
	}
	_, job, attempt, ok := record.ParseKey(key)
	if !ok || json.Unmarshal([]byte(raw), &e) != nil || target.UnixSeconds(e.Time.Unix()) == 0 {
		return
	}
	c := record.NewComponentStart(job, attempt, e.Component, e.Cluster, e.Time, coreClock)
	c.ClockScale = t.scale
	t.rep.Annotate(record.AnnotationComponentStart, key, c.Value())
}

// submitBody is the API's JSON submission.
type submitBody struct {
	Job      json.RawMessage `json:"job"`
	Key      string          `json:"key"`
	Policy   string          `json:"policy,omitempty"`
	Priority string          `json:"priority,omitempty"`
	Runner   string          `json:"runner,omitempty"`
}

// jobView is the part of the API's job the target reads.
type jobView struct {
	ID     string     `json:"id"`
	State  string     `json:"state"`
	Reason string     `json:"reason"`
	Start  *time.Time `json:"start"`
	End    *time.Time `json:"end"`
	Sites  []string   `json:"sites"`
	Sub    time.Time  `json:"submitted"`
}

// Submit implements submitter.Target.
func (t *Target) Submit(ctx context.Context, s *submitter.Submission) (submitter.Receipt, error) {
	t.mu.Lock()
	if _, ok := t.jobs[s.Key]; !ok {
		t.jobs[s.Key] = &tracked{} // before the request: its events may come first
	}
	t.mu.Unlock()
	body, err := json.Marshal(submitBody{Job: s.Job.AppendJSON(nil), Key: s.Key, Policy: t.cfg.Policy, Priority: t.cfg.Priority, Runner: t.cfg.Runner})
	if err != nil {
		return submitter.Receipt{}, err
	}
	resp, err := t.do(ctx, "POST", "/v1/jobs", body, "application/json")
	if err != nil {
		return submitter.Receipt{}, target.Transient(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch resp.StatusCode {
	case http.StatusCreated:
		var v jobView
		if err := json.Unmarshal(out, &v); err != nil {
			return submitter.Receipt{}, fmt.Errorf("the core's answer %q: %v", out, err)
		}
		t.setID(s.Key, v.ID)
		return submitter.Receipt{TargetID: "koala:" + v.ID, Output: string(out), Time: t.wall(v.Sub)}, nil
	case http.StatusConflict:
		// Submitted before (a retry after a lost answer): it is that job.
		var e struct{ ID string }
		_ = json.Unmarshal(out, &e)
		if e.ID == "" {
			return submitter.Receipt{}, fmt.Errorf("the core refused the key %s: %s", s.Key, out)
		}
		r, found, err := t.Find(ctx, s)
		if err != nil || !found {
			return submitter.Receipt{TargetID: "koala:" + e.ID, Output: string(out)}, err
		}
		return r, nil
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestEntityTooLarge:
		t.forget(s.Key)
		return submitter.Receipt{}, fmt.Errorf("the core refused job %s: %s", s.Job.ID, strings.TrimSpace(string(out)))
	default:
		return submitter.Receipt{}, target.Transient(fmt.Errorf("the core answered %s: %s", resp.Status, strings.TrimSpace(string(out))))
	}
}

func (t *Target) setID(key, id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tr, ok := t.jobs[key]; ok {
		tr.id = id
	} else {
		t.jobs[key] = &tracked{id: id}
	}
}

func (t *Target) forget(key string) {
	t.mu.Lock()
	delete(t.jobs, key)
	t.mu.Unlock()
}

// Find implements submitter.Target: the core looks jobs up by key.
func (t *Target) Find(ctx context.Context, s *submitter.Submission) (submitter.Receipt, bool, error) {
	v, found, err := t.get(ctx, s.Key)
	if err != nil || !found {
		return submitter.Receipt{}, found, err
	}
	t.setID(s.Key, v.ID)
	t.reportState(s.Key, v)
	return submitter.Receipt{TargetID: "koala:" + v.ID, Time: t.wall(v.Sub)}, true, nil
}

func (t *Target) get(ctx context.Context, keyOrID string) (jobView, bool, error) {
	resp, err := t.do(ctx, "GET", "/v1/jobs/"+url.PathEscape(keyOrID), nil, "")
	if err != nil {
		return jobView{}, false, target.Transient(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch resp.StatusCode {
	case http.StatusOK:
		var v jobView
		if err := json.Unmarshal(out, &v); err != nil {
			return jobView{}, false, err
		}
		return v, true, nil
	case http.StatusNotFound:
		return jobView{}, false, nil
	default:
		return jobView{}, false, target.Transient(fmt.Errorf("the core answered %s: %s", resp.Status, out))
	}
}

// reportState reports a job's state as the core has it now.
func (t *Target) reportState(key string, v jobView) {
	u := submitter.Update{Key: key, Time: time.Now(), Reason: v.Reason, Sites: v.Sites}
	if v.Start != nil {
		u.Start = t.wall(*v.Start)
		t.mu.Lock()
		if tr, ok := t.jobs[key]; ok {
			tr.start = u.Start
		}
		t.mu.Unlock()
	}
	if v.End != nil {
		u.End = t.wall(*v.End)
		u.Time = u.End
	}
	switch core.State(v.State) {
	case core.Queued, core.Claiming:
		u.State = submitter.Queued
	case core.Running:
		u.State = submitter.Running
	case core.Finished:
		u.State = submitter.Succeeded
	case core.Failed:
		u.State = submitter.Failed
	case core.Cancelled:
		u.State = submitter.Cancelled
	default:
		return
	}
	t.rep.Report(u)
}

// Track implements submitter.Target.
func (t *Target) Track(ctx context.Context, s *submitter.Submission, r submitter.Receipt) error {
	id := strings.TrimPrefix(r.TargetID, "koala:")
	t.mu.Lock()
	t.jobs[s.Key] = &tracked{id: id}
	t.mu.Unlock()
	v, found, err := t.get(ctx, s.Key)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("the core does not know job %s (key %s): was its state reset?", id, s.Key)
	}
	t.reportState(s.Key, v)
	return nil
}

// Cancel implements submitter.Target.
func (t *Target) Cancel(ctx context.Context, s *submitter.Submission) error {
	t.mu.Lock()
	id := ""
	if tr, ok := t.jobs[s.Key]; ok {
		id = tr.id
	}
	t.mu.Unlock()
	if id == "" {
		v, found, err := t.get(ctx, s.Key)
		if err != nil || !found {
			return err
		}
		id = v.ID
	}
	resp, err := t.do(ctx, "DELETE", "/v1/jobs/"+url.PathEscape(id), nil, "")
	if err != nil {
		return target.Transient(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict { // conflict: it ended first
		return nil
	}
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return fmt.Errorf("cancel %s: %s %s", id, resp.Status, out)
}

// Close implements submitter.Target.
func (t *Target) Close() error {
	if t.stop != nil {
		t.stop()
		<-t.done
	}
	return nil
}

// CheckSettings checks the placement policy, priority and runner given for
// every job ("" is the core's default): the core would refuse every job of
// a run with an unknown one, so a run is refused first.
func (c Config) CheckSettings() error { return core.CheckOptions(c.Policy, c.Priority, c.Runner) }
