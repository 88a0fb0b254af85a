package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkGenerateVsLublinC compares gmark generate of the Lublin–
// Feitelson model (wl:lublin, its defaults), writing workload.jsonl and the
// SWF trace, with the model's own C program (m_lublin99.c, which writes
// SWF), as whole processes, in GMARK_BENCH_PAIRS alternating pairs (default
// 5; the order within a pair alternates). GMARK_LUBLIN_C names the C
// program, built by the user (it is not in the repository); the benchmark
// skips without it. gmark generates as many jobs as the C program wrote. The
// metrics: the medians of the throughputs (jobs/s of wall time) and of
// their ratio pair by pair (gmark / C), of the CPU time and peak memory of
// each. `make bench-lublin LUBLIN_C=...`.
func BenchmarkGenerateVsLublinC(b *testing.B) {
	cprog := os.Getenv("GMARK_LUBLIN_C")
	if cprog == "" {
		b.Skip("GMARK_LUBLIN_C is not set: point it at a built copy of the model's C program (m_lublin99.c, writing SWF)")
	}
	pairs := 5
	if v := os.Getenv("GMARK_BENCH_PAIRS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("GMARK_BENCH_PAIRS=%q", v)
		}
		pairs = n
	}
	gm := gmarkBin.Path(b)
	dir := b.TempDir()
	cOut := filepath.Join(dir, "c.swf")
	runC := func() proc {
		f, err := os.Create(cOut)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		cmd := exec.Command(cprog)
		cmd.Stdout = f
		return timed(b, cmd)
	}
	runC() // warm-up, and the number of jobs
	jobs := swfJobs(b, cOut)
	spec := filepath.Join(dir, "lf.wdl")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf("%d\twl:lublin\tsingle\t1\t*:?\t-\t-\n", jobs)), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "w")
	runG := func() proc {
		os.RemoveAll(out)
		return timed(b, exec.Command(gm, "generate", "-q", "-o", out, "--format", "swf", spec))
	}
	runG()
	if n := swfJobs(b, filepath.Join(out, "workload.swf")); n != jobs {
		b.Fatalf("gmark wrote %d jobs to its SWF, the C program %d", n, jobs)
	}
	b.ResetTimer()
	var ratio, gRate, cRate, gCPU, cCPU, gMem, cMem []float64
	for i := 0; i < pairs; i++ {
		var g, c proc
		if i%2 == 0 {
			c, g = runC(), runG()
		} else {
			g, c = runG(), runC()
		}
		gr, cr := float64(jobs)/g.wall.Seconds(), float64(jobs)/c.wall.Seconds()
		b.Logf("pair %d: gmark %.0f jobs/s (%.2f s CPU, %.1f MiB), C %.0f jobs/s (%.2f s CPU, %.1f MiB): %.3f", i, gr, g.cpu.Seconds(), g.mib, cr, c.cpu.Seconds(), c.mib, gr/cr)
		ratio, gRate, cRate = append(ratio, gr/cr), append(gRate, gr), append(cRate, cr)
		gCPU, cCPU, gMem, cMem = append(gCPU, g.cpu.Seconds()), append(cCPU, c.cpu.Seconds()), append(gMem, g.mib), append(cMem, c.mib)
	}
	b.StopTimer()
	b.ReportMetric(float64(jobs), "jobs")
	b.ReportMetric(med(gRate), "gmark-jobs/s")
	b.ReportMetric(med(cRate), "c-jobs/s")
	b.ReportMetric(med(ratio), "ratio")
	b.ReportMetric(med(gCPU), "gmark-cpu-s")
	b.ReportMetric(med(cCPU), "c-cpu-s")
	b.ReportMetric(med(gMem), "gmark-peak-MiB")
	b.ReportMetric(med(cMem), "c-peak-MiB")
	b.ReportMetric(0, "ns/op")
}

// proc is what a finished process took.
type proc struct {
	wall, cpu time.Duration
	mib       float64 // peak resident memory
}

func timed(b *testing.B, cmd *exec.Cmd) proc {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%v: %v: %s", cmd.Args, err, stderr.String())
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return proc{wall: wall, cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), mib: float64(ru.Maxrss) / 1024}
}

// swfJobs counts the records of an SWF file (its lines but comments).
func swfJobs(b *testing.B, path string) int {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 && l[0] != ';' {
			n++
		}
	}
	return n
}

func med(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}
