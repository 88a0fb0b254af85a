package metaqueue

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPulls: 1,400 placeholders (the thesis's CISS-1 had 1,376) call
// the server at once over loopback HTTP, each doing what a classic
// placeholder does: pull (binding a job) then report it done. Reported:
// pulls/s (each binding one job) and calls/s (pull + done). The
// target is 2,000 pulls/s. Clients and server share this machine's cores.
func BenchmarkPulls(b *testing.B) {
	const placeholders = 1400
	r := startServer(b, filepath.Join(b.TempDir(), "mq.db"), zinfGroup("g", FCFS))
	ctx := context.Background()
	jobs := make([]NewJob, b.N)
	for i := range jobs {
		jobs[i] = NewJob{Command: "true"}
	}
	for i := 0; i < len(jobs); i += 50000 {
		if _, err := r.client.AddJobs(ctx, "g", jobs[i:min(i+50000, len(jobs))]); err != nil {
			b.Fatal(err)
		}
	}
	var next, bound atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, placeholders)
	b.ResetTimer()
	start := time.Now()
	for p := 0; p < placeholders; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				id := Ident{Site: "a", LocalID: fmt.Sprint(next.Add(1))}
				rep, err := r.client.Pull(ctx, "g", PullRequest{Ident: id, Seq: 1})
				if err != nil {
					errs <- err
					return
				}
				if rep.Order == nil {
					return
				}
				bound.Add(1)
				if err := r.client.Done(ctx, "g", DoneRequest{Ident: id, Attempt: rep.Order.Attempt}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	if bound.Load() != int64(b.N) {
		b.Fatalf("%d jobs bound, want %d", bound.Load(), b.N)
	}
	b.ReportMetric(float64(b.N)/el, "pulls/s")
	b.ReportMetric(float64(2*b.N+placeholders)/el, "calls/s")
}
