package submitter

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter/target"
)

// unitary and composite build the runner's and the recorder's test jobs
// (testkit.HelloJob, testkit.DAGJob).
var unitary, composite = testkit.HelloJob, testkit.DAGJob

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fakeTarget is a scripted target for the submitter's own logic: it fails
// submissions, fails jobs, or holds them until cancelled, as told. Its
// "remote" state (what was submitted under which key) is shared by the
// fakeTargets made with the same books, so it survives a simulated crash.
type fakeTarget struct {
	books *books
	rep   Reporter
	caps  Caps

	// transientFails: submit calls per key that fail with a transient error
	// before one succeeds.
	transientFails int
	// permanent: job ids whose submission fails for good.
	permanent map[string]bool
	// failRun: job id → number of attempts that fail when run.
	failRun map[string]int
	// hold: jobs run until cancelled.
	hold bool
	// submitDelay: each Submit takes this long.
	submitDelay time.Duration
	// onSubmit is called with the number of successful submissions so far.
	onSubmit func(n int)
}

type books struct {
	mu        sync.Mutex
	submits   map[string]int // successful submissions per key
	calls     map[string]int // submit calls per key
	cancelled map[string]bool
	running   int
	maxRun    int
	nextID    int
}

func newBooks() *books {
	return &books{submits: map[string]int{}, calls: map[string]int{}, cancelled: map[string]bool{}}
}

func newFake(b *books) *fakeTarget {
	return &fakeTarget{books: b, caps: Caps{Find: true, Cancel: true}}
}

func (f *fakeTarget) Name() string { return "fake" }
func (f *fakeTarget) Caps() Caps   { return f.caps }
func (f *fakeTarget) Watch(ctx context.Context, r Reporter) error {
	f.rep = r
	return nil
}

func (f *fakeTarget) Submit(ctx context.Context, s *Submission) (Receipt, error) {
	if f.submitDelay > 0 {
		time.Sleep(f.submitDelay)
	}
	b := f.books
	b.mu.Lock()
	b.calls[s.Key]++
	calls := b.calls[s.Key]
	b.mu.Unlock()
	if f.permanent[s.Job.ID] {
		return Receipt{Output: "rejected"}, fmt.Errorf("job %s rejected", s.Job.ID)
	}
	if calls <= f.transientFails {
		return Receipt{}, target.Transient(fmt.Errorf("controller unreachable (call %d)", calls))
	}
	b.mu.Lock()
	b.submits[s.Key]++
	b.nextID++
	id := fmt.Sprintf("fake-%d", b.nextID)
	b.running++
	if b.running > b.maxRun {
		b.maxRun = b.running
	}
	n := len(b.submits)
	b.mu.Unlock()
	if f.onSubmit != nil {
		f.onSubmit(n)
	}
	go f.runJob(s)
	return Receipt{TargetID: id, Output: id + "\n"}, nil
}

func (f *fakeTarget) runJob(s *Submission) {
	now := time.Now()
	f.rep.Report(Update{Key: s.Key, State: Running, Start: now})
	if f.hold {
		return
	}
	defer func() {
		f.books.mu.Lock()
		f.books.running--
		f.books.mu.Unlock()
	}()
	time.Sleep(time.Millisecond)
	if s.Attempt <= f.failRun[s.Job.ID] {
		one := 1
		f.rep.Report(Update{Key: s.Key, State: Failed, End: time.Now(), ExitStatus: &one, Reason: "exit status 1"})
		return
	}
	zero := 0
	f.rep.Report(Update{Key: s.Key, State: Succeeded, End: time.Now(), ExitStatus: &zero})
}

func (f *fakeTarget) Find(ctx context.Context, s *Submission) (Receipt, bool, error) {
	f.books.mu.Lock()
	n := f.books.submits[s.Key]
	f.books.mu.Unlock()
	if n == 0 {
		return Receipt{}, false, nil
	}
	go f.runJob(s)
	return Receipt{TargetID: "found"}, true, nil
}

func (f *fakeTarget) Track(ctx context.Context, s *Submission, r Receipt) error {
	go f.runJob(s)
	return nil
}

func (f *fakeTarget) Cancel(ctx context.Context, s *Submission) error {
	f.books.mu.Lock()
	f.books.cancelled[s.Key] = true
	f.books.running--
	f.books.mu.Unlock()
	f.rep.Report(Update{Key: s.Key, State: Cancelled, End: time.Now(), Reason: "cancelled"})
	return nil
}

func (f *fakeTarget) Close() error { return nil }

// byID indexes a run's job rows.
func byID(t testing.TB, st *store.Store, run string) map[string]store.Job {
	t.Helper()
	rows, err := st.Jobs(run)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]store.Job{}
	for _, r := range rows {
		if _, dup := m[r.JobID]; dup {
			t.Fatalf("job %s recorded twice", r.JobID)
		}
		m[r.JobID] = r
	}
	return m
}
