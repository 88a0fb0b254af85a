package gramtest

import (
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/submitter/batch/sgetest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// hello prints who runs it and in which Slurm job (empty under fork).
const hello = `&(executable=/bin/sh)(arguments=-c "echo hello from $(id -un) job $SLURM_JOB_ID")`

// twoPhase makes the job manager keep a job's end state until the commit
// times out, so that polling sees FAILED as well as DONE.
const twoPhase = `(two_phase=600)(save_state=yes)`

// A job through jobmanager-fork runs as the mapped user and streams its
// output back to globusrun; batch jobs are polled to their end, and a
// cancelled one ends FAILED.
func TestForkGatekeeper(t *testing.T) {
	g := Start(t, Options{Name: "fork"})
	out, err := g.Cmd("globusrun", "-s", "-r", g.Resource("fork"), hello).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "hello from nobody job") {
		t.Fatalf("globusrun -s: %v\n%s", err, out)
	}
	done, err := g.Submit("fork", `&(executable=/bin/sh)(arguments=-c "exit 4")`+twoPhase)
	if err != nil {
		t.Fatal(err)
	}
	long, err := g.Submit("fork", `&(executable=/bin/sleep)(arguments=600)`+twoPhase)
	if err != nil {
		t.Fatal(err)
	}
	// Under fork and polling, GRAM does not learn exit codes: a job that
	// exits 4 is DONE.
	if st, err := g.WaitStatus(done, 2*time.Minute, "DONE", "FAILED"); err != nil || st != "DONE" {
		t.Errorf("exit-4 job: %q %v", st, err)
	}
	if _, err := g.WaitStatus(long, 2*time.Minute, "ACTIVE"); err != nil {
		t.Fatal(err)
	}
	if out, err := g.Cmd("globus-job-cancel", "-f", long).CombinedOutput(); err != nil {
		t.Fatalf("globus-job-cancel: %v\n%s", err, out)
	}
	if st, err := g.WaitStatus(long, 2*time.Minute, "DONE", "FAILED"); err != nil || st != "FAILED" {
		t.Errorf("cancelled job: %q %v", st, err)
	}
	if len(g.JobManagers()) != 1 {
		t.Errorf("job managers: %v, want the one fork job manager", g.JobManagers())
	}
}

// jobmanager-slurm submits to the loopback cluster with sbatch as the
// mapped user; a failing job ends FAILED and a cancelled one is cancelled
// in Slurm.
func TestSlurmGatekeeper(t *testing.T) {
	if why := Available(true); why != "" {
		t.Skip("GRAM5 not available: " + why)
	}
	env := slurmtest.Start(t, slurmtest.Options{}, "grams")
	cluster := env.Cluster("grams")
	g := Start(t, Options{Name: "slurm", Slurm: cluster})
	out, err := g.Cmd("globusrun", "-s", "-r", g.Resource("slurm"), hello).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "hello from nobody job ") || strings.TrimSpace(string(out)) == "hello from nobody job" {
		t.Fatalf("globusrun -s: %v\n%s\n%s", err, out, g.LogTail())
	}
	bad, err := g.Submit("slurm", `&(executable=/bin/sh)(arguments=-c "exit 3")`+twoPhase)
	if err != nil {
		t.Fatal(err)
	}
	long, err := g.Submit("slurm", `&(executable=/bin/sleep)(arguments=600)`+twoPhase)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := g.WaitStatus(bad, 2*time.Minute, "DONE", "FAILED"); err != nil || st != "FAILED" {
		t.Errorf("exit-3 job: %q %v", st, err)
	}
	if _, err := g.WaitStatus(long, 2*time.Minute, "ACTIVE"); err != nil {
		t.Fatal(err)
	}
	if out := squeue(t, cluster); !strings.Contains(out, "nobody RUNNING") {
		t.Fatalf("squeue does not show the mapped user's job running:\n%s", out)
	}
	if out, err := g.Cmd("globus-job-cancel", "-f", long).CombinedOutput(); err != nil {
		t.Fatalf("globus-job-cancel: %v\n%s", err, out)
	}
	if st, err := g.WaitStatus(long, 2*time.Minute, "DONE", "FAILED"); err != nil || st != "FAILED" {
		t.Errorf("cancelled job: %q %v", st, err)
	}
	// Slurm shows a cancelled job COMPLETING while its processes are
	// killed (for seconds on a loaded machine), then CANCELLED.
	q := squeue(t, cluster)
	for deadline := time.Now().Add(time.Minute); !strings.Contains(q, "nobody CANCELLED") && time.Now().Before(deadline); q = squeue(t, cluster) {
		time.Sleep(500 * time.Millisecond)
	}
	if !strings.Contains(q, "nobody CANCELLED") {
		t.Errorf("Slurm did not cancel the job:\n%s", q)
	}
}

