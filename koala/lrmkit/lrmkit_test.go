package lrmkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
)

// guard bounds every wait of these tests: reaching it is a failure (a call
// that never ran), never the thing a test measures.
const guard = 20 * time.Second

// lines is a log whose every line also goes to a channel, so that a test
// can wait for the line it expects.
type lines struct {
	mu  sync.Mutex
	all []string
	ch  chan string
}

func newLines() *lines { return &lines{ch: make(chan string, 1000)} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.all = append(l.all, string(p))
	l.mu.Unlock()
	l.ch <- strings.TrimSuffix(string(p), "\n")
	return len(p), nil
}

// wait is the next line, or a failure after the guard.
func (l *lines) wait(t *testing.T) string {
	t.Helper()
	select {
	case s := <-l.ch:
		return s
	case <-time.After(guard):
		t.Fatal("no log line")
		return ""
	}
}

// start runs s until the test ends, and returns a function that stops it
// and waits for Run to return.
func start(t *testing.T, s *Set, do Do) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx, do); close(done) }()
	stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(guard):
			t.Fatal("Run did not return after its context ended")
		}
	}
	t.Cleanup(stop)
	return stop
}

func quiet(context.Context) func(*core.Core) { return nil }

func keep(func(*core.Core)) bool { return true }

// The worker runs the calls one at a time, each producer's in the order it
// queued them, whatever the number of producers and calls.
func TestWorkerRunsCallsInOrderOneAtATime(t *testing.T) {
	cases := []struct {
		name               string
		producers, perEach int
	}{
		{"one call", 1, 1},
		{"one producer, many calls", 1, 500},
		{"many producers", 8, 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSet(nil, "")
			c := NewCluster(s, Config[int]{Name: "c", Every: time.Hour, Poll: quiet})
			start(t, s, keep)
			var running, overlaps atomic.Int32
			ran := make(chan [2]int, tc.producers*tc.perEach)
			var wg sync.WaitGroup
			for p := range tc.producers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range tc.perEach {
						c.Enqueue(func(context.Context) {
							if running.Add(1) > 1 {
								overlaps.Add(1)
							}
							ran <- [2]int{p, i}
							running.Add(-1)
						})
					}
				}()
			}
			wg.Wait()
			next := make([]int, tc.producers)
			for range tc.producers * tc.perEach {
				select {
				case r := <-ran:
					if r[1] != next[r[0]] {
						t.Fatalf("producer %d's call %d ran when %d was next", r[0], r[1], next[r[0]])
					}
					next[r[0]]++
				case <-time.After(guard):
					t.Fatalf("calls run: %v of %d each", next, tc.perEach)
				}
			}
			if n := overlaps.Load(); n != 0 {
				t.Errorf("%d calls ran while another did", n)
			}
		})
	}
}

// A call that ends the context is the last: the calls queued behind it do
// not run, and Run returns.
func TestWorkerStopsWithTheContext(t *testing.T) {
	s := NewSet(nil, "")
	c := NewCluster(s, Config[int]{Name: "c", Every: time.Hour, Poll: quiet})
	ctx, cancel := context.WithCancel(context.Background())
	var after atomic.Int32
	c.Enqueue(func(context.Context) { cancel() })
	c.Enqueue(func(context.Context) { after.Add(1) })
	done := make(chan struct{})
	go func() { s.Run(ctx, keep); close(done) }()
	select {
	case <-done:
	case <-time.After(guard):
		t.Fatal("Run did not return")
	}
	if after.Load() != 0 {
		t.Error("a call queued behind the cancelling one ran")
	}
}

