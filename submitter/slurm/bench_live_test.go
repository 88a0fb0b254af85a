package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// BenchmarkSlurmTargetVsSbatch compares the Slurm target's submission rate
// with a plain loop of `sbatch --parsable` on one real test cluster
// (at least 0.9 of it). It starts the cluster once and runs
// GMARK_BENCH_PAIRS interleaved pairs (default 6; the order within a pair
// alternates), each of
//
//   - raw: GMARK_BENCH_WORKERS goroutines (default 5) sbatch the
//     GMARK_BENCH_JOBS scripts (default 400) the target wrote in the warm-up
//     run, each under a job name of its own;
//   - gmark: submitter.Run with the target at its defaults (as `gmark
//     submit --target slurm` runs it: poll 1s, heterogeneous jobs on)
//     submits a workload of as many one-processor jobs, all due at once,
//     with as many workers (GMARK_BENCH_POLL, a duration, sets its poll).
//
// A rate is the jobs over the time from the first sbatch (Submit) started to
// the last one returned. Between phases the cluster is left to run what was
// submitted. The metrics are the medians of both rates, the median, least
// and greatest ratio (gmark / raw), and the CPU time of this process and
// its children per job in each phase (a gmark phase counts its polls until
// every job is final). b.N is not used: `-benchtime 1x` (make bench-slurm).
func BenchmarkSlurmTargetVsSbatch(b *testing.B) {
	pairs, jobs, workers := envInt(b, "GMARK_BENCH_PAIRS", 6), envInt(b, "GMARK_BENCH_JOBS", 400), envInt(b, "GMARK_BENCH_WORKERS", 5)
	e := slurmtest.Start(b, slurmtest.Options{MinJobAge: 300}, "bench")
	c := e.Clusters[0]
	work := b.TempDir()
	exe := stubFor(b)
	// The warm-up run writes the scripts the raw loop submits.
	if _, err := benchGmark(b, c, work, exe, "warm", jobs, workers); err != nil {
		b.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join(work, "scripts", "warm-*.sbatch"))
	if err != nil || len(scripts) != jobs {
		b.Fatalf("warm-up wrote %d scripts (%v), want %d", len(scripts), err, jobs)
	}
	b.ResetTimer()
	var raw, gm, ratio, rawCPU, gmCPU, rawCall, gmCall []float64
	for i := 0; i < pairs; i++ {
		var r, g phase
		runRaw := func() {
			r = benchRaw(b, c, work, scripts, workers, fmt.Sprintf("raw%d", i))
			waitQuiet(b, c)
		}
		runGmark := func() {
			var err error
			if g, err = benchGmark(b, c, work, exe, fmt.Sprintf("p%d", i), jobs, workers); err != nil {
				b.Fatal(err)
			}
		}
		if i%2 == 0 {
			runRaw()
			runGmark()
		} else {
			runGmark()
			runRaw()
		}
		raw, gm, ratio = append(raw, r.rate), append(gm, g.rate), append(ratio, g.rate/r.rate)
		rawCPU, gmCPU = append(rawCPU, r.cpuPerJob), append(gmCPU, g.cpuPerJob)
		rawCall, gmCall = append(rawCall, r.call), append(gmCall, g.call)
		b.Logf("pair %d: raw %.1f jobs/s (%.2f ms CPU/job, %.1f ms/sbatch), gmark %.1f jobs/s (%.2f ms CPU/job, %.1f ms/Submit), ratio %.3f",
			i, r.rate, r.cpuPerJob, r.call, g.rate, g.cpuPerJob, g.call, g.rate/r.rate)
	}
	b.StopTimer()
	b.ReportMetric(median(raw), "raw-jobs/s")
	b.ReportMetric(median(gm), "gmark-jobs/s")
	b.ReportMetric(median(ratio), "ratio")
	b.ReportMetric(slicesMin(ratio), "ratio-min")
	b.ReportMetric(slicesMax(ratio), "ratio-max")
	b.ReportMetric(median(rawCPU), "raw-cpu-ms/job")
	b.ReportMetric(median(gmCPU), "gmark-cpu-ms/job")
	b.ReportMetric(median(rawCall), "raw-ms/sbatch")
	b.ReportMetric(median(gmCall), "gmark-ms/Submit")
	b.ReportMetric(0, "ns/op")
}

// phase is one side of a pair.
type phase struct {
	rate      float64 // jobs/s from the first submission started to the last returned
	cpuPerJob float64 // ms of CPU of this process and its children per job
	ownPerJob float64 // of which this process's own
	call      float64 // ms a submission (sbatch, or the target's Submit) took, on average
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// stubFor writes the stand-in for the gmark binary the jobs run.
func stubFor(b *testing.B) string {
	p := filepath.Join(b.TempDir(), "gmark")
	if err := os.WriteFile(p, []byte(stubGmark), 0o755); err != nil {
		b.Fatal(err)
	}
	return p
}

// cpuNow is the CPU time used so far by this process and its waited-for
// children.
func cpuNow() time.Duration {
	self, kids := cpuSplit()
	return self + kids
}

// cpuSplit is the CPU time used so far by this process, and by its
// waited-for children.
func cpuSplit() (self, kids time.Duration) {
	var s, k syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &k)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(s.Utime) + tv(s.Stime), tv(k.Utime) + tv(k.Stime)
}

