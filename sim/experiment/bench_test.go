package experiment

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
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
// under 3 s, at least 1,000,000 events/s. It skips when the trace is not
// there.
func BenchmarkCoreLCG(b *testing.B) {
	e, r := coreLCG(b, 1)
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

// scheduleDigest records every job's start and placement as the run
// gives them (arrival, start, end and cluster, in the order the jobs
// start), and digests them.
type scheduleDigest struct {
	h    hash.Hash
	jobs int
}

func (d *scheduleDigest) Arrived(*sim.Job) {}
func (d *scheduleDigest) Started(j *sim.Job) {
	fmt.Fprintf(d.h, "%s %d %d %d\n", j.ID, j.Submit, j.Start, j.Cluster)
	d.jobs++
}
func (d *scheduleDigest) Ended(j *sim.Job) { fmt.Fprintf(d.h, "e %s %d\n", j.ID, j.End) }

// TestCoreLCGSchedule runs the benchmark's run (the LCG trace at 70% on
// DAS-2 through the core, CF), whole, and checks its schedule (every job's
// start, cluster and end, in order; and the core's event count) against
// digests computed from the code before the core's scans were made faster
// (main at 7f9ee8c): those changes must leave every start time and
// placement as it was. A change that means to alter the schedule changes
// these digests, and says why. The koala/core tests compare the fast
// paths with the plain ones on the same trace; this is the whole run, as
// gmark sim run makes it. It skips without the trace, and in -short.
func TestCoreLCGSchedule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the whole LCG run: seconds")
	}
	e, r := coreLCG(t, 1)
	s, err := r.source(context.Background(), e.Topology())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := r.Config
	m := &sim.CoreModel{}
	cfg.Core = m
	d := &scheduleDigest{h: sha256.New()}
	res, err := sim.RunObserved(cfg, e.Topology(), s, d)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%d jobs started, %d core events, %x", d.jobs, m.Core.EventCount(), d.h.Sum(nil))
	t.Logf("%s; %d jobs, AWT %.6f s", got, res.Jobs, res.AWT)
	const want = "188041 jobs started, 167538572 core events, 82fe483af641a74817b6e0a970541480f783e64c0e815e55e0bbc4a0dfc0806b"
	if got != want {
		t.Errorf("the schedule of the LCG run changed:\n got %s\nwant %s", got, want)
	}
}

// coreLCG is the benchmark's experiment and its one run, with the
// workload shortened to scale (1: the whole trace).
func coreLCG(t testing.TB, scale float64) (*Experiment, *Run) {
	trace := testkit.LCG(t)
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
	e, err := Parse("lcg-core.toml", []byte(src), Options{Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Run(0)
	if err != nil {
		t.Fatal(err)
	}
	return e, r
}