// The poller polls at once, then every tick; hands on what is to tell and
// nothing for a nil report; stops when the driver does, or the context
// ends.
func TestPollLoop(t *testing.T) {
	cases := []struct {
		name       string
		every      time.Duration
		stopAt     int  // the driver refuses the report of this poll (0: never)
		nilOdd     bool // odd polls have nothing to tell
		polls      int  // polls to wait for (the next one waits for the context)
		wantHanded int  // reports handed to the driver
	}{
		{"first poll at once", time.Hour, 0, false, 1, 1},
		{"every tick", time.Millisecond, 0, false, 5, 5},
		{"nothing to tell is not handed on", time.Millisecond, 0, true, 6, 3},
		{"the driver stops", time.Millisecond, 3, false, 3, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var polls, handed atomic.Int32
			enough := make(chan struct{})
			poll := func(ctx context.Context) func(*core.Core) {
				n := int(polls.Add(1))
				if n == tc.polls {
					close(enough)
				}
				if n > tc.polls {
					<-ctx.Done() // the test has what it waits for
					return nil
				}
				if tc.nilOdd && n%2 == 1 {
					return nil
				}
				return func(*core.Core) {}
			}
			do := func(func(*core.Core)) bool { return int(handed.Add(1)) != tc.stopAt }
			c := NewCluster(NewSet(nil, ""), Config[int]{Name: "c", Every: tc.every, Poll: poll})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() { c.pollLoop(ctx, do); close(done) }()
			if tc.stopAt == 0 {
				select {
				case <-enough:
				case <-time.After(guard):
					t.Fatalf("%d polls, want %d", polls.Load(), tc.polls)
				}
				cancel()
			}
			select {
			case <-done:
			case <-time.After(guard):
				t.Fatal("the poller went on after the driver or the context stopped it")
			}
			if got := int(handed.Load()); got != tc.wantHanded {
				t.Errorf("%d reports handed on, want %d", got, tc.wantHanded)
			}
			if n := int(polls.Load()); n > tc.polls+1 || (tc.every == time.Hour || tc.stopAt > 0) && n != tc.polls {
				t.Errorf("%d polls, want %d", n, tc.polls)
			}
		})
	}
}

// sink keeps the core's alerts.
type sink struct{ alerts []string }

func (s *sink) Event(e *core.Event) {
	if e.Kind == core.EvAlert {
		s.alerts = append(s.alerts, e.Reason)
	}
}

// controller is a kit cluster as a core.Controller.
type controller struct{ *Cluster[int] }

func (controller) Kill(string, string) {}

