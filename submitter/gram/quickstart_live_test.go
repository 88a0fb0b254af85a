package gram

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter/gram/gramtest"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// The quick start through two GRAM5 gatekeepers, fs0 fronting a loopback
// Slurm cluster (jobmanager-slurm) and fs3 the fork job manager, beside
// the same workload through the Slurm target on two Slurm clusters at the
// same time: every job and task succeeds through the gatekeepers, and the
// records are the Slurm target's but for ids, times and the clusters of
// unnamed components; then smpi jobs co-allocated over both gatekeepers,
// every process with its own rank of four, having exchanged with the
// three others. About 2 minutes on an idle machine.
func TestLiveQuickstartThroughGRAM(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	if testing.Short() {
		t.Skip("runs the quick start through GRAM5 gatekeepers for minutes; skipped with -short")
	}
	if why := gramtest.Available(true); why != "" {
		t.Skip("GRAM5 not available: " + why)
	}
	e := slurmtest.Start(t, slurmtest.Options{}, "fs0", "fs3")
	g := newGrid(t, gramtest.Options{Name: "fs0", Slurm: e.Cluster("fs0")}, gramtest.Options{Name: "fs3"})
	dir := openDir(t, "gmark-gram-qs-")
	gramTargets := filepath.Join(dir, "gram.toml")
	if err := os.WriteFile(gramTargets, []byte(g.targetsTOML("")), 0o644); err != nil {
		t.Fatal(err)
	}
	slurmTargets := filepath.Join(dir, "slurm.toml")
	if err := os.WriteFile(slurmTargets, []byte(e.TargetsTOML()), 0o644); err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(dir, "quickstart")
	gridtest.RunGmark(t, g.bin, dir, "generate", filepath.Join(testkit.RepoRoot(t), "examples/quickstart.wdl"), "-o", wl, "-q")
	done := make(chan string)
	go func() {
		out := filepath.Join(dir, "slurm-run")
		b, err := exec.Command(g.bin, "submit", wl, "--target", "slurm", "--targets", slurmTargets, "--gmark", g.bin,
			"--db", filepath.Join(out, "results.db"), "--run-dir", out, "-q").CombinedOutput()
		if err != nil {
			t.Errorf("the Slurm target's run: %v\n%s", err, b)
		}
		done <- filepath.Join(out, "results.db")
	}()
	out := filepath.Join(dir, "gram-run")
	summary := gridtest.RunGmark(t, g.bin, dir, "submit", wl, "--target", "gram", "--targets", gramTargets, "--gmark", g.bin,
		"--db", filepath.Join(out, "results.db"), "--run-dir", out)
	slurmDB := <-done
	_, gramRows := gridtest.RowsOf(t, filepath.Join(out, "results.db"))
	_, slurmRows := gridtest.RowsOf(t, slurmDB)
	succeeded := 0
	for _, r := range gramRows {
		if r.State == store.Succeeded {
			succeeded++
		}
	}
	if len(gramRows) != 56+45 || succeeded != len(gramRows) {
		t.Errorf("%d of %d jobs and tasks succeeded, want all of 101:\n%s", succeeded, len(gramRows), summary)
	}
	gridtest.SameRecords(t, "quick start", gramRows, slurmRows)
	t.Logf("through the gatekeepers:\n%s", summary)

	var jobs []workload.Job
	smpi := map[string]string{"supersteps": "3", "memory": "1", "compute": "1", "exchange": "200"}
	for _, id := range []string{"1-0", "1-1", "1-2"} {
		jobs = append(jobs, job(id, "smpi", smpi, "fs0:2", "fs3:2"))
	}
	mpiOut := filepath.Join(dir, "gram-smpi")
	gridtest.RunGmark(t, g.bin, dir, "submit", testkit.WriteWorkload(t, jobs...), "--target", "gram", "--targets", gramTargets, "--gmark", g.bin,
		"--db", filepath.Join(mpiOut, "results.db"), "--run-dir", mpiOut, "-q")
	run, rows := gridtest.RowsOf(t, filepath.Join(mpiOut, "results.db"))
	for _, j := range jobs {
		if r := rows[j.ID]; r.State != store.Succeeded || r.Sites != "fs0,fs3" {
			t.Errorf("%s: %s on %s: %s", j.ID, r.State, r.Sites, r.Reason)
		}
		checkSmpi(t, g.work, j.ID, run)
	}
}
