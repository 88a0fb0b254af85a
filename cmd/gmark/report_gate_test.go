package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// The gate compares like with like. Before, the quick start against a W30
// baseline printed "improved" and exited 0, and a store given as both
// sides (or a copy of it) passed: now each is exit 2, naming what differs;
// --allow-different-workloads compares different workloads anyway, never
// the same runs.
func TestReportGateRefusesWhatDoesNotCompare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	simRun(t, dir, "w30.db", "w30", 1, 1)
	simRun(t, dir, "w30b.db", "w30b", 1, 2) // the same workload, another seed of the core
	if _, stderr, code := run(t, dir, "run", abs(t, "../../examples/quickstart.wdl"), "--speedup", "100", "-q", "-o", "qs"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "w30.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "copy.db"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"the quick start against W30", []string{"--db", "qs/results.db", "--baseline", "w30.db"}, 2,
			[]string{"differ in their workload", "koala-w30.wdl", "quickstart.wdl", "--allow-different-workloads"}},
		{"the quick start against W30, allowed", []string{"--db", "qs/results.db", "--baseline", "w30.db", "--allow-different-workloads"}, 0, nil},
		{"one store as both sides", []string{"--db", "w30.db", "--baseline", "w30.db"}, 2, []string{"the new runs are the baseline's runs"}},
		{"a copy of the baseline", []string{"--db", "copy.db", "--baseline", "w30.db", "--allow-different-workloads"}, 2,
			[]string{"the new runs are the baseline's runs (w30 of copy.db is the baseline's w30 of w30.db)"}},
		{"another run of the workload", []string{"--db", "w30b.db", "--baseline", "w30.db"}, 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := run(t, dir, append([]string{"report"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			for _, want := range c.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if c.code == 2 && stdout != "" {
				t.Errorf("a refused gate printed a table:\n%s", stdout)
			}
		})
	}
}

// 5 jobs that all succeed on the baseline and are all killed at the grid's
// run-time limit on the new runs: a success rate of 100% → 0% is a
// regression by Fisher's exact test (p = 1/252), exit 1. Before, fewer than
// 10 values a side had no test and the verdict "ok".
func TestReportGateFiveJobsAllFailed(t *testing.T) {
	var jobs []workload.Job
	for i := range 5 {
		jobs = append(jobs, workload.Job{ID: "1-" + string(rune('0'+i)), Kind: workload.Unitary, Type: "swf", SiteType: workload.Single,
			Submit: time.Duration(i) * 10 * time.Second, RunTime: time.Minute, App: workload.App{Name: "swf"},
			Components: []workload.Component{{Site: "*", Count: 1}}})
	}
	w := testkit.WriteWorkload(t, jobs...)
	dir := filepath.Dir(w)
	das2, err := os.ReadFile("../../examples/das2.toml")
	if err != nil {
		t.Fatal(err)
	}
	short := strings.Replace(string(das2), `max_runtime = "15m"`, `max_runtime = "30s"`, 1)
	if short == string(das2) {
		t.Fatal("das2.toml has no max_runtime of 15m to shorten")
	}
	if err := os.WriteFile(filepath.Join(dir, "short.toml"), []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ db, grid string }{{"base.db", abs(t, "../../examples/das2.toml")}, {"new.db", "short.toml"}} {
		if _, stderr, code := run(t, dir, "koala", "simulate", "--grid", r.grid, "--db", r.db, "--run-id", strings.TrimSuffix(r.db, ".db"), w); code != 0 {
			t.Fatalf("simulate: %s", stderr)
		}
	}
	for _, metrics := range [][]string{nil, {"--metrics", "success-rate"}} {
		args := append([]string{"report", "--db", "new.db", "--baseline", "base.db", "--format", "json"}, metrics...)
		stdout, stderr, code := run(t, dir, args...)
		var res struct {
			Regressed []string
			Rows      []struct {
				Metric, Verdict, Test string
				P                     float64
				Baseline, New         float64
			}
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 1 || !strings.Contains(stderr, "regression in success-rate") {
			t.Fatalf("%v: exit %d (%v)\n%s%s", metrics, code, err, stdout, stderr)
		}
		for _, r := range res.Rows {
			if r.Metric == "success-rate" && (r.Verdict != "REGRESSION" || r.Baseline != 1 || r.New != 0 || math.Abs(r.P-1.0/252) > 1e-12 || !strings.Contains(r.Test, "Fisher")) {
				t.Errorf("%v: success-rate %+v", metrics, r)
			}
		}
	}
}

// --speedup on the local target compresses the schedule only: its jobs
// (2 s each) run 2 s, and the report says so in wall time; on the bundled
// core (gmark run) the jobs are emulated 10× faster and are reported in
// workload time, 2 s again. Before, the local run's jobs were reported as
// running 20 s. The gate compares the two local runs' job figures, not
// their spans (a schedule compressed 10× against one that is not): exit 2.
func TestReportSpeedupClocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "two.wdl")
	if err := os.WriteFile(spec, []byte("1\tunitary\t4\tswf\tsingle\t1\t*:?\tC(1s)\tRunTime=2s,RunTimeInMinutes=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, "generate", spec, "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	for _, s := range []string{"1", "10"} {
		if _, stderr, code := run(t, dir, "submit", "w", "--target", "local", "--processors", "8", "--speedup", s, "--db", "local"+s+".db",
			"--gmark", buildGmark(t), "-q"); code != 0 {
			t.Fatalf("submit --speedup %s: %s", s, stderr)
		}
	}
	if _, stderr, code := run(t, dir, "run", spec, "--speedup", "10", "-q", "-o", "core"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	for _, c := range []struct {
		db, jobs, span string
		wall           bool // the makespan is given in wall time beside
	}{{"local1.db", "wall", "wall", false}, {"local10.db", "wall", "wall", false}, {"core/results.db", "workload", "workload", true}} {
		stdout, stderr, code := run(t, dir, "report", "--db", c.db, "--format", "json")
		var rep struct {
			Runs []struct {
				Metrics struct {
					Run    struct{ Mean float64 } `json:"run_s"`
					Clocks struct{ Jobs, Span string }
					Notes  []string
				}
			}
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || len(rep.Runs) != 1 {
			t.Fatalf("%s: exit %d (%v)\n%s", c.db, code, err, stderr)
		}
		m := rep.Runs[0].Metrics
		if m.Run.Mean < 1.9 || m.Run.Mean > 4 || m.Clocks.Jobs != c.jobs || m.Clocks.Span != c.span {
			t.Errorf("%s: mean run %.3g s (want about 2), clocks %+v", c.db, m.Run.Mean, m.Clocks)
		}
		if c.db != "local1.db" && !strings.Contains(strings.Join(m.Notes, "\n"), "clocks: job durations in "+c.jobs+" time") {
			t.Errorf("%s: no note of the clocks: %q", c.db, m.Notes)
		}
	}
	if _, stderr, code := run(t, dir, "report", "--db", "local10.db", "--baseline", "local1.db", "--metrics", "makespan,throughput"); code != 2 ||
		!strings.Contains(stderr, "different clocks") || !strings.Contains(stderr, "compressed 10×") {
		t.Errorf("the spans of local runs at speedups 1 and 10: exit %d\n%s", code, stderr)
	}
	if stdout, stderr, code := run(t, dir, "report", "--db", "local10.db", "--baseline", "local1.db", "--metrics", "mean-run,success-rate"); code == 2 {
		t.Errorf("the jobs of local runs at speedups 1 and 10: exit %d\n%s%s", code, stdout, stderr)
	}
}
