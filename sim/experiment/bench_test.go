package experiment

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
)

// BenchmarkCoreLCG runs the LCG trace (188,041 jobs) at 70% load on DAS-2
// through the central architecture's core model (the bundled KOALA-style
// core, CF placement), as 'gmark sim run' does with central_model = "core".
// It reports the simulator's events per second and the jobs per second
// (docs/performance.md: the goal is the whole trace in under 5 s, at least
// 1,000,000 events/s). It skips when the trace is not there.
func BenchmarkCoreLCG(b *testing.B) {
	trace := testkit.LCG(b)
	src := fmt.Sprintf(`name = "lcg-core"
seed = 1
topology = "das2"
architectures = ["central"]
loads = [70]
[workload]
kind = "trace"
trace = %q
[settings]
central_model = "core"
placement = "CF"
cool_down = true
`, trace)
	e, err := Parse("lcg-core.toml", []byte(src), Options{})
	if err != nil {
		b.Fatal(err)
	}
	r, err := e.Run(0)
	if err != nil {
		b.Fatal(err)
	}
	var events, jobs int64
	start := time.Now()
	for b.Loop() {
		res, err := Compute(context.Background(), e, r)
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		jobs += int64(res.Jobs)
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(events)/el, "events/s")
	b.ReportMetric(float64(jobs)/el, "jobs/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/run")
}
