package gate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/stats/sampstat"
)

// synthetic is a run of n jobs arriving every 10 s, with exponential waits
// of the given mean (plus extra seconds) and run times of 100 s; every
// failEvery-th job fails.
func synthetic(seed uint64, n int, meanWait, extra float64, failEvery int) *metrics.RunMetrics {
	r := rand.New(rand.NewPCG(seed, 7))
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	rd := &metrics.RunData{ID: "run", Speedup: 1}
	for i := range n {
		sub := base + int64(i)*10e9
		w := int64((r.ExpFloat64()*meanWait + extra) * 1e9)
		j := metrics.Job{JobFacts: store.JobFacts{ID: "j", Processors: 1, Components: 1, SubmitNS: sub, ScheduledNS: sub, StartNS: sub + w, EndNS: sub + w + 100e9,
			State: metrics.Succeeded, HasDelay: true}}
		if failEvery > 0 && i%failEvery == 0 {
			j.State = metrics.Failed
		}
		rd.Jobs = append(rd.Jobs, j)
	}
	return metrics.Compute(rd, metrics.Options{})
}

func TestGate(t *testing.T) {
	base := synthetic(1, 400, 60, 0, 0)
	for _, c := range []struct {
		name      string
		new       *metrics.RunMetrics
		regressed []string
	}{
		{"same", synthetic(1, 400, 60, 0, 0), nil},
		{"another sample", synthetic(2, 400, 60, 0, 0), nil},
		{"waits 120 s longer", synthetic(3, 400, 60, 120, 0), []string{"mean-wait", "p50-wait", "p95-wait", "p50-response", "p95-bsld"}},
		{"a tenth fail", synthetic(1, 400, 60, 0, 10), []string{"success-rate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Compare([]*metrics.RunMetrics{base}, []*metrics.RunMetrics{c.new}, Config{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Regressed, c.regressed) && !(len(res.Regressed) == 0 && len(c.regressed) == 0) {
				t.Errorf("regressed %v, want %v: %+v", res.Regressed, c.regressed, res.Rows)
			}
		})
	}
	// Shorter waits are an improvement, never a regression.
	res, _ := Compare([]*metrics.RunMetrics{synthetic(3, 400, 60, 120, 0)}, []*metrics.RunMetrics{base}, Config{Metrics: []string{"mean-wait"}})
	if len(res.Regressed) != 0 || res.Rows[0].Verdict != "improved" {
		t.Errorf("improvement: %+v", res.Rows)
	}
	// A significant change below the threshold is no regression.
	res, _ = Compare([]*metrics.RunMetrics{base}, []*metrics.RunMetrics{synthetic(1, 400, 60, 120, 0)}, Config{Metrics: []string{"mean-wait"}, Threshold: 10})
	if len(res.Regressed) != 0 || !res.Rows[0].Significant {
		t.Errorf("threshold: %+v", res.Rows)
	}
	if _, err := Compare([]*metrics.RunMetrics{base}, []*metrics.RunMetrics{base}, Config{Metrics: []string{"p42-wait"}}); err == nil {
		t.Error("unknown metric accepted")
	}
	// The iid tests agree on a large shift.
	res, _ = Compare([]*metrics.RunMetrics{base}, []*metrics.RunMetrics{synthetic(3, 400, 60, 120, 0)}, Config{Test: IID})
	if len(res.Regressed) < 3 {
		t.Errorf("iid: %+v", res.Rows)
	}
	// Run-level metrics: makespan of the same jobs.
	res, _ = Compare([]*metrics.RunMetrics{base}, []*metrics.RunMetrics{base}, Config{Metrics: []string{"throughput", "makespan"}})
	if len(res.Regressed) != 0 || res.Rows[0].Baseline != res.Rows[0].New {
		t.Errorf("run level: %+v", res.Rows)
	}
}

func TestQuantileOf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 10, 101, 1000} {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(r.IntN(50)) // ties
		}
		s := slices.Clone(v)
		slices.Sort(s)
		for _, q := range []float64{0, 0.1, 0.5, 0.95, 0.99, 1} {
			if got, want := quantileOf(slices.Clone(v), q), sampstat.Quantile(s, q); math.Abs(got-want) > 1e-9 {
				t.Errorf("n %d q %v: %v, want %v", n, q, got, want)
			}
		}
	}
}

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"5%", 0.05, true}, {"0.05", 0.05, true}, {" 0 ", 0, true}, {"0%", 0, true}, {"150%", 1.5, true},
		{"-1%", 0, false}, {"NaN", 0, false}, {"Inf", 0, false}, {"", 0, false}, {"5%%", 0, false}, {"x", 0, false},
	} {
		got, err := ParseThreshold(tc.in)
		if (err == nil) != tc.ok || tc.ok && math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("ParseThreshold(%q) = %g, %v; want %g, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