// aCore is a core whose one cluster, c, has the kit cluster as controller.
func aCore(t *testing.T, c *Cluster[int]) (*core.Core, *sink) {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := grid.Parse("g.toml", []byte("[[cluster]]\nname = \"c\"\nlrm = \"slurm\"\nslurm_conf = \""+conf+"\"\nprocessors = 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	sk := &sink{}
	k, err := core.NewWith(g, time.Unix(1_800_000_000, 0), sk, nil, map[string]core.Controller{"c": controller{c}})
	if err != nil {
		t.Fatal(err)
	}
	return k, sk
}

// A resource manager that fails to answer puts its cluster out of service
// once it has failed for UnreachableAfter; an answer starts the count
// again; a poll stopped by its context says nothing.
func TestUnanswered(t *testing.T) {
	type step struct {
		at       time.Duration // since the first step
		answered bool
		stopped  bool // the poll's context had ended
		want     bool // the core is told the controller is unreachable
	}
	cases := []struct {
		name  string
		after time.Duration
		steps []step
	}{
		{"fails on", 30 * time.Second, []step{{at: 0}, {at: 29 * time.Second}, {at: 30 * time.Second, want: true}, {at: 31 * time.Second, want: true}}},
		{"an answer starts the count again", 30 * time.Second, []step{{at: 0}, {at: 20 * time.Second, answered: true},
			{at: 40 * time.Second}, {at: 69 * time.Second}, {at: 70 * time.Second, want: true}}},
		{"no grace", 0, []step{{at: 0, want: true}}},
		{"stopped polls start no count", 30 * time.Second, []step{{at: 0, stopped: true}, {at: 40 * time.Second},
			{at: 60 * time.Second, stopped: true}, {at: 69 * time.Second}, {at: 70 * time.Second, want: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(NewSet(nil, ""), Config[int]{Name: "c", UnreachableAfter: tc.after})
			t0 := time.Unix(1_800_000_000, 0)
			var now time.Time
			c.now = func() time.Time { return now }
			stopped, cancel := context.WithCancel(context.Background())
			cancel()
			for i, st := range tc.steps {
				now = t0.Add(st.at)
				if st.answered {
					c.Answered()
					continue
				}
				ctx := context.Background()
				if st.stopped {
					ctx = stopped
				}
				r := c.Unanswered(ctx, errors.New("squeue: timed out"))
				if (r != nil) != st.want {
					t.Fatalf("step %d (at %v): told %v, want %v", i, st.at, r != nil, st.want)
				}
				if r == nil {
					continue
				}
				k, sk := aCore(t, c)
				r(k)
				want := "cluster c: its controller does not answer: squeue: timed out"
				if len(sk.alerts) != 1 || sk.alerts[0] != want {
					t.Fatalf("step %d: alerts %q, want %q", i, sk.alerts, want)
				}
			}
		})
	}
}

// kills records the cancellations the worker made.
type kills struct {
	mu  sync.Mutex
	got []string
}

func (k *kills) kill(_ context.Context, sb *Sub[int], id int, reason string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.got = append(k.got, fmt.Sprintf("%s %d %s", sb.Name, id, reason))
}

func (k *kills) list() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.got...)
}

// drain waits until the worker has run every call queued before it.
func drain(t *testing.T, c *Cluster[int]) {
	t.Helper()
	done := make(chan struct{})
	c.Enqueue(func(context.Context) { close(done) })
	select {
	case <-done:
	case <-time.After(guard):
		t.Fatal("the worker is stuck")
	}
}

// A submission is sent on the worker, recorded with the manager's id or
// its failure, logged, and cancelled once: at once when the manager has
// taken it, else as soon as it answers; never when it failed.
func TestSubmitAndCancel(t *testing.T) {
	cases := []struct {
		name         string
		sendErr      error
		cancelBefore bool // Cancel while the manager has not answered
		cancels      int  // Cancel calls after it answered
		wantLog      string
		wantKills    []string
	}{
		{"taken", nil, false, 0, "gmark koala: c: submitted gmark-p-k1.c0.s2 as Slurm job 7", nil},
		{"taken, then cancelled twice", nil, false, 2, "gmark koala: c: submitted gmark-p-k1.c0.s2 as Slurm job 7",
			[]string{"gmark-p-k1.c0.s2 7 why"}},
		{"cancelled before the manager answered", nil, true, 1, "gmark koala: c: submitted gmark-p-k1.c0.s2 as Slurm job 7",
			[]string{"gmark-p-k1.c0.s2 7 why"}},
		{"failed", errors.New("sbatch: no partition"), false, 1, "gmark koala: c: sbatch of gmark-p-k1.c0.s2 failed: sbatch: no partition", nil},
		{"failed, cancelled before", errors.New("sbatch: no partition"), true, 0,
			"gmark koala: c: sbatch of gmark-p-k1.c0.s2 failed: sbatch: no partition", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := newLines()
			k := &kills{}
			sending, answer := make(chan *core.Submission, 1), make(chan struct{})
			send := func(_ context.Context, sb *Sub[int], s *core.Submission, base string) (int, error) {
				if base != "c0.s2" || sb.Dir != filepath.Join("/w", "k1") || sb.Size != 3 {
					t.Errorf("sent %s of %+v", base, sb)
				}
				sending <- s
				<-answer
				return 7, tc.sendErr
			}
			s := NewSet(log, "")
			c := NewCluster(s, Config[int]{Name: "c", Dir: "/w", Prefix: "p", Job: "Slurm job", Submitting: "sbatch of",
				Every: time.Hour, Poll: quiet, Send: send, Kill: k.kill})
			start(t, s, keep)
			ref := core.Ref{Job: "k1", Component: 0, Attempt: 2}
			c.Submit(&core.Submission{Ref: ref, Size: 3, JobSize: 3})
			if got := (<-sending).Ref; got != ref {
				t.Fatalf("sent %v", got)
			}
			if tc.cancelBefore {
				c.Cancel(ref, "why")
			}
			close(answer)
			if got := log.wait(t); got != tc.wantLog {
				t.Errorf("log %q, want %q", got, tc.wantLog)
			}
			for range tc.cancels {
				c.Cancel(ref, "why")
			}
			c.Cancel(core.Ref{Job: "nobody"}, "why")
			drain(t, c)
			if got := k.list(); strings.Join(got, "|") != strings.Join(tc.wantKills, "|") {
				t.Errorf("cancelled %q, want %q", got, tc.wantKills)
			}
			c.Lock()
			sb := c.Subs[ref]
			c.Unlock()
			switch {
			case tc.sendErr != nil && (sb.Failed != tc.sendErr.Error() || sb.ID != 0):
				t.Errorf("failed submission recorded as %+v", sb)
			case tc.sendErr == nil && (sb.Failed != "" || sb.ID != 7):
				t.Errorf("taken submission recorded as %+v", sb)
			}
		})
	}
}

