package gram

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter/batch/sgetest"
	"github.com/gmark/gmark/submitter/gram/gramtest"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/workload"
)

// `gmark submit --target gram` through a gatekeeper fronting a loopback
// Grid Engine cell (jobmanager-sge) and one on fork: a sequential job on
// each, one that fails on the cell (its exit status the job's own
// report), and an smpi job co-allocated over both, one GRAM job per
// component, every rank having exchanged with the others. The cell's
// component has one process: jobmanager-sge makes a jobType=single
// request of count > 1 an SGE job array (docs/grid.md), and the target
// refuses a component of two processes there. About 40 s on an idle
// machine.
func TestLiveGRAMThroughSGE(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	cell := sgetest.Start(t, sgetest.Options{Slots: 2})
	g := newGrid(t, gramtest.Options{Name: "sge0", SGE: cell}, gramtest.Options{Name: "fork"})
	dir := openDir(t, "gmark-gram-sge-")
	targets := filepath.Join(dir, "gram.toml")
	if err := os.WriteFile(targets, []byte(g.targetsTOML("")), 0o644); err != nil {
		t.Fatal(err)
	}
	smpi := map[string]string{"supersteps": "3", "memory": "1", "compute": "1", "exchange": "100"}
	jobs := []workload.Job{
		job("1-0", "sser", map[string]string{"supersteps": "2"}, "sge0:1"),
		job("1-1", "sser", map[string]string{"supersteps": "2"}, "fork:1"),
		job("1-2", "smpi", smpi, "sge0:1", "fork:2"),
		job("1-3", "sser", map[string]string{"supersteps": "none"}, "sge0:1"),
		job("1-4", "smpi", smpi, "sge0:2"),
	}
	out := filepath.Join(dir, "run")
	gridtest.RunGmark(t, g.bin, dir, "submit", testkit.WriteWorkload(t, jobs...), "--target", "gram", "--targets", targets,
		"--gmark", g.bin, "--db", filepath.Join(out, "results.db"), "--run-dir", out, "-q")
	run, rows := gridtest.RowsOf(t, filepath.Join(out, "results.db"))
	for _, id := range []string{"1-0", "1-1", "1-2"} {
		if r := rows[id]; r.State != store.Succeeded || r.ExitStatus == nil || *r.ExitStatus != 0 || r.StartNS == 0 || r.EndNS < r.StartNS {
			t.Errorf("%s: %s %s (exit %v, start %d end %d)", id, r.State, r.Reason, r.ExitStatus, r.StartNS, r.EndNS)
		}
	}
	for id, site := range map[string]string{"1-0": "sge0", "1-1": "fork", "1-2": "sge0,fork"} {
		if r := rows[id]; r.Sites != site || strings.Count(r.TargetID, ",") != strings.Count(site, ",") {
			t.Errorf("%s ran on %q as %s, want %s", id, r.Sites, r.TargetID, site)
		}
	}
	checkRanks(t, g.work, "1-2", run, 1, 2)
	if r := rows["1-3"]; r.State != store.Failed || r.ExitStatus == nil || *r.ExitStatus != 2 {
		t.Errorf("1-3: %s %q exit %v, want failed with exit status 2 (the job's report)", r.State, r.Reason, r.ExitStatus)
	}
	if r := rows["1-4"]; r.State != store.Failed || !strings.Contains(r.Reason, "job array of 2 tasks") {
		t.Errorf("1-4: %s %q, want refused (jobmanager-sge makes a count of 2 a job array)", r.State, r.Reason)
	}
	// The cell ran three jobs (1-0, 1-2's first component, 1-3), all
	// as the mapped user, and accounted for each.
	acct, err := cell.Cmd("qacct", "-j").CombinedOutput()
	if err != nil {
		t.Fatalf("qacct: %v\n%s", err, acct)
	}
	owners := map[string]int{}
	for _, line := range strings.Split(string(acct), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "owner" {
			owners[f[1]]++
		}
	}
	if len(owners) != 1 || owners["nobody"] != 3 {
		t.Errorf("the cell's accounting has jobs of %v, want three of nobody's", owners)
	}
	if n := g.gks[0].Submitted(); n != 3 {
		t.Errorf("jobmanager-sge passed %d jobs to the cell, want 3", n)
	}
}
