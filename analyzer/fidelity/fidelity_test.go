package fidelity_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/fidelity"
	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// generate writes the trace and a one-unit spec replaying it with other,
// and generates the workload; it returns the workload directory.
func generate(t *testing.T, dir, other string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "hand.swf"), []byte(testkit.WindowSWF), 0o644); err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "replay.wdl")
	if err := os.WriteFile(specPath, []byte("1\twl:trace\tsingle\t1\t*:?\t-\t"+other+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := wdl.ParseFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	g, err := generator.New(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(dir, "wl")
	if _, err := generator.WriteDir(spec, g, generator.DirOptions{Out: wl, SpecPath: specPath, Replace: true}); err != nil {
		t.Fatal(err)
	}
	return wl
}

const t0 = int64(1_700_000_000) * 1e9

// recordRun records a run of the workload in a new store, job i submitted at
// its offset and started and ended at times[i] (seconds from the run's
// start).
func recordRun(t *testing.T, dir, wl string, times [][2]float64) *store.Store {
	t.Helper()
	jobs, err := workload.ReadAll(wl)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != len(times) {
		t.Fatalf("%d jobs, %d times", len(jobs), len(times))
	}
	ns := func(s float64) int64 { return t0 + int64(s*1e9) }
	var fin []record.FinishedJob
	for i, j := range jobs {
		at := ns(j.Submit.Seconds())
		fin = append(fin, record.FinishedJob{JobID: j.ID, Outcome: record.Outcome{State: store.Succeeded, Attempts: 1,
			ScheduledNS: at, SubmitNS: at, StartNS: ns(times[i][0]), EndNS: ns(times[i][1])}})
	}
	st, err := store.Open(filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := record.RecordRun(context.Background(), st, record.FinishedRun{WorkloadDir: wl, Target: "dryrun", RunID: "r1",
		Jobs: fin, EndNS: ns(1000)}); err != nil {
		t.Fatal(err)
	}
	return st
}

func compare(t *testing.T, st *store.Store, opts fidelity.Options) (*fidelity.Result, error) {
	t.Helper()
	rd, err := metrics.Load(st, "r1", metrics.LoadOptions{Processors: 8, NoUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	if opts.ReadWindow == nil {
		opts.ReadWindow = gwa.ReadReplayedWindow
	}
	res, err := fidelity.Compare(st, rd, opts)
	if err != nil {
		return nil, err
	}
	if len(res) != 1 {
		t.Fatalf("%d results, want 1", len(res))
	}
	return res[0], nil
}

// TestCompareByHand: the window [100, 500) of testkit.WindowSWF replayed cold, with
// times chosen so that every figure can be worked out by hand.
//
// Original (the trace): waits {0, 50, 100, 0}, runs {100, 50, 200, 20},
// responses {100, 100, 300, 20}. Replayed (offsets 0, 50, 100, 200): job
// 1-0 runs 0–100, 1-1 60–110, 1-2 130–330, 1-3 200–220: waits {0, 10, 30,
// 0}, runs the same as the original, responses {100, 60, 230, 20}.
//
//   - wait: sorted {0,0,50,100} against {0,0,10,30}; at 30 the CDFs are
//     2/4 and 4/4: D = 0.5.
//   - run: the same sample: D = 0.
//   - response: {20,100,100,300} against {20,60,100,230}: at 60, 1/4 and
//     2/4; at 230, 3/4 and 4/4: D = 0.25.
//   - utilization, 4 bins of 100 s on 8 processors. The original's busy
//     processor-seconds per bin: job 1 (in flight, 2 processors, to 300 in
//     window time) 200, 200, 200, 0; job 2 100, 0, 0, 0; job 3 0, 50, 0, 0;
//     job 4 0, 0, 200, 200; job 5 0, 0, 20, 0: 300, 250, 420, 200, so
//     0.375, 0.3125, 0.525, 0.25. The replay's: 1-0 100; 1-1 40, 10; 1-2
//     (2 processors) 0, 140, 200, 60; 1-3 0, 0, 20: 140, 150, 220, 60, so
//     0.175, 0.1875, 0.275, 0.075. Sorted, at 0.275 the CDFs are 1/4
//     (original) and 4/4: D = 0.75.
//
// With n = m = 4, Nₑ = 2 and λ = (√2 + 0.12 + 0.11/√2)·D = 1.611995·D:
// p = Q(λ) = 0.534416 (D 0.5), 1 (D 0), 0.996876 (D 0.25), 0.107490 (D 0.75).
func TestCompareByHand(t *testing.T) {
	dir := t.TempDir()
	wl := generate(t, dir, "File=hand.swf,From=100s,To=500s")
	st := recordRun(t, dir, wl, [][2]float64{{0, 100}, {60, 110}, {130, 330}, {200, 220}})
	res, err := compare(t, st, fidelity.Options{Bins: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		metric string
		d, p   float64
	}{{"wait", 0.5, 0.534416}, {"run", 0, 1}, {"response", 0.25, 0.996876}, {"utilization", 0.75, 0.107490}}
	if len(res.Tests) != len(want) {
		t.Fatalf("%d tests, want %d", len(res.Tests), len(want))
	}
	for i, w := range want {
		got := res.Tests[i]
		if got.Metric != w.metric || got.NOriginal != 4 || got.NReplayed != 4 || math.Abs(got.D-w.d) > 1e-12 || math.Abs(got.P-w.p) > 1e-6 {
			t.Errorf("%s: %+v, want D %v, p %v over 4 and 4", w.metric, got, w.d, w.p)
		}
	}
	u := res.Utilization
	if fmt.Sprint(u.Original) != "[0.375 0.3125 0.525 0.25]" || fmt.Sprint(u.Replayed) != "[0.175 0.1875 0.275 0.075]" ||
		fmt.Sprint(u.T) != "[0 100 200 300]" || u.BinS != 100 || u.Basis != "fraction" || u.OriginalProcessors != 8 || u.ReplayedProcessors != 8 {
		t.Errorf("utilization %+v", u)
	}
	if res.OriginalJobs != 4 || res.ReplayedJobs != 4 || res.WarmJobs != 0 || res.Origin != 100 || res.WindowS != 400 {
		t.Errorf("result %+v", res)
	}
	if w := res.Tests[0]; w.MeanOriginal != 37.5 || w.MeanReplayed != 10 || w.MedianOriginal != 25 || w.MedianReplayed != 5 {
		t.Errorf("wait summaries %+v", w)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "1 trace jobs were in flight when the window opened") {
		t.Errorf("notes %q: want the in-flight job told", res.Notes)
	}
}

// TestCompareWarm: with WarmStart the in-flight job is replayed first, warm,
// and left out of the samples unless included.
func TestCompareWarm(t *testing.T) {
	dir := t.TempDir()
	wl := generate(t, dir, "File=hand.swf,From=100s,To=500s,WarmStart=true")
	// 1-0 is warm (300 s left on 2 processors); the others as in the cold case.
	st := recordRun(t, dir, wl, [][2]float64{{0, 300}, {0, 100}, {60, 110}, {130, 330}, {200, 220}})
	for _, c := range []struct {
		include  bool
		n        int
		waitD    float64
		replayed int
	}{{false, 4, 0.5, 4}, {true, 5, 0.5, 5}} {
		res, err := compare(t, st, fidelity.Options{Bins: 4, IncludeWarm: c.include})
		if err != nil {
			t.Fatal(err)
		}
		// Included, the warm job's wait 0 joins the replay: {0,0,0,10,30}
		// against {0,0,50,100}: at 30, 5/5 and 2/4: D = 0.5 still.
		if w := res.Tests[0]; w.NReplayed != c.n || math.Abs(w.D-c.waitD) > 1e-12 || res.WarmJobs != 1 || res.ReplayedJobs != c.replayed ||
			res.WarmIncluded != c.include {
			t.Errorf("include %v: wait test %+v, warm %d, replayed %d", c.include, w, res.WarmJobs, res.ReplayedJobs)
		}
		// The warm job's 2 processors over 0–300 join the replay's busy
		// time: 340, 350, 420, 60 processor-seconds.
		if got := fmt.Sprint(res.Utilization.Replayed); got != "[0.425 0.4375 0.525 0.075]" {
			t.Errorf("replayed utilization %s", got)
		}
		if strings.Contains(strings.Join(res.Notes, "\n"), "in flight when the window opened") {
			t.Errorf("notes %q: a warm replay did not start empty", res.Notes)
		}
	}
}

func TestCompareRefuses(t *testing.T) {
	dir := t.TempDir()
	wl := generate(t, dir, "File=hand.swf,From=100s,To=500s")
	st := recordRun(t, dir, wl, [][2]float64{{0, 100}, {60, 110}, {130, 330}, {200, 220}})
	trace := filepath.Join(dir, "hand.swf")
	if err := os.WriteFile(trace, []byte(testkit.WindowSWF+"7 600 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := compare(t, st, fidelity.Options{}); err == nil || !strings.Contains(err.Error(), "changed since the workload was generated") {
		t.Errorf("a changed trace: %v", err)
	}
	if err := os.Remove(trace); err != nil {
		t.Fatal(err)
	}
	if _, err := compare(t, st, fidelity.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing trace: %v", err)
	}
}

// TestCompareNoTrace: a run of a workload with no wl:trace unit.
func TestCompareNoTrace(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "s.wdl")
	os.WriteFile(specPath, []byte("2\tsser\tsingle\t1\t*:1\tC(10)\tRunTime=5\n"), 0o644)
	spec, err := wdl.ParseFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	g, err := generator.New(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(dir, "wl")
	if _, err := generator.WriteDir(spec, g, generator.DirOptions{Out: wl, SpecPath: specPath}); err != nil {
		t.Fatal(err)
	}
	st := recordRun(t, dir, wl, [][2]float64{{0, 5}, {10, 15}})
	if _, err := compare(t, st, fidelity.Options{}); !errors.Is(err, fidelity.ErrNoTrace) {
		t.Errorf("no trace: %v, want ErrNoTrace", err)
	}
}
