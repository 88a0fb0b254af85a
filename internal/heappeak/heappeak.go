// Package heappeak measures the most heap a piece of work keeps in use, for
// the tests that check a stage streams instead of holding its input.
package heappeak

import (
	"runtime"
	"time"
)

// During runs work after a garbage collection and returns the largest heap
// in use (runtime.MemStats.HeapInuse) seen while it ran, sampled every 50 ms
// and once more at its end.
func During(work func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	var peak uint64
	sample := func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			sample()
			select {
			case <-stop:
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
