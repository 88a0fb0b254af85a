package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// simRun generates the W30 workload with a seed (once per seed) and records
// its simulation on the bundled core in db, with extra simulate flags.
func simRun(t *testing.T, dir, db, runID string, wlSeed, simSeed int, extra ...string) {
	t.Helper()
	wl := filepath.Join(dir, fmt.Sprintf("w30-%d", wlSeed))
	if _, err := os.Stat(wl); err != nil {
		if _, stderr, code := run(t, dir, "generate", abs(t, "../../examples/koala-w30.wdl"), "-o", wl, "-q", "--seed", fmt.Sprint(wlSeed)); code != 0 {
			t.Fatalf("generate: %s", stderr)
		}
	}
	args := append([]string{"koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--db", db, "--run-id", runID,
		"--seed", fmt.Sprint(simSeed)}, extra...)
	if _, stderr, code := run(t, dir, append(args, wl)...); code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
}

// The regression gate on the bundled core's W30 workload (200 co-allocated
// jobs on the DAS-2 grid with background load), simulated:
//   - the same workload and seed twice: no regression (exit 0);
//   - the same workload with the placement queues scanned every 10 minutes
//     instead of every minute: a regression of a wait metric (exit 1);
//   - 20 pairs of runs with different seeds (workload and core), compared
//     with --allow-different-workloads: at least 19 pass.
func TestReportGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	simRun(t, dir, "base.db", "base", 1, 1)
	simRun(t, dir, "same.db", "same", 1, 1)
	simRun(t, dir, "slow.db", "slow", 1, 1, "--scan-interval", "10m")

	stdout, stderr, code := run(t, dir, "report", "--db", "same.db", "--baseline", "base.db")
	if code != 0 || !strings.Contains(stdout, "no significant regression") {
		t.Errorf("same seed: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, dir, "report", "--db", "slow.db", "--baseline", "base.db")
	t.Logf("injected slowdown (scan interval 1m → 10m):\n%s", stdout)
	if code != 1 {
		t.Errorf("injected slowdown: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if m := regexp.MustCompile(`(?m)^REGRESSION: (.*)$`).FindStringSubmatch(stdout); m == nil || !strings.Contains(m[1], "wait") {
		t.Errorf("the regression does not name a wait metric:\n%s", stdout)
	} else if !strings.Contains(stderr, "regression in ") {
		t.Errorf("stderr %q", stderr)
	}
	// The JSON form says the same.
	stdout, _, code = run(t, dir, "report", "--db", "slow.db", "--baseline", "base.db", "--format", "json", "--metrics", "p95-wait,success-rate")
	var res struct {
		Regressed []string
		Rows      []struct {
			Metric, Verdict string
			P               float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 1 || len(res.Regressed) != 1 || res.Regressed[0] != "p95-wait" {
		t.Errorf("json gate: exit %d, %v: %s", code, err, stdout)
	}

	// No false alarm between seeds.
	passed := 0
	var failures []string
	for i := 1; i <= 20; i++ {
		a, b := 2*i+100, 2*i+101
		simRun(t, dir, fmt.Sprintf("s%d.db", a), "s", a, a)
		simRun(t, dir, fmt.Sprintf("s%d.db", b), "s", b, b)
		// Different seeds of the generator make different workloads: the
		// gate compares them only when told to.
		stdout, stderr, code := run(t, dir, "report", "--db", fmt.Sprintf("s%d.db", b), "--baseline", fmt.Sprintf("s%d.db", a), "--allow-different-workloads")
		switch code {
		case 0:
			passed++
		case 1:
			failures = append(failures, fmt.Sprintf("seeds %d/%d:\n%s", a, b, stdout))
		default:
			t.Fatalf("seeds %d/%d: exit %d: %s", a, b, code, stderr)
		}
	}
	t.Logf("different seeds: %d of 20 pairs pass", passed)
	if passed < 19 {
		t.Errorf("only %d of 20 seed pairs pass:\n%s", passed, strings.Join(failures, "\n"))
	}
}

// The HTML report of two simulated runs opens in headless Chromium: the page
// loads with no error, every figure's image is there and decodes, nothing
// overflows a 1280 px window, and a screenshot is kept as a test artefact
// (testkit.Artefacts; TestPagesInChromium checks more pages).
func TestReportHTMLInChromium(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	simRun(t, dir, "r.db", "first", 1, 1)
	simRun(t, dir, "r.db", "second", 2, 2)
	out := filepath.Join(dir, "report")
	stdout, stderr, code := run(t, dir, "report", "--db", "r.db", "-o", out, "-q")
	if code != 0 || !strings.Contains(stdout, "report written to") {
		t.Fatalf("report: exit %d %s %s", code, stdout, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	imgs := regexp.MustCompile(`<img src="([^"]+)"`).FindAllStringSubmatch(string(page), -1)
	if len(imgs) < 10 {
		t.Errorf("%d figures in the page", len(imgs))
	}
	for _, m := range imgs {
		for _, f := range []string{m[1], strings.TrimSuffix(m[1], ".png") + ".svg"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("figure %s: %v", f, err)
			}
		}
	}
	for _, want := range []string{"first", "second", "koala simulate", "Provenance", "bounded slowdown"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}

	bin := testkit.Chromium(t)
	url := "file://" + filepath.Join(out, "index.html")
	p := testkit.OpenPage(t, bin, url, 1280)
	for _, problem := range p.Problems() {
		t.Error(problem)
	}
	if p.Images != len(imgs) {
		t.Errorf("%d images in the DOM, %d in the page", p.Images, len(imgs))
	}
	shot := filepath.Join(testkit.Artefacts(t, "screenshots"), "report-w30-two-runs-1280.png")
	testkit.Screenshot(t, bin, url, 1280, p.ScrollHeight, shot)
	t.Logf("screenshot of the report: %s", shot)
}

// Text, summary, JSON and CSV on standard output; read-only SQL; errors.
func TestReportFormatsAndSQL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	simRun(t, dir, "r.db", "one", 1, 1)

	stdout, _, code := run(t, dir, "report", "--db", "r.db", "--format", "summary")
	if code != 0 || !strings.Contains(stdout, "jobs 200: 200 succeeded") || !strings.Contains(stdout, "utilization") {
		t.Errorf("summary: %d\n%s", code, stdout)
	}
	stdout, _, code = run(t, dir, "report", "--db", "r.db", "--format", "text", "--run", "one")
	if code != 0 || !strings.Contains(stdout, "bounded slowdown (τ = 10 s)") || !strings.Contains(stdout, "placement time") {
		t.Errorf("text: %d\n%s", code, stdout)
	}
	stdout, _, code = run(t, dir, "report", "--db", "r.db", "--format", "json", "--tau", "1m")
	var rep struct {
		TauS float64 `json:"tau_s"`
		Runs []struct {
			Metrics struct {
				RunID string `json:"run_id"`
				Jobs  struct{ Submitted int }
				Wait  struct {
					N    int
					Mean float64
				} `json:"wait_s"`
				Utilization float64
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || len(rep.Runs) != 1 || rep.TauS != 60 ||
		rep.Runs[0].Metrics.Jobs.Submitted != 200 || rep.Runs[0].Metrics.Wait.N != 200 || rep.Runs[0].Metrics.Utilization <= 0 {
		t.Errorf("json: %d %v\n%.2000s", code, err, stdout)
	}
	stdout, _, code = run(t, dir, "report", "--db", "r.db", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || code != 0 || len(recs) < 50 || strings.Join(recs[0], ",") != "run_id,label,section,key,metric,value" {
		t.Errorf("csv: %d %v %d rows", code, err, len(recs))
	}

	stdout, stderr, code := run(t, dir, "report", "sql", "--db", "r.db", "SELECT state, count(*) AS n FROM jobs GROUP BY state")
	if code != 0 || !regexp.MustCompile(`succeeded\s+200`).MatchString(stdout) {
		t.Errorf("sql: %d %s %s", code, stdout, stderr)
	}
	stdout, _, code = run(t, dir, "report", "sql", "--db", "r.db", "--format", "csv", "SELECT count(*) AS n FROM runs")
	if code != 0 || stdout != "n\n1\n" {
		t.Errorf("sql csv: %d %q", code, stdout)
	}
	for _, q := range []string{"DELETE FROM jobs", "UPDATE jobs SET state = 'failed'", "INSERT INTO projects (name, created_ns) VALUES ('x', 1)",
		"PRAGMA user_version = 9", "WITH x AS (SELECT 1) DELETE FROM jobs", "DROP TABLE jobs"} {
		if _, stderr, code := run(t, dir, "report", "sql", "--db", "r.db", q); code != 2 || !strings.Contains(stderr, "read-only") {
			t.Errorf("%q: exit %d, %s", q, code, stderr)
		}
	}
	if stdout, _, _ := run(t, dir, "report", "sql", "--db", "r.db", "SELECT count(*) FROM jobs"); !strings.Contains(stdout, "200") {
		t.Errorf("the jobs changed: %s", stdout)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--db", "missing.db"}, "missing.db"},
		{[]string{"report", "--db", "r.db", "--run", "nope"}, "run nope is not in r.db"},
		{[]string{"report", "--db", "r.db", "--format", "pdf"}, "--format"},
		{[]string{"report", "--db", "r.db", "--baseline", "r.db", "--threshold", "five"}, "--threshold"},
		{[]string{"report", "--db", "r.db", "--baseline", "r.db", "--metrics", "p42-wait"}, "unknown metric"},
		{[]string{"report", "--db", "r.db", "--baseline", "r.db", "--test", "t-test"}, "--test"},
		{[]string{"report", "sql", "--db", "r.db", "SELECT nope FROM jobs"}, "no such column"},
		{[]string{"report", "sql", "--db", "r.db"}, "one query"},
	} {
		if _, stderr, code := run(t, dir, c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q (want 2 and %q)", c.args, code, stderr, c.want)
		}
	}
}
