package gwa

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// The cumulative jobs start at 0 at the trace's start and reach the total
// at the last day's end.
func TestCumulativeStartsAtZero(t *testing.T) {
	for _, c := range []struct {
		perDay []int64
		wantY  []float64
	}{
		{nil, nil},
		{[]int64{0}, []float64{0, 0}},
		{[]int64{14000}, []float64{0, 14000}},
		{[]int64{14000, 0, 3}, []float64{0, 14000, 14000, 14003}},
	} {
		xy := cumulative(c.perDay)
		if len(xy) != len(c.wantY) {
			t.Fatalf("%v: %d points, want %d", c.perDay, len(xy), len(c.wantY))
		}
		for i, p := range xy {
			if p.X != float64(i) || p.Y != c.wantY[i] {
				t.Errorf("%v: point %d is (%g, %g), want (%d, %g)", c.perDay, i, p.X, p.Y, i, c.wantY[i])
			}
		}
	}
}

// syntheticSWF is a seeded trace of n jobs over about ten days: Poisson
// arrivals, exponential waits (a third of them 0) and run times, 1–64
// processors, 30 users, 12 sites (queues).
func syntheticSWF(n int) string {
	r := rand.New(rand.NewPCG(18, 3))
	var b strings.Builder
	b.WriteString("; UnixStartTime: 1132444805\n; MaxProcs: 2048\n")
	t := 0.0
	for i := range n {
		t += r.ExpFloat64() * 864000 / float64(n)
		wait := 0.0
		if r.IntN(3) > 0 {
			wait = float64(int(r.ExpFloat64() * 600))
		}
		run := 1 + int(r.ExpFloat64()*3600)
		procs := 1 << r.IntN(7)
		fmt.Fprintf(&b, "%d %d %g %d %d -1 -1 %d -1 -1 1 %d 1 -1 %d -1 -1 -1\n", i+1, int(t), wait, run, procs, procs, 1+r.IntN(30), 1+r.IntN(12))
	}
	return b.String()
}

// Every figure of the trace toolbox, drawn from a fixed synthetic trace
// and from LCG (when the shared trace is there), passes the figure checks
// of analyzer/plots (ticks per axis, the legend clear of the data, the
// title off the edge), and the cumulative jobs start at 0 and end at the
// number of jobs, strictly inside the padded axis.
func TestToolboxFigureChecks(t *testing.T) {
	traces := map[string]func(t *testing.T) *Analysis{
		"synthetic": func(t *testing.T) *Analysis {
			r, err := NewReader(strings.NewReader(syntheticSWF(3000)), ReadOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			a, err := Analyze(r, AnalysisOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return a
		},
		"LCG": func(t *testing.T) *Analysis {
			if testing.Short() {
				t.Skip("the whole LCG trace: not with -short")
			}
			return analyzeFile(t, testkit.LCG(t))
		},
	}
	for name, analyze := range traces {
		t.Run(name, func(t *testing.T) {
			a := analyze(t)
			drawn := 0
			for _, f := range analysisPlots(a) {
				p, err := f.make()
				if err != nil {
					t.Errorf("%s: %v", f.name, err)
					continue
				}
				if p == nil {
					continue
				}
				drawn++
				for _, msg := range p.ProblemsAt(plotWidth, plotHeight) {
					t.Errorf("%s: %s", f.name, msg)
				}
				if f.name == "cumulative_jobs" {
					p := p.Plot()
					xy := cumulative(a.Arrivals.PerDay)
					last := xy[len(xy)-1]
					if xy[0].Y != 0 || int64(last.Y) != a.Totals.Jobs || !(p.Y.Min < 0 && p.Y.Max > last.Y && p.X.Min < 0 && p.X.Max > last.X) {
						t.Errorf("cumulative jobs from %g to %g (%d jobs), axes [%g, %g] × [%g, %g]", xy[0].Y, last.Y, a.Totals.Jobs, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
					}
				}
			}
			if drawn < 10 {
				t.Errorf("%d figures drawn", drawn)
			}
		})
	}
}