// window records when the first of a phase's submissions started and the
// last ended.
type window struct {
	mu          sync.Mutex
	first, last time.Time
	busy        time.Duration // the submissions' durations, summed
}

func (w *window) add(start, end time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first.IsZero() || start.Before(w.first) {
		w.first = start
	}
	if end.After(w.last) {
		w.last = end
	}
	w.busy += end.Sub(start)
}

// perCall is the mean duration of a submission, ms.
func (w *window) perCall(n int) float64 {
	return float64(w.busy) / float64(time.Millisecond) / float64(n)
}

func (w *window) rate(n int) float64 { return float64(n) / w.last.Sub(w.first).Seconds() }

// benchRaw sbatches the scripts from workers goroutines.
func benchRaw(b *testing.B, c *slurmtest.Cluster, work string, scripts []string, workers int, tag string) phase {
	var next atomic.Int64
	var w window
	var wg sync.WaitGroup
	cpu0 := cpuNow()
	errs := make(chan error, workers)
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(scripts) {
					return
				}
				name := fmt.Sprintf("%s-%d", tag, i)
				start := time.Now()
				cmd := exec.Command("sbatch", "--parsable", "--job-name="+name, "--output="+name+".out", "--error="+name+".err", scripts[i])
				cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
				cmd.Dir = work
				out, err := cmd.Output()
				if _, perr := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err != nil || perr != nil {
					errs <- fmt.Errorf("sbatch %s: %v %q", name, err, out)
					return
				}
				w.add(start, time.Now())
			}
		}()
	}
	wg.Wait()
	cpu := cpuNow() - cpu0
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return phase{rate: w.rate(len(scripts)), cpuPerJob: float64(cpu) / float64(time.Millisecond) / float64(len(scripts)), call: w.perCall(len(scripts))}
}

// timedTarget is the Slurm target with the times of its submissions noted.
type timedTarget struct {
	*Target
	w *window
}

func (t timedTarget) Submit(ctx context.Context, s *submitter.Submission) (submitter.Receipt, error) {
	start := time.Now()
	r, err := t.Target.Submit(ctx, s)
	t.w.add(start, time.Now())
	return r, err
}

// benchGmark runs the target at its defaults on jobs one-processor jobs
// due at once, and waits for every job.
func benchGmark(b *testing.B, c *slurmtest.Cluster, work, exe, tag string, jobs, workers int) (phase, error) {
	js := make([]workload.Job, jobs)
	for i := range js {
		js[i] = mkjob(fmt.Sprintf("%s-%d", tag, i), 0, "0", "*")
		js[i].Index = i
	}
	dir := testkit.WriteWorkload(b, js...)
	st, err := store.Open(filepath.Join(b.TempDir(), "results.db"))
	if err != nil {
		return phase{}, err
	}
	defer st.Close()
	poll, err := time.ParseDuration(cmpOr(os.Getenv("GMARK_BENCH_POLL"), "0s"))
	if err != nil {
		return phase{}, fmt.Errorf("GMARK_BENCH_POLL: %v", err)
	}
	tg, err := New(Config{Clusters: []ClusterConfig{{Name: c.Name, Conf: c.Conf}}, WorkDir: work, Executable: exe, Poll: poll})
	if err != nil {
		return phase{}, err
	}
	var w window
	cfg := submitter.Config{WorkloadDir: dir, Store: st, Target: timedTarget{tg, &w}}
	cfg.Workers = workers
	self0, kids0 := cpuSplit()
	sum, err := submitter.Run(context.Background(), cfg)
	tg.Close()
	self1, kids1 := cpuSplit()
	if err != nil {
		return phase{}, err
	}
	if sum.Jobs[store.Succeeded] != jobs {
		return phase{}, fmt.Errorf("%s: %v jobs, want %d succeeded", tag, sum.Jobs, jobs)
	}
	perJob := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(jobs) }
	return phase{rate: w.rate(jobs), cpuPerJob: perJob(self1 - self0 + kids1 - kids0), ownPerJob: perJob(self1 - self0), call: w.perCall(jobs)}, nil
}

// waitQuiet waits until the cluster has no job pending, running or
// completing.
func waitQuiet(b *testing.B, c *slurmtest.Cluster) {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		out, err := c.Cmd("squeue", "-h", "-t", "PENDING,RUNNING,COMPLETING,CONFIGURING", "-o", "%i").Output()
		if err == nil && len(strings.TrimSpace(string(out))) == 0 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Fatal("the cluster still runs jobs after 5 minutes")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func slicesMin(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func slicesMax(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
