package gwa

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/plots"
	"gonum.org/v1/plot/plotter"
)

// The cumulative jobs start at 0 at the trace's start and reach the total
// at the last bin's end: per hour for a short trace, per day otherwise.
func TestCumulativeStartsAtZero(t *testing.T) {
	const h = 1.0 / 24
	for _, c := range []struct {
		name  string
		ar    Arrivals
		wantX []float64
		wantY []float64
	}{
		{"none", Arrivals{}, nil, nil},
		{"one empty day", Arrivals{PerDay: []int64{0}}, []float64{0, 1}, []float64{0, 0}},
		{"one day", Arrivals{PerDay: []int64{14000}}, []float64{0, 1}, []float64{0, 14000}},
		{"three days", Arrivals{PerDay: []int64{14000, 0, 3}}, []float64{0, 1, 2, 3}, []float64{0, 14000, 14000, 14003}},
		{"hourly", Arrivals{PerDay: []int64{53}, PerHour: []int64{50, 0, 3}}, []float64{0, h, 2 * h, 3 * h}, []float64{0, 50, 50, 53}},
		{"exact", Arrivals{PerDay: []int64{4}, PerHour: []int64{4}, Times: []float64{0, 864, 864, 8640}},
			[]float64{0, 0, 0, 0.01, 0.01, 0.1, 0.1}, []float64{0, 0, 1, 1, 3, 3, 4}},
		{"one time", Arrivals{PerDay: []int64{50}, PerHour: []int64{50}, Times: slices.Repeat([]float64{100}, 50)},
			[]float64{0, 100.0 / 86400, 100.0 / 86400}, []float64{0, 0, 50}},
	} {
		xy := cumulative(c.ar)
		if len(xy) != len(c.wantY) {
			t.Fatalf("%s: %d points, want %d", c.name, len(xy), len(c.wantY))
		}
		for i, p := range xy {
			if math.Abs(p.X-c.wantX[i]) > 1e-12 || p.Y != c.wantY[i] {
				t.Errorf("%s: point %d is (%g, %g), want (%g, %g)", c.name, i, p.X, p.Y, c.wantX[i], c.wantY[i])
			}
		}
	}
}

