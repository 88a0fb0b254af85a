package generator

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/heappeak"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// Distributions whose draws overflow a duration or go negative are refused
// when the spec is loaded, at the value that gives them, with what to change:
// RunTime=LogNorm(1000,1000) gave 0 s jobs, RunTime=Pareto(0.5,10s) and
// Pow2(N(40,1)) negative run times (int64 nanoseconds wrapped around).
func TestOverflowingDistributionsRejected(t *testing.T) {
	cases := []struct{ line, want string }{
		{"5\tsser\tsingle\t1\t*:?\tPoisson(60s)\tRunTime=LogNorm(1000,1000)", "w.wdl:1:42: RunTime: LogNorm(1000,1000) has no finite mean"},
		{"5\tsser\tsingle\t1\t*:?\tPoisson(60s)\tRunTime=Pareto(0.5,10s)", "w.wdl:1:42: RunTime: Pareto(0.5,10) has no finite mean"},
		{"5\tsser\tsingle\t1\t*:?\tPoisson(60s)\tRunTime=Pow2(N(40,1))", "w.wdl:1:42: RunTime: Pow2(N(40,1)) gives values above 3.154e+09 s (100 years)"},
		{"5\tsser\tsingle\t1\t*:?\tPoisson(60s)\tRunTime=N(60s,30s)", "w.wdl:1:42: RunTime: N(60,30) gives values below 0 s (with probability 0.023)"},
		{"5\twl:lublin\tsingle\t1\t*:?\t-\tRunTime=Pareto(0.5,10s)", "w.wdl:1:36: RunTime: Pareto(0.5,10) has no finite mean"},
		{"5\twl:bot\tsingle\t1\t*:?\t-\tRunTime=Pow2(N(40,1))", "w.wdl:1:33: RunTime: Pow2(N(40,1)) gives values above"},
		{"5\twl:bot\tsingle\t1\t*:?\t-\tART=LogNorm(1000,1000)", "w.wdl:1:29: ART: LogNorm(1000,1000) has no finite mean"},
		{"5\twl:bot\tsingle\t1\t*:?\t-\tBoTIAT=Pow2(N(40,1))", "w.wdl:1:32: BoTIAT: Pow2(N(40,1)) gives values above"},
	}
	for _, c := range cases {
		spec := parse(t, "w.wdl", c.line+"\n")
		_, err := New(spec, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\nerror %v\nwant  %s", c.line, err, c.want)
		}
	}
}

// A draw that is not a number, or that stays out of range draw after draw
// (here distributions put in place of the unit's, past the check before
// drawing), is an error at the unit's line naming the job, never a negative
// or wrapped duration.
func TestBadDrawIsAnErrorAtTheUnit(t *testing.T) {
	nan := stats.Constant{Value: math.NaN()}
	huge := stats.Constant{Value: 1e300}
	cases := []struct {
		name, line string
		break_     func(g *Generator)
		want       string
	}{
		{"run time +Inf", "5\tsser\tsingle\t1\t*:?\tZero\tRunTime=1s",
			func(g *Generator) {
				g.plans[0].attrs.runDist, g.plans[0].attrs.runKey = stats.Constant{Value: math.Inf(1)}, "RunTime"
			},
			"w.wdl:1:1: unit 1: job 1-0: RunTime: 100 draws in a row of C(+Inf) were out of range, the last: a run time of +Inf s is out of range: it must be from 0 s to 3.154e+09 s (100 years); change the distribution"},
		{"run time NaN", "5\tsser\tsingle\t1\t*:?\tZero\tRunTime=1s",
			func(g *Generator) { g.plans[0].attrs.runDist, g.plans[0].attrs.runKey = nan, "RunTime" },
			"w.wdl:1:1: unit 1: job 1-0: RunTime: C(NaN) drew NaN, not a number"},
		{"run time negative", "5\tsser\tsingle\t1\t*:?\tZero\tRunTime=1s",
			func(g *Generator) {
				g.plans[0].attrs.runDist, g.plans[0].attrs.runKey = stats.Constant{Value: -1}, "RunTime"
			},
			"job 1-0: RunTime: 100 draws in a row of C(-1) were out of range, the last: a run time of -1 s is out of range"},
		{"task run time", "2\tchain\tsingle\t1\t*:?\tZero\tN=3,RunTime=1s",
			func(g *Generator) { g.plans[0].attrs.runDist, g.plans[0].attrs.runKey = huge, "RunTime" },
			"w.wdl:1:1: unit 1: job 1-0: RunTime: 100 draws in a row of C(1e+300) were out of range"},
		{"inter-arrival NaN", "5\tsser\tsingle\t1\t*:?\tZero",
			func(g *Generator) { g.plans[0].unit.Arrival.Dist = nan },
			"w.wdl:1:1: unit 1: the inter-arrival time: C(NaN) drew NaN, not a number"},
		{"inter-arrival huge", "5\tsser\tsingle\t1\t*:?\tZero",
			func(g *Generator) { g.plans[0].unit.Arrival.Dist = huge },
			"w.wdl:1:1: unit 1: the inter-arrival time: 100 draws in a row of C(1e+300) were out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := New(parse(t, "w.wdl", c.line+"\n"), 1)
			if err != nil {
				t.Fatal(err)
			}
			c.break_(g)
			jobs := 0
			_, err = g.Generate(func(j *workload.Job) error { jobs++; return nil })
			var we *wdl.Error
			if !errors.As(err, &we) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant  %s (a *wdl.Error)", err, c.want)
			}
			if jobs > 1 {
				t.Errorf("%d jobs emitted before the error", jobs)
			}
		})
	}
}

