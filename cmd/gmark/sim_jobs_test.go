package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gmark sim run --jobs of the hand-made trace of EASY ties, replayed as
// recorded, then its per-job schedule exported as Batsim's jobs.csv and as
// SWF; the wrong requests exit 2 and say why.
func TestSimRunJobsExported(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"ties.toml", "ties.swf", "one.toml"} {
		b, err := os.ReadFile(abs(t, "../../sim/experiment/testdata/easy/"+f))
		if err != nil {
			t.Fatal(err)
		}
		simFile(t, dir, f, string(b))
	}
	if _, stderr, code := run(t, dir, "sim", "run", "ties.toml", "--db", "r.db", "--jobs", "-q"); code != 0 {
		t.Fatalf("sim run --jobs: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, dir, "sim", "report", "--db", "r.db", "ties", "--jobs", "1", "-o", "jobs.csv"); code != 0 {
		t.Fatalf("sim report --jobs: exit %d: %s", code, stderr)
	}
	f, err := os.Open(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 10 || rows[0][0] != "job_id" {
		t.Fatalf("jobs.csv: %d rows, %v", len(rows), err)
	}
	// H, the head of the queue, waits for the three jobs ending at its
	// shadow time; the three after it are backfilled at once.
	starts := map[string]string{}
	for _, r := range rows[1:] {
		starts[r[0]] = r[8]
	}
	for id, want := range map[string]string{"1-3": "100", "1-4": "3", "1-5": "4", "1-6": "5", "1-7": "150", "1-8": "150"} {
		if starts[id] != want {
			t.Errorf("job %s starts at %q, want %s", id, starts[id], want)
		}
	}
	stdout, stderr, code := run(t, dir, "sim", "report", "--db", "r.db", "ties", "--jobs", "1", "-f", "swf")
	if code != 0 || !strings.Contains(stdout, "\n4 1 99 50 6 ") || !strings.Contains(stdout, "; Partition: 1 c\n") {
		t.Errorf("SWF: exit %d: %s\n%s", code, stderr, stdout)
	}
	if _, stderr, code := run(t, dir, "sim", "run", "ties.toml", "--db", "plain.db", "-q"); code != 0 {
		t.Fatalf("sim run: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "report", "--db", "r.db", "ties", "--jobs", "2"}, "run 2 of experiment ties, which has runs 1 to 1"},
		{[]string{"sim", "report", "--db", "r.db", "--jobs", "1"}, "--jobs takes one experiment"},
		{[]string{"sim", "report", "--db", "r.db", "ties", "--jobs", "1", "-f", "json"}, `--format "json": csv or swf with --jobs`},
		{[]string{"sim", "report", "--db", "plain.db", "ties", "--jobs", "1"}, "run the experiment with gmark sim run --jobs"},
		{[]string{"sim", "report", "--db", "none.db", "ties", "--jobs", "1"}, "no results store none.db"},
		{[]string{"sim", "report", "--db", "r.db", "ties", "--jobs", "1", "-o", "nodir/x.csv"}, "does not exist"},
		{[]string{"sim", "run", "ties.toml", "--db", "r.db", "--jobs", "--on", "slurm"}, "--jobs: the per-job rows are recorded by runs on this machine"},
	} {
		if _, stderr, code := run(t, dir, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %s; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("a report of a missing store created it")
	}
}
