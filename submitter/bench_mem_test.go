package submitter

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// The submitter's footprint against the workload's length: a dryrun of n
// unitary jobs, 100 per second of schedule replayed at speedup 1000 (as
// `gmark submit DIR --target dryrun --speedup 1000` of a Poisson(0.01s)
// workload), recorded in a real SQLite store. The metric is the peak heap
// in use (runtime.MemStats.HeapInuse, sampled every 10 ms) above what the
// process held before the run, and the peak of the memory the runtime took
// from the OS (Sys); peak-heap-MB flat across the three lengths is the goal
// (docs/performance.md).
//
//	make bench-submit-mem
//	go test -run '^$' -bench SubmitMemory -benchtime 1x ./submitter/
func BenchmarkSubmitMemory(b *testing.B) {
	for _, n := range []int{100_000, 300_000, 1_000_000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) { benchMemory(b, n) })
	}
}

func benchMemory(b *testing.B, n int) {
	dir := writeLongWorkload(b, n)
	mb := func(x uint64) float64 { return float64(x) / (1 << 20) }
	for i := 0; i < b.N; i++ {
		// The read before the run alone (digest, counts, duplicate ids).
		readHeap, _ := peakMemory(func() {
			w, err := record.ReadWorkload(dir)
			if err != nil {
				b.Fatal(err)
			}
			w.Close()
		})
		st := openStore(b)
		cfg := Config{WorkloadDir: dir, Store: st, Target: NewDryRun()}
		cfg.Speedup = 1000
		var sum *record.Summary
		var err error
		heap, sys := peakMemory(func() { sum, err = Run(context.Background(), cfg) })
		if err != nil {
			b.Fatal(err)
		}
		if sum.Jobs["succeeded"] != n {
			b.Fatalf("%d jobs succeeded of %d: %v", sum.Jobs["succeeded"], n, sum.Jobs)
		}
		b.ReportMetric(mb(heap), "peak-heap-MB")
		b.ReportMetric(mb(sys), "peak-sys-MB")
		b.ReportMetric(mb(readHeap), "read-peak-heap-MB")
		b.ReportMetric(float64(sum.Delay.Mean)/float64(time.Millisecond), "mean-delay-ms")
		b.ReportMetric(0, "ns/op")
	}
}

// peakMemory runs fn and returns the peak heap in use while it ran, above
// what was in use before (sampled every 10 ms), and the peak of the memory
// the runtime held from the OS.
func peakMemory(fn func()) (heap, sys uint64) {
	runtime.GC()
	debug.FreeOSMemory()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var peakHeap, peakSys uint64
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peakHeap, peakSys = max(peakHeap, m.HeapInuse), max(peakSys, m.Sys)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			sample()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	sample()
	return peakHeap - min(base.HeapInuse, peakHeap), peakSys
}

// writeLongWorkload writes n unitary jobs 10 ms apart to a workload
// directory, streaming (the test process holds no job list).
func writeLongWorkload(b *testing.B, n int) string {
	dir := filepath.Join(b.TempDir(), "workload")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, workload.JobsFile))
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w := workload.NewWriter(bw)
	for i := 0; i < n; i++ {
		j := unitary(fmt.Sprintf("1-%d", i), time.Duration(i)*10*time.Millisecond)
		j.Index = i
		j.RunTime = time.Second
		if err := w.Write(&j); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}
