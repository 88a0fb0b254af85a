package ce_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/arc"
	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/submitter/gram"
	"github.com/gmark/gmark/submitter/gram/gramtest"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// BenchmarkGridTargets measures, in one run, on one loopback Slurm cluster,
// three ways to it: the Slurm target (sbatch), an ARC CE in front of the
// cluster (the arc target, A-REX's REST interface; A-REX's periods 5 s and
// 2 s, as the tests'), and a GRAM5 gatekeeper in front of it (the gram
// target, jobmanager-slurm). Each takes GMARK_BENCH_JOBS (default 100)
// one-processor `hello` jobs due at once, from GMARK_BENCH_WORKERS (5)
// workers, and runs them to their end; GMARK_BENCH_ROUNDS (1) rounds of
// the three in turn. Per target and round:
//
//   - rate: jobs over the time from the first Submit started to the last
//     returned (the submissions per second the path sustains), and the
//     mean Submit;
//   - the submitter's delay (the store's, mean and 99th percentile);
//   - submission to LRM: from a job's Submit to the Slurm controller's
//     submit time of the Slurm job it became (Slurm's, whole seconds),
//     median and 90th percentile; the Slurm job is the one A-REX's control
//     directory names (ARC) or its job manager's log (GRAM); and the rate
//     the path passes jobs to the LRM (jobs over the time from the first
//     Submit to the last Slurm submit time);
//   - CPU per job: of this process and its children (gmark), of the CE's
//     processes (arched and what it reaped; the gatekeeper and its job
//     managers, and what they reaped), and of slurmctld, over the phase
//     (submission to the last job's end: the CE's idle cost included).
//
// b.N is not used: -benchtime 1x (make bench-grid).
func BenchmarkGridTargets(b *testing.B) {
	if why := arctest.Available(); why != "" {
		b.Skip("ARC CE not available: " + why)
	}
	if why := gramtest.Available(true); why != "" {
		b.Skip("GRAM5 not available: " + why)
	}
	jobs, workers, rounds := envInt(b, "GMARK_BENCH_JOBS", 100), envInt(b, "GMARK_BENCH_WORKERS", 5), envInt(b, "GMARK_BENCH_ROUNDS", 1)
	e := slurmtest.Start(b, slurmtest.Options{}, "bench")
	cl := e.Clusters[0]
	dir, err := os.MkdirTemp("", "gmark-bench-grid-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	creds, err := gridtest.New(filepath.Join(dir, "creds"))
	if err != nil {
		b.Fatal(err)
	}
	ce := arctest.Start(b, arctest.Options{Name: "bench", Creds: creds, Slurm: cl, InfoPeriod: 5 * time.Second, WakeupPeriod: 2 * time.Second})
	gk := gramtest.Start(b, gramtest.Options{Name: "bench", Creds: creds, Slurm: cl})
	raw, err := os.ReadFile(gmarkBin.Path(b))
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "gmark")
	if err := os.WriteFile(bin, raw, 0o755); err != nil {
		b.Fatal(err)
	}
	makers := []struct {
		name string
		make func(work string) (submitter.Target, error)
		cpu  func() time.Duration
	}{
		{"slurm", func(work string) (submitter.Target, error) {
			return slurm.New(slurm.Config{Clusters: []slurm.ClusterConfig{{Name: "bench", Conf: cl.Conf}}, WorkDir: work, Executable: bin})
		}, func() time.Duration { return 0 }},
		{"arc", func(work string) (submitter.Target, error) {
			return arc.New(arc.Config{CEs: []arc.CEConfig{{Name: "bench", URL: ce.URL, Queue: ce.Queue}}, Proxy: ce.Proxy, CADir: creds.CADir,
				WorkDir: work, Executable: bin, Poll: time.Second, Keep: true}) // the control directory names the Slurm jobs
		}, func() time.Duration { return procCPU(ce.Pid()) }},
		{"gram", func(work string) (submitter.Target, error) {
			return gram.New(gram.Config{CEs: []gram.CEConfig{{Name: "bench", Contact: gk.Resource("slurm")}}, Proxy: gk.Proxy, CADir: creds.CADir,
				WorkDir: work, Executable: bin, Poll: time.Second})
		}, func() time.Duration {
			d := procCPU(gk.Pid())
			for _, pid := range gk.JobManagers() {
				d += procCPU(pid)
			}
			return d
		}},
	}
	b.ResetTimer()
	all := map[string][]result{}
	for r := range rounds {
		for _, m := range makers {
			work := filepath.Join(dir, fmt.Sprintf("%s-%d", m.name, r))
			if err := os.MkdirAll(work, 0o755); err != nil {
				b.Fatal(err)
			}
			tg, err := m.make(work)
			if err != nil {
				b.Fatal(err)
			}
			res := benchPhase(b, tg, fmt.Sprintf("%s%d", m.name, r), jobs, workers, cl, gk, ce.Dir, m.cpu, procCPU(cl.CtldPid()))
			all[m.name] = append(all[m.name], res)
			b.Logf("round %d %-5s: %6.1f jobs/s, Submit %7.1f ms, delay mean %7.1f ms p99 %7.1f ms, submit->LRM p50 %5.1f s p90 %5.1f s, "+
				"into the LRM %5.1f jobs/s, CPU/job gmark %5.1f ms, CE %6.1f ms, slurmctld %4.1f ms, phase %5.1f s",
				r, m.name, res.rate, res.submitMS, res.delayMean, res.delayP99, res.lrmP50, res.lrmP90, res.lrmRate, res.gmarkCPU, res.ceCPU, res.ctldCPU, res.phaseS)
		}
	}
	b.StopTimer()
	for name, rs := range all {
		b.ReportMetric(medianOf(rs, func(r result) float64 { return r.rate }), name+"-jobs/s")
		b.ReportMetric(medianOf(rs, func(r result) float64 { return r.lrmP50 }), name+"-s-to-LRM")
		b.ReportMetric(medianOf(rs, func(r result) float64 { return r.ceCPU }), name+"-ce-cpu-ms/job")
		b.ReportMetric(medianOf(rs, func(r result) float64 { return r.delayMean }), name+"-delay-ms")
	}
}

