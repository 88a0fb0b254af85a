package metaqueue

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/placeholder/site"
)

var t0 = time.Unix(1700000000, 0)

func zinfGroup(name, policy string) GroupSpec {
	return GroupSpec{Name: name, Policy: policy, Sites: []site.Spec{{Name: "a", Kind: site.Zinf}, {Name: "b", Kind: site.Zinf, Mode: site.Pilot}}}
}

func newTestState(t *testing.T, policy string) *state {
	t.Helper()
	s := newState()
	if _, err := s.putGroup(t0, zinfGroup("g", policy)); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAdd(t *testing.T, s *state, jobs ...NewJob) []int64 {
	t.Helper()
	ids, err := s.addJobs(t0, "g", jobs)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// pullAll pulls with fresh placeholders of site a until refused and
// returns the jobs bound, in order.
func pullAll(t *testing.T, s *state) []int64 {
	t.Helper()
	var got []int64
	for i := 0; ; i++ {
		r, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: fmt.Sprint("p", i)}, Seq: 1}, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if r.Order == nil {
			return got
		}
		got = append(got, r.Order.Job)
	}
}

// Each policy hands out the jobs in its order.
func TestPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy string
		jobs   []NewJob
		want   string
	}{
		{FCFS, []NewJob{{Command: "1", Priority: 1}, {Command: "2", Priority: 9}, {Command: "3"}}, "[1 2 3]"},
		{Priority, []NewJob{{Command: "1", Priority: 1}, {Command: "2", Priority: 9}, {Command: "3"}, {Command: "4", Priority: 9}}, "[2 4 1 3]"},
		{DAG, []NewJob{{Key: "x", Command: "1"}, {Command: "2", After: []string{"x"}}, {Command: "3"}}, "[1 3]"},
		{DAGPriority, []NewJob{{Key: "x", Command: "1"}, {Command: "2", Priority: 5}, {Command: "3", After: []string{"x"}, Priority: 9}}, "[2 1]"},
		{FCFS, nil, "[]"},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			s := newTestState(t, tc.policy)
			if len(tc.jobs) > 0 {
				mustAdd(t, s, tc.jobs...)
			}
			if got := fmt.Sprint(pullAll(t, s)); got != tc.want {
				t.Errorf("order %s, want %s", got, tc.want)
			}
		})
	}
}

// A DAG job becomes eligible when its prerequisite is done, and a
// placeholder asking meanwhile is told to wait, not to leave.
func TestDAGWaitsThenRuns(t *testing.T) {
	s := newTestState(t, DAG)
	mustAdd(t, s, NewJob{Key: "x", Command: "1"}, NewJob{Key: "y", Command: "2", After: []string{"x"}})
	r1, _ := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "1"}, Seq: 1}, time.Second)
	if r1.Order == nil || r1.Order.Job != 1 {
		t.Fatalf("first pull %+v", r1)
	}
	r2, _ := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "2"}, Seq: 1}, 3*time.Second)
	if r2.Order != nil || r2.Stop != "" || r2.Wait != 3 {
		t.Fatalf("pull while the prerequisite runs: %+v, want wait 3", r2)
	}
	if err := s.done(t0, "g", DoneRequest{Ident: Ident{Site: "a", LocalID: "1"}, Attempt: r1.Order.Attempt}); err != nil {
		t.Fatal(err)
	}
	r3, _ := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "2"}, Seq: 2}, time.Second)
	if r3.Order == nil || r3.Order.Job != 2 {
		t.Fatalf("after the prerequisite: %+v", r3)
	}
}