// Release makes the release file of a component that holds, logs it, and
// does nothing for one that does not hold or is not known.
func TestRelease(t *testing.T) {
	cases := []struct {
		name    string
		hold    bool
		mkdir   bool
		ref     core.Ref
		wantLog string // "" for none
	}{
		{"holds", true, true, core.Ref{Job: "k1", Attempt: 1}, "gmark koala: c: released gmark-p-k1.c0.s1 (CE job ce-7)\n"},
		{"does not hold", false, true, core.Ref{Job: "k1", Attempt: 1}, ""},
		{"not known", true, true, core.Ref{Job: "k9", Attempt: 1}, ""},
		{"its directory is gone", true, false, core.Ref{Job: "k1", Attempt: 1},
			"gmark koala: c: cannot release gmark-p-k1.c0.s1: open DIR/k1/c0.s1.release: no such file or directory\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var log bytes.Buffer
			s := NewSet(&log, "")
			c := NewCluster(s, Config[string]{Name: "c", Dir: dir, Prefix: "p", Job: "CE job"})
			ref := core.Ref{Job: "k1", Attempt: 1}
			c.Submit(&core.Submission{Ref: ref, Size: 1, Hold: tc.hold})
			c.Lock()
			c.Subs[ref].ID = "ce-7" // as if the worker had sent it
			c.Unlock()
			if tc.mkdir {
				if err := os.Mkdir(filepath.Join(dir, "k1"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			c.Release(tc.ref)
			_, err := os.Stat(filepath.Join(dir, "k1", "c0.s1.release"))
			made := err == nil
			if want := tc.wantLog != "" && tc.mkdir; made != want {
				t.Errorf("release file made %v, want %v", made, want)
			}
			if got, want := log.String(), strings.ReplaceAll(tc.wantLog, "DIR", dir); got != want {
				t.Errorf("log %q, want %q", got, want)
			}
		})
	}
}

// The rendezvous server starts the first time a job needs it, once however
// many ask at once, and stops with Run; one that cannot start says why, to
// every caller.
func TestRendezvous(t *testing.T) {
	cases := []struct {
		name, at string
		ok       bool
	}{
		{"loopback", "127.0.0.1:0", true},
		{"no such port", "127.0.0.1:99999", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSet(nil, tc.at)
			NewCluster(s, Config[int]{Name: "c", Every: time.Hour, Poll: quiet})
			stop := start(t, s, keep)
			if s.rdv != nil {
				t.Fatal("started before a job needed it")
			}
			addrs, errs := make([]string, 8), make([]error, 8)
			var wg sync.WaitGroup
			for i := range addrs {
				wg.Add(1)
				go func() { defer wg.Done(); addrs[i], errs[i] = s.Rendezvous() }()
			}
			wg.Wait()
			for i := range addrs {
				if (errs[i] == nil) != tc.ok || addrs[i] != addrs[0] || (errs[i] != nil && errs[i].Error() != errs[0].Error()) {
					t.Fatalf("caller %d: %q %v; caller 0: %q %v", i, addrs[i], errs[i], addrs[0], errs[0])
				}
			}
			if !tc.ok {
				stop()
				return
			}
			conn, err := net.Dial("tcp", addrs[0])
			if err != nil {
				t.Fatalf("the server at %s: %v", addrs[0], err)
			}
			conn.Close()
			stop()
			if conn, err := net.Dial("tcp", addrs[0]); err == nil {
				conn.Close()
				t.Errorf("the server at %s still answers after Run", addrs[0])
			}
		})
	}
}

// Lines written at once by many goroutines come out whole; a set without
// a log writes nothing.
func TestLogLinesAreWhole(t *testing.T) {
	for _, writers := range []int{1, 8} {
		var log bytes.Buffer
		s := NewSet(&log, "")
		cs := []*Cluster[int]{NewCluster(s, Config[int]{Name: "a"}), NewCluster(s, Config[int]{Name: "b"})}
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 200 {
					cs[i%2].Logf("line %d of writer %d: %s", i, w, strings.Repeat("x", 100))
				}
			}()
		}
		wg.Wait()
		whole := regexp.MustCompile(`^gmark koala: [ab]: line \d+ of writer \d+: x{100}$`)
		got := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
		if len(got) != writers*200 {
			t.Fatalf("%d writers: %d lines", writers, len(got))
		}
		for _, l := range got {
			if !whole.MatchString(l) {
				t.Fatalf("%d writers: line %q", writers, l)
			}
		}
	}
	NewCluster(NewSet(nil, ""), Config[int]{Name: "c"}).Logf("nowhere %d", 1)
}

