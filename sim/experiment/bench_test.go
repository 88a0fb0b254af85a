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
// run's series, everything but the store. Issue 15's figure: under 5 s a
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
