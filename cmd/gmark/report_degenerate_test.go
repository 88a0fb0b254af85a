package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// gmark report over stores the bundled core's simulation wrote where no job
// ran (every job too large for any cluster: refused) and where every job
// failed (each killed at a 30 s run-time limit): in every format — text,
// summary, CSV, JSON, the HTML page and its figures' data — no number is
// negative, infinite or absurd, and the summary says what happened. Before,
// the first store's makespan was −946,686,600 s (no end, less the first
// scheduled instant of 2000).
func TestReportWhenNoJobRanOrEveryJobFailed(t *testing.T) {
	t.Parallel()
	unit := func(i, procs int) workload.Job {
		return workload.Job{ID: "1-" + string(rune('0'+i)), Kind: workload.Unitary, Type: "swf", SiteType: workload.Single,
			Submit: time.Duration(i) * 5 * time.Second, RunTime: time.Minute, App: workload.App{Name: "swf"},
			Components: []workload.Component{{Site: "*", Count: procs}}}
	}
	das2, err := os.ReadFile("../../examples/das2.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		procs int
		grid  string // das2.toml with this max_runtime
		say   string
	}{
		{"no job ran", 100000, "15m", "no job ran (none started): no makespan, throughput or utilization"},
		{"every job failed", 1, "30s", "success rate 0.0%"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var jobs []workload.Job
			for i := range 5 {
				jobs = append(jobs, unit(i, c.procs))
			}
			w := testkit.WriteWorkload(t, jobs...)
			dir := filepath.Dir(w)
			grid := strings.Replace(string(das2), `max_runtime = "15m"`, `max_runtime = "`+c.grid+`"`, 1)
			if err := os.WriteFile(filepath.Join(dir, "grid.toml"), []byte(grid), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := run(t, dir, "koala", "simulate", "--grid", "grid.toml", "--db", "r.db", "--run-id", "r", w); code != 0 {
				t.Fatalf("simulate: %s", stderr)
			}
			for _, f := range []string{"summary", "text", "csv", "json"} {
				out, stderr, code := run(t, dir, "report", "--db", "r.db", "--format", f)
				if code != 0 {
					t.Fatalf("report -f %s: exit %d: %s", f, code, stderr)
				}
				if f == "json" {
					reporttest.CheckJSONNumbers(t, []byte(out), 1e7)
				} else {
					reporttest.CheckTextNumbers(t, f, out, 1e7)
				}
				if f == "summary" && !strings.Contains(out, c.say) {
					t.Errorf("the summary does not say %q:\n%s", c.say, out)
				}
			}
			if _, stderr, code := run(t, dir, "report", "--db", "r.db", "-o", "page", "-q"); code != 0 {
				t.Fatalf("report -o: exit %d: %s", code, stderr)
			}
			page, err := os.ReadFile(filepath.Join(dir, "page", "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			reporttest.CheckTextNumbers(t, "html", reporttest.PageText(string(page)), 1e7)
			reporttest.CheckFigureData(t, filepath.Join(dir, "page"), 1e7)
		})
	}
}
