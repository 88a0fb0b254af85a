package gate

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
)

// runOf is a run of n jobs, one every 10 s, each waiting wait(i) and
// running 5 s, in state.
func runOf(id string, n int, state string, wait func(i int) float64) *metrics.RunMetrics {
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	rd := &metrics.RunData{ID: id, Speedup: 1}
	for i := range n {
		sub := base + int64(i)*10e9
		j := metrics.Job{JobFacts: store.JobFacts{ID: "j", Processors: 1, Components: 1, ScheduledNS: sub, SubmitNS: sub, HasDelay: true, State: state}}
		if state != metrics.NeverStarted {
			j.StartNS = sub + int64(wait(i)*1e9)
			j.EndNS = j.StartNS + 5e9
		}
		rd.Jobs = append(rd.Jobs, j)
	}
	return metrics.Compute(rd, metrics.Options{})
}

func waits(v ...float64) func(int) float64 { return func(i int) float64 { return v[i%len(v)] } }

// Small samples are judged by exact tests, never "ok" for lack of data.
// Before, any side of fewer than 10 values had no test and the verdict
// "ok (fewer than 10 values on a side: no test)": a success rate falling
// from 100% to 0% on 5 jobs passed the gate.
func TestGateSmallSamples(t *testing.T) {
	ok5 := runOf("ok", 5, metrics.Succeeded, waits(1, 2, 3, 4, 5))
	cases := []struct {
		name               string
		base, new          *metrics.RunMetrics
		metrics            []string
		regressed, unknown []string
		p                  map[string]float64 // metric → its p-value
	}{
		// Fisher's exact test: P = 1/C(10, 5); the success rate is its own
		// Holm family, so the five performance metrics do not dilute it.
		{name: "100% to 0% on 5 jobs that ran", base: ok5, new: runOf("failed", 5, metrics.Failed, waits(1, 2, 3, 4, 5)),
			regressed: []string{"success-rate"}, p: map[string]float64{"success-rate": 1.0 / 252}},
		{name: "100% to 0% on 5 jobs, none started", base: ok5, new: runOf("never", 5, metrics.NeverStarted, nil),
			regressed: []string{"mean-wait", "p50-wait", "p95-wait", "p50-response", "p95-bsld", "success-rate"}, p: map[string]float64{"success-rate": 1.0 / 252}},
		{name: "100% to 0% on 5 jobs, the rate alone", base: ok5, new: runOf("failed", 5, metrics.Failed, waits(1, 2, 3, 4, 5)), metrics: []string{"success-rate"},
			regressed: []string{"success-rate"}, p: map[string]float64{"success-rate": 1.0 / 252}},
		{name: "5 jobs, nothing changed", base: ok5, new: runOf("same", 5, metrics.Succeeded, waits(1, 2, 3, 4, 5)),
			p: map[string]float64{"success-rate": 1}},
		// Nine jobs a side, every wait 100 s longer: the permutation test
		// enumerates the C(18, 9) = 48,620 splits; only the observed one
		// puts the nine longest waits in the new run.
		{name: "9 jobs, every wait 100 s longer", base: runOf("a", 9, metrics.Succeeded, waits(1, 2, 3, 4, 5, 6, 7, 8, 9)),
			new: runOf("b", 9, metrics.Succeeded, waits(101, 102, 103, 104, 105, 106, 107, 108, 109)), metrics: []string{"mean-wait", "success-rate"},
			regressed: []string{"mean-wait"}, p: map[string]float64{"mean-wait": 1.0 / 48620}},
		// Two jobs a side: no split of four values is significant over the
		// metrics compared (the smallest p is 1/6): inconclusive, and the
		// gate fails rather than pass what it cannot judge.
		{name: "2 jobs, waits longer", base: runOf("a", 2, metrics.Succeeded, waits(10, 20)), new: runOf("b", 2, metrics.Succeeded, waits(30, 40)),
			metrics: []string{"mean-wait", "success-rate"}, unknown: []string{"mean-wait"}, p: map[string]float64{"mean-wait": 1.0 / 6}},
		{name: "2 jobs, makespan longer", base: runOf("a", 2, metrics.Succeeded, waits(10, 20)), new: runOf("b", 2, metrics.Succeeded, waits(100, 200)),
			metrics: []string{"makespan"}, unknown: []string{"makespan"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, test := range []string{BlockBootstrap, IID} {
				res, err := Compare([]*metrics.RunMetrics{c.base}, []*metrics.RunMetrics{c.new}, Config{Metrics: c.metrics, Test: test})
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(res.Regressed, ",") != strings.Join(c.regressed, ",") || strings.Join(res.Inconclusive, ",") != strings.Join(c.unknown, ",") {
					t.Errorf("%s: regressed %v, inconclusive %v; want %v, %v", test, res.Regressed, res.Inconclusive, c.regressed, c.unknown)
				}
				if res.Failed() != (len(c.regressed)+len(c.unknown) > 0) {
					t.Errorf("%s: failed %v", test, res.Failed())
				}
				for _, r := range res.Rows {
					if strings.HasPrefix(r.Verdict, "ok") && strings.Contains(r.Note, "no test") {
						t.Errorf("%s %s: ok for lack of data: %s", test, r.Metric, r.Note)
					}
					if want, ok := c.p[r.Metric]; ok && math.Abs(r.P-want) > 1e-9 {
						t.Errorf("%s %s: p %.6g (%s), want %.6g", test, r.Metric, r.P, r.Test, want)
					}
				}
				var b strings.Builder
				if err := res.WriteText(&b); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				if len(c.regressed) > 0 && !strings.Contains(out, "REGRESSION: "+strings.Join(c.regressed, ", ")) ||
					len(c.unknown) > 0 && !strings.Contains(out, "INCONCLUSIVE: "+strings.Join(c.unknown, ", ")) ||
					!res.Failed() && !strings.Contains(out, "no significant regression") {
					t.Errorf("%s: text\n%s", test, out)
				}
			}
		})
	}
}

// Beyond 20,000 jobs a side the bootstrap draws 200 resamples, whose
// counted p-value is never below 1/201 = 0.005: over the five performance
// metrics of the default set Holm made that 0.025, and the gate could not
// see any regression of a large run, however large. The p-value of so few
// resamples comes from the normal approximation of their differences.
func TestGateLargeRuns(t *testing.T) {
	spread := func(shift float64) func(int) float64 { return func(i int) float64 { return float64(i*37%101) + shift } }
	base := runOf("a", 20500, metrics.Succeeded, spread(0))
	slow := runOf("b", 20500, metrics.Succeeded, spread(100))
	same := runOf("c", 20500, metrics.Succeeded, func(i int) float64 { return float64((i + 50) * 37 % 101) })
	res, err := Compare([]*metrics.RunMetrics{base}, []*metrics.RunMetrics{slow}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Regressed, ",") != "mean-wait,p50-wait,p95-wait,p50-response,p95-bsld" || len(res.Inconclusive) > 0 {
		t.Errorf("every wait 100 s longer: regressed %v, inconclusive %v", res.Regressed, res.Inconclusive)
	}
	res, err = Compare([]*metrics.RunMetrics{base}, []*metrics.RunMetrics{same}, Config{})
	if err != nil || res.Failed() {
		t.Errorf("the same waits reordered: %v, %+v", err, res)
	}
}
