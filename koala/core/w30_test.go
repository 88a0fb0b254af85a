package core_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// W30Result is what the thesis reports for a W30 run.
type W30Result struct {
	Jobs, Finished        int
	Makespan, LastArrival time.Duration
	Util                  core.UtilizationSummary // over the makespan
	MeanFTT               time.Duration
	MeanClaimTries        float64
	MeanPlacementTime     time.Duration
	MedianPlacementTime   time.Duration
	P90PlacementTime      time.Duration
	CoAllocated           float64 // fraction of multi-component jobs spread over several sites
}

func (r W30Result) String() string {
	return fmt.Sprintf("jobs %d finished %d makespan %.0fs (last arrival %.0fs) busy %.1f%% grid %.1f%% background %.1f%% PWT %.1f%% PGT %.1f%% FTT %.1fs claim tries %.2f placement mean %.0fs median %.0fs p90 %.0fs spread %.0f%%",
		r.Jobs, r.Finished, r.Makespan.Seconds(), r.LastArrival.Seconds(), 100*r.Util.Total, 100*r.Util.Grid, 100*r.Util.Background,
		100*r.Util.Wasted, 100*r.Util.Gained, r.MeanFTT.Seconds(), r.MeanClaimTries, r.MeanPlacementTime.Seconds(),
		r.MedianPlacementTime.Seconds(), r.P90PlacementTime.Seconds(), 100*r.CoAllocated)
}

