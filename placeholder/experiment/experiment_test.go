package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/gmark/gmark/examples"
)

func load(t testing.TB, name string) *Spec {
	t.Helper()
	b, err := examples.ReadFile("placeholder/" + name)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := Parse(name, b)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func run(t *testing.T, sp *Spec) *Report {
	t.Helper()
	r, err := Experiment(sp)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func byMode(r *Report, m string) *Result {
	for _, res := range r.Runs {
		if res.Mode == m {
			return res
		}
	}
	return nil
}

// Experiment 1 with the thesis's rates (Table 5.1): (a) static 17/16/17
// against (b) placeholders, and the 200-job runs (c) and (d). What must
// show: makespan ratio >= 2.2, imbalance from about 72% to at most 20%,
// and at most 5% for (c) and (d).
func TestExperiment1(t *testing.T) {
	cases := []struct {
		file                     string
		jobs                     int
		units                    float64
		minRatio                 float64
		staticLow, staticHigh    float64 // static imbalance
		maxPlaceholderImbalance  float64
		thesisMakespan, thesisIm float64 // the thesis's placeholder run
	}{
		{"exp1.toml", 50, 3100, 2.2, 0.65, 0.78, 0.20, 5793, 0.14},
		{"exp1c.toml", 200, 11000, 2.2, 0.5, 1, 0.05, 17801, 0.019},
		{"exp1d.toml", 200, 11000, 2.2, 0.5, 1, 0.05, 17053, 0.021},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			r := run(t, load(t, c.file))
			st, ph := byMode(r, Static), byMode(r, Placeholder)
			if st == nil || ph == nil {
				t.Fatalf("runs %+v", r.Runs)
			}
			for _, res := range []*Result{st, ph} {
				if res.Jobs != c.jobs || math.Abs(res.Units-c.units) > 1e-9 {
					t.Errorf("%s: %d jobs, %v units; want %d, %v", res.Mode, res.Jobs, res.Units, c.jobs, c.units)
				}
				sum := 0
				for _, s := range res.Sites {
					sum += s.Jobs
				}
				if sum != c.jobs {
					t.Errorf("%s: sites ran %d jobs", res.Mode, sum)
				}
			}
			if r.Ratio < c.minRatio || math.Abs(r.Ratio-st.Makespan/ph.Makespan) > 1e-12 {
				t.Errorf("ratio %.3f (static %.0f s / placeholder %.0f s); want >= %v", r.Ratio, st.Makespan, ph.Makespan, c.minRatio)
			}
			if st.Imbalance < c.staticLow || st.Imbalance > c.staticHigh {
				t.Errorf("static imbalance %.3f; want %v to %v", st.Imbalance, c.staticLow, c.staticHigh)
			}
			if ph.Imbalance > c.maxPlaceholderImbalance {
				t.Errorf("placeholder imbalance %.3f; want <= %v", ph.Imbalance, c.maxPlaceholderImbalance)
			}
			// Late binding: the slow system B runs the fewest jobs.
			if b := ph.Sites[1]; b.Jobs >= ph.Sites[0].Jobs || b.Jobs >= ph.Sites[2].Jobs {
				t.Errorf("placeholder jobs per site %+v: B should run the fewest", ph.Sites)
			}
			t.Logf("%s: static %.0f s %.1f%%; placeholder %.0f s %.1f%% (thesis %.0f s %.1f%%); ratio %.2f",
				c.file, st.Makespan, 100*st.Imbalance, ph.Makespan, 100*ph.Imbalance, c.thesisMakespan, 100*c.thesisIm, r.Ratio)
		})
	}
}

