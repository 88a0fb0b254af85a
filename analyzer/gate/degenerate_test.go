package gate

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
)

// run is a run of the jobs in spec, one every 10 s: each wait and run time
// in seconds, a negative wait for a job that never started.
func run(id string, spec ...[2]float64) *metrics.RunMetrics {
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	rd := &metrics.RunData{ID: id, Speedup: 1}
	for i, s := range spec {
		sub := base + int64(i)*10e9
		j := metrics.Job{JobFacts: store.JobFacts{ID: "j", Processors: 1, Components: 1, ScheduledNS: sub, State: metrics.NeverStarted}}
		if s[0] >= 0 {
			j.SubmitNS, j.HasDelay, j.State = sub, true, metrics.Succeeded
			j.StartNS = sub + int64(s[0]*1e9)
			j.EndNS = j.StartNS + int64(s[1]*1e9)
		}
		rd.Jobs = append(rd.Jobs, j)
	}
	return metrics.Compute(rd, metrics.Options{})
}

func repeat(n int, s [2]float64) [][2]float64 {
	out := make([][2]float64, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// The gate with degenerate baselines. No panic, no NaN
// verdict: a side with no jobs is an error that says so; identical runs and
// runs with no spread pass; a metric undefined on one side has a verdict
// that says which side lacks it.
func TestGateDegenerate(t *testing.T) {
	all := Names()
	zeroWaits := run("zero", repeat(30, [2]float64{0, 5})...)
	cases := []struct {
		name      string
		base, new *metrics.RunMetrics
		metrics   []string
		err       string            // Compare's error
		verdicts  map[string]string // metric → verdict (and note, after " / ")
		regressed []string
	}{
		{name: "a baseline of no jobs", base: run("empty"), new: zeroWaits, err: "baseline runs (empty) have no jobs"},
		{name: "new runs of no jobs", base: zeroWaits, new: run("empty"), err: "new runs (empty) have no jobs"},
		{name: "identical runs with no spread", base: zeroWaits, new: run("zero2", repeat(30, [2]float64{0, 5})...), metrics: all,
			verdicts: map[string]string{"mean-wait": "ok", "p95-wait": "ok", "success-rate": "ok", "throughput": "ok", "makespan": "ok"}},
		{name: "every wait longer, no spread", base: zeroWaits, new: run("slow", repeat(30, [2]float64{60, 5})...), metrics: []string{"mean-wait", "p50-wait"},
			regressed: []string{"mean-wait", "p50-wait"}},
		{name: "one job each", base: run("a", [2]float64{1, 1}), new: run("b", [2]float64{1, 1}), metrics: all,
			verdicts: map[string]string{"mean-wait": "ok / fewer than 10 values on a side: exact test", "throughput": "ok / fewer than 10 jobs on a side: no exact test"}},
		{name: "one job that ran no time", base: run("a", [2]float64{0, 0}), new: run("b", [2]float64{0, 0}), metrics: all,
			verdicts: map[string]string{"throughput": "untested / no values on either side", "makespan": "ok / fewer than 10 jobs on a side: no exact test"}},
		{name: "waits only in the new runs", base: run("none", repeat(20, [2]float64{-1, 0})...), new: zeroWaits, metrics: []string{"mean-wait", "success-rate"},
			verdicts: map[string]string{"mean-wait": "untested / the baseline runs have no value"}},
		{name: "waits only in the baseline", base: zeroWaits, new: run("none", repeat(20, [2]float64{-1, 0})...), metrics: []string{"mean-wait", "success-rate"},
			verdicts:  map[string]string{"mean-wait": "REGRESSION / the new runs have no value (the baseline has 30)"},
			regressed: []string{"mean-wait", "success-rate"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, test := range []string{BlockBootstrap, IID} {
				res, err := Compare([]*metrics.RunMetrics{c.base}, []*metrics.RunMetrics{c.new}, Config{Metrics: c.metrics, Test: test})
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) {
						t.Fatalf("%s: error %v, want %q", test, err, c.err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for _, r := range res.Rows {
					got[r.Metric] = r.Verdict
					if r.Note != "" {
						got[r.Metric] += " / " + r.Note
					}
					if math.IsNaN(r.P) || math.IsNaN(r.PAdj) || r.P < 0 || r.P > 1 {
						t.Errorf("%s %s: p %v, p (Holm) %v", test, r.Metric, r.P, r.PAdj)
					}
					if math.IsInf(r.Baseline, 0) || math.IsInf(r.New, 0) {
						t.Errorf("%s %s: baseline %v, new %v", test, r.Metric, r.Baseline, r.New)
					}
				}
				for m, want := range c.verdicts {
					if !strings.HasPrefix(got[m], want) {
						t.Errorf("%s %s: %q, want %q", test, m, got[m], want)
					}
				}
				if strings.Join(res.Regressed, ",") != strings.Join(c.regressed, ",") {
					t.Errorf("%s: regressed %v, want %v: %v", test, res.Regressed, c.regressed, got)
				}
				var b strings.Builder
				if err := res.WriteText(&b); err != nil || strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
					t.Errorf("%s: text %v:\n%s", test, err, b.String())
				}
			}
		})
	}
}