// Bad additions are refused whole, with the reason; a known key returns
// the existing job.
func TestAddJobsEdges(t *testing.T) {
	s := newTestState(t, FCFS)
	mustAdd(t, s, NewJob{Key: "k", Command: "true"})
	for _, tc := range []struct {
		name  string
		group string
		jobs  []NewJob
		want  any
	}{
		{"no group", "nope", []NewJob{{Command: "x"}}, errNotFound{}},
		{"empty command", "g", []NewJob{{Command: "ok"}, {Command: ""}}, errBad{}},
		{"huge command", "g", []NewJob{{Command: string(make([]byte, MaxCommand+1))}}, errBad{}},
		{"key twice", "g", []NewJob{{Key: "z", Command: "x"}, {Key: "z", Command: "y"}}, errBad{}},
		// Keys follow the rule of ids, with '/' between them.
		{"huge key", "g", []NewJob{{Key: strings.Repeat("k", 10<<10), Command: "x"}}, errBad{}},
		{"key with NUL", "g", []NewJob{{Key: "a\x00b", Command: "x"}}, errBad{}},
		{"key with a newline", "g", []NewJob{{Key: "a\nb", Command: "x"}}, errBad{}},
		{"key with a bidi control", "g", []NewJob{{Key: "a\u202eb", Command: "x"}}, errBad{}},
		{"key with an emoji", "g", []NewJob{{Key: "a\U0001F600", Command: "x"}}, errBad{}},
		{"after on fcfs", "g", []NewJob{{Command: "x", After: []string{"k"}}}, errBad{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(s.jobs)
			_, err := s.addJobs(t0, tc.group, tc.jobs)
			if err == nil || fmt.Sprintf("%T", err) != fmt.Sprintf("%T", tc.want) {
				t.Fatalf("err %v (%T), want a %T", err, err, tc.want)
			}
			if len(s.jobs) != before {
				t.Errorf("%d jobs added by a refused request", len(s.jobs)-before)
			}
		})
	}
	ids := mustAdd(t, s, NewJob{Key: "k", Command: "other"}, NewJob{Command: "new"})
	if ids[0] != 1 || ids[1] != 2 {
		t.Errorf("ids %v, want [1 2]: a known key is the existing job", ids)
	}
	d := newTestState(t, DAG)
	for _, after := range [][]string{{"nope"}, {"99"}, {"later"}} {
		if _, err := d.addJobs(t0, "g", []NewJob{{Command: "x", After: after}, {Key: "later", Command: "y"}}); err == nil {
			t.Errorf("after %v accepted", after)
		}
	}
}

// Only waiting jobs can be removed.
func TestRemoveJob(t *testing.T) {
	s := newTestState(t, FCFS)
	mustAdd(t, s, NewJob{Command: "1"}, NewJob{Command: "2"}, NewJob{Command: "3"})
	if err := s.removeJob(t0, "g", 2); err != nil {
		t.Fatal(err)
	}
	r, _ := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "x"}, Seq: 1}, time.Second)
	var cf errConflict
	var nf errNotFound
	if err := s.removeJob(t0, "g", r.Order.Job); !errors.As(err, &cf) {
		t.Errorf("removing a bound job: %v, want a conflict", err)
	}
	for _, id := range []int64{0, 99} {
		if err := s.removeJob(t0, "g", id); !errors.As(err, &nf) {
			t.Errorf("removing job %d: %v, want not found", id, err)
		}
	}
	if got := fmt.Sprint(pullAll(t, s)); got != "[3]" {
		t.Errorf("left %s, want [3]", got)
	}
}

// A pull retried with the same number gets the same job (its answer was
// lost); a new number is a new pull.
func TestPullIsIdempotent(t *testing.T) {
	s := newTestState(t, FCFS)
	mustAdd(t, s, NewJob{Command: "1"}, NewJob{Command: "2"})
	id := Ident{Site: "b", LocalID: "7"}
	r1, _ := s.pull(t0, "g", PullRequest{Ident: id, Seq: 1}, time.Second)
	r2, _ := s.pull(t0, "g", PullRequest{Ident: id, Seq: 1}, time.Second)
	if r1.Order == nil || r2.Order == nil || *r1.Order != *r2.Order {
		t.Fatalf("retried pull: %+v then %+v", r1.Order, r2.Order)
	}
	if err := s.done(t0, "g", DoneRequest{Ident: id, Attempt: r1.Order.Attempt}); err != nil {
		t.Fatal(err)
	}
	if err := s.done(t0, "g", DoneRequest{Ident: id, Attempt: r1.Order.Attempt}); err != nil {
		t.Fatalf("a retried done: %v", err)
	}
	r3, _ := s.pull(t0, "g", PullRequest{Ident: id, Seq: 2}, time.Second)
	if r3.Order == nil || r3.Order.Job != 2 {
		t.Fatalf("pilot's second pull: %+v", r3)
	}
	if got := s.phs[r1.Placeholder]; got.Mode != site.Pilot || got.Jobs != 1 || got.State != Executing {
		t.Errorf("pilot placeholder %+v", got)
	}
	r4, _ := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "8"}, Seq: 1}, time.Second)
	if r4.Stop == "" || s.phs[r4.Placeholder].End != EndRefused {
		t.Errorf("empty metaqueue: %+v", r4)
	}
	if _, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "zz", LocalID: "8"}, Seq: 1}, time.Second); err == nil {
		t.Error("a pull from a site not in the group was answered")
	}
	if _, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a"}, Seq: 1}, time.Second); err == nil {
		t.Error("a pull without a local id was answered")
	}
}

