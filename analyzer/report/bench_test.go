package report

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/heappeak"
)

var (
	bigOnce sync.Once
	bigDB   string
	bigErr  error
	bigDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bigDir != "" {
		os.RemoveAll(bigDir)
	}
	os.Exit(code)
}

// buildStore writes a run of n jobs to a new store: Poisson arrivals (one
// every 0.3 s), three job types, sizes 1–64 processors on 20 sites of a
// 4096-processor local target, some co-allocated; 2% failed for one of
// three reasons, 1% never started.
func buildStore(path string, n int) error { return buildStoreOf(path, n, false) }

// buildStoreOf is buildStore; with sim, the run is one 'gmark koala
// simulate --db' records: target koala-sim, and per job the events it
// writes (submitted, started, the final state), each with the core's
// figures in its payload, which the report reads back.
func buildStoreOf(path string, n int, sim bool) error {
	st, err := store.Open(path)
	if err != nil {
		return err
	}
	defer st.Close()
	r := rand.New(rand.NewPCG(1, 1))
	const run = "big"
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	return st.Write(context.Background(), func(tx *store.Tx) error {
		pid, _ := tx.EnsureProject("bench", "", base)
		sid, _ := tx.EnsureScenario(pid, "big", "", base)
		target := "local"
		if sim {
			target = "koala-sim"
		}
		prov := store.Provenance{RunID: run, RecordedNS: base, Target: target, TargetConfig: `{"processors":4096}`, CommandLine: `["gmark","submit"]`}
		if err := tx.InsertRun(store.Run{ID: run, ScenarioID: sid, CreatedNS: base, Jobs: n, Target: target, Settings: `{"speedup":1}`,
			ProvenanceSHA256: prov.ComputeDigest()}); err != nil {
			return err
		}
		if err := tx.InsertProvenance(prov); err != nil {
			return err
		}
		types := []string{"sser", "smpi", "swf"}
		reasons := []string{"exit status 1", "wall time 10m0s exceeded", "lost: cluster beta unreachable for 2m0s"}
		t := base
		end := base
		for i := range n {
			t += int64(r.ExpFloat64() * 0.3e9)
			j := store.Job{RunID: run, JobID: fmt.Sprintf("%d-%d", i%3, i), Unit: i % 3, Index: i, Kind: "unitary", Type: types[i%3], App: types[i%3],
				SiteType: "single", Processors: 1 << r.IntN(7), Components: `[{"site":"*","count":1}]`, ScheduledNS: t, SubmitNS: t + 1e6,
				DelayNS: int64(r.ExpFloat64() * 1e6), Attempts: 1, State: store.Succeeded, RecordedNS: t}
			j.Sites = fmt.Sprintf("site%02d", r.IntN(20))
			if i%10 == 0 {
				j.Components = `[{"site":"*","count":1},{"site":"*","count":1}]`
				j.Sites += fmt.Sprintf(",site%02d", r.IntN(20))
			}
			switch u := r.Float64(); {
			case u < 0.01:
				j.State, j.Reason, j.Sites = store.NeverStarted, "cancelled at the end of the tail", ""
			default:
				j.StartNS = j.SubmitNS + int64(r.ExpFloat64()*60e9)
				j.EndNS = j.StartNS + int64((1+r.ExpFloat64()*300)*1e9)
				end = max(end, j.EndNS)
				if u < 0.03 {
					j.State, j.Reason = store.Failed, reasons[r.IntN(3)]
				}
			}
			if err := tx.InsertJob(j); err != nil {
				return err
			}
			if sim {
				if err := insertSimEvents(tx, j, r); err != nil {
					return err
				}
			}
		}
		return tx.InsertRunEnd(store.RunEnd{RunID: run, EndNS: end, Status: store.RunCompleted})
	})
}

