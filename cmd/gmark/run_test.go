package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

var reportLineRE = regexp.MustCompile(`(?m)^report: (\S+/index\.html) `)

// The README's main job: `gmark run examples/quickstart.wdl` from the
// repository root, on the bundled scheduler started for the run, with no outside
// service: every job runs and the report is written.
//
// Slow: 65 s at load 4–30, 72 s at load 20–40 (2 cores, whole package run):
// the quick start's schedule in real time.
func TestRunQuickstart(t *testing.T) {
	t.Parallel() // wall-clock bound (the quick start in real time), little CPU: runs beside the others
	if testing.Short() {
		t.Skip("runs the quick start for about a minute; skipped with -short")
	}
	out := t.TempDir()
	stdout, stderr, code := run(t, abs(t, "../.."), "run", "examples/quickstart.wdl", "-o", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"jobs 56: 56 succeeded", "tasks 45: 45 succeeded", "success rate 100.0%"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the summary lacks %q:\n%s", want, stdout)
		}
	}
	m := reportLineRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no report line in:\n%s", stdout)
	}
	page, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	imgs := regexp.MustCompile(`<img[^>]+src="([^"]+)"`).FindAllStringSubmatch(string(page), -1)
	if len(imgs) < 8 {
		t.Errorf("the report has %d images", len(imgs))
	}
	for _, img := range imgs {
		if _, err := os.Stat(filepath.Join(filepath.Dir(m[1]), img[1])); err != nil {
			t.Errorf("image %s: %v", img[1], err)
		}
	}
	// A second run adds to the same store.
	if _, err := os.Stat(filepath.Join(out, "results.db")); err != nil {
		t.Error(err)
	}
}

func TestRunUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "run takes one WDL file"},
		{[]string{"run", abs(t, "../../examples/quickstart.wdl"), "--speedup", "0"}, "--speedup must be a number above 0"},
		{[]string{"run", abs(t, "../../examples/quickstart.wdl"), "--speedup", "NaN"}, "--speedup must be a number above 0"},
		{[]string{"run", abs(t, "../../examples/quickstart.wdl"), "--workers", "0"}, "--workers must be between 1 and 10000"},
		{[]string{"run", abs(t, "../../examples/quickstart.wdl"), "--retries", "-1"}, "--retries must be between 0 and 100"},
		{[]string{"run", abs(t, "../../examples/quickstart.wdl"), "--target", "pbs"}, `unknown target "pbs"`},
		{[]string{"run", abs(t, "../../testdata/bad/unknown-distribution.wdl")}, "unknown distribution"},
		{[]string{"run", abs(t, "../../examples/quickstart.wdl"), "--grid", "/no/grid.toml"}, "/no/grid.toml"},
	} {
		_, stderr, code := run(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed runs wrote %v", entries)
	}
}

// The quick start on real Slurm, two single-node clusters named
// as the clusters its fixed jobs ask for, with the shipped defaults
// (hetjob = true): the co-allocated jobs those clusters cannot start as
// heterogeneous jobs are claimed component by component, and every job
// runs.
//
// Slow: 79 s at load 4–30, 119 s at load 20–40 (2 cores, whole package run):
// the quick start's schedule in real time, on two Slurm clusters.
func TestRunQuickstartSlurm(t *testing.T) {
	// Mostly waiting for the workload's schedule: it overlaps the other
	// Slurm quick start (TestRunQuickstartOnSlurm), each on clusters of its own.
	t.Parallel()
	e := slurmtest.Start(t, slurmtest.Options{}, "fs0", "fs3")
	out := t.TempDir()
	targets := writeFile(t, filepath.Join(out, "targets.toml"), e.TargetsTOML(), 0o644)
	stdout, stderr, code := run(t, abs(t, "../.."), "run", "examples/quickstart.wdl", "-o", out, "--target", "slurm",
		"--targets", targets, "--gmark", buildGmark(t))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The 12 unordered and 6 fixed co-allocated jobs, each measured.
	for _, want := range []string{"jobs 56: 56 succeeded", "tasks 45: 45 succeeded", "success rate 100.0%", "over 18 co-allocated jobs (first to last component start)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the summary lacks %q:\n%s", want, stdout)
		}
	}
	// Said once per cluster, on standard error.
	for _, c := range []string{"fs0", "fs3"} {
		if n := strings.Count(stderr, "slurm: "+c+" has 1 node in its partition"); n != 1 {
			t.Errorf("cluster %s: said %d times:\n%s", c, n, stderr)
		}
	}
	t.Logf("%s", stdout[strings.Index(stdout, "jobs 56"):])
}
