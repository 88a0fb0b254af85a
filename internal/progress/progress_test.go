package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the lines goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Without a terminal, a line at each interval with the count, the total
// and the detail; none after Done; none when quiet or the interval is 0.
func TestLinesWithoutATerminal(t *testing.T) {
	t.Setenv(EveryEnv, "10ms")
	var w syncBuffer
	b := New(&w, Options{Total: 56, Desc: "submitting", Unit: "jobs"})
	b.Set(14)
	b.Detail("queued 3")
	deadline := time.Now().Add(time.Minute)
	for strings.Count(w.String(), "\n") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no two progress lines in a minute: %q", w.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.Done()
	got := w.String()
	first := strings.SplitN(got, "\n", 2)[0]
	if !strings.HasPrefix(first, "submitting: 14 of 56 jobs (25%) after ") || !strings.HasSuffix(first, " · queued 3") {
		t.Errorf("line %q", first)
	}
	time.Sleep(50 * time.Millisecond)
	if w.String() != got {
		t.Errorf("lines after Done: %q", strings.TrimPrefix(w.String(), got))
	}
	b.Done() // twice is harmless

	for _, tc := range []struct {
		name, every string
		quiet       bool
	}{{"quiet", "10ms", true}, {"interval 0", "0", false}} {
		t.Setenv(EveryEnv, tc.every)
		var w syncBuffer
		b := New(&w, Options{Total: -1, Desc: "x", Unit: "jobs", Quiet: tc.quiet})
		b.Add(3)
		time.Sleep(50 * time.Millisecond)
		b.Done()
		if w.String() != "" {
			t.Errorf("%s: %q", tc.name, w.String())
		}
	}
}

func TestEvery(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want time.Duration
	}{{"", DefaultEvery}, {"1m", time.Minute}, {"0", 0}, {"-1s", DefaultEvery}, {"soon", DefaultEvery}} {
		t.Setenv(EveryEnv, tc.env)
		if got := Every(); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.env, got, tc.want)
		}
	}
}

// An unknown total counts without a percentage.
func TestLineWithoutTotal(t *testing.T) {
	b := &Bar{desc: "reading", unit: "jobs", total: -1, n: 7, start: time.Now()}
	if got := b.line(); !strings.HasPrefix(got, "reading: 7 jobs after ") {
		t.Errorf("%q", got)
	}
}
