package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/heappeak"
)

// BenchmarkGenerateLublinSWF is gmark generate of b.N wl:lublin jobs
// (the model's defaults) into a workload directory with the SWF trace
// beside workload.jsonl: jobs/s and the peak live heap (which must not
// grow with b.N). `make bench-lublin` runs it at 10^5, 3·10^5 and 10^6
// jobs, and against the model's own C program when LUBLIN_C names one.
func BenchmarkGenerateLublinSWF(b *testing.B) {
	spec := parse(b, "lf.wdl", fmt.Sprintf("%d\twl:lublin\tsingle\t1\t*:?\t-\t-\n", b.N))
	path := filepath.Join(b.TempDir(), "lf.wdl")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	g, err := New(spec, 1)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "w")
	b.ResetTimer()
	start := time.Now()
	var sum *Summary
	peak := heappeak.During(func() {
		sum, err = WriteDir(spec, g, DirOptions{Out: out, SpecPath: path, Seed: 1, Traces: []string{"swf"}})
	})
	if err != nil {
		b.Fatal(err)
	}
	reportRate(b, sum.Jobs, start)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
