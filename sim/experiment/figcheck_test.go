package experiment

import (
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// Every figure of a simulation report passes the figure checks of
// plots: the metrics against the load per scenario, the deadline
// metrics (a deadline experiment, examples/deadlines/fig4-waitx.toml, at
// a twentieth of its length), and the jobs and messages over time.
//
// Slow: 32 s at load 20–40 (2 cores, whole package run, when its tests ran
// one at a time): simulation reports drawn and checked (CPU).
func TestSimFiguresChecked(t *testing.T) {
	t.Parallel()
	checked := testkit.CheckFigures(t)
	e, err := Load(filepath.Join(testkit.RepoRoot(t), "examples", "deadlines", "fig4-waitx.toml"), Options{Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := runAndReport(t, e, t.TempDir())
	if !rep.Experiments[0].hasDeadlines() {
		t.Error("the deadline experiment has no deadline metrics")
	}
	if n := checked(); n < 20 {
		t.Errorf("%d figures checked", n)
	}
}
