package core_test

import (
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
)

// Why the W30 grid cannot hold the thesis's background (docs/validation.md,
// "W30 total"). The thesis keeps the background of the DAS-2's own users in
// 30-40% per cluster, tops it up with dummy jobs under 30%, and voids a run
// whose background stays over 40% for more than a minute (§5.1.3); its
// total of about 70% with a grid share of about 30% and 2% PWT implies a
// background near 38-40%. gmark's grid keeps the band with dummy jobs
// alone and averages 34% (TestW30ReproducesTheThesisShape). Two ways up,
// with the thesis's four configurations over five seeds each:
//   - dummy jobs alone with the band's floor raised to 38% (topped up to
//     39%): the mean stays at about 36%, the dummies queueing behind the
//     grid's claims and ending between the controller's looks;
//   - a local users' workload under the band (uniform sizes 1-8, mean run
//     time 10 min, requested load 30% or 34%), the band's controller
//     topping up below 30% and killing dummies over 40%: the background
//     reaches 37-39%, but more than a fifth of its minutes are over 40%,
//     which the thesis's rule would have voided.
func TestW30BackgroundCannotBeTheThesis(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 3 x 4 x 5 W30 runs; skipped with -short")
	}
	users := func(load float64) func(*grid.Grid) {
		return func(g *grid.Grid) {
			for i := range g.Clusters {
				g.Clusters[i].Local = grid.LocalLoad{Load: load, Size: [2]int{1, 8}, SizeDist: "uniform", RSDQ: 0.9,
					Runtime: grid.Duration{Duration: 10 * time.Minute}}
			}
		}
	}
	for _, c := range []struct {
		note         string
		edit         func(*grid.Grid)
		bgMin, bgMax float64
		aboveMin     float64 // fraction of the minutes over 40%
		totalMin     float64
	}{
		{"floor 38%", func(g *grid.Grid) {
			for i := range g.Clusters {
				g.Clusters[i].Background.Low = 0.38
			}
		}, 0.34, 0.37, 0, 0},
		{"users 30%", users(0.30), 0.36, 0.39, 0.15, 0.64},
		{"users 34%", users(0.34), 0.38, 0.41, 0.25, 0.66},
	} {
		mean := meanThesis(t, w30, thesisConfigs, c.edit, " "+c.note)
		for _, cfg := range thesisConfigs {
			r := mean[cfg]
			if r.Util.Background < c.bgMin || r.Util.Background > c.bgMax {
				t.Errorf("%s, %v: background %.1f%%, want %.0f-%.0f%%", c.note, cfg, 100*r.Util.Background, 100*c.bgMin, 100*c.bgMax)
			}
			if r.BackgroundAbove < c.aboveMin || (c.aboveMin == 0 && r.BackgroundAbove > 0) {
				t.Errorf("%s, %v: %.1f%% of the minutes over 40%%, want at least %.0f%%", c.note, cfg, 100*r.BackgroundAbove, 100*c.aboveMin)
			}
			if r.Util.Total < c.totalMin {
				t.Errorf("%s, %v: total %.1f%%, want at least %.0f%%", c.note, cfg, 100*r.Util.Total, 100*c.totalMin)
			}
		}
	}
}
