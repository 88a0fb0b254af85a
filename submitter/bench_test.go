package submitter

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// The submitter's accuracy against dryrun: b.N jobs arriving at a fixed
// rate, each submitted at its instant by the worker pool, recorded in a
// real SQLite store. The metrics are the delays between scheduled and
// actual submission (mean, 75th and 99th percentile, max) and the drift
// (mean delay of the last tenth of the jobs minus the first tenth). The
// benchmark's own time is the schedule's length and means nothing.
//
//	go test -run '^$' -bench SubmitDelay10PerSec -benchtime 600x ./submitter/     # 1 minute at 10 jobs/s
//	go test -run '^$' -bench SubmitDelay1000PerSec -benchtime 100000x ./submitter/ # 100 s at 1,000 jobs/s
func benchDelay(b *testing.B, rate float64, workers int) {
	jobs := make([]workload.Job, b.N)
	for i := range jobs {
		jobs[i] = unitary(fmt.Sprintf("1-%d", i), time.Duration(float64(i)/rate*float64(time.Second)))
		jobs[i].Index = i
	}
	dir := testkit.WriteWorkload(b, jobs...)
	st := openStore(b)
	cfg := Config{WorkloadDir: dir, Store: st, Target: NewDryRun()}
	cfg.Workers = workers
	b.ResetTimer()
	sum, err := Run(context.Background(), cfg)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	d := sum.Delay
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	b.ReportMetric(ms(d.Mean), "mean-delay-ms")
	b.ReportMetric(ms(d.P75), "p75-delay-ms")
	b.ReportMetric(ms(d.P99), "p99-delay-ms")
	b.ReportMetric(ms(d.Max), "max-delay-ms")
	b.ReportMetric(ms(d.Drift), "drift-ms")
	b.ReportMetric(0, "ns/op")
}

// GrenchMark's Fig. 5.8 setting: 10 jobs/s, 5 workers.
func BenchmarkSubmitDelay10PerSec(b *testing.B) { benchDelay(b, 10, 5) }

// 1,000 jobs/s with the default pool (5 workers).
func BenchmarkSubmitDelay1000PerSec(b *testing.B) { benchDelay(b, 1000, 5) }