// The watchdog puts a stale placeholder's job back while retries <=
// MaxRetries (the thesis's test: MaxRetries+1 requeues), then fails it;
// a late report of an abandoned attempt that no one else ran settles the
// job, and a report racing another attempt is a duplicate.
func TestWatchdogRetriesAndDuplicates(t *testing.T) {
	s := newTestState(t, FCFS)
	mustAdd(t, s, NewJob{Command: "1"})
	w := Watchdog{ExecFailure: time.Hour, MaxRetries: 1}
	now := t0
	var atts []int64
	for i := 0; i < 3; i++ {
		r, _ := s.pull(now, "g", PullRequest{Ident: Ident{Site: "a", LocalID: fmt.Sprint(i)}, Seq: 1}, time.Second)
		if r.Order == nil {
			t.Fatalf("pull %d: %+v", i, r)
		}
		atts = append(atts, r.Order.Attempt)
		now = now.Add(2 * time.Hour)
		tasks := s.watchdog(now, w)
		if len(tasks) != 1 || !tasks[0].submit || tasks[0].kill != fmt.Sprint(i) {
			t.Fatalf("watchdog %d: tasks %+v", i, tasks)
		}
	}
	j := s.jobs[1]
	if j.State != Failed || j.Retries != 2 {
		t.Fatalf("job after 3 stale runs: %s, %d retries; want failed after 2 (MaxRetries 1, <=)", j.State, j.Retries)
	}
	if err := s.done(now, "g", DoneRequest{Ident: Ident{Site: "a", LocalID: "2"}, Attempt: atts[2], Ended: now}); err != nil {
		t.Fatal(err)
	}
	if j.State != Done || s.atts[atts[2]].Outcome != Finished {
		t.Fatalf("late report of the last attempt: job %s, attempt %s", j.State, s.atts[atts[2]].Outcome)
	}
	if err := s.done(now, "g", DoneRequest{Ident: Ident{Site: "a", LocalID: "0"}, Attempt: atts[0], Ended: now}); err != nil {
		t.Fatal(err)
	}
	if s.atts[atts[0]].Outcome != Duplicate {
		t.Fatalf("a second report: %s, want duplicate", s.atts[atts[0]].Outcome)
	}
	r := s.report(s.groups["g"])
	if len(r.Duplicate) != 1 || r.Duplicate[0].Job != 1 || r.Once != 0 {
		t.Errorf("report: %+v", r)
	}
	if err := s.done(now, "g", DoneRequest{Ident: Ident{Site: "a", LocalID: "0"}, Attempt: 99}); err == nil {
		t.Error("a report of an unknown attempt was taken")
	}
}

// Queued placeholders past QUEUE-FAILURE are replaced; stop ends
// placeholders and puts their jobs back without counting a retry; a
// stopped group refuses pulls until started again.
func TestQueueFailureAndStop(t *testing.T) {
	s := newTestState(t, FCFS)
	mustAdd(t, s, NewJob{Command: "1"})
	s.register(t0, "g", "a", "100", "started", t0)
	if tasks := s.watchdog(t0.Add(25*time.Hour), Watchdog{QueueFailure: 24 * time.Hour}); len(tasks) != 1 || tasks[0].kill != "100" {
		t.Fatalf("queue failure: %+v", tasks)
	}
	r, _ := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "5"}, Seq: 1}, time.Second)
	tasks, err := s.stop(t0, "g", "", 0)
	if err != nil || len(tasks) != 1 || tasks[0].submit {
		t.Fatalf("stop all: %+v %v", tasks, err)
	}
	if j := s.jobs[r.Order.Job]; j.State != Waiting || j.Retries != 0 {
		t.Errorf("job of a stopped placeholder: %s, %d retries", j.State, j.Retries)
	}
	if r2, _ := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "6"}, Seq: 1}, time.Second); r2.Stop == "" {
		t.Errorf("a stopped group handed out %+v", r2.Order)
	}
	if _, err := s.stop(t0, "g", "", 12345); err == nil {
		t.Error("stopping an unknown placeholder")
	}
	if _, err := s.stop(t0, "g", "nosite", 0); err == nil {
		t.Error("stopping an unknown site")
	}
}

