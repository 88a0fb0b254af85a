package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// reportSpec is a small workload of two job types: 10 jobs in about 2 s,
// each running under 1.5 s. On the bundled core's two 8-processor
// clusters and on the local target no job waits: every wait is 0 s, the
// data that made the report panic.
const reportSpec = "1\tunitary\t6\thello\tsingle\t1\t*:1\tPoisson(200ms)\tRunTime=C(500ms)\n" +
	"2\tunitary\t4\tswf\tsingle\t2\t*:2\tPoisson(300ms)\tRunTime=U(200ms,1500ms)\n"

const reportGrid = "name = \"two\"\n[scheduler]\npolicy = \"WF\"\nscan_interval = \"1s\"\n" +
	"[[cluster]]\nname = \"A\"\nprocessors = 8\n[[cluster]]\nname = \"B\"\nprocessors = 8\n"

var reportWritten = regexp.MustCompile(`(?m)^report written to (\S+/index\.html) `)

// `gmark report -o DIR` on a store from
// every target — the bundled core in-process, local, dryrun, Slurm on
// loopback, an ARC CE and a GRAM5 gatekeeper on loopback (fork), and
// `koala simulate --db` — writes the whole page: exit 0,
// index.html, every figure it refers to, and a reason for each figure not
// drawn. The stores are made by the real `gmark submit`.
//
// Slow: 74 s at load 4–30 (51 s of it the ARC CE), 123 s at load 20–40 (2
// cores, whole package run): a real submission to every target.
func TestReportEveryTarget(t *testing.T) {
	t.Parallel() // waits on the targets, little CPU: runs beside the others
	bin := buildGmark(t)
	dir := t.TempDir()
	wl := genWorkload(t, dir, reportSpec)
	grid := filepath.Join(dir, "grid.toml")
	if err := os.WriteFile(grid, []byte(reportGrid), 0o644); err != nil {
		t.Fatal(err)
	}
	// Drawn from every store: the figures of the wait, run and response
	// times (every wait 0 s on most), of two job types, and of the run.
	common := []string{"cdf_wait", "cdf_run", "cdf_response", "box_wait", "scatter_wait_run", "pareto_sites", "bihist_wait",
		"goodput", "throughput", "success_rate", "breakdown"}
	targets := []struct {
		name  string
		store func(t *testing.T, db string) []string // the command that records the run
		drawn []string
	}{
		{"dryrun", func(t *testing.T, db string) []string {
			return []string{"submit", wl, "--target", "dryrun", "--db", db, "-q"}
		}, append([]string{"xbar_delay"}, common...)},
		{"local", func(t *testing.T, db string) []string {
			return []string{"submit", wl, "--target", "local", "--processors", "8", "--gmark", bin, "--db", db, "-q"}
		}, append([]string{"xbar_delay", "utilization"}, common...)},
		{"koala", func(t *testing.T, db string) []string {
			return []string{"submit", wl, "--target", "koala", "--grid", grid, "--db", db, "-q"}
		}, append([]string{"xbar_delay", "utilization"}, common...)},
		{"koala simulate", func(t *testing.T, db string) []string {
			return []string{"koala", "simulate", "--grid", grid, "--db", db, wl}
		}, append([]string{"utilization"}, common...)},
		{"slurm", func(t *testing.T, db string) []string {
			e := slurmtest.Start(t, slurmtest.Options{}, "alpha")
			targets := filepath.Join(filepath.Dir(db), "targets.toml")
			toml := strings.Replace(e.TargetsTOML(), "[slurm]\n", "[slurm]\nhetjob = false\npoll = \"500ms\"\n", 1)
			if err := os.WriteFile(targets, []byte(toml), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"submit", wl, "--target", "slurm", "--targets", targets, "--gmark", bin, "--db", db, "-q", "--tail", "2m"}
		}, append([]string{"xbar_delay"}, common...)},
		{"arc", func(t *testing.T, db string) []string { return arcSubmit(t, wl, db, bin) }, append([]string{"xbar_delay"}, common...)},
		{"gram", func(t *testing.T, db string) []string { return gramSubmit(t, wl, db, bin) }, append([]string{"xbar_delay"}, common...)},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			d := t.TempDir()
			db := filepath.Join(d, "results.db")
			if stdout, stderr, code := run(t, d, tg.store(t, db)...); code != 0 {
				t.Fatalf("recording the run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			stdout, stderr, code := run(t, d, "report", "--db", db, "-o", filepath.Join(d, "report"), "-q")
			if code != 0 {
				t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
			}
			m := reportWritten.FindStringSubmatch(stdout)
			if m == nil {
				t.Fatalf("no report line in %q", stdout)
			}
			for _, r := range reporttest.CheckPage(t, m[1], tg.drawn...) {
				t.Logf("not drawn: %s", r)
			}
			// The other forms of the same store.
			stdout, stderr, code = run(t, d, "report", "--db", db, "--format", "json")
			if code != 0 || !json.Valid([]byte(stdout)) { // a NaN or Inf number is not JSON
				t.Errorf("json: exit %d, %s\n%.500s", code, stderr, stdout)
			}
			stdout, stderr, code = run(t, d, "report", "--db", db, "--format", "text")
			if code != 0 || strings.Contains(stdout, "NaN") || strings.Contains(stdout, "Inf") {
				t.Errorf("text: exit %d, %s\n%s", code, stderr, stdout)
			}
		})
	}
}

