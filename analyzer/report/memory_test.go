package report

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/heappeak"
)

// The report of a run holds a few samples of 8 bytes a job, not its jobs:
// its peak live heap over a run of 60,000 jobs (a local target's, and
// as 'gmark koala simulate --db' records them) is under 200 bytes a job
// (the samples are 100 to 125; holding the jobs took 390 to 630).
func TestReportMemoryPerJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds stores of 60,000 jobs")
	}
	const n = 60_000
	for _, kind := range []string{"local", "koala-sim"} {
		t.Run(kind, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "big.db")
			start := time.Now()
			if err := buildStoreOf(db, n, kind == "koala-sim"); err != nil {
				t.Fatal(err)
			}
			built := time.Since(start)
			var err error
			peak := heappeak.During(func() { _, err = Build(context.Background(), db, nil, Options{}) })
			if err != nil {
				t.Fatal(err)
			}
			perJob := float64(peak) / n
			t.Logf("built in %s; peak live heap %.1f MB, %.0f bytes a job", built.Round(time.Millisecond), float64(peak)/(1<<20), perJob)
			if perJob > 200 {
				t.Errorf("the report's peak live heap is %s bytes a job, over 200: it holds what grows with the jobs", fmt.Sprintf("%.0f", perJob))
			}
		})
	}
}