// insertSimEvents writes the events 'gmark koala simulate --db' writes of
// job j (koalatarget's simEvents): submitted, started and final, each with
// the core's figures of the job.
func insertSimEvents(tx *store.Tx, j store.Job, r *rand.Rand) error {
	payload := fmt.Sprintf(`{"claim_tries":%d,"end_ns":%d,"ftt_ns":%d,"placement_ns":%d,"placement_tries":%d,"reason":%q,"restarts":0,"runtime_source":"job","start_ns":%d}`,
		1+r.IntN(2), j.EndNS, r.IntN(5)*1e9, int64(r.ExpFloat64()*1e9), 1+r.IntN(4), j.Reason, j.StartNS)
	evs := []store.Event{{TimeNS: j.SubmitNS, Kind: "submitted"}}
	if j.StartNS != 0 {
		evs = append(evs, store.Event{TimeNS: j.StartNS, Kind: "started"}, store.Event{TimeNS: j.EndNS, Kind: j.State})
	}
	for _, e := range evs {
		e.RunID, e.JobID, e.Attempt, e.Payload = j.RunID, j.JobID, 1, payload
		if err := tx.InsertEvent(e); err != nil {
			return err
		}
	}
	return nil
}

func bigStore(b *testing.B) string {
	bigOnce.Do(func() {
		// $GMARK_BENCH_DB keeps the store between runs of the benchmark.
		if p := os.Getenv("GMARK_BENCH_DB"); p != "" {
			bigDB = p
			if _, err := os.Stat(p); err == nil {
				return
			}
			bigErr = buildStore(bigDB, 1_000_000)
			return
		}
		bigDir, bigErr = os.MkdirTemp("", "gmark-bench-")
		if bigErr != nil {
			return
		}
		bigDB = filepath.Join(bigDir, "big.db")
		start := time.Now()
		bigErr = buildStore(bigDB, 1_000_000)
		fmt.Fprintf(os.Stderr, "built a store of 1,000,000 jobs in %s\n", time.Since(start).Round(time.Millisecond))
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigDB
}

// BenchmarkReport1M is the full HTML report of a run of a million jobs:
// reading the store, every metric, every figure (PNG and SVG) and the page.
func BenchmarkReport1M(b *testing.B) {
	db := bigStore(b)
	b.ResetTimer()
	for range b.N {
		dir := b.TempDir()
		if _, err := Write(context.Background(), db, nil, dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan1M reads the jobs of the run and nothing else.
func BenchmarkScan1M(b *testing.B) {
	db := bigStore(b)
	b.ResetTimer()
	for range b.N {
		st, err := store.OpenReadOnly(db)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := st.ScanJobs("big", func(*store.JobFacts) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}

// BenchmarkLoad1M is the part of BenchmarkReport1M spent reading the store
// and computing the metrics.
func BenchmarkLoad1M(b *testing.B) {
	db := bigStore(b)
	b.ResetTimer()
	for range b.N {
		if _, err := Build(context.Background(), db, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReportCurve is the HTML report (as BenchmarkReport1M) of runs of
// 100k, 300k and 1M jobs, of a local target and as 'gmark koala simulate
// --db' records them, with its time and the peak of its live heap
// (internal/heappeak): the report's growth curve (make bench-report,
// docs/performance.md). $GMARK_BENCH_DIR keeps the stores between runs.
func BenchmarkReportCurve(b *testing.B) {
	dir := os.Getenv("GMARK_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	for _, kind := range []string{"local", "koala-sim"} {
		for _, n := range []int{100_000, 300_000, 1_000_000} {
			b.Run(fmt.Sprintf("kind=%s/jobs=%d", kind, n), func(b *testing.B) {
				db := filepath.Join(dir, fmt.Sprintf("%s-%d.db", kind, n))
				if _, err := os.Stat(db); err != nil {
					if err := buildStoreOf(db, n, kind == "koala-sim"); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				var peak uint64
				for range b.N {
					out := b.TempDir()
					var err error
					peak = max(peak, heappeak.During(func() { _, err = Write(context.Background(), db, nil, out, Options{}) }))
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-live-heap-MB")
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
			})
		}
	}
}
