package core_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// The W30 and W50 experiments of Mohamed's thesis, §5.1 (reference
// 000-koala.md §8.1 and §9.2): a workload of examples/ on a grid of
// examples/ with a placement policy, driven in simulated time, in the
// thesis's four configurations. docs/validation.md has the numbers.

// ThesisResult is what the thesis reports of a run, and what explains it.
type ThesisResult struct {
	Jobs, Finished        int
	Makespan, LastArrival time.Duration           // from the first arrival
	Util                  core.UtilizationSummary // from the first arrival to the last end
	MeanFTT               time.Duration
	MeanClaimTries        float64
	MeanPlacementTime     time.Duration
	MedianPlacementTime   time.Duration
	P90PlacementTime      time.Duration
	ClassPlacementTime    map[string]time.Duration // mean placement time by job class ("4x16": 4 components of 16)
	CoAllocated           float64                  // fraction of multi-component jobs spread over several sites
	MaxQueue              int                      // the longest placement queue left after a scan
	// Of the background samples (one per cluster per minute of the run),
	// the fractions whose mean background load was above the band's top
	// (the thesis aborted a run whose background stayed over 40% for more
	// than a minute) and below its bottom.
	BackgroundAbove, BackgroundBelow float64
}

// Tail is how long the run went on after the last arrival.
func (r ThesisResult) Tail() time.Duration { return r.Makespan - r.LastArrival }

func (r ThesisResult) String() string {
	return fmt.Sprintf("jobs %d finished %d last end %.0fs last arrival %.0fs | total %.1f%% = background %.1f%% + grid %.1f%% + PWT %.2f%%; PGT %.2f%% | FTT %.1fs claim tries %.2f placement mean %.0fs median %.0fs p90 %.0fs spread %.0f%% max queue %d background samples >high %.1f%% <low %.1f%%",
		r.Jobs, r.Finished, r.Makespan.Seconds(), r.LastArrival.Seconds(), 100*r.Util.Total, 100*r.Util.Background, 100*r.Util.Grid,
		100*r.Util.Wasted, 100*r.Util.Gained, r.MeanFTT.Seconds(), r.MeanClaimTries, r.MeanPlacementTime.Seconds(),
		r.MedianPlacementTime.Seconds(), r.P90PlacementTime.Seconds(), 100*r.CoAllocated, r.MaxQueue,
		100*r.BackgroundAbove, 100*r.BackgroundBelow)
}

// watcher follows the events a thesis run reports on, from the first
// arrival.
type watcher struct {
	from         time.Time
	maxQueue     int
	samples      int
	above, below int
	low, high    map[string]float64 // each cluster's background band
}

func (w *watcher) Event(e *core.Event) {
	if e.Time.Before(w.from) {
		return
	}
	switch e.Kind {
	case core.EvQueueLength:
		w.maxQueue = max(w.maxQueue, e.Count)
	case core.EvUtilization:
		w.samples++
		if e.Util.Background > w.high[e.Cluster] {
			w.above++
		}
		if e.Util.Background < w.low[e.Cluster] {
			w.below++
		}
	}
}

// thesisConfig is a grid (examples/das2.toml holds each file at one site,
// das2-replicated.toml at three) and a placement policy.
type thesisConfig struct{ grid, policy string }

func (c thesisConfig) String() string {
	return strings.TrimSuffix(c.grid[strings.LastIndex(c.grid, "/")+1:], ".toml") + " " + c.policy
}

const (
	noRep = "../../examples/das2.toml"
	rep   = "../../examples/das2-replicated.toml"
	w30   = "../../examples/koala-w30.wdl"
	w50   = "../../examples/koala-w50.wdl"
)

// The thesis's four configurations.
var thesisConfigs = []thesisConfig{{noRep, "WF"}, {noRep, "CF"}, {rep, "WF"}, {rep, "CF"}}

