package slurm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// BenchmarkSlurmTargetJobList is the Slurm target's CPU per job (this
// process and its children: sbatch, squeue, scontrol) as the controller's
// job list grows: a run of GMARK_BENCH_JOBS one-processor jobs (default
// 400), then one of GMARK_BENCH_LARGE (default 4,000), through the target at
// its defaults, on one test cluster that keeps every finished job for an
// hour: during the large run the controller's list grows past 4,000 jobs.
// The metrics are the CPU per job of each run and their ratio (flat: 1).
// `make bench-slurm-list`.
func BenchmarkSlurmTargetJobList(b *testing.B) {
	small, large := envInt(b, "GMARK_BENCH_JOBS", 400), envInt(b, "GMARK_BENCH_LARGE", 4000)
	e := slurmtest.Start(b, slurmtest.Options{MinJobAge: 3600}, "list")
	c := e.Clusters[0]
	work := b.TempDir()
	exe := stubFor(b)
	b.ResetTimer()
	var cpu []float64
	for i, n := range []int{small, large} {
		before := kept(b, c)
		g, err := benchGmark(b, c, work, exe, fmt.Sprintf("p%d", i), n, 5)
		if err != nil {
			b.Fatal(err)
		}
		waitQuiet(b, c)
		b.Logf("%d jobs, the controller keeping %d before and %d after: %.2f ms CPU/job, %.2f of it gmark's own (%.1f jobs/s, %.1f ms/Submit)",
			n, before, kept(b, c), g.cpuPerJob, g.ownPerJob, g.rate, g.call)
		cpu = append(cpu, g.cpuPerJob)
	}
	b.StopTimer()
	b.ReportMetric(cpu[0], "cpu-ms/job-small")
	b.ReportMetric(cpu[1], "cpu-ms/job-large")
	b.ReportMetric(cpu[1]/cpu[0], "ratio")
	b.ReportMetric(0, "ns/op")
}

// kept is the number of jobs the controller keeps, in every state.
func kept(b *testing.B, c *slurmtest.Cluster) int {
	out, err := c.Cmd("squeue", "-h", "-a", "-t", "all", "-o", "%i").Output()
	if err != nil {
		b.Fatal(err)
	}
	return strings.Count(string(out), "\n")
}