// Group specs are checked.
func TestGroupSpecCheck(t *testing.T) {
	for _, gs := range []GroupSpec{
		{Name: ""}, {Name: "a/b"}, {Name: "g", Policy: "lifo"},
		{Name: "g", Sites: []site.Spec{{Name: "x"}}},
		{Name: "g", Sites: []site.Spec{{Name: "x", Kind: "pbs"}}},
		{Name: "g", Sites: []site.Spec{{Name: "x", Kind: "zinf", Mode: "loop"}}},
		{Name: "g", Sites: []site.Spec{{Name: "x", Kind: "zinf", WallTime: "1s"}}},
		{Name: "g", Sites: []site.Spec{{Name: "x", Kind: "zinf"}, {Name: "x", Kind: "slurm"}}},
		{Name: "g", Sites: []site.Spec{{Name: "..", Kind: "zinf"}}},
	} {
		if err := gs.check(); err == nil {
			t.Errorf("%+v accepted", gs)
		}
	}
	s := newTestState(t, FCFS)
	if _, err := s.putGroup(t0, zinfGroup("g", Priority)); err == nil {
		t.Error("a group's policy changed")
	}
}

// A self-regulating site decides from the placeholder's queue wait and the
// site's count (Fig. 3.7, with thresholds the thesis leaves open).
func TestRegulate(t *testing.T) {
	spec := site.Spec{Name: "r", Kind: site.Zinf, Regulate: true, LowWait: "1m", HighWait: "10m", MinCount: 2, MaxCount: 3}
	for _, tc := range []struct {
		name   string
		wait   time.Duration // -1: unknown
		others int           // other active placeholders at the site
		want   string
	}{
		{"short wait", 10 * time.Second, 0, Increase},
		{"short wait at max", 10 * time.Second, 2, Maintain},
		{"long wait", time.Hour, 2, Reduce},
		{"long wait at min", time.Hour, 1, Maintain},
		{"between", 5 * time.Minute, 1, Maintain},
		{"unknown wait", -1, 0, Maintain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newState()
			if _, err := s.putGroup(t0, GroupSpec{Name: "g", Sites: []site.Spec{spec}}); err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, NewJob{Command: "x"})
			for i := 0; i < tc.others; i++ {
				s.register(t0, "g", "r", fmt.Sprint("o", i), "started", t0)
			}
			req := PullRequest{Ident: Ident{Site: "r", LocalID: "me"}, Seq: 1}
			if tc.wait >= 0 {
				req.Submitted = t0.Add(-tc.wait)
			}
			r, err := s.pull(t0, "g", req, time.Second)
			if err != nil || r.Order == nil {
				t.Fatal(r, err)
			}
			if r.Regulate != tc.want {
				t.Errorf("decision %q, want %q", r.Regulate, tc.want)
			}
		})
	}
	for _, bad := range []site.Spec{
		{Name: "r", Kind: site.Zinf, Regulate: true, LowWait: "10m", HighWait: "1m"},
		{Name: "r", Kind: site.Zinf, Regulate: true, MinCount: 5, MaxCount: 2},
		{Name: "r", Kind: site.Zinf, Regulate: true, Mode: site.Pilot},
		{Name: "r", Kind: site.Zinf, Regulate: true, LowWait: "soon"},
	} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// The static-partitioning baseline: jobs pinned to a site go only to its
// placeholders, which are refused once their own list is done even though
// other sites' jobs wait; unpinned jobs go anywhere, in policy order.
func TestPinnedJobs(t *testing.T) {
	s := newTestState(t, FCFS)
	jobs := []NewJob{{Command: "1"}, {Command: "2"}, {Command: "3"}, {Command: "4"}, {Command: "5"}}
	if err := Split(jobs[:4], "a:1,b:3"); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, jobs...)
	pull := func(site string, i int) PullReply {
		r, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: site, LocalID: fmt.Sprint(site, i)}, Seq: 1}, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var got []string
	for i := 0; i < 3; i++ {
		for _, site := range []string{"a", "b"} {
			if r := pull(site, i); r.Order != nil {
				got = append(got, site+r.Order.Command)
			} else {
				got = append(got, site+"-")
			}
		}
	}
	if want := "[a1 b2 a5 b3 a- b4]"; fmt.Sprint(got) != want {
		t.Errorf("pulls %v, want %s", got, want)
	}
	for _, tc := range []struct{ spec, err string }{
		{"a:2,b:2", ""}, {"a:1,b:2", "3 jobs split, of 4"}, {"a:5", "more than"}, {"a", "SITE:COUNT"}, {"a:-1,b:5", "SITE:COUNT"},
	} {
		err := Split(make([]NewJob, 4), tc.spec)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Split %q: %v, want %q", tc.spec, err, tc.err)
		}
	}
	if _, err := s.addJobs(t0, "g", []NewJob{{Command: "x", Site: "nosite"}}); err == nil {
		t.Error("a job pinned to a site not in the group")
	}
}

