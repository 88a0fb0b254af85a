package fidelity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// FuzzCompareUnit: a replay compared with its window, whatever the run's
// records say (the recorded selection, the window's length and place, the
// speedup, the system size, the jobs' times: a store written by anyone).
// It is refused with an error, or compared: every statistic is a number
// of its range or says why it is undefined, every utilization a share of
// the processors (a fraction of at least 0), and the counts are the jobs'.
func FuzzCompareUnit(f *testing.F) {
	dir := f.TempDir()
	trace := filepath.Join(dir, "w.swf")
	if err := os.WriteFile(trace, []byte(testkit.WindowSWF), 0o644); err != nil {
		f.Fatal(err)
	}
	sum := sha256.Sum256([]byte(testkit.WindowSWF))
	digest := hex.EncodeToString(sum[:])
	sel, _ := json.Marshal(gwa.Selection{Filter: gwa.Filter{Submit: gwa.Range{Min: 100, Max: 500}}, Rebase: true})
	f.Add(sel, int64(400e9), int64(0), 1.0, 20, 8, int64(1e12), int64(5e9), int64(7e9), int64(9e9), int64(0))
	f.Add(sel, int64(0), int64(-5e9), 0.0, 0, 0, int64(0), int64(0), int64(0), int64(0), int64(0))
	f.Add([]byte(`{"Filter":{"Submit":{"Min":1e300}},"Scale":{"Submit":-1}}`), int64(math.MaxInt64), int64(math.MinInt64), math.Inf(1), 1<<20, -1,
		int64(math.MaxInt64), int64(math.MinInt64), int64(1), int64(math.MaxInt64), int64(math.MaxInt64))
	f.Add([]byte(`{"Scale":{"Submit":1e-300}}`), int64(1), int64(1), 1e-300, 3, 1, int64(1), int64(1), int64(2), int64(3), int64(-1))
	f.Fuzz(func(t *testing.T, selection []byte, period, startAt int64, speedup float64, bins, processors int, scheduled, submit, start, end, offset int64) {
		if bins < 0 || bins > 10000 {
			return // Compare's caller bounds the bins (--fidelity-bins)
		}
		if bins == 0 {
			bins = 100
		}
		tr := &workload.TraceReplay{Path: trace, SHA256: digest, Format: "swf", Selection: selection,
			Period: workload.Seconds(period), StartAt: workload.Seconds(startAt), Replays: 1}
		var s gwa.Selection
		if json.Unmarshal(selection, &s) == nil {
			open := func() (gwa.Reader, error) { return gwa.Open(trace, gwa.ReadOptions{Name: trace}) }
			s.Scale = gwa.Scale{}
			if r, opened, err := gwa.SelectOpened(open, s); err == nil {
				tr.Origin = opened.Origin
				r.Close()
			}
		}
		rd := &metrics.RunData{ID: "r", Speedup: speedup, Processors: processors, Jobs: []metrics.Job{
			{JobFacts: store.JobFacts{ID: "a", Kind: "unitary", Processors: 2, ScheduledNS: scheduled, SubmitNS: submit, StartNS: start, EndNS: end, State: metrics.Succeeded}},
			{JobFacts: store.JobFacts{ID: "b", Kind: "unitary", Processors: 1, ScheduledNS: scheduled + 1, SubmitNS: submit, StartNS: start, EndNS: start, State: metrics.Failed}, Warm: true},
		}}
		places := map[string]store.JobPlace{"a": {JobID: "a", Unit: 1, OffsetNS: offset}, "b": {JobID: "b", Unit: 1, OffsetNS: 0}}
		res, err := compareUnit(rd, 1, tr, places, Options{Bins: bins, ReadWindow: gwa.ReadReplayedWindow})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if res.ReplayedJobs != 1 || res.WarmJobs != 1 || res.OriginalJobs < 0 {
			t.Fatalf("counts %d replayed, %d warm, %d original", res.ReplayedJobs, res.WarmJobs, res.OriginalJobs)
		}
		for _, tst := range res.Tests {
			if !(tst.D >= 0 && tst.D <= 1) && tst.NullReason("d") == "" {
				t.Fatalf("%s: D %g", tst.Metric, tst.D)
			}
			if !(tst.P >= 0 && tst.P <= 1) && tst.NullReason("p") == "" {
				t.Fatalf("%s: p %g", tst.Metric, tst.P)
			}
		}
		u := res.Utilization
		for _, side := range [][]float64{u.Original, u.Replayed} {
			for k, v := range side {
				if !(v >= 0) || math.IsInf(v, 0) {
					t.Fatalf("utilization bin %d of %v: %g (window %g s, %d bins, basis %s, notes %s)", k, side, v, res.WindowS, bins, u.Basis,
						strings.Join(res.Notes, "; "))
				}
			}
		}
	})
}