func TestJobName(t *testing.T) {
	cases := []struct {
		prefix string
		ref    core.Ref
		want   string
	}{
		{"ab12cd34", core.Ref{Job: "k3", Component: 1, Attempt: 17}, "gmark-ab12cd34-k3.c1.s17"},
		{"p", core.Ref{Job: "7"}, "gmark-p-7.c0.s0"},
	}
	for _, tc := range cases {
		if got := JobName(tc.prefix, tc.ref); got != tc.want || !strings.HasPrefix(got, NamePrefix(tc.prefix)) {
			t.Errorf("JobName(%q, %v) = %q, want %q", tc.prefix, tc.ref, got, tc.want)
		}
	}
}

// The set's controllers are those its clusters named, by cluster; a
// cluster without one is run but handed to no core.
func TestControllers(t *testing.T) {
	cases := []struct {
		name  string
		named []string // clusters with a controller
		bare  int      // clusters without
		want  string
	}{
		{"none", nil, 0, ""},
		{"one", []string{"a"}, 0, "a"},
		{"several", []string{"b", "a"}, 1, "a b"},
		{"only bare", nil, 2, ""},
	}
	for _, tc := range cases {
		s := NewSet(nil, "")
		for _, n := range tc.named {
			ctl := &controller{} // built on its cluster, as the packages' are
			ctl.Cluster = NewCluster(s, Config[int]{Name: n, Controller: ctl})
		}
		for range tc.bare {
			NewCluster(s, Config[int]{Name: "x"})
		}
		got := s.Controllers()
		var names []string
		for n, ctl := range got {
			if ctl.(*controller).cfg.Name != n {
				t.Errorf("%s: cluster %s has %s's controller", tc.name, n, ctl.(*controller).cfg.Name)
			}
			names = append(names, n)
		}
		slices.Sort(names)
		if strings.Join(names, " ") != tc.want || s.Empty() != (len(tc.named)+tc.bare == 0) {
			t.Errorf("%s: controllers %q (want %q), empty %v", tc.name, names, tc.want, s.Empty())
		}
		delete(got, "a")
		if _, ok := s.Controllers()["a"]; !ok && slices.Contains(tc.named, "a") {
			t.Errorf("%s: the caller's map is the set's", tc.name)
		}
	}
}

func TestOptions(t *testing.T) {
	durations := []struct{ d, def, want time.Duration }{
		{0, time.Minute, time.Minute},
		{-time.Second, time.Minute, time.Minute},
		{time.Nanosecond, time.Minute, time.Nanosecond},
		{2 * time.Hour, time.Minute, 2 * time.Hour},
	}
	for _, tc := range durations {
		if got := Or(tc.d, tc.def); got != tc.want {
			t.Errorf("Or(%v, %v) = %v, want %v", tc.d, tc.def, got, tc.want)
		}
	}
	prefixes := []struct {
		prefix string
		ok     bool
	}{
		{"ab12cd34", true}, {"p", true}, {"", false}, {"a-b", false}, {"a.b", false}, {"a/b", false}, {"a b", false},
	}
	for _, tc := range prefixes {
		err := CheckPrefix("slurmlrm", tc.prefix)
		if (err == nil) != tc.ok {
			t.Errorf("CheckPrefix(%q): %v", tc.prefix, err)
		}
		if err != nil && err.Error() != fmt.Sprintf("slurmlrm: the prefix %q must be a word without '-', '.' or '/'", tc.prefix) {
			t.Errorf("CheckPrefix(%q): %v", tc.prefix, err)
		}
	}
}

func TestPaths(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ state, dir, want string }{
		{"/runs/koala.db", "", "/runs/koala.db.jobs"},
		{"koala.db", "", filepath.Join(wd, "koala.db.jobs")},
		{"/runs/koala.db", "/w/jobs", "/w/jobs"},
		{"/runs/koala.db", "jobs/../w", filepath.Join(wd, "w")},
	}
	for _, tc := range cases {
		exe, jobs, err := Paths(tc.state, tc.dir)
		if err != nil || exe != self || jobs != tc.want {
			t.Errorf("Paths(%q, %q) = %q, %q, %v; want %q, %q", tc.state, tc.dir, exe, jobs, err, self, tc.want)
		}
	}
}