// Placeholders pulling one after another before any reports its extra:
// each increase counts toward max_count at once, so together they never
// decide more extras than the bound leaves room for; an unknown
// placeholder calling (the extra itself) or the deciding placeholder's end
// stops the extra counting twice.
func TestRegulatePendingExtras(t *testing.T) {
	spec := site.Spec{Name: "r", Kind: site.Zinf, Regulate: true, LowWait: "1m", HighWait: "10m", MinCount: 1, MaxCount: 5}
	s := newState()
	if _, err := s.putGroup(t0, GroupSpec{Name: "g", Sites: []site.Spec{spec}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		mustAdd(t, s, NewJob{Command: "x"})
	}
	for i := 0; i < 3; i++ {
		s.register(t0, "g", "r", fmt.Sprint("p", i), "started", t0)
	}
	pull := func(local string) string {
		t.Helper()
		r, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "r", LocalID: local}, Seq: 1, Submitted: t0.Add(-time.Second)}, time.Second)
		if err != nil || r.Order == nil {
			t.Fatal(r, err)
		}
		return r.Regulate
	}
	var decisions []string
	for i := 0; i < 3; i++ {
		decisions = append(decisions, pull(fmt.Sprint("p", i)))
	}
	// p0 sees 3: increase; p1 sees 3 + 1 pending: increase; p2 sees 3 + 2
	// pending = 5: maintain. Without the pending count all three increase:
	// 3 + 3 extras pass the bound of 5.
	if want := []string{Increase, Increase, Maintain}; fmt.Sprint(decisions) != fmt.Sprint(want) {
		t.Fatalf("decisions %v, want %v", decisions, want)
	}
	pending := func() (n int) {
		for _, p := range s.active {
			if p.extraPending {
				n++
			}
		}
		return n
	}
	if pull("extra-of-p0") != Maintain || pending() != 1 {
		t.Fatalf("the extra's first call: %d pending, want 1", pending())
	}
	for _, p := range s.active {
		if p.extraPending {
			s.endPlaceholder(t0, p, EndDone)
		}
	}
	if pending() != 0 {
		t.Fatal("an ended placeholder still counts its extra")
	}
}

// A reported successor or extra that already called, ran and ended is
// linked to its reporter, not recorded again (a second record would count
// as active for good); an ended record older than the reporter is a local
// id the system reuses (a pid), and the reported one is new.
func TestSuccessorAlreadyEnded(t *testing.T) {
	s := newState()
	g, err := s.putGroup(t0, GroupSpec{Name: "g", Sites: []site.Spec{{Name: "r", Kind: site.Zinf}}})
	if err != nil {
		t.Fatal(err)
	}
	old := s.newPlaceholder("g", "r", site.Classic, "100", t0, 0)
	old.Started = t0
	s.endPlaceholder(t0.Add(time.Second), old, EndDone)
	p := s.newPlaceholder("g", "r", site.Classic, "200", t0.Add(2*time.Second), 0)
	p.Started = t0.Add(2 * time.Second)
	quick := s.newPlaceholder("g", "r", site.Classic, "300", t0.Add(3*time.Second), 0)
	quick.Started = t0.Add(3 * time.Second)
	s.endPlaceholder(t0.Add(4*time.Second), quick, EndDone)
	before := len(s.phs)
	s.successor(t0.Add(5*time.Second), g, p, "300", time.Time{})
	if len(s.phs) != before || quick.Pred != p.ID {
		t.Fatalf("the quick extra: %d records (want %d), pred %d (want %d)", len(s.phs), before, quick.Pred, p.ID)
	}
	s.successor(t0.Add(5*time.Second), g, p, "100", time.Time{})
	n := s.phs[s.latest[phKey{"g", "r", "100"}]]
	if len(s.phs) != before+1 || n == old || n.State == Ended || n.Pred != p.ID {
		t.Fatalf("a reused local id: %d records, new %+v", len(s.phs), n)
	}
}

