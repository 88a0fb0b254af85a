package submitter

import (
	"runtime"
	"testing"
	"time"
)

// sleepUntil returns at the deadline, never before it (on the monotonic
// clock), and false at once when stopped, however far the deadline.
func TestSleepUntil(t *testing.T) {
	for _, ahead := range []time.Duration{-time.Second, 0, time.Millisecond, 30 * time.Millisecond} {
		due := time.Now().Add(ahead)
		release, ok := sleepUntil(due, make(chan struct{}))
		release()
		if !ok {
			t.Fatalf("%v ahead: stopped without a stop", ahead)
		}
		if now := time.Now(); now.Before(due) {
			t.Fatalf("%v ahead: woke %v early", ahead, due.Sub(now))
		}
	}
	stop := make(chan struct{})
	close(stop)
	if release, ok := sleepUntil(time.Now().Add(time.Hour), stop); ok {
		t.Fatal("a stopped sleep reported its deadline reached")
	} else {
		release()
	}
	stop = make(chan struct{})
	go func() { time.Sleep(10 * time.Millisecond); close(stop) }()
	if release, ok := sleepUntil(time.Now().Add(time.Hour), stop); ok {
		t.Fatal("a sleep stopped midway reported its deadline reached")
	} else {
		release()
	}
}

// A run raises GOMAXPROCS to a P for each worker and two more while it
// lasts (overlapping runs too), and the last one to end puts it back.
func TestSpareProcs(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	a := spareProcs(5)
	if got := runtime.GOMAXPROCS(0); got != 7 {
		t.Fatalf("5 workers: GOMAXPROCS %d, want 7", got)
	}
	b := spareProcs(10)
	if got := runtime.GOMAXPROCS(0); got != 12 {
		t.Fatalf("a second run of 10 workers: GOMAXPROCS %d, want 12", got)
	}
	a()
	if got := runtime.GOMAXPROCS(0); got != 12 {
		t.Fatalf("the first run ended, the second not: GOMAXPROCS %d, want 12", got)
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("both ended: GOMAXPROCS %d, want 1 as found", got)
	}
	c := spareProcs(1000)
	if got := runtime.GOMAXPROCS(0); got != maxSpareProcs {
		t.Fatalf("1000 workers: GOMAXPROCS %d, want %d", got, maxSpareProcs)
	}
	c()
	runtime.GOMAXPROCS(100)
	d := spareProcs(5)
	if got := runtime.GOMAXPROCS(0); got != 100 {
		t.Fatalf("GOMAXPROCS already 100: now %d", got)
	}
	d()
}