// result is one target's phase.
type result struct {
	rate, submitMS                   float64
	delayMean, delayP99              float64 // ms
	lrmP50, lrmP90                   float64 // s
	lrmRate                          float64 // jobs/s into the LRM
	gmarkCPU, ceCPU, ctldCPU, phaseS float64
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

// procCPU is the CPU time of a process and of the children it waited for
// (/proc/PID/stat utime, stime, cutime, cstime), 0 when it is gone.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil || pid <= 0 {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // fields 14-17 of stat, counted after the state (field 3)
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// timed notes when each Submit started and ended.
type timed struct {
	submitter.Target
	mu          sync.Mutex
	first, last time.Time
	busy        time.Duration
}

func (t *timed) Submit(ctx context.Context, s *submitter.Submission) (submitter.Receipt, error) {
	start := time.Now()
	r, err := t.Target.Submit(ctx, s)
	end := time.Now()
	t.mu.Lock()
	if t.first.IsZero() || start.Before(t.first) {
		t.first = start
	}
	if end.After(t.last) {
		t.last = end
	}
	t.busy += end.Sub(start)
	t.mu.Unlock()
	return r, err
}

// benchPhase runs jobs hello jobs through tg and measures them.
func benchPhase(b *testing.B, tg submitter.Target, tag string, jobs, workers int, cl *slurmtest.Cluster, gk *gramtest.Gatekeeper,
	ceDir string, ceCPU func() time.Duration, ctld0 time.Duration) result {
	js := make([]workload.Job, jobs)
	for i := range js {
		js[i] = workload.Job{ID: fmt.Sprintf("%s-%d", tag, i), Unit: 1, Index: i, Kind: workload.Unitary, Type: "hello",
			SiteType: workload.Single, App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: "*", Count: 1}}}
	}
	st, err := store.Open(filepath.Join(b.TempDir(), "results.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	t := &timed{Target: tg}
	ce0, cpu0, t0 := ceCPU(), cpuNow(), time.Now()
	sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(b, js...), Store: st, Target: t,
		Settings: submitter.Settings{Workers: workers}})
	tg.Close()
	if err != nil {
		b.Fatal(err)
	}
	res := result{phaseS: time.Since(t0).Seconds()}
	perJob := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(jobs) }
	res.gmarkCPU, res.ceCPU, res.ctldCPU = perJob(cpuNow()-cpu0), perJob(ceCPU()-ce0), perJob(procCPU(cl.CtldPid())-ctld0)
	res.rate = float64(jobs) / t.last.Sub(t.first).Seconds()
	res.submitMS = float64(t.busy) / float64(time.Millisecond) / float64(jobs)
	rows, err := st.Jobs(sum.RunID)
	if err != nil {
		b.Fatal(err)
	}
	submits := slurmSubmits(b, cl)
	grams := gramLRMIDs(gk)
	var delays, toLRM []float64
	var lastLRM int64
	for _, r := range rows {
		if r.State != store.Succeeded {
			b.Fatalf("%s: %s %s", r.JobID, r.State, r.Reason)
		}
		delays = append(delays, float64(r.DelayNS)/1e6)
		id := lrmID(ceDir, r, grams)
		if at, ok := submits[id]; ok {
			toLRM = append(toLRM, float64(at*1e9-r.SubmitNS)/1e9)
			lastLRM = max(lastLRM, at)
		}
	}
	if len(toLRM) != len(rows) {
		b.Fatalf("%s: found the Slurm job of %d of %d jobs", tag, len(toLRM), len(rows))
	}
	slices.Sort(delays)
	slices.Sort(toLRM)
	res.delayMean, res.delayP99 = mean(delays), delays[int(0.99*float64(len(delays)-1))]
	res.lrmP50, res.lrmP90 = toLRM[len(toLRM)/2], toLRM[int(0.9*float64(len(toLRM)-1))]
	// The rate the path passes jobs to the LRM: from the first Submit to
	// the last job the controller took (whole seconds, so at least 1 s).
	res.lrmRate = float64(jobs) / max(float64(lastLRM*1e9-t.first.UnixNano())/1e9, 1)
	return res
}