// A placeholder the server submitted that called, ran its job and ended
// before the server recorded the submission is that record, not a new one
// (which would stay queued for good); an ended record that first called
// before the submission is a reused local id, and the submitted one is new.
func TestRegisterAfterItsFirstCall(t *testing.T) {
	s := newTestState(t, FCFS)
	mustAdd(t, s, NewJob{Command: "1"})
	at := t0
	quick := s.newPlaceholder("g", "a", site.Classic, "300", time.Time{}, 0)
	quick.Started, quick.Submitted = t0.Add(time.Second), t0 // the time it reports, from its environment
	s.endPlaceholder(t0.Add(2*time.Second), quick, EndDone)
	before := len(s.phs)
	if p := s.register(t0.Add(3*time.Second), "g", "a", "300", "started", at); p != quick || len(s.phs) != before || len(s.active) != 0 {
		t.Fatalf("the quick placeholder: record %+v, %d records (want %d), %d active (want 0)", p, len(s.phs), before, len(s.active))
	}
	old := s.newPlaceholder("g", "a", site.Classic, "100", t0, 0)
	old.Started = t0.Add(time.Second)
	s.endPlaceholder(t0.Add(2*time.Second), old, EndDone)
	p := s.register(t0.Add(4*time.Second), "g", "a", "100", "started", t0.Add(3*time.Second))
	if p == old || p.State != Queued || len(s.active) != 1 {
		t.Fatalf("a reused local id: record %+v, %d active", p, len(s.active))
	}
	// Called and still running when recorded: the same record, its submit
	// time the server's.
	live := s.newPlaceholder("g", "a", site.Classic, "400", time.Time{}, 0)
	live.Started = t0.Add(5 * time.Second)
	if p := s.register(t0.Add(6*time.Second), "g", "a", "400", "started", t0.Add(4*time.Second)); p != live || !p.Submitted.Equal(t0.Add(4*time.Second)) {
		t.Fatalf("a running placeholder: record %+v", p)
	}
}

// When the watchdog puts a job back, each other site that has run
// placeholders and has none left gets a fresh one (revive); a site with
// one active, a site never used, a site the user stopped, and a stale
// queued placeholder (no job put back) get none.
func TestWatchdogRevives(t *testing.T) {
	spec := GroupSpec{Name: "g", Sites: []site.Spec{{Name: "a", Kind: site.Zinf}, {Name: "b", Kind: site.Zinf},
		{Name: "c", Kind: site.Zinf}, {Name: "d", Kind: site.Zinf}, {Name: "e", Kind: site.Zinf}}}
	pull := func(s *state, siteName, local string) PullReply {
		r, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: siteName, LocalID: local}, Seq: 1}, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	s := newState()
	if _, err := s.putGroup(t0, spec); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, NewJob{Command: "1"}, NewJob{Command: "2"})
	pull(s, "a", "1") // binds job 1, then vanishes
	pull(s, "b", "1") // binds job 2 and reports it: b then has none left
	if err := s.done(t0, "g", DoneRequest{Ident: Ident{Site: "b", LocalID: "1"}, Attempt: 2, Ended: t0}); err != nil {
		t.Fatal(err)
	}
	s.register(t0, "g", "c", "1", "started", t0.Add(3*time.Hour)) // c has one queued
	pull(s, "e", "1")                                             // refused: nothing waits
	s.register(t0, "g", "e", "2", "started", t0)
	if _, err := s.stop(t0, "g", "e", 0); err != nil { // the user stops e
		t.Fatal(err)
	}
	tasks := s.watchdog(t0.Add(2*time.Hour), Watchdog{ExecFailure: time.Hour, MaxRetries: 3})
	var got []string
	for _, k := range tasks {
		got = append(got, fmt.Sprintf("%s:%s:%v", k.site, k.kill, k.submit))
	}
	sort.Strings(got)
	if want := "[a:1:true b::true]"; fmt.Sprint(got) != want {
		t.Errorf("tasks %v, want %s", got, want)
	}
	if tasks := s.watchdog(t0.Add(30*time.Hour), Watchdog{QueueFailure: time.Hour}); len(tasks) != 1 || tasks[0].site != "c" {
		t.Errorf("queue failure revived: %+v", tasks)
	}
}