// Where the report goes, and the exit status of
// each outcome: 0 done, 1 a failure while writing, 2 bad usage or bad input
// (before any work, with a message that says what is wrong).
func TestReportOutputsAndExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wl := genWorkload(t, dir, reportSpec)
	if _, stderr, code := run(t, dir, "submit", wl, "--target", "dryrun", "--db", "r.db", "-q", "--run-id", "r1"); code != 0 {
		t.Fatalf("submit: %s", stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "target"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "blocked", "index.html"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A run of no jobs, as a submitter killed before its first submission
	// leaves it.
	reporttest.WriteRuns(t, filepath.Join(dir, "empty.db"), reporttest.Run{ID: "e1"})
	if st, err := store.Open(filepath.Join(dir, "norun.db")); err != nil {
		t.Fatal(err)
	} else {
		st.Close()
	}
	cases := []struct {
		args []string
		code int
		want string // in stderr (stdout when the exit is 0)
	}{
		{[]string{"report", "--db", "r.db", "-o", "out"}, 0, "report written to out/index.html"},
		{[]string{"report", "--db", "r.db", "-o", "link"}, 0, "report written to link/index.html"},
		{[]string{"report", "--db", "r.db", "-o", "file"}, 2, "-o: file is a regular file, not a directory"},
		{[]string{"report", "--db", "r.db", "-o", "fifo"}, 2, "-o: fifo is a FIFO (named pipe), not a directory"},
		{[]string{"report", "--db", "r.db", "-o", "/dev/null"}, 2, "-o: /dev/null is a character device, not a directory"},
		{[]string{"report", "--db", "r.db", "-o", "blocked"}, 1, "index.html is a directory"},
		{[]string{"report", "--db", "norun.db"}, 2, "norun.db holds no run"},
		{[]string{"report", "sql", "--db", "norun.db", "SELECT count(*) AS n FROM runs"}, 0, "n  \n0"},
		{[]string{"report", "--db", "empty.db", "-o", "empty"}, 0, "report written to empty/index.html"},
		{[]string{"report", "--db", "empty.db", "--format", "json"}, 0, `the run has no jobs"`},
		{[]string{"report", "--db", "r.db", "--baseline", "empty.db"}, 2, "the baseline runs (e1) have no jobs: nothing to compare against"},
		{[]string{"report", "--db", "empty.db", "--baseline", "r.db"}, 2, "the new runs (e1) have no jobs"},
		{[]string{"report", "--db", "r.db", "--baseline", "r.db"}, 2, "the new runs are the baseline's runs (r1 of r.db is the baseline's r1 of r.db)"},
		{[]string{"report", "--db", "r.db", "--bins", "0"}, 2, "--bins from 1 to 10000"},
		{[]string{"report", "--db", "r.db", "--bins", "1000000000"}, 2, "--bins from 1 to 10000"},
		{[]string{"report", "--db", "r.db", "--baseline", "r.db", "--threshold", "NaN"}, 2, "--threshold"},
		{[]string{"report", "--db", "r.db", "--baseline", "r.db", "--threshold", "Inf%"}, 2, "--threshold"},
		{[]string{"report", "--db", "r.db", "--baseline", "r.db", "--alpha", "NaN"}, 2, "--alpha"},
		{[]string{"report", "sql", "--db", "r.db", ""}, 2, "the query is empty"},
		{[]string{"report", "sql", "--db", "r.db", " ; "}, 2, "the query is empty"},
		{[]string{"report", "sql", "--db", "r.db", "SELEC * FROM jobs"}, 2, `near "SELEC": syntax error`},
		{[]string{"report", "sql", "--db", "r.db", "SELECT 1; PRAGMA query_only(0); DELETE FROM jobs"}, 2, "read-only"},
		{[]string{"report", "sql", "--db", "r.db", "SELECT count(*) AS n FROM jobs"}, 0, "10"},
		// The parent's --db and -f reach the subcommand (it read results.db before).
		{[]string{"report", "--db", "r.db", "-f", "csv", "sql", "SELECT count(*) AS n FROM jobs"}, 0, "n\n10\n"},
		{[]string{"report", "--db", "norun.db", "sql", "--db", "r.db", "SELECT count(*) AS n FROM jobs"}, 0, "10"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			stdout, stderr, code := run(t, dir, c.args...)
			out := stderr
			if c.code == 0 {
				out = stdout
			}
			if code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, want %d and %q in:\n%s%s", code, c.code, c.want, stdout, stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "internal error") {
				t.Errorf("a crash: %s", stderr)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "file")); string(b) != "keep" {
		t.Errorf("the regular file given as -o changed: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("-o link is no longer a link: %v", err)
	}
	reporttest.CheckPage(t, filepath.Join(dir, "target", "index.html"), "cdf_wait")
	reporttest.CheckPage(t, filepath.Join(dir, "empty", "index.html"))
	if n := countRows(t, filepath.Join(dir, "r.db"), "r1"); n != 10 {
		t.Errorf("%d jobs after the SQL, want 10", n)
	}
}

// The report step of `gmark run` panicked the same way
// when every job waited 0 s (a grid larger than the workload); the loop
// now ends with the report written.
func TestRunReportsZeroWaits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "zero.wdl")
	if err := os.WriteFile(spec, []byte("# File-type: text/wl-spec\n# File-version: 1.1\n"+reportSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join(dir, "grid.toml")
	if err := os.WriteFile(grid, []byte(reportGrid), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, dir, "run", spec, "--grid", grid, "-o", "out", "-q")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	m := reportLineRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no report line in:\n%s", stdout)
	}
	index := m[1]
	if !filepath.IsAbs(index) {
		index = filepath.Join(dir, index)
	}
	reporttest.CheckPage(t, index, "cdf_wait", "box_wait", "scatter_wait_run")
	// The data that made it panic: no job waited.
	if out, _, _ := run(t, dir, "report", "sql", "--db", filepath.Join("out", "results.db"), "--format", "csv",
		"SELECT count(*), max(start_ns - submit_ns) FROM jobs"); out != "count(*),max(start_ns - submit_ns)\n10,0\n" {
		t.Errorf("the jobs of the run: %q, want 10 jobs, none waiting", out)
	}
}