// slurmSubmits is the controller's submit time of every job it keeps, by
// job id (Unix seconds).
func slurmSubmits(b *testing.B, cl *slurmtest.Cluster) map[string]int64 {
	out, err := cl.Cmd("squeue", "-h", "-t", "all", "-o", "%i %V").Output()
	if err != nil {
		b.Fatal(err)
	}
	m := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, ts, ok := strings.Cut(strings.TrimSpace(line), " ")
		if t, err := time.ParseInLocation("2006-01-02T15:04:05", ts, time.Local); ok && err == nil {
			m[id] = t.Unix()
		}
	}
	return m
}

var gramLine = regexp.MustCompile(`msg="job submitted to lrm" gramid=(\S+) lrm_id="(\d+)"`)

// gramLRMIDs maps a GRAM job's id (the path of its contact) to its Slurm
// job id, from the job managers' logs.
func gramLRMIDs(gk *gramtest.Gatekeeper) map[string]string {
	m := map[string]string{}
	logs, _ := filepath.Glob(filepath.Join(gk.Dir, "log", "gram_*.log"))
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		for _, x := range gramLine.FindAllStringSubmatch(string(b), -1) {
			m[x[1]] = x[2]
		}
	}
	return m
}

// lrmID is the Slurm job id a job became: the Slurm target's id, the
// one A-REX keeps in its control directory (job.ID.local's localid), or
// the job manager's (GRAM, by the contact's path).
func lrmID(ceDir string, r store.Job, grams map[string]string) string {
	_, id, _ := strings.Cut(r.TargetID, ":")
	switch {
	case strings.HasPrefix(id, "https://"):
		u := strings.TrimPrefix(id, "https://")
		return grams[u[strings.IndexByte(u, '/'):]]
	case strings.Trim(id, "0123456789") == "":
		return id
	}
	b, _ := os.ReadFile(filepath.Join(ceDir, "control", "job."+id+".local"))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "localid="); ok {
			return v
		}
	}
	return ""
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func medianOf(rs []result, f func(result) float64) float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