// Experiment 1 (a) is fixed by the rates and the split: each system's
// list over its rate, C's slowed over [830, 2600).
func TestExperiment1aByHand(t *testing.T) {
	st := byMode(run(t, load(t, "exp1.toml")), Static)
	c := 830 + 1770 + (1075-0.325*830-0.2*1770)/0.325
	want := []struct {
		jobs        int
		units, idle float64
	}{{17, 1000, 4000}, {16, 1025, 1025 / 0.0733}, {17, 1075, c}}
	for i, w := range want {
		s := st.Sites[i]
		if s.Jobs != w.jobs || s.Units != w.units || math.Abs(s.IdleAt-w.idle) > 1e-6 {
			t.Errorf("site %s: %d jobs %v units idle at %v; want %d %v %v", s.Site, s.Jobs, s.Units, s.IdleAt, w.jobs, w.units, w.idle)
		}
	}
	if im := (1025/0.0733 - c) / (1025 / 0.0733); math.Abs(st.Imbalance-im) > 1e-9 {
		t.Errorf("imbalance %v, want %v", st.Imbalance, im)
	}
}

const small = `
units = [10, 4, 6]
split = [2, 1]
interval = 10
hour = 5
window = [3, 15]
[[site]]
name = "X"
rate = 1
[[site]]
name = "Y"
rate = 0.5
`

// Two sites, three jobs, worked out by hand to the second.
func TestSmallByHand(t *testing.T) {
	cases := []struct {
		name     string
		src      string
		mode     string
		runs     []JobRun // sorted by end
		makespan float64
		idle     []float64
	}{
		{"static", small, Static,
			[]JobRun{{0, "X", 10, 0, 10}, {2, "Y", 6, 0, 12}, {1, "X", 4, 10, 14}}, 14, []float64{14, 12}},
		// X takes job 0 (ends 10), Y job 1 (ends 8); Y's successor starts
		// at 8 and takes job 2 (12 s at 0.5/s); X's successor is refused.
		{"placeholder", small, Placeholder,
			[]JobRun{{1, "Y", 4, 0, 8}, {0, "X", 10, 0, 10}, {2, "Y", 6, 8, 20}}, 20, []float64{10, 20}},
		// Y's placeholders wait 1 s in its queue, and Y runs at 0.25/s over
		// [2, 4): job 1 from 1: 0.5 + 0.5 units by 4, 3 more by 10. At 10
		// X's job 0 ends first (its event is older), its successor starts
		// at once and takes job 2 (6 s); Y's successor starts at 11, refused.
		{"placeholder wait load", strings.Replace(small, "rate = 0.5", "rate = 0.5\nqueue_wait = 1\nload = [{from = 2, to = 4, rate = 0.25}]", 1), Placeholder,
			[]JobRun{{0, "X", 10, 0, 10}, {1, "Y", 4, 1, 10}, {2, "X", 6, 10, 16}}, 16, []float64{16, 10}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp, err := Parse("small.toml", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			sp.Modes = []string{c.mode}
			res := run(t, sp).Runs[0]
			if len(res.Runs) != len(c.runs) {
				t.Fatalf("runs %+v", res.Runs)
			}
			for i, w := range c.runs {
				if g := res.Runs[i]; g.Job != w.Job || g.Site != w.Site || math.Abs(g.Start-w.Start) > 1e-9 || math.Abs(g.End-w.End) > 1e-9 {
					t.Errorf("run %d: %+v, want %+v", i, g, w)
				}
			}
			if math.Abs(res.Makespan-c.makespan) > 1e-9 {
				t.Errorf("makespan %v, want %v", res.Makespan, c.makespan)
			}
			for i, w := range c.idle {
				if math.Abs(res.Sites[i].IdleAt-w) > 1e-9 {
					t.Errorf("site %d idle at %v, want %v", i, res.Sites[i].IdleAt, w)
				}
			}
			first, last := math.Min(c.idle[0], c.idle[1]), math.Max(c.idle[0], c.idle[1])
			if math.Abs(res.Imbalance-(last-first)/c.makespan) > 1e-12 {
				t.Errorf("imbalance %v", res.Imbalance)
			}
		})
	}
}