func squeue(t *testing.T, c *slurmtest.Cluster) string {
	out, err := c.Cmd("squeue", "-h", "-t", "all", "-o", "%i %u %T").CombinedOutput()
	if err != nil {
		t.Fatalf("squeue: %v\n%s", err, out)
	}
	return string(out)
}

// jobmanager-sge submits to the loopback Grid Engine cell with qsub as the
// mapped user. Polled, the SGE job manager learns no exit code (a job gone
// from qstat is DONE, as under fork): the job that fails is one the cell
// refuses (a queue it does not have), which ends FAILED, and a cancelled
// one ends FAILED and is deleted from the cell.
func TestSGEGatekeeper(t *testing.T) {
	t.Parallel()
	if why := AvailableSGE(); why != "" {
		t.Skip("GRAM5 not available: " + why)
	}
	cell := sgetest.Start(t, sgetest.Options{Slots: 2})
	g := Start(t, Options{Name: "sge", SGE: cell})
	out, err := g.Cmd("globusrun", "-s", "-r", g.Resource("sge"), sgeHello).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "hello from nobody job ") || strings.TrimSpace(string(out)) == "hello from nobody job" {
		t.Fatalf("globusrun -s: %v\n%s\n%s", err, out, g.LogTail())
	}
	exit3, err := g.Submit("sge", `&(executable=/bin/sh)(arguments=-c "exit 3")`+twoPhase)
	if err != nil {
		t.Fatal(err)
	}
	// The job manager passes qsub's refusal on, and globusrun -b exits 24
	// with the job FAILED.
	_, err = g.Submit("sge", `&(executable=/bin/true)(queue=nosuch.q)`+twoPhase)
	if err == nil || !strings.Contains(err.Error(), `unknown queue "nosuch.q"`) || !strings.Contains(err.Error(), "JOB_STATE_FAILED") {
		t.Errorf("a job for a queue the cell does not have: %v, want qsub's refusal and FAILED", err)
	}
	long, err := g.Submit("sge", `&(executable=/bin/sleep)(arguments=600)`+twoPhase)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := g.WaitStatus(exit3, 2*time.Minute, "DONE", "FAILED"); err != nil || st != "DONE" {
		t.Errorf("exit-3 job: %q %v", st, err)
	}
	if _, err := g.WaitStatus(long, 2*time.Minute, "ACTIVE"); err != nil {
		t.Fatal(err)
	}
	if out := qstat(t, cell); !strings.Contains(out, " nobody r ") {
		t.Fatalf("qstat does not show the mapped user's job running:\n%s", out)
	}
	if out, err := g.Cmd("globus-job-cancel", "-f", long).CombinedOutput(); err != nil {
		t.Fatalf("globus-job-cancel: %v\n%s", err, out)
	}
	if st, err := g.WaitStatus(long, 2*time.Minute, "DONE", "FAILED"); err != nil || st != "FAILED" {
		t.Errorf("cancelled job: %q %v", st, err)
	}
	// Grid Engine takes a moment to delete a running job (state dr).
	left := qstat(t, cell)
	for deadline := time.Now().Add(30 * time.Second); left != "" && time.Now().Before(deadline); time.Sleep(time.Second) {
		left = qstat(t, cell)
	}
	if left != "" {
		t.Errorf("the cancelled job is still in the cell:\n%s", left)
	}
}

// sgeHello prints who runs it and in which Grid Engine job.
const sgeHello = `&(executable=/bin/sh)(arguments=-c "echo hello from $(id -un) job $JOB_ID")`

// qstat is the cell's jobs, one "id user state" line each.
func qstat(t *testing.T, c *sgetest.Cell) string {
	out, err := c.Cmd("qstat", "-u", "*").CombinedOutput()
	if err != nil {
		t.Fatalf("qstat: %v\n%s", err, out)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 5 && f[0] != "job-ID" && !strings.HasPrefix(f[0], "---") {
			b.WriteString(" " + f[0] + " " + f[3] + " " + f[4] + " \n")
		}
	}
	return b.String()
}
