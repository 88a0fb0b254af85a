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