// RunW30 generates examples/koala-w30.wdl with a seed and runs it on a grid in
// simulated time with a placement policy.
func RunW30(t testing.TB, gridFile, policy string, seed uint64) W30Result {
	t.Helper()
	spec, err := wdl.ParseFile("../../examples/koala-w30.wdl")
	if err != nil {
		t.Fatal(err)
	}
	gen, err := generator.New(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	g, err := grid.Load(gridFile)
	if err != nil {
		t.Fatal(err)
	}
	g.Scheduler.Policy = policy
	g.Scheduler.Seed = seed
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err := core.New(g, start, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var arrivals []core.Arrival
	_, err = gen.Generate(func(j *workload.Job) error {
		cp := *j
		cp.Components = append([]workload.Component(nil), j.Components...)
		cp.Files = append([]workload.File(nil), j.Files...)
		cp.App.Params = append([]workload.Param(nil), j.App.Params...)
		// Warm up the background load for 30 minutes before the first job.
		arrivals = append(arrivals, core.Arrival{At: start.Add(30*time.Minute + j.Submit), Job: cp, Opts: core.Options{Priority: core.High}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	first := arrivals[0].At
	c.MeasureFrom(first)
	if errs := c.Simulate(arrivals, first.Add(48*time.Hour)); len(errs) > 0 {
		t.Fatal(errs)
	}
	res := W30Result{Jobs: len(arrivals), LastArrival: arrivals[len(arrivals)-1].At.Sub(first)}
	var end time.Time
	var ftt, placement time.Duration
	var tries int
	var placements []time.Duration
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
		if len(j.Components) > 1 {
			multi++
			if j.CoAllocated() {
				spread++
			}
		}
	}
	res.Makespan = end.Sub(first)
	n := time.Duration(len(c.Jobs()))
	res.MeanFTT, res.MeanPlacementTime = ftt/n, placement/n
	res.MeanClaimTries = float64(tries) / float64(len(c.Jobs()))
	sortDurations(placements)
	res.MedianPlacementTime = placements[len(placements)/2]
	res.P90PlacementTime = placements[len(placements)*9/10]
	if multi > 0 {
		res.CoAllocated = float64(spread) / float64(multi)
	}
	res.Util = c.Utilization()
	return res
}

func sortDurations(d []time.Duration) {
	for i := 1; i < len(d); i++ {
		for k := i; k > 0 && d[k] < d[k-1]; k-- {
			d[k], d[k-1] = d[k-1], d[k]
		}
	}
}

// The thesis's W30 shape (reference 000-koala.md §9.2, items 1-4): every job
// finishes, the run ends shortly after the last arrival, total utilization is
// about 70% with the grid's share about 30%, about one claiming try per job,
// PGT about 3 x PWT, and Close-to-Files moves less data than Worst-Fit, least
// with replication. Averaged over several seeds; docs/validation.md has the
// numbers.
func TestW30ReproducesTheThesisShape(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 4 x 5 W30 runs; skipped with -short")
	}
	type config struct{ grid, policy string }
	configs := []config{
		{"../../examples/das2.toml", "WF"}, {"../../examples/das2.toml", "CF"},
		{"../../examples/das2-replicated.toml", "WF"}, {"../../examples/das2-replicated.toml", "CF"},
	}
	const seeds = 5
	mean := map[config]W30Result{}
	for _, cfg := range configs {
		var sum W30Result
		for s := uint64(1); s <= seeds; s++ {
			r := RunW30(t, cfg.grid, cfg.policy, s)
			t.Logf("%s %s seed %d: %s", cfg.grid[len("../../examples/"):], cfg.policy, s, r)
			if r.Finished != r.Jobs {
				t.Errorf("%v seed %d: %d of %d jobs finished", cfg, s, r.Finished, r.Jobs)
			}
			sum.Util.Total += r.Util.Total / seeds
			sum.Util.Stacked += r.Util.Stacked / seeds
			sum.Util.Background += r.Util.Background / seeds
			sum.Util.Grid += r.Util.Grid / seeds
			sum.Util.Wasted += r.Util.Wasted / seeds
			sum.Util.Gained += r.Util.Gained / seeds
			sum.MeanFTT += r.MeanFTT / seeds
			sum.MeanClaimTries += r.MeanClaimTries / seeds
			sum.Makespan += r.Makespan / seeds
			sum.LastArrival += r.LastArrival / seeds
		}
		mean[cfg] = sum
		t.Logf("MEAN %s %s: stacked %.1f%% busy %.1f%% background %.1f%% grid %.1f%% PWT %.2f%% PGT %.2f%% FTT %.1fs claim tries %.2f makespan %.0fs last arrival %.0fs",
			cfg.grid[len("../../examples/"):], cfg.policy, 100*sum.Util.Stacked, 100*sum.Util.Total, 100*sum.Util.Background, 100*sum.Util.Grid, 100*sum.Util.Wasted,
			100*sum.Util.Gained, sum.MeanFTT.Seconds(), sum.MeanClaimTries, sum.Makespan.Seconds(), sum.LastArrival.Seconds())
	}
	for cfg, r := range mean {
		// The thesis's "total utilization about 70%" is the top of its stacked
		// plot: background, grid jobs, wasted (PWT) and gained (PGT) time.
		if r.Util.Stacked < 0.60 || r.Util.Stacked > 0.80 {
			t.Errorf("%v: total (stacked) utilization %.1f%%, the thesis has about 70%%", cfg, 100*r.Util.Stacked)
		}
		if r.Util.Grid < 0.22 || r.Util.Grid > 0.38 {
			t.Errorf("%v: grid share %.1f%%, the thesis has about 30%%", cfg, 100*r.Util.Grid)
		}
		if r.MeanClaimTries > 1.5 {
			t.Errorf("%v: %.2f claiming tries per job, the thesis has about 1", cfg, r.MeanClaimTries)
		}
		if ratio := r.Util.Gained / r.Util.Wasted; math.Abs(ratio-3) > 1 {
			t.Errorf("%v: PGT/PWT = %.2f, about 3 at L = 0.75 with one claiming try", cfg, ratio)
		}
		if over := r.Makespan - r.LastArrival; over > 30*time.Minute {
			t.Errorf("%v: the run ends %v after the last arrival: not stable", cfg, over)
		}
	}
	noRep, rep := "../../examples/das2.toml", "../../examples/das2-replicated.toml"
	if !(mean[config{noRep, "CF"}].MeanFTT < mean[config{noRep, "WF"}].MeanFTT) {
		t.Errorf("without replication FTT(CF) %v is not below FTT(WF) %v", mean[config{noRep, "CF"}].MeanFTT, mean[config{noRep, "WF"}].MeanFTT)
	}
	if !(mean[config{rep, "CF"}].MeanFTT < mean[config{rep, "WF"}].MeanFTT) {
		t.Errorf("with replication FTT(CF) %v is not below FTT(WF) %v", mean[config{rep, "CF"}].MeanFTT, mean[config{rep, "WF"}].MeanFTT)
	}
	if !(mean[config{rep, "CF"}].MeanFTT < mean[config{noRep, "CF"}].MeanFTT) {
		t.Errorf("FTT(CF, replication) %v is not below FTT(CF) %v", mean[config{rep, "CF"}].MeanFTT, mean[config{noRep, "CF"}].MeanFTT)
	}
}
