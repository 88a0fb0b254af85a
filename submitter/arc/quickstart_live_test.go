package arc

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// The quick start through two ARC CEs, each fronting a loopback Slurm
// cluster of its own (fs0, fs3, the clusters its fixed jobs name), beside
// the same workload through the Slurm target on the same clusters at the
// same time: every job and task succeeds through the CEs, and the records
// are the Slurm target's but for ids, times and the clusters of unnamed
// components. Then smpi jobs co-allocated over both CEs: every process
// has its own rank of four and exchanged with the three others, two on
// each cluster. About 4 minutes on an idle machine (the quick start's
// composite jobs are chains of CE jobs, each seen ending a few seconds
// after it ends).
func TestLiveQuickstartThroughARC(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	if testing.Short() {
		t.Skip("runs the quick start through ARC CEs for minutes; skipped with -short")
	}
	if why := arctest.Available(); why != "" {
		t.Skip("ARC CE not available: " + why)
	}
	e := slurmtest.Start(t, slurmtest.Options{}, "fs0", "fs3")
	// Shorter CE periods than the other tests': the quick start's chains
	// of tasks each wait for a CE to see one end before the next starts.
	fast := func(name string) arctest.Options {
		return arctest.Options{Name: name, Slurm: e.Cluster(name), InfoPeriod: 3 * time.Second, WakeupPeriod: time.Second}
	}
	g := newGrid(t, fast("fs0"), fast("fs3"))
	dir := openDir(t, "gmark-arc-qs-")
	arcTargets := filepath.Join(dir, "arc.toml")
	if err := os.WriteFile(arcTargets, []byte(g.targetsTOML("workdir = \""+g.work+"\"\n")), 0o644); err != nil {
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
		cmd := exec.Command(g.bin, "submit", wl, "--target", "slurm", "--targets", slurmTargets, "--gmark", g.bin,
			"--db", filepath.Join(out, "results.db"), "--run-dir", out, "-q")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("the Slurm target's run: %v\n%s", err, b)
		}
		done <- filepath.Join(out, "results.db")
	}()
	out := filepath.Join(dir, "arc-run")
	summary := gridtest.RunGmark(t, g.bin, dir, "submit", wl, "--target", "arc", "--targets", arcTargets, "--gmark", g.bin,
		"--db", filepath.Join(out, "results.db"), "--run-dir", out)
	slurmDB := <-done
	_, arcRows := gridtest.RowsOf(t, filepath.Join(out, "results.db"))
	_, slurmRows := gridtest.RowsOf(t, slurmDB)
	succeeded := 0
	for _, r := range arcRows {
		if r.State == store.Succeeded {
			succeeded++
		}
	}
	if len(arcRows) != 56+45 || succeeded != len(arcRows) {
		t.Errorf("%d of %d jobs and tasks succeeded, want all of 101:\n%s", succeeded, len(arcRows), summary)
	}
	gridtest.SameRecords(t, "quick start", arcRows, slurmRows)
	t.Logf("through the CEs:\n%s", summary)
}

// smpi jobs co-allocated over two ARC CEs, each fronting a loopback Slurm
// cluster: every process has its own rank of four and exchanged with the
// three others, two on each cluster, each component a Slurm job of its
// cluster run by the mapped user. About 90 s on an idle machine.
func TestLiveARCSmpiOverSlurm(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	if why := arctest.Available(); why != "" {
		t.Skip("ARC CE not available: " + why)
	}
	e := slurmtest.Start(t, slurmtest.Options{}, "fs0", "fs3")
	g := newGrid(t, arctest.Options{Name: "fs0", Slurm: e.Cluster("fs0")}, arctest.Options{Name: "fs3", Slurm: e.Cluster("fs3")})
	dir := openDir(t, "gmark-arc-smpi-")
	arcTargets := filepath.Join(dir, "arc.toml")
	if err := os.WriteFile(arcTargets, []byte(g.targetsTOML("workdir = \""+g.work+"\"\n")), 0o644); err != nil {
		t.Fatal(err)
	}

	var jobs []workload.Job
	smpi := map[string]string{"supersteps": "3", "memory": "1", "compute": "1", "exchange": "200"}
	for _, id := range []string{"1-0", "1-1", "1-2"} {
		jobs = append(jobs, job(id, "smpi", smpi, "fs0:2", "fs3:2"))
	}
	mpiOut := filepath.Join(dir, "arc-smpi")
	gridtest.RunGmark(t, g.bin, dir, "submit", testkit.WriteWorkload(t, jobs...), "--target", "arc", "--targets", arcTargets, "--gmark", g.bin,
		"--db", filepath.Join(mpiOut, "results.db"), "--run-dir", mpiOut, "-q")
	mpiRun, rows := gridtest.RowsOf(t, filepath.Join(mpiOut, "results.db"))
	for _, j := range jobs {
		if r := rows[j.ID]; r.State != store.Succeeded || r.Sites != "fs0,fs3" {
			t.Errorf("%s: %s on %s: %s", j.ID, r.State, r.Sites, r.Reason)
		}
		var ranks []int
		byComp := map[int]int{}
		for _, s := range summaries(t, g.work, j.ID, mpiRun) {
			ranks = append(ranks, s.Rank)
			byComp[s.Component]++
			if !s.OK || s.Size != 4 || s.Peers != 3 || s.Sent <= 0 || s.Received != s.Sent {
				t.Errorf("%s rank %d: %+v", j.ID, s.Rank, s)
			}
		}
		slices.Sort(ranks)
		if !slices.Equal(ranks, []int{0, 1, 2, 3}) || byComp[0] != 2 || byComp[1] != 2 {
			t.Errorf("%s: ranks %v, per component %v; want 0..3, two on each cluster", j.ID, ranks, byComp)
		}
		checkRanSlurm(t, e, filepath.Join(mpiOut, "results.db"), mpiRun, j.ID)
	}
}

// checkRanSlurm wants each component of a job a Slurm job of its cluster,
// completed, run as the mapped user: the LRM's id is in the CE's record
// that the job's final event keeps.
func checkRanSlurm(t *testing.T, e *slurmtest.Env, db, run, id string) {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev, err := st.Events(run, id)
	if err != nil {
		t.Fatal(err)
	}
	var parts []struct {
		CE     string `json:"ce"`
		Record struct {
			LocalID string
		} `json:"record"`
	}
	for _, x := range ev {
		var p struct {
			Detail struct {
				ARC json.RawMessage `json:"arc"`
			} `json:"detail"`
		}
		if json.Unmarshal([]byte(x.Payload), &p) == nil && len(p.Detail.ARC) > 0 {
			if err := json.Unmarshal(p.Detail.ARC, &parts); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(parts) != 2 {
		t.Fatalf("%s: the final event has %d parts: %+v\n%+v", id, len(parts), parts, ev)
	}
	for _, p := range parts {
		b, err := e.Cluster(p.CE).Cmd("squeue", "-h", "-t", "all", "-j", p.Record.LocalID, "-o", "%u %T").Output()
		if err != nil || p.Record.LocalID == "" || strings.TrimSpace(string(b)) != "nobody COMPLETED" {
			t.Errorf("%s: Slurm job %q of %s: %q %v, want completed by the mapped user\n%+v", id, p.Record.LocalID, p.CE, b, err, ev)
		}
	}
}
