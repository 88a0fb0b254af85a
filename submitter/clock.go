package submitter

import (
	"runtime"
	"sync"
	"time"
)

// handAhead is how long before a job's instant the dispatcher hands it to
// the workers: the worker that takes it sleeps to the instant itself and
// makes the submit call on waking. A hand-off at the instant woke a worker
// through the Go scheduler, on a thread of ordinary priority: on a loaded
// machine (load 10 and more on two cores) the kernel ran that thread tens
// of milliseconds late. Early, a hand-off's lateness costs nothing; the
// dispatcher's own Go timer may be late by as much without harm.
const handAhead = 50 * time.Millisecond

// coarseMargin is how long before a deadline the Go timer is asked to wake
// a sleeper that cannot sleep on its thread (sleepUntil); the rest is
// slept with fineSleep.
const coarseMargin = 2 * time.Millisecond

// stopCheck is how often a sleep on the thread looks at the stop channel.
const stopCheck = 20 * time.Millisecond

// wakeAt waits on the Go timer t (stopped, the caller's) until the
// deadline, or until stop is closed, in which case it reports false.
func wakeAt(deadline time.Time, t *time.Timer, stop <-chan struct{}) bool {
	w := time.Until(deadline)
	if w <= 0 {
		return true
	}
	t.Reset(w)
	select {
	case <-t.C:
		return true
	case <-stop:
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		return false
	}
}

// sleepUntil returns at the deadline (on the monotonic clock), or as soon
// as stop is closed, in which case it reports false. The caller's thread
// is the one woken at the deadline (preciseThread): where that thread may
// take a real-time priority, the whole wait is slept in the kernel, in
// slices of stopCheck; else Go's timer wakes it coarseMargin early and the
// rest is slept in the kernel. The thread stays as it is, class and all,
// until the caller calls release: the worker makes its submit call first,
// as leaving the class at once let the kernel put the thread behind every
// ordinary one of a loaded machine between waking and the call.
func sleepUntil(deadline time.Time, stop <-chan struct{}) (release func(), ok bool) {
	release, raised := preciseThread()
	if !raised {
		if w := time.Until(deadline) - coarseMargin; w > 0 {
			t := time.NewTimer(w)
			select {
			case <-t.C:
			case <-stop:
				t.Stop()
				return release, false
			}
		}
	}
	for {
		w := time.Until(deadline)
		if w <= 0 {
			return release, true
		}
		select {
		case <-stop:
			return release, false
		default:
		}
		fineSleep(min(w, stopCheck))
	}
}

// Spare processors. A worker woken at an instant needs one of the
// runtime's processors (a P) to make its call; a P is held by whichever
// thread last ran Go code, and on a loaded machine the kernel may keep
// such a thread waiting, P and all, for tens of milliseconds. With a P for
// each worker and two more (the dispatcher, the loop and the recorder), a
// worker woken finds one idle. Ps whose goroutines sleep cost nothing.
var spare struct {
	sync.Mutex
	runs, prev int
}

// maxSpareProcs bounds the Ps asked for, however many workers.
const maxSpareProcs = 64

// spareProcs raises GOMAXPROCS to workers+2 (at most maxSpareProcs) while
// a run lasts, unless it is already that high; the function it returns
// puts back the value found when the last run in the process ends.
func spareProcs(workers int) (restore func()) {
	spare.Lock()
	defer spare.Unlock()
	if spare.runs == 0 {
		spare.prev = runtime.GOMAXPROCS(0)
	}
	if want := min(workers+2, maxSpareProcs); want > runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(want)
	}
	spare.runs++
	return func() {
		spare.Lock()
		defer spare.Unlock()
		if spare.runs--; spare.runs == 0 && runtime.GOMAXPROCS(0) != spare.prev {
			runtime.GOMAXPROCS(spare.prev)
		}
	}
}
