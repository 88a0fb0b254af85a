package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// genWorkload writes a WDL spec (v1.1 layout) and generates its workload.
func genWorkload(t *testing.T, dir, spec string) string {
	t.Helper()
	path := filepath.Join(dir, "spec.wdl")
	if err := os.WriteFile(path, []byte("# File-type: text/wl-spec\n# File-version: 1.1\n"+spec), 0o644); err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(dir, "wl")
	if _, stderr, code := run(t, dir, "generate", path, "-o", wl, "-q"); code != 0 {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	return wl
}

var runLine = regexp.MustCompile(`(?m)^run (\S+)$`)

func TestSubmitUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t2\thello\tsingle\t1\t*:1\tC(1s)\n")
	typo, negative := filepath.Join(dir, "typo.toml"), filepath.Join(dir, "negative.toml")
	os.WriteFile(typo, []byte("[local]\nprocesors = 4\n"), 0o644)
	os.WriteFile(negative, []byte("[local]\nprocessors = -4\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"submit"}, "one workload directory"},
		{[]string{"submit", wl}, "--target is required"},
		{[]string{"submit", wl, "--target", "nope"}, "unknown target"},
		{[]string{"submit", wl, "--target", "koala", "--grid", "/no/such/grid.toml"}, "/no/such/grid.toml: no such file"},
		{[]string{"submit", wl, "--target", "koala", "--endpoint", "ftp://x", "--token", "t"}, "is not an http:// URL"},
		{[]string{"submit", wl, "--target", "koala", "--endpoint", "http://u:pw@127.0.0.1:1", "--token", "t"}, "carries credentials"},
		// The missing token names the real ways to give it.
		{[]string{"submit", wl, "--target", "koala", "--endpoint", "http://127.0.0.1:1"}, "needs the core's token: --token-file FILE (e.g. the server's STATE.token file) or $GMARK_KOALA_TOKEN"},
		{[]string{"submit", wl, "--target", "koala", "--endpoint", "http://127.0.0.1:1", "--token-file", filepath.Join(dir, "none")}, "--token-file: open " + filepath.Join(dir, "none")},
		{[]string{"submit", filepath.Join(dir, "missing"), "--target", "dryrun"}, "workload directory"},
		{[]string{"submit", wl, "--target", "dryrun", "--workers", "0"}, "--workers"},
		{[]string{"submit", wl, "--target", "dryrun", "--speedup", "0"}, "--speedup"},
		// Every number is checked against its documented range.
		{[]string{"submit", wl, "--target", "dryrun", "--speedup", "NaN"}, "--speedup must be a number above 0 and at most 1e+06, not NaN"},
		{[]string{"submit", wl, "--target", "dryrun", "--speedup", "+Inf"}, "--speedup must be"},
		{[]string{"submit", wl, "--target", "dryrun", "--speedup", "1e7"}, "--speedup must be"},
		{[]string{"submit", wl, "--target", "dryrun", "--workers", "10001"}, "--workers must be between 1 and 10000, not 10001"},
		{[]string{"submit", wl, "--target", "dryrun", "--max-in-flight", "-1"}, "--max-in-flight must be between 0"},
		{[]string{"submit", wl, "--target", "dryrun", "--retries", "101"}, "--retries must be between 0 and 100"},
		{[]string{"submit", wl, "--target", "dryrun", "--submit-retries", "-1"}, "--submit-retries must be between 0 and 1000"},
		{[]string{"submit", wl, "--target", "local", "--processors", "0"}, "--processors must be between 1 and 1000000"},
		{[]string{"submit", wl, "--target", "dryrun", "--tail", "-1s"}, "--tail must be between 0s and 720h0m0s"},
		{[]string{"submit", wl, "--target", "dryrun", "--backoff", "0s"}, "--backoff must be between 1ms and 10m0s"},
		{[]string{"submit", wl, "--target", "dryrun", "--retry-for", "25h"}, "--retry-for must be between 0s and 24h0m0s"},
		{[]string{"submit", "--resume", "nope", "--db", filepath.Join(dir, "r.db")}, "no run nope"},
		{[]string{"submit", "--resume", "../../etc", "--db", filepath.Join(dir, "r.db")}, `no run ../../etc`},
		{[]string{"submit", wl, "--target", "dryrun", "--run-id", "../escape"}, `--run-id: run id "../escape": 1 to 100 letters`},
		{[]string{"submit", wl, "--target", "dryrun", "--run-id", "a/b"}, `--run-id: run id "a/b"`},
		{[]string{"submit", wl, "--target", "slurm", "--targets", filepath.Join(dir, "missing.toml")}, "missing.toml"},
		// Item 12: the targets file refuses typos, unknown sections and
		// numbers out of range, with the line.
		{[]string{"submit", wl, "--target", "local", "--targets", typo}, typo + ":2: unknown key local.procesors"},
		{[]string{"submit", wl, "--target", "local", "--targets", negative}, negative + ":2: local.processors: -4 is out of range"},
		{[]string{"submit", wl, "--target", "slurm", "--targets", negative}, negative + ":2: local.processors"},
	}
	for _, c := range cases {
		_, stderr, code := run(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// A dryrun of composite jobs: every job and task recorded once, and the
// run id and summary printed.
func TestSubmitDryRun(t *testing.T) {
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t20\thello\tsingle\t1\t*:1\tPoisson(100ms)\n"+
		"2\tcomposite\t3\tforkjoin\tsingle\t1\t*:?\tPoisson(100ms)\tN=5-8,L=3-4,AppsWithWeights=hello\n")
	db := filepath.Join(dir, "results.db")
	stdout, stderr, code := run(t, dir, "submit", wl, "--target", "dryrun", "--db", db, "--speedup", "10", "--quiet", "--project", "p", "--scenario", "s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := runLine.FindStringSubmatch(stdout)
	if m == nil || !strings.Contains(stdout, "jobs:  23 (23 succeeded)") || !strings.Contains(stdout, "submission delay: mean") {
		t.Fatalf("stdout:\n%s", stdout)
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, _ := st.Jobs(m[1])
	if len(rows) < 23+3*5 {
		t.Fatalf("%d rows", len(rows))
	}
	if err := st.VerifyProvenance(m[1]); err != nil {
		t.Fatal(err)
	}
	ps, _ := st.Provenance(m[1])
	if !strings.HasSuffix(ps[0].SpecPath, "spec.wdl") || ps[0].SpecSHA256 == "" || ps[0].Seed == nil || !strings.Contains(ps[0].CommandLine, "--speedup") {
		t.Fatalf("provenance %+v", ps[0])
	}
}

// countRows counts the job rows of a run in a store (0 while there is no
// store).
func countRows(t *testing.T, db, run string) int {
	if _, err := os.Stat(db); err != nil {
		return 0
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return 0
	}
	defer st.Close()
	var n int
	st.DB().QueryRow(`SELECT count(*) FROM jobs WHERE run_id = ?`, run).Scan(&n)
	return n
}

// End to end against real Slurm: two single-node clusters on loopback, a
// generated workload of 210 jobs across both (some naming a cluster, some
// either, some co-allocated across the two), and every job's submit, start
// and end in the store matching what Slurm reports for it.
//
// Slow: 26 s at load 4–30, 75 s at load 20–40 (2 cores, whole package run):
// 210 jobs through two Slurm clusters.
func TestSubmitSlurmEndToEnd(t *testing.T) {
	t.Parallel() // waits on Slurm clusters of its own: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	bin := buildGmark(t)
	dir := t.TempDir()
	wl := genWorkload(t, dir, ""+
		"1\tunitary\t100\thello\tsingle\t1\talpha:1\tPoisson(200ms)\n"+
		"2\tunitary\t70\tswf\tsingle\t2\tbeta:2\tPoisson(280ms)\tRunTime=U(100ms,1s)\n"+
		"3\tunitary\t30\thello\tsingle\t1\t*:1\tPoisson(600ms)\n"+
		"4\tunitary\t10\tswf\tordered\t2\talpha:1,beta:1\tPoisson(2s)\tRunTime=C(500ms)\n")
	targets := filepath.Join(dir, "targets.toml")
	// Single-node clusters cannot run heterogeneous jobs; poll often.
	toml := strings.Replace(e.TargetsTOML(), "[slurm]\n", "[slurm]\nhetjob = false\npoll = \"500ms\"\n", 1)
	if err := os.WriteFile(targets, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "results.db")
	stdout, stderr, code := run(t, dir, "submit", wl, "--target", "slurm", "--targets", targets, "--db", db,
		"--gmark", bin, "--quiet", "--run-id", "s1", "--workers", "10", "--tail", "5m")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "jobs:  210 (210 succeeded)") {
		t.Fatalf("summary:\n%s\n%s", stdout, stderr)
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, _ := st.Jobs("s1")
	if len(rows) != 210 {
		t.Fatalf("%d rows", len(rows))
	}
	type sj struct{ submit, orig, start, end int64 }
	slurm := map[string]sj{} // "cluster:id" → times
	for _, c := range e.Clusters {
		for _, j := range slurmQueue(t, c) {
			slurm[fmt.Sprintf("%s:%d", c.Name, j.ID)] = sj{j.Submit, j.Submit, j.Start, j.End}
		}
		// A job Slurm requeued (a launch it could not confirm on a loaded
		// machine) has its submit time reset; the job completion log's
		// first line of the job has the original.
		seen := map[string]bool{}
		for _, rec := range slurmJobComp(t, c) {
			key := c.Name + ":" + rec["JobId"]
			if s, ok := slurm[key]; ok && !seen[key] && rec["SubmitTime"] != "" {
				seen[key] = true
				if ts, err := time.ParseInLocation("2006-01-02T15:04:05", rec["SubmitTime"], time.Local); err == nil {
					s.orig = ts.Unix()
					slurm[key] = s
				}
			}
		}
	}
	perCluster := map[string]int{}
	for _, r := range rows {
		// A job split across clusters is submitted when its first part
		// is; it starts when its last part starts, ends with its last.
		var start, end int64
		submit, orig := int64(1)<<62, int64(1)<<62
		seen := map[int64]bool{}
		for _, id := range strings.Split(r.TargetID, ",") {
			s, ok := slurm[id]
			if !ok {
				t.Fatalf("%s: Slurm has no job %s", r.JobID, id)
			}
			cl, _, _ := strings.Cut(id, ":")
			perCluster[cl]++
			start, end = max(start, s.start), max(end, s.end)
			submit, orig = min(submit, s.submit), min(orig, s.orig)
			seen[s.submit], seen[s.orig] = true, true
		}
		// The store has Slurm's submit time (the one gmark first saw: a
		// job requeued before gmark saw it has only the new one), and
		// gmark's: when it called sbatch, before Slurm took the job
		// (sbatch takes a while on a loaded machine).
		if ts := r.TargetSubmitNS / 1e9; !seen[ts] || ts < orig || ts > submit || r.TargetSubmitNS%1e9 != 0 {
			t.Errorf("%s: Slurm's submit time %d in the store, %d (first %d) in Slurm", r.JobID, ts, submit, orig)
		}
		submit = orig
		if d := submit - r.SubmitNS/1e9; d < 0 || d > 60 {
			t.Errorf("%s: sbatch called at %d by gmark's clock, job submitted at %d by Slurm's", r.JobID, r.SubmitNS/1e9, submit)
		}
		if r.StartNS != start*1e9 || r.EndNS != end*1e9 {
			t.Errorf("%s: start/end %d/%d in the store, %d/%d in Slurm", r.JobID, r.StartNS/1e9, r.EndNS/1e9, start, end)
		}
		if strings.HasPrefix(r.JobID, "4-") && r.Sites != "alpha,beta" {
			t.Errorf("co-allocated %s ran on %q", r.JobID, r.Sites)
		}
	}
	if perCluster["alpha"] < 100 || perCluster["beta"] < 70 {
		t.Fatalf("jobs per cluster: %v", perCluster)
	}
	t.Logf("210 jobs, %d Slurm jobs on alpha, %d on beta; %s", perCluster["alpha"], perCluster["beta"],
		strings.TrimSpace(strings.SplitN(stdout[strings.Index(stdout, "submission delay"):], "\n", 2)[0]))
}

// Item 5: a token given on the command line reaches neither the results
// store (meant to be shared, its rows immutable), nor the output, nor the
// report, in any of the forms a flag takes.
func TestSubmitRedactsSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Run times and waits with some spread (the report plots them on log
	// scales).
	spec := "1\tunitary\t4\tswf\tsingle\t1\t*:1\tC(50ms)\tRunTime=U(100ms,300ms)\n"
	wl := genWorkload(t, dir, spec)
	const secret = "s3cret-70k3n"
	cases := []struct {
		name string
		args []string
	}{
		{"--token X", []string{"--token", secret}},
		{"--token=X", []string{"--token=" + secret}},
		{"-token X", []string{"-token", secret}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(dir, fmt.Sprintf("r%d.db", i))
			stdout, stderr, code := run(t, dir, append([]string{"submit", wl, "--target", "dryrun", "--db", db, "-q"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stdout+stderr, secret) {
				t.Errorf("the output shows the token:\n%s\n%s", stdout, stderr)
			}
			st, err := store.OpenReadOnly(db)
			if err != nil {
				t.Fatal(err)
			}
			m := runLine.FindStringSubmatch(stdout)
			ps, _ := st.Provenance(m[1])
			st.Close()
			if len(ps) != 1 || !strings.Contains(ps[0].CommandLine, "REDACTED") {
				t.Errorf("provenance %+v", ps)
			}
			assertNoSecretIn(t, secret, db+"*")
		})
	}
	// gmark run: the store and the report page.
	out := filepath.Join(dir, "run")
	specPath := filepath.Join(dir, "spec.wdl")
	stdout, stderr, code := run(t, dir, "run", specPath, "--target", "local", "--processors", "1", "-o", out, "-q", "--token", secret)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, secret) {
		t.Errorf("gmark run shows the token:\n%s\n%s", stdout, stderr)
	}
	assertNoSecretIn(t, secret, filepath.Join(out, "results.db*"), filepath.Join(out, "report-*", "*"))
}

// assertNoSecretIn checks that no file matching the patterns holds secret.
func assertNoSecretIn(t *testing.T, secret string, patterns ...string) {
	t.Helper()
	n := 0
	for _, p := range patterns {
		files, _ := filepath.Glob(p)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue // a directory
			}
			n++
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the token", f)
			}
		}
	}
	if n == 0 {
		t.Errorf("no file matches %v", patterns)
	}
}

// Degenerate workloads on each kind of target: an empty one completes at
// once, one job runs, a workload whose every job fails completes (exit 0:
// failed jobs are results) and says why.
func TestSubmitDegenerateWorkloads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	grid := filepath.Join(dir, "grid.toml")
	if err := os.WriteFile(grid, []byte("name = \"one\"\n[scheduler]\nscan_interval = \"1s\"\n[[cluster]]\nname = \"A\"\nprocessors = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	workloads := map[string]string{
		"empty": "1\tunitary\t0\thello\tsingle\t1\t*:1\tC(10ms)\n",
		"one":   "1\tunitary\t1\tswf\tsingle\t1\t*:1\tC(10ms)\tRunTime=C(100ms)\n",
		// 8 processors: more than the local budget and the grid have.
		"all fail": "1\tunitary\t3\thello\tsingle\t8\t*:8\tC(10ms)\n",
	}
	cases := []struct {
		workload string
		target   []string
		want     string
	}{
		{"empty", []string{"--target", "dryrun"}, "jobs:  0\n"},
		{"empty", []string{"--target", "local"}, "jobs:  0\n"},
		{"empty", []string{"--target", "koala", "--grid", grid}, "jobs:  0\n"},
		{"one", []string{"--target", "dryrun"}, "jobs:  1 (1 succeeded)"},
		{"one", []string{"--target", "local"}, "jobs:  1 (1 succeeded)"},
		{"one", []string{"--target", "koala", "--grid", grid}, "jobs:  1 (1 succeeded)"},
		{"all fail", []string{"--target", "local", "--processors", "2"}, "jobs:  3 (3 failed)\n  note: 3 failed: submission failed: job JOB asks for 8 processors; the local budget is 2"},
		{"all fail", []string{"--target", "koala", "--grid", grid}, "jobs:  3 (3 failed)\n  note: 3 failed: submission failed: the core refused job"},
	}
	for i, c := range cases {
		t.Run(c.workload+" "+c.target[1], func(t *testing.T) {
			sub := filepath.Join(dir, fmt.Sprint(i))
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			wl := genWorkload(t, sub, workloads[c.workload])
			stdout, stderr, code := run(t, sub, append([]string{"submit", wl, "--db", filepath.Join(sub, "r.db"), "-q"}, c.target...)...)
			if code != 0 || !strings.Contains(stdout, c.want) {
				t.Fatalf("exit %d, want 0 and %q:\n%s\n%s", code, c.want, stdout, stderr)
			}
		})
	}
}
