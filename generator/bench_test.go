package generator

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/heappeak"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// The speed targets, measured here (quote them with
// `go test -run xxx -bench . ./generator/`):
//   - in-memory generation of simple jobs, >= 1,000,000 jobs/s;
//   - streaming to workload.jsonl, >= 300,000 jobs/s;
//   - one JDF file per job, >= half the rate of a plain loop creating files of
//     the same size in the same directory layout (both measured in one run).
// GrenchMark's reference implementation did about 3,000 and 100 jobs/s.

// simpleSpec is n single-processor sser jobs with Poisson arrivals.
func simpleSpec(tb testing.TB, n int) *wdl.Spec {
	return parse(tb, "bench.wdl", fmt.Sprintf("%d\tsser\tsingle\t1\t*:?\tPoisson(1s)\t-\n", n))
}

func reportRate(b *testing.B, jobs int, start time.Time) {
	b.ReportMetric(float64(jobs)/time.Since(start).Seconds(), "jobs/s")
}

func BenchmarkGenerateInMemory(b *testing.B) {
	g, err := New(simpleSpec(b, b.N), 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	n := 0
	if _, err := g.Generate(func(*workload.Job) error { n++; return nil }); err != nil {
		b.Fatal(err)
	}
	reportRate(b, n, start)
}

func BenchmarkGenerateToJSONL(b *testing.B) {
	g, err := New(simpleSpec(b, b.N), 1)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(b.TempDir(), workload.JobsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := workload.NewWriter(f)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	if _, err := g.Generate(w.Write); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	reportRate(b, w.Count(), start)
	b.SetBytes(0)
}

// jobsPerUnit spreads the JDF benchmark over units as a real spec would, so
// both benchmarks below create the same directory fan-out.
const jobsPerUnit = 1000

func multiUnitSpec(tb testing.TB, n int) *wdl.Spec {
	var src bytes.Buffer
	for left := n; left > 0; left -= jobsPerUnit {
		fmt.Fprintf(&src, "%d\tsser\tsingle\t1\t*:?\tPoisson(1s)\t-\n", min(left, jobsPerUnit))
	}
	return parse(tb, "bench.wdl", src.String())
}

func BenchmarkGenerateJDFPerJob(b *testing.B) {
	g, err := New(multiUnitSpec(b, b.N), 1)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	sink, err := printers.NewSink(dir, []string{"sbatch"}, false, printers.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	n := 0
	if _, err := g.Generate(func(j *workload.Job) error { n++; return sink.Write(j) }); err != nil {
		b.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		b.Fatal(err)
	}
	reportRate(b, n, start)
}

// BenchmarkPlainFileCreate is the yardstick for BenchmarkGenerateJDFPerJob:
// the same number of files, of the size of a generated sbatch script, in one
// folder per 1000 files, written by a plain os.WriteFile loop.
func BenchmarkPlainFileCreate(b *testing.B) {
	var sample bytes.Buffer
	p, _ := printers.Lookup("sbatch")
	j := workload.Job{ID: "1-0", Unit: 1, Kind: workload.Unitary, Type: "sser", SiteType: workload.Single,
		WallTime: 10 * time.Minute, App: workload.App{Name: "sser", Params: []workload.Param{
			{Key: "supersteps", Value: "10"}, {Key: "memory", Value: "100"}, {Key: "elements", Value: "10"}, {Key: "compute", Value: "10"}}},
		Components: []workload.Component{{Site: "*", Count: 1}}}
	if err := p.Print(&sample, &j, printers.Config{}); err != nil {
		b.Fatal(err)
	}
	content := sample.Bytes()
	dir := b.TempDir()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sub := filepath.Join(dir, strconv.Itoa(i/jobsPerUnit))
		if i%jobsPerUnit == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, strconv.Itoa(i)+".sbatch"), content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, b.N, start)
}

// TestTenMillionJobsBoundedMemory generates 10^7 jobs into workload.jsonl
// format (discarding the bytes) and checks that the live heap stays as small
// as it is for 10^5 jobs: generation streams, it does not hold the workload.
func TestTenMillionJobsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 10^7 jobs; skipped with -short")
	}
	peak := func(n int) uint64 {
		g, err := New(parse(t, "big.wdl", fmt.Sprintf(
			"%d\tsser\tsingle\t1\t*:?\tPoisson(1s)\t-\n%d\tsmpi\tunordered\t8\t-\tPoisson(2s)\tNSites=2\n", n/2, n/2)), 1)
		if err != nil {
			t.Fatal(err)
		}
		var sum *Summary
		peak := heappeak.During(func() {
			w := workload.NewWriter(bufio.NewWriter(io.Discard))
			sum, err = g.Generate(w.Write)
		})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Jobs != n {
			t.Fatalf("generated %d jobs, want %d", sum.Jobs, n)
		}
		return peak
	}
	small := peak(100_000)
	big := peak(10_000_000)
	t.Logf("peak live heap: %.1f MB for 10^5 jobs, %.1f MB for 10^7 jobs", float64(small)/1e6, float64(big)/1e6)
	if big > 2*small+16<<20 {
		t.Errorf("heap grows with the workload: %d bytes for 10^5 jobs, %d for 10^7", small, big)
	}
}
