package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/sim"
)

// BenchmarkLCGTrace replays the LCG trace (188,041 jobs) through each
// architecture on DAS-2 + Grid'5000 at 70% load, as `gmark sim run` of an
// experiment with kind = "trace" does it: the trace's first pass (its
// natural load), the scaled replay pulled through the simulator, and the
// run's series, everything but the store. The target: under 5 s a
// run. It reports the seconds per run and the jobs simulated per second.
func BenchmarkLCGTrace(b *testing.B) {
	trace := testkit.LCG(b)
	dir := b.TempDir()
	var archs []string
	for _, a := range sim.ArchNames() {
		archs = append(archs, strconv.Quote(a))
	}
	src := fmt.Sprintf("name = \"lcg\"\ntopology = \"das2-g5k\"\narchitectures = [%s]\nloads = [70]\n[workload]\nkind = \"trace\"\ntrace = %q\n",
		strings.Join(archs, ", "), trace)
	path := filepath.Join(dir, "lcg.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	e, err := Load(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < e.NumRuns(); i++ {
		r, err := e.Run(i)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(r.Arch, func(b *testing.B) {
			jobs, runs := 0, 0
			start := time.Now()
			for b.Loop() {
				row, err := Compute(context.Background(), e, r)
				if err != nil {
					b.Fatal(err)
				}
				jobs += row.Jobs
				runs++
			}
			el := time.Since(start).Seconds()
			b.ReportMetric(el/float64(runs), "s/run")
			b.ReportMetric(float64(jobs)/el, "jobs/s")
		})
	}
}

// BenchmarkCoreLCG runs the LCG trace (188,041 jobs) at 70% load on DAS-2
// through the central architecture's core model (the bundled KOALA-style
// core, CF placement), as 'gmark sim run' does with central_model = "core"
// (Compute's steps, with a CoreModel of the benchmark's to read the core's
// event count from). It reports the core's events per second (every event
// it numbers: placement tries, placements, claims, starts, ends,
// utilization samples, queue lengths; the simulator's driver takes only
// the starts and ends), the simulator's own (arrivals and heap events), and
// jobs per second. docs/performance.md: the goal is the whole trace in
// under 5 s, at least 1,000,000 events/s. It skips when the trace is not
// there.
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
	defer collectLessOften()() // as gmark sim run does
	var coreEvents uint64
	var simEvents, jobs int64
	start := time.Now()
	for b.Loop() {
		s, err := r.source(context.Background(), e.Topology())
		if err != nil {
			b.Fatal(err)
		}
		cfg := r.Config
		m := &sim.CoreModel{} // without a core: the run makes its own, as in Compute
		cfg.Core = m
		res, err := sim.Run(cfg, e.Topology(), s)
		s.Close()
		if err != nil {
			b.Fatal(err)
		}
		if res.Jobs != 188041 {
			b.Fatalf("%d jobs, want 188,041", res.Jobs)
		}
		coreEvents += m.Core.EventCount()
		simEvents += res.Events
		jobs += int64(res.Jobs)
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(coreEvents)/el, "events/s")
	b.ReportMetric(float64(simEvents)/el, "sim-events/s")
	b.ReportMetric(float64(jobs)/el, "jobs/s")
	b.ReportMetric(float64(coreEvents)/float64(b.N), "events/run")
}
