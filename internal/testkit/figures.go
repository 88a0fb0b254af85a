package testkit

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gmark/gmark/plots"
	"gonum.org/v1/plot/vg"
)

// The figures saved in this test binary and the problems the checks of
// plots found in each (see CheckFigures).
var (
	figuresMu    sync.Mutex
	figuresSeen  []string
	figureFaults []string
	figuresOnce  sync.Once
)

// CheckFigures runs the figure checks of plots (Drawing.ProblemsAt:
// ticks, legend, title, data on or past the plot area's edge) on every
// figure saved from now until the end of t, and fails t on any problem, or
// when no figure at all was saved. It returns a function that says how
// many were checked so far.
func CheckFigures(t testing.TB) func() int {
	t.Helper()
	figuresOnce.Do(func() {
		plots.OnSave = func(name string, d *plots.Drawing, w, h vg.Length) {
			probs := d.ProblemsAt(w, h)
			figuresMu.Lock()
			defer figuresMu.Unlock()
			figuresSeen = append(figuresSeen, name)
			for _, p := range probs {
				figureFaults = append(figureFaults, fmt.Sprintf("%s (%q): %s", name, d.Title, p))
			}
		}
	})
	figuresMu.Lock()
	seen0, faults0 := len(figuresSeen), len(figureFaults)
	figuresMu.Unlock()
	count := func() int {
		figuresMu.Lock()
		defer figuresMu.Unlock()
		return len(figuresSeen) - seen0
	}
	t.Cleanup(func() {
		figuresMu.Lock()
		defer figuresMu.Unlock()
		if len(figuresSeen) == seen0 && !t.Skipped() { // a skip (a trace not there) draws nothing
			t.Error("no figure was saved")
		}
		for _, f := range figureFaults[faults0:] {
			t.Error(f)
		}
	})
	return count
}
