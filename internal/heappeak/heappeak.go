// Package heappeak measures the most heap a piece of work keeps in use, for
// the tests that check a stage streams instead of holding its input.
package heappeak

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// During runs work after a garbage collection and returns the largest live
// heap seen while it ran: the heap the last collection found reachable
// (runtime/metrics /gc/heap/live:bytes), sampled every 50 ms and once more
// after a collection at its end. Live rather than in-use heap, because the
// in-use heap also holds garbage not yet collected, whose amount depends on
// how far the collector lags behind, that is on the machine's load: a
// streaming stage's in-use peak swung from 4 to 38 MB between runs of one
// test, its live heap does not.
func During(work func()) uint64 {
	runtime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	sample := func() {
		metrics.Read(live)
		if live[0].Value.Kind() == metrics.KindUint64 {
			peak = max(peak, live[0].Value.Uint64())
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			sample()
			select {
			case <-stop:
				runtime.GC()
				sample()
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	work()
	close(stop)
	<-done
	return peak
}

// Allocated runs work and returns the bytes it allocated in all
// (runtime.MemStats.TotalAlloc, which counts every allocation, so the figure
// does not depend on when the collector ran): for the tests that check an
// input is refused before anything of its size is allocated.
func Allocated(work func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	work()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