// The rare draw out of range of a distribution that passed the check (at
// most wdl.Tail of its mass) is drawn again: the run times are the
// distribution truncated to 0 to 100 years, and the rest of the job is as
// it would have been.
func TestRareDrawsOutOfRangeAreDrawnAgain(t *testing.T) {
	// A 10⁻⁵ chance of 5·10⁹ s (158 years), the rest 1 s: it passes.
	rare, err := stats.NewEmpirical([]float64{1, 5e9}, []float64{99999, 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := wdl.RunTimes.CheckDist(rare); err != nil {
		t.Fatal(err)
	}
	g, err := New(parse(t, "w.wdl", "300000\thello\tsingle\t1\t*:?\tZero\tRunTime=1s\n"), 1)
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingDist{Distribution: rare}
	g.plans[0].attrs.runDist, g.plans[0].attrs.runKey = counted, "RunTime"
	ones := 0
	if _, err := g.Generate(func(j *workload.Job) error {
		if j.RunTime == time.Second {
			ones++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ones != 300000 {
		t.Errorf("%d of 300000 run times are 1 s", ones)
	}
	// The draws did come out there (the stream is fixed): a few were drawn again.
	if counted.n == 300000 {
		t.Error("no draw out of range in 300000: the test tests nothing")
	}
	t.Logf("%d draws for 300000 run times", counted.n)
}

// countingDist counts the draws of a distribution.
type countingDist struct {
	stats.Distribution
	n int
}

func (c *countingDist) Rand(r *rand.Rand) float64 { c.n++; return c.Distribution.Rand(r) }

// The models check their draws the same way: a size or a run time that is
// not a number, or beyond the limits, stops the unit with an error.
func TestModelBadDraws(t *testing.T) {
	nan := stats.Constant{Value: math.NaN()}
	spec := modelSpec(t, 5, "lublin", "-", "-")
	lublin := func(mod func(*lfStreamPlan)) error {
		plan := &lublinPlan{unit: spec.Units[0], seed: 1, scale: 1, procs: 128}
		plan.streams = []lfStreamPlan{{name: "batch", params: lfBatch}}
		plan.app, _ = swfApp(spec.Units[0].Options)
		mod(&plan.streams[0])
		src, err := plan.newSource()
		if err != nil {
			return err
		}
		var j workload.Job
		for {
			ok, err := src.Next(&j)
			if err != nil || !ok {
				return err
			}
			checkJobInRange(t, &j)
		}
	}
	cases := []struct {
		name string
		mod  func(*lfStreamPlan)
		want string // "" when the unit generates
	}{
		{"NaN size", func(s *lfStreamPlan) { s.size = nan }, "Size C(NaN): a size is not a number"},
		{"+Inf run time", func(s *lfStreamPlan) { s.runtime = stats.Constant{Value: math.Inf(1)} }, "RunTime: 100 draws in a row of C(+Inf) were out of range"},
		{"NaN run time", func(s *lfStreamPlan) { s.runtime = nan }, "RunTime: C(NaN) drew NaN, not a number"},
		{"NaN arrival", func(s *lfStreamPlan) { s.arrival = nan }, "the inter-arrival time: C(NaN) drew NaN, not a number"},
		// An infinite size is clamped to the machine, as a huge finite one is.
		{"+Inf size", func(s *lfStreamPlan) { s.size = stats.Constant{Value: math.Inf(1)} }, ""},
	}
	for _, c := range cases {
		err := lublin(c.mod)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("wl:lublin %s: %v\nwant %q", c.name, err, c.want)
		}
	}
	if _, err := (&botPlan{size: nan, rounding: "round", maxSize: 10}).bagSize(stats.NewStream(1, 1, "x")); err == nil {
		t.Error("wl:bot: a NaN bag size accepted")
	}
}

// NSites=10000000 took 1.7 GB and a chain of N=100000000 tasks 3 GB before
// either was refused: now every size is checked before anything of that
// size is allocated, and refusing it costs next to nothing.
func TestSizesCheckedBeforeAllocation(t *testing.T) {
	cases := []struct{ line, want string }{
		{"5\tsmpi\tunordered\t?\t*:1\tPoisson(60s)\tNSites=10000000", "w.wdl:1:44: NSites must be a whole number from 1 to 1024"},
		{"# File-version: 1.1\n?\tcomposite\t1\tchain\tsingle\t1\t-\tZero\tN=100000000", "w.wdl:2:39: N 100000000: a chain job has at most 100000 tasks"},
		{"1\tsameprob\tsingle\t1\t*:?\tZero\tN=20000", "w.wdl:1:32: N 20000: a sameprob job has at most 10000 tasks"},
		{"1\tsamepred\tsingle\t1\t*:?\tZero\tN=10000,MeanPred=1000", "w.wdl:1:47: MeanPred=1000 with N up to 10000 can give 19990000 dependencies in one job, more than 1000000"},
		{"1\tsamepred\tsingle\t1\t*:?\tZero\tMeanPred=99999999", "MeanPred must be a whole number from 1 to 100000"},
		{"1\tsameprob\tsingle\t1\t*:?\tZero\tEdgeProb=1.5", "w.wdl:1:39: EdgeProb must be a number from 0 to 1, got 1.5"},
		{"1\tbot\tsingle\t1\t*:?\tZero\tL=1-99999999999", "L: \"1-99999999999\" is not a range"},
		{"1\tsmpi\tsingle\t1\t*:?\tZero\tNComponentsWithWeights=1024,ComponentSizeWithWeights=16777216", "ComponentSizeWithWeights: 1024 components of 16777216 processors make 17179869184, more than the 16777216 a job may have"},
		{"1\tsmpi\tsingle\t1\t*:?\tZero\tExchange=99999999", "Exchange: \"99999999\" must be a whole number from 0 to 33554432"},
		{"1\tsserio\tsingle\t1\t*:?\tZero\tInput1=2000000000", "Input1: \"2000000000\" must be a whole number from 0 to 1073741824"},
		{"1\tswf\tsingle\t1\t*:?\tZero\tScale=1e7", "Scale: \"1e7\" must be a number > 0 and at most 1e+06"},
		{"1\tsser\tsingle\t1\t*:?\tZero\tInputFile=data:2000TB", "InputFile: input file \"data:2000TB\": size \"2000TB\" is above 1 PiB"},
		{"1\tsser\tsingle\t1\t*:?\tZero\tRunTimeInMinutesWithWeights=5;1e12", "RunTimeInMinutesWithWeights: \"1e12\" must be a number of minutes > 0 and at most 52560000"},
		{"1\twl:bot\tsingle\t1\t*:?\t-\tMaxBoTSize=100001", "MaxBoTSize must be a whole number from 1 to 100000"},
		{"1\twl:bot\tsingle\t1\t*:?\t-\tUsers=2000000", "Users must be a whole number from 1 to 1048576"},
		{"1\twl:lublin\tsingle\t1\t*:?\t-\tProcessors=16777217", "Processors must be a whole number from 1 to 16777216"},
		{"1\twl:lublin\tsingle\t1\t*:?\t-\tUHi=30", "UHi must be in [0, 24], got 30"},
		{"1\twl:lublin\tsingle\t1\t*:?\t-\tProcessors=8,TargetLoad=0.5,MaxIterations=101", "MaxIterations must be a whole number from 1 to 100"},
	}
	for _, c := range cases {
		t.Run(strings.Fields(strings.TrimPrefix(c.line, "# File-version: 1.1\n"))[1], func(t *testing.T) {
			var err error
			bytes := heappeak.Allocated(func() {
				var spec *wdl.Spec
				if spec, err = wdl.Parse("w.wdl", []byte(c.line+"\n"), os.ReadFile); err == nil {
					_, err = New(spec, 1)
				}
			})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s:\nerror %v\nwant  %s", c.line, err, c.want)
			}
			if bytes > 16<<20 {
				t.Errorf("refusing it allocated %d MB", bytes>>20)
			}
		})
	}
}

// A random structure whose draws pass the dependency cap stops there, with
// an error, instead of holding N²/2 edges.
func TestDependencyCap(t *testing.T) {
	g, err := New(parse(t, "w.wdl", "2\tsameprob\tsingle\t1\t*:?\tZero\tN=10000,L=2-10000,EdgeProb=1\n"), 1)
	if err != nil {
		t.Fatal(err)
	}
	bytes := heappeak.Allocated(func() {
		_, err = g.Generate(func(*workload.Job) error { return nil })
	})
	if err == nil || !strings.Contains(err.Error(), "w.wdl:1:1: unit 1: job 1-0 (N=10000, L=") || !strings.Contains(err.Error(), "more than 1000000 dependencies in one composite job") {
		t.Errorf("error %v", err)
	}
	if bytes > 512<<20 {
		t.Errorf("allocated %d MB", bytes>>20)
	}
	// The widest ranges are cheap to prepare: one count per N.
	var spec *wdl.Spec
	bytes = heappeak.Allocated(func() {
		spec = parse(t, "w.wdl", "1\tchain\tsingle\t1\t*:?\tZero\tN=1-100000\n")
		_, err = New(spec, 1)
	})
	if err != nil || bytes > 16<<20 {
		t.Errorf("chain N=1-100000: %v, %d MB", err, bytes>>20)
	}
}

// dagSizes draws the same (N, L) as listing every feasible pair and drawing
// an index, as gmark did: the outputs of existing specs do not change.
func TestDAGSizesMatchTheList(t *testing.T) {
	ranges := []struct{ n, l wdl.Range }{
		{wdl.Range{Min: 30, Max: 50}, wdl.Range{Min: 5, Max: 15}},
		{wdl.Range{Min: 1, Max: 60}, wdl.Range{Min: 1, Max: 1 << 30}},
		{wdl.Range{Min: 1, Max: 4}, wdl.Range{Min: 1, Max: 3}},
		{wdl.Range{Min: 7, Max: 7}, wdl.Range{Min: 3, Max: 3}},
		{wdl.Range{Min: 10, Max: 20}, wdl.Range{Min: 0, Max: 0}},
	}
	for _, shape := range dagShapes {
		for _, rg := range ranges {
			var list [][2]int
			for n := rg.n.Min; n <= rg.n.Max; n++ {
				for l := max(1, rg.l.Min); l <= min(rg.l.Max, n); l++ {
					if shape.feasible(n, l) {
						list = append(list, [2]int{n, l})
					}
				}
			}
			sizes := newDAGSizes(shape, rg.n, rg.l)
			if sizes.count() != len(list) {
				t.Fatalf("%s %v %v: %d pairs, want %d", shape.Name, rg.n, rg.l, sizes.count(), len(list))
			}
			if len(list) == 0 {
				continue
			}
			r1, r2 := stats.NewStream(1, 1, "a"), stats.NewStream(1, 1, "a")
			for i := 0; i < 200; i++ {
				n, l := sizes.pick(r1)
				want := list[r2.IntN(len(list))]
				if n != want[0] || l != want[1] {
					t.Fatalf("%s %v %v: draw %d gave (%d, %d), want %v", shape.Name, rg.n, rg.l, i, n, l, want)
				}
			}
		}
	}
}

// A replayed trace: its replays and its times are checked like any unit's.
func TestTraceLimits(t *testing.T) {
	dir := t.TempDir()
	smallSWF(t, dir)
	_, err := New(traceSpec(t, dir, "1000000000", "File=small.swf"), 1)
	if err == nil || !strings.Contains(err.Error(), "replay.wdl:1:1: 1000000000 replays of a 2h30m0s selection pass 100 years") {
		t.Errorf("10^9 replays: %v", err)
	}
	// A job whose run time (or size) no workload can hold.
	huge := "; Version: 2.2\n1 0 5 4000000000 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n2 10 5 100 99999999 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n"
	if err := os.WriteFile(filepath.Join(dir, "huge.swf"), []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ other, want string }{
		{"File=huge.swf", `huge.swf: job "1": a run time of 4e+09 s (127 years) is out of range`},
		{"File=huge.swf,MinRunTime=1s,MaxRunTime=1000s", `huge.swf: job "2": a size of 1e+08 is out of range: it must be from 1 to 1.678e+07`},
	} {
		g, err := New(traceSpec(t, dir, "1", c.other), 1)
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Generate(func(*workload.Job) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "replay.wdl:1:1: unit 1: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.other, err, c.want)
		}
	}
}

// Degenerate specs: every value equal, zero counts, one job, the largest
// seeds. Each generates exactly what it says, deterministically.
func TestDegenerateSpecs(t *testing.T) {
	cases := []struct {
		name, src string
		seed      uint64
		jobs      int
		check     func(t *testing.T, jobs []workload.Job)
	}{
		{"all equal", "4\tsser\tsingle\t1\t*:?\tU(5s,5s)\tRunTime=U(5s,5s),RandomWorkload=false", 1, 4, func(t *testing.T, jobs []workload.Job) {
			for i, j := range jobs {
				if j.Submit != time.Duration(i)*5*time.Second || j.RunTime != 5*time.Second {
					t.Errorf("%s: submit %v run %v", j.ID, j.Submit, j.RunTime)
				}
			}
		}},
		{"zero arrivals", "3\thello\tsingle\t1\t*:?\tZero\tStartAt=1m", 1, 3, func(t *testing.T, jobs []workload.Job) {
			for _, j := range jobs {
				if j.Submit != time.Minute {
					t.Errorf("%s at %v", j.ID, j.Submit)
				}
			}
		}},
		{"no jobs", "0\tsser\tsingle\t1\t*:?\tPoisson(1s)\n0\twl:lublin\tsingle\t1\t*:?\t-\t-\n0\twl:bot\tsingle\t1\t*:?\t-\t-\n0\tchain\tsingle\t1\t*:?\tZero\tN=3", 1, 0, nil},
		{"one job", "1\tsmpi\tunordered\t8\t-\tPoisson(1h)\tNSites=8", 1, 1, func(t *testing.T, jobs []workload.Job) {
			if jobs[0].Submit != 0 || len(jobs[0].Components) != 8 || jobs[0].Processors() != 8 {
				t.Errorf("job %+v", jobs[0])
			}
		}},
		{"one task", "2\tchain\tsingle\t1\t*:?\tZero\tN=1", 1, 2, func(t *testing.T, jobs []workload.Job) {
			for _, j := range jobs {
				if len(j.Tasks) != 1 || len(j.Deps) != 0 {
					t.Errorf("%s: %d tasks %d deps", j.ID, len(j.Tasks), len(j.Deps))
				}
			}
		}},
		{"one model job", "1\twl:lublin\tsingle\t1\t*:?\t-\t-\n1\twl:bot\tsingle\t1\t*:?\t-\t-", 1, 2, nil},
		{"largest seed", "3\tsser\tsingle\t1\t*:?\tPoisson(1s)\tRunTime=LogNorm(4,1)", math.MaxUint64, 3, nil},
		{"seed 0", "3\tsser\tsingle\t1\t*:?\tPoisson(1s)\tRunTime=LogNorm(4,1)", 0, 3, nil},
		{"one weight", "2\tsmpi\tsingle\t1\t*:?\tZero\tNComponentsWithWeights=3/0.5,TotalCPUsWithWeights=3,SiteTypesWithWeights=nonfixed", 1, 2, func(t *testing.T, jobs []workload.Job) {
			for _, j := range jobs {
				if len(j.Components) != 3 || j.Processors() != 3 {
					t.Errorf("%s: %v", j.ID, j.Components)
				}
			}
		}},
		{"limits of a unit", "1\tsmpi\tunordered\t16777216\t-\tZero\tNSites=1024,StartAt=36500d", 1, 1, func(t *testing.T, jobs []workload.Job) {
			if jobs[0].Submit != wdl.MaxDuration || len(jobs[0].Components) != 1024 || jobs[0].Processors() != wdl.MaxProcessors {
				t.Errorf("submit %v, %d components, %d processors", jobs[0].Submit, len(jobs[0].Components), jobs[0].Processors())
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := parse(t, "d.wdl", c.src+"\n")
			jobs := generate(t, spec, c.seed)
			if len(jobs) != c.jobs {
				t.Fatalf("%d jobs, want %d", len(jobs), c.jobs)
			}
			again := generate(t, spec, c.seed)
			if fmt.Sprint(jobs) != fmt.Sprint(again) {
				t.Error("not deterministic")
			}
			for i := range jobs {
				checkJobInRange(t, &jobs[i])
			}
			if c.check != nil {
				c.check(t, jobs)
			}
		})
	}
	// An empty spec is an error, not an empty workload.
	if _, err := wdl.Parse("e.wdl", nil, os.ReadFile); err == nil || !strings.Contains(err.Error(), "e.wdl:1:1: the workload has no units") {
		t.Errorf("empty spec: %v", err)
	}
	// Arrivals that pass 100 years stop the unit with an error.
	g, err := New(parse(t, "late.wdl", "3\tsser\tsingle\t1\t*:?\tC(36500d)\n"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Generate(func(*workload.Job) error { return nil }); err == nil || !strings.Contains(err.Error(), "late.wdl:1:1: unit 1: arrival times pass 100 years") {
		t.Errorf("arrivals past 100 years: %v", err)
	}
}

// checkJobInRange is what every generated job must satisfy, whatever the
// spec: times within [0, MaxDuration], sizes and counts within their limits.
func checkJobInRange(t testing.TB, j *workload.Job) {
	t.Helper()
	bad := func(what string, args ...any) { t.Helper(); t.Fatalf("job %s: "+what, append([]any{j.ID}, args...)...) }
	if j.Submit < 0 || j.Submit > wdl.MaxDuration {
		bad("submit %v", j.Submit)
	}
	if j.RunTime < 0 || j.RunTime > wdl.MaxDuration || j.WallTime < 0 || j.WallTime > wdl.MaxDuration+time.Minute {
		bad("run time %v, wall time %v", j.RunTime, j.WallTime)
	}
	if len(j.Components) > wdl.MaxComponents+1 || len(j.Tasks) > wdl.MaxTasks {
		bad("%d components, %d tasks", len(j.Components), len(j.Tasks))
	}
	total := 0
	for _, c := range j.Components {
		if c.Count < 1 || c.Count > wdl.MaxProcessors {
			bad("component of %d processors", c.Count)
		}
		total += c.Count
	}
	if total > wdl.MaxProcessors {
		bad("%d processors", total)
	}
	for _, f := range j.Files {
		if f.Size < 0 || f.Size > wdl.MaxBytes {
			bad("file size %d", f.Size)
		}
	}
	for i := range j.Tasks {
		checkJobInRange(t, &j.Tasks[i])
	}
}