// RunThesis generates a workload with a seed and runs it in simulated time
// on a grid file with a placement policy; edit, when not nil, changes the
// grid first.
func RunThesis(t testing.TB, wdlFile string, cfg thesisConfig, seed uint64, edit func(*grid.Grid)) ThesisResult {
	t.Helper()
	spec, err := wdl.ParseFile(wdlFile)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := generator.New(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	g, err := grid.Load(cfg.grid)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(g)
	}
	g.Scheduler.Policy = cfg.policy
	g.Scheduler.Seed = seed
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Warm up the background load for 30 minutes before the workload.
	origin := start.Add(30 * time.Minute)
	w := &watcher{low: map[string]float64{}, high: map[string]float64{}}
	for _, cl := range g.Clusters {
		w.low[cl.Name], w.high[cl.Name] = cl.Background.Low, cl.Background.High
	}
	c, err := core.New(g, start, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var arrivals []core.Arrival
	_, err = gen.Generate(func(j *workload.Job) error {
		cp := *j
		cp.Components = append([]workload.Component(nil), j.Components...)
		cp.Files = append([]workload.File(nil), j.Files...)
		cp.App.Params = append([]workload.Param(nil), j.App.Params...)
		arrivals = append(arrivals, core.Arrival{At: origin.Add(j.Submit), Job: cp, Opts: core.Options{Priority: core.High}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	first := arrivals[0].At
	w.from = first
	c.MeasureFrom(first)
	if errs := c.Simulate(arrivals, first.Add(48*time.Hour)); len(errs) > 0 {
		t.Fatal(errs)
	}
	res := ThesisResult{Jobs: len(arrivals), LastArrival: arrivals[len(arrivals)-1].At.Sub(first), MaxQueue: w.maxQueue,
		ClassPlacementTime: map[string]time.Duration{}}
	if w.samples > 0 {
		res.BackgroundAbove = float64(w.above) / float64(w.samples)
		res.BackgroundBelow = float64(w.below) / float64(w.samples)
	}
	var end time.Time
	var ftt, placement time.Duration
	var tries int
	var placements []time.Duration
	classJobs := map[string]int{}
	multi, spread := 0, 0
	for _, j := range c.Jobs() {
		if j.State == core.Finished {
			res.Finished++
		}
		if j.End.After(end) {
			end = j.End
		}
		ftt += j.FTT
		tries += j.ClaimTries
		placement += j.TotalPlacementTime
		placements = append(placements, j.TotalPlacementTime)
		class := fmt.Sprintf("%dx%d", len(j.Components), j.Components[0].Size)
		res.ClassPlacementTime[class] += j.TotalPlacementTime
		classJobs[class]++
		if len(j.Components) > 1 {
			multi++
			if j.CoAllocated() {
				spread++
			}
		}
	}
	for class, n := range classJobs {
		res.ClassPlacementTime[class] /= time.Duration(n)
	}
	res.Makespan = end.Sub(first)
	n := time.Duration(len(c.Jobs()))
	res.MeanFTT, res.MeanPlacementTime = ftt/n, placement/n
	res.MeanClaimTries = float64(tries) / float64(len(c.Jobs()))
	sort.Slice(placements, func(a, b int) bool { return placements[a] < placements[b] })
	res.MedianPlacementTime = placements[len(placements)/2]
	res.P90PlacementTime = placements[len(placements)*9/10]
	if multi > 0 {
		res.CoAllocated = float64(spread) / float64(multi)
	}
	res.Util = c.Utilization()
	return res
}

// thesisSeeds is how many seeds (1, 2, ...) of the generator and of the
// background load each configuration runs with.
const thesisSeeds = 5

// meanThesis runs a workload in configurations with seeds 1..thesisSeeds
// and returns the means per configuration (MaxQueue: the largest, over the
// seeds). It fails the test for every job that does not finish. edit, when
// not nil, changes the grids (named in the log with note).
func meanThesis(t *testing.T, wdlFile string, configs []thesisConfig, edit func(*grid.Grid), note string) map[thesisConfig]ThesisResult {
	t.Helper()
	name := wdlFile[strings.LastIndex(wdlFile, "/")+1:] + note
	mean := map[thesisConfig]ThesisResult{}
	f := 1.0 / thesisSeeds
	scale := func(d time.Duration) time.Duration { return time.Duration(f * float64(d)) }
	for _, cfg := range configs {
		sum := ThesisResult{ClassPlacementTime: map[string]time.Duration{}}
		for s := uint64(1); s <= thesisSeeds; s++ {
			r := RunThesis(t, wdlFile, cfg, s, edit)
			t.Logf("%s %s seed %d: %s", name, cfg, s, r)
			if r.Finished != r.Jobs {
				t.Errorf("%s seed %d: %d of %d jobs finished", cfg, s, r.Finished, r.Jobs)
			}
			u := &sum.Util
			u.Total += f * r.Util.Total
			u.Stacked += f * r.Util.Stacked
			u.Background += f * r.Util.Background
			u.Grid += f * r.Util.Grid
			u.Wasted += f * r.Util.Wasted
			u.Gained += f * r.Util.Gained
			sum.MeanFTT += scale(r.MeanFTT)
			sum.MeanClaimTries += f * r.MeanClaimTries
			sum.MeanPlacementTime += scale(r.MeanPlacementTime)
			for class, d := range r.ClassPlacementTime {
				sum.ClassPlacementTime[class] += scale(d)
			}
			sum.Makespan += scale(r.Makespan)
			sum.LastArrival += scale(r.LastArrival)
			sum.CoAllocated += f * r.CoAllocated
			sum.BackgroundAbove += f * r.BackgroundAbove
			sum.BackgroundBelow += f * r.BackgroundBelow
			sum.MaxQueue = max(sum.MaxQueue, r.MaxQueue)
			sum.Jobs, sum.Finished = sum.Jobs+r.Jobs, sum.Finished+r.Finished
		}
		mean[cfg] = sum
		var classes []string
		for _, c := range []string{"1x8", "2x8", "4x8", "1x16", "2x16", "4x16"} {
			classes = append(classes, fmt.Sprintf("%s %.0fs", c, sum.ClassPlacementTime[c].Seconds()))
		}
		t.Logf("MEAN %s %s: total %.1f%% = background %.1f%% + grid %.1f%% + PWT %.2f%%; PGT %.2f%% (PGT/PWT %.2f; stacked %.1f%%) | FTT %.1fs claim tries %.2f | last arrival %.0fs last end %.0fs tail %.0fs max queue %d | placement %.0fs (%s) | spread %.0f%% | background samples >high %.1f%% <low %.1f%%",
			name, cfg, 100*sum.Util.Total, 100*sum.Util.Background, 100*sum.Util.Grid, 100*sum.Util.Wasted,
			100*sum.Util.Gained, sum.Util.Gained/sum.Util.Wasted, 100*sum.Util.Stacked, sum.MeanFTT.Seconds(), sum.MeanClaimTries,
			sum.LastArrival.Seconds(), sum.Makespan.Seconds(), sum.Tail().Seconds(), sum.MaxQueue, sum.MeanPlacementTime.Seconds(),
			strings.Join(classes, ", "), 100*sum.CoAllocated, 100*sum.BackgroundAbove, 100*sum.BackgroundBelow)
	}
	return mean
}
