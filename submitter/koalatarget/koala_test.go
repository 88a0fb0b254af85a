package koalatarget

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// reporter records what the target reports.
type reporter struct {
	mu      sync.Mutex
	updates map[string][]submitter.Update
	notes   map[string][]string
	cond    *sync.Cond
}

func newReporter() *reporter {
	r := &reporter{updates: map[string][]submitter.Update{}, notes: map[string][]string{}}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *reporter) Report(u submitter.Update) {
	r.mu.Lock()
	r.updates[u.Key] = append(r.updates[u.Key], u)
	r.cond.Broadcast()
	r.mu.Unlock()
}

func (r *reporter) Annotate(kind, key, value string) {
	r.mu.Lock()
	r.notes[key] = append(r.notes[key], kind+" "+value)
	r.mu.Unlock()
}

// final waits for a final state of key.
func (r *reporter) final(t *testing.T, key string) submitter.Update {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		for _, u := range r.updates[key] {
			if u.State.Final() {
				return u
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no final state for %s: %+v", key, r.updates[key])
		}
		r.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		r.mu.Lock()
	}
}

// startCore starts an in-process core on a two-cluster grid, 100 times
// faster than the wall clock.
func startCore(t *testing.T) *Local {
	t.Helper()
	g, err := grid.Parse("g.toml", []byte(`name = "pair"
[scheduler]
policy = "WF"
time_scale = 100
[[cluster]]
name = "A"
processors = 8
[[cluster]]
name = "B"
processors = 8
`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := StartLocal(g, filepath.Join(t.TempDir(), "core.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Stop() })
	return l
}

func coallocated(id string, runtime time.Duration) *workload.Job {
	return &workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered, RunTime: runtime,
		App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: 6}, {Site: "*", Count: 6}}}
}

func newTarget(t *testing.T, l *Local, rep submitter.Reporter) *Target {
	t.Helper()
	tg, err := New(Config{Endpoint: l.Endpoint, Token: l.Token})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Watch(context.Background(), rep); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

func TestCoAllocatedJobsThroughTheCore(t *testing.T) {
	l := startCore(t)
	rep := newReporter()
	tg := newTarget(t, l, rep)
	ctx := context.Background()
	var subs []*submitter.Submission
	for i := 0; i < 4; i++ {
		s := &submitter.Submission{Key: fmt.Sprintf("run1/1-%d/1", i), RunID: "run1", Job: coallocated(fmt.Sprintf("1-%d", i), 60*time.Second), Attempt: 1}
		r, err := tg.Submit(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.TargetID, "koala:k") {
			t.Errorf("receipt %+v", r)
		}
		subs = append(subs, s)
	}
	for _, s := range subs {
		u := rep.final(t, s.Key)
		// Reported times are wall-clock times: 60 s of the core's clock at
		// 100 times the wall clock's speed is 0.6 s.
		if u.State != submitter.Succeeded || u.Start.IsZero() || u.End.Sub(u.Start) != 600*time.Millisecond || len(u.Sites) != 2 {
			t.Errorf("%s: %+v", s.Key, u)
		}
		// The state sequence and the times are the core's own.
		var states []string
		for _, x := range rep.updates[s.Key] {
			states = append(states, string(x.State))
		}
		if got := strings.Join(states, " "); got != "queued running succeeded" {
			t.Errorf("%s: states %s", s.Key, got)
		}
		v, found, err := tg.get(ctx, s.Key)
		if err != nil || !found || !tg.wall(*v.Start).Equal(u.Start) || !tg.wall(*v.End).Equal(u.End) {
			t.Errorf("%s: the core says start %v end %v; reported %v %v", s.Key, v.Start, v.End, u.Start, u.End)
		}
		if d := time.Since(u.End); d < 0 || d > time.Minute {
			t.Errorf("%s: the reported end %v is not a recent wall-clock time", s.Key, u.End)
		}
		// The core's other events are annotations of the submission.
		var kinds []string
		for _, n := range rep.notes[s.Key] {
			var e struct{ Kind string }
			_ = json.Unmarshal([]byte(strings.TrimPrefix(n, "koala-event ")), &e)
			kinds = append(kinds, e.Kind)
		}
		if !strings.Contains(strings.Join(kinds, " "), "placed") || !strings.Contains(strings.Join(kinds, " "), "claimed") {
			t.Errorf("%s: annotations %v", s.Key, kinds)
		}
		checkComponentStarts(t, rep.notes[s.Key], s, tg.scale)
	}
	// A second submission under a used key is the same job, not a new one.
	r, err := tg.Submit(ctx, subs[0])
	if err != nil || r.TargetID == "" {
		t.Errorf("resubmitting a key: %+v %v", r, err)
	}
	resp, _ := tg.do(ctx, "GET", "/v1/jobs", nil, "")
	var all []jobView
	_ = json.NewDecoder(resp.Body).Decode(&all)
	resp.Body.Close()
	if len(all) != 4 {
		t.Errorf("the core has %d jobs after a resubmission, want 4", len(all))
	}
	// Find by key.
	if _, found, err := tg.Find(ctx, subs[1]); !found || err != nil {
		t.Errorf("find: %v %v", found, err)
	}
	if _, found, _ := tg.Find(ctx, &submitter.Submission{Key: "run1/nope/1"}); found {
		t.Error("found a key never submitted")
	}
}

func TestCancel(t *testing.T) {
	l := startCore(t)
	rep := newReporter()
	tg := newTarget(t, l, rep)
	s := &submitter.Submission{Key: "run2/long/1", Job: coallocated("long", 24*time.Hour), Attempt: 1}
	if _, err := tg.Submit(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if err := tg.Cancel(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if u := rep.final(t, s.Key); u.State != submitter.Cancelled {
		t.Errorf("after cancel: %+v", u)
	}
}

func TestRefusedAndUnreachable(t *testing.T) {
	l := startCore(t)
	rep := newReporter()
	tg := newTarget(t, l, rep)
	big := &workload.Job{ID: "big", Kind: workload.Unitary, Type: "swf", SiteType: workload.Single, App: workload.App{Name: "swf"},
		Components: []workload.Component{{Site: "*", Count: 100}}}
	_, err := tg.Submit(context.Background(), &submitter.Submission{Key: "run3/big/1", Job: big, Attempt: 1})
	if err == nil || target.IsTransient(err) || !strings.Contains(err.Error(), "fits no site") {
		t.Errorf("a job the core refuses: %v (transient %v)", err, target.IsTransient(err))
	}
	if err := l.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = tg.Submit(context.Background(), &submitter.Submission{Key: "run3/x/1", Job: coallocated("x", time.Second), Attempt: 1})
	if !target.IsTransient(err) {
		t.Errorf("an unreachable core: %v, want a transient error", err)
	}
	if _, err := New(Config{Endpoint: "ftp://x", Token: "t"}); err == nil {
		t.Error("accepted a non-http endpoint")
	}
	if _, err := New(Config{Endpoint: l.Endpoint}); err == nil {
		t.Error("accepted no token")
	}
}

// checkComponentStarts holds the component-start records among the
// annotations notes of submission s against the core's component_start
// events there: one for each, of the same component, cluster and time on
// the core's clock, with its scale, and one for each component.
func checkComponentStarts(t *testing.T, notes []string, s *submitter.Submission, scale float64) {
	t.Helper()
	var want, got []string
	for _, n := range notes {
		if v, ok := strings.CutPrefix(n, record.AnnotationKoalaEvent+" "); ok {
			var e struct {
				Kind      string
				Time      time.Time
				Component int
				Cluster   string
			}
			if json.Unmarshal([]byte(v), &e) == nil && e.Kind == "component_start" {
				want = append(want, fmt.Sprintf("%s/%d %d on %s at %d ×%g", s.Job.ID, s.Attempt, e.Component, e.Cluster, e.Time.UnixNano(), scale))
			}
		}
		if v, ok := strings.CutPrefix(n, record.AnnotationComponentStart+" "); ok {
			var c record.ComponentStart
			if err := json.Unmarshal([]byte(v), &c); err != nil || c.Clock == "" {
				t.Errorf("%s: component start %s (%v)", s.Key, v, err)
			}
			got = append(got, fmt.Sprintf("%s/%d %d on %s at %d ×%g", c.Job, c.Attempt, c.Component, c.Site, c.StartNS, c.ClockScale))
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(want) < len(s.Job.Components) || !slices.Equal(got, want) {
		t.Errorf("%s: component-start records\n%s\nwant, from the core's events\n%s", s.Key, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