// The cumulative view draws a trace at the finest resolution it keeps:
// every submit time up to exactArrivals jobs, hourly counts up to
// hourlyArrivalDays days, else daily ones; so a burst is drawn where it
// happened (the toolbox drew 50 jobs submitted at 100 s as a ramp over
// the first day).
func TestArrivalsResolution(t *testing.T) {
	swf := func(times []int) string {
		var b strings.Builder
		for i, at := range times {
			fmt.Fprintf(&b, "%d %d 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n", i+1, at)
		}
		return b.String()
	}
	spread := func(n, step int) []int {
		ts := make([]int, n)
		for i := range ts {
			ts[i] = i * step
		}
		return ts
	}
	for _, c := range []struct {
		name          string
		times         []int
		exact         bool
		hours         int // hourly counts (0: none)
		wantX, wantY0 float64
	}{
		{"a burst", slices.Repeat([]int{100}, 50), true, 1, 100.0 / 86400, 0},
		{"one job", []int{0}, true, 1, 0, 0},
		{"the most exact", spread(exactArrivals, 10), true, 14, float64((exactArrivals-1)*10) / 86400, exactArrivals - 1},
		{"one more: hourly", spread(exactArrivals+1, 10), false, 14, 14.0 / 24, 4680}, // hour 13 holds jobs 4680-5000
		{"the longest hourly", []int{0, 62*86400 - 1}, true, 62 * 24, (62*86400 - 1) / 86400.0, 1},
		{"one day longer: daily", append(spread(exactArrivals+1, 1), 62*86400), false, 0, 63, exactArrivals + 1}, // day 61 ends at 5001
	} {
		r, err := NewReader(strings.NewReader(swf(c.times)), ReadOptions{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		a, err := Analyze(r, AnalysisOptions{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ar := a.Arrivals
		if (ar.Times != nil) != c.exact || len(ar.PerHour) != c.hours {
			t.Errorf("%s: %d times kept, %d hourly counts; want times %v, %d hours", c.name, len(ar.Times), len(ar.PerHour), c.exact, c.hours)
		}
		xy := cumulative(ar)
		last, before := xy[len(xy)-1], xy[len(xy)-2]
		if xy[0] != (plotter.XY{}) || math.Abs(last.X-c.wantX) > 1e-9 || last.Y != float64(len(c.times)) || before.Y != c.wantY0 {
			t.Errorf("%s: cumulative from %v, ends (%g, %g) → (%g, %g); want the end at x %g from %g to %d", c.name, xy[0], before.X, before.Y, last.X, last.Y, c.wantX, c.wantY0, len(c.times))
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
// of plots (ticks per axis, the legend clear of the data, the
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
					xy := cumulative(a.Arrivals)
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

// legendOf is the legend of d, as its data names it (plots.PlotData).
func legendOf(t *testing.T, d *plots.Drawing) []string {
	t.Helper()
	rows, err := plots.PlotData(d.Plot())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows[1:] {
		if !slices.Contains(out, r[0]) {
			out = append(out, r[0])
		}
	}
	return out
}

// The weekly stripes' legend names the weeks the trace has: a trace of two
// weeks had "weeks 1, 3, …" and "weeks 2, 4, …".
func TestWeeklyStripesLegend(t *testing.T) {
	for _, c := range []struct {
		weeks int
		want  []string
	}{
		{1, []string{"week 1"}},
		{2, []string{"week 1", "week 2"}},
		{3, []string{"weeks 1, 3", "week 2"}},
		{4, []string{"weeks 1, 3", "weeks 2, 4"}},
		{7, []string{"weeks 1, 3, 5, …", "weeks 2, 4, 6"}},
		{9, []string{"weeks 1, 3, 5, …", "weeks 2, 4, 6, …"}},
	} {
		users := []UserWeeks{{User: "u1", Jobs: make([]int64, c.weeks)}, {User: "u2", Jobs: make([]int64, c.weeks)}}
		for w := range c.weeks {
			users[0].Jobs[w], users[1].Jobs[w] = int64(10+w), int64(5+w)
		}
		d, err := weeklyStripes("top users by jobs, by week", "jobs", c.weeks, users, func(u UserWeeks, w int) float64 { return float64(u.Jobs[w]) })
		if err != nil {
			t.Fatal(err)
		}
		got := slices.DeleteFunc(legendOf(t, d), func(s string) bool { return strings.HasPrefix(s, "jobs") }) // the stripes with no legend entry
		if !slices.Equal(got, c.want) {
			t.Errorf("%d weeks: legend %q, want %q", c.weeks, got, c.want)
		}
	}
}

// The per-group figures say by what their groups are the largest (the
// most jobs, the order they are drawn in): "largest 10" did not.
func TestGroupFiguresSayLargestByWhat(t *testing.T) {
	b := GroupBreakdown{Dim: "user"}
	for i := range 14 {
		b.Groups = append(b.Groups, GroupRow{Name: "u" + strconv.Itoa(i), Jobs: int64(100 - i), CPU: float64(1000 * (i + 1)), MeanWait: float64(i), MeanRun: float64(10 * i)})
		b.Jobs += int64(100 - i)
		b.CPU += float64(1000 * (i + 1))
	}
	shares, err := groupShares("lcg: ", b)
	if err != nil {
		t.Fatal(err)
	}
	times, err := groupTimes("lcg: ", b)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*plots.Drawing{shares, times} {
		if !strings.Contains(d.Title, "the 10") || !strings.Contains(d.Title, "with the most jobs") || strings.Contains(d.Title, "largest") {
			t.Errorf("title %q", d.Title)
		}
		if x := d.Plot().X.Label.Text; x != "user (most jobs first)" {
			t.Errorf("x axis %q", x)
		}
	}
}

// The toolbox's titles group thousands as its axes and pages do: "spike
// 24570" and "(2048 processors)" stood beside "25,000" on the axis.
func TestToolboxTitlesGroupThousands(t *testing.T) {
	r, err := NewReader(strings.NewReader(syntheticSWF(3000)), ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(r, AnalysisOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ungrouped := regexp.MustCompile(`(^|[^0-9.,-])[0-9]{4,}([^0-9-]|$)`) // a date (2005-11) is no quantity
	titles := 0
	for _, np := range analysisPlots(a) {
		d, err := np.make()
		if err != nil || d == nil {
			continue
		}
		titles++
		if m := ungrouped.FindString(d.Title); m != "" {
			t.Errorf("%s: title %q has %q, without its thousands separator", np.name, d.Title, m)
		}
	}
	if titles < 10 {
		t.Errorf("%d figures", titles)
	}
}
