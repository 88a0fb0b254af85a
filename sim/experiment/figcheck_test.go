package experiment

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// Every figure of a simulation report passes the figure checks of
// analyzer/plots: the metrics against the load per scenario, the deadline
// metrics (a deadline experiment, examples/deadlines/fig4-waitx.toml, at
// a twentieth of its length), and the jobs and messages over time.
func TestSimFiguresChecked(t *testing.T) {
	checked := testkit.CheckFigures(t)
	e, err := Load(filepath.Join(testkit.RepoRoot(t), "examples", "deadlines", "fig4-waitx.toml"), Options{Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "dl.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReport(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteReportDir(rep, filepath.Join(dir, "rep")); err != nil {
		t.Fatal(err)
	}
	if !rep.Experiments[0].hasDeadlines() {
		t.Error("the deadline experiment has no deadline metrics")
	}
	if n := checked(); n < 20 {
		t.Errorf("%d figures checked", n)
	}
}
