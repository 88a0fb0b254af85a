package arctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/submitter/batch/sgetest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

const hello = `&(executable="/bin/sh")(arguments="-c" "echo hello from $(id -un) job $SLURM_JOB_ID")` +
	`(stdout="out.txt")(jobname="gmark-hello")`

// A job submitted with arcsub to a CE on the fork back end runs as the
// mapped user and finishes; arcstat agrees with the REST interface, and
// arcget brings back what the job wrote. A job that exits 3 fails with the
// LRM's exit code in the CE's record, and arckill ends a running job.
func TestForkCE(t *testing.T) {
	ce := Start(t, Options{Name: "fork"})
	ok, err := ce.Submit(hello)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := ce.Submit(`&(executable="/bin/sh")(arguments="-c" "exit 3")(jobname="gmark-fail")`)
	if err != nil {
		t.Fatal(err)
	}
	long, err := ce.Submit(`&(executable="/bin/sleep")(arguments="600")(jobname="gmark-long")`)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := ce.WaitState(ok, 3*time.Minute, "FINISHED", "FAILED", "KILLED"); err != nil || st != "FINISHED" {
		t.Fatalf("hello job ended %q: %v", st, err)
	}
	out, err := ce.Cmd("arcstat", "-j", ce.JobList(), ce.JobURL(ok)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "State: Finished") {
		t.Errorf("arcstat: %v\n%s", err, out)
	}
	dl := filepath.Join(ce.Dir, "home", "dl")
	if out, err := ce.Cmd("arcget", "-k", "-j", ce.JobList(), "-D", dl, ce.JobURL(ok)).CombinedOutput(); err != nil {
		t.Fatalf("arcget: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(dl, ok, "out.txt"))
	if err != nil || !strings.HasPrefix(string(got), "hello from nobody") {
		t.Errorf("the job wrote %q (%v), want it to run as nobody", got, err)
	}

	if st, err := ce.WaitState(bad, 3*time.Minute, "FINISHED", "FAILED", "KILLED"); err != nil || st != "FAILED" {
		t.Fatalf("exit-3 job ended %q: %v", st, err)
	}
	jobs, err := ce.Jobs("info", bad)
	if err != nil || len(jobs) != 1 || jobs[0].ExitCode != "3" || jobs[0].Error == "" {
		t.Errorf("info of the failed job: %+v %v, want exit code 3 and a failure text", jobs, err)
	}

	if _, err := ce.WaitState(long, 2*time.Minute, "RUNNING"); err != nil {
		t.Fatal(err)
	}
	if out, err := ce.Cmd("arckill", "-j", ce.JobList(), ce.JobURL(long)).CombinedOutput(); err != nil {
		t.Fatalf("arckill: %v\n%s", err, out)
	}
	if st, err := ce.WaitState(long, 2*time.Minute, "KILLED", "FAILED", "FINISHED"); err != nil || st != "KILLED" {
		t.Errorf("killed job ended %q: %v", st, err)
	}

	// One status call answers for many jobs, and says 404 of an id the
	// CE never had.
	jobs, err = ce.Jobs("status", ok, bad, "nosuchjob")
	if err != nil || len(jobs) != 3 || jobs[0].State != "FINISHED" || jobs[1].State != "FAILED" || jobs[2].Code != "404" {
		t.Errorf("batch status: %+v %v", jobs, err)
	}
}

// A CE fronting a loopback Slurm cluster submits through sbatch as the
// mapped user: the job runs in Slurm (its id is in what it wrote), and
// arckill cancels it in Slurm.
func TestSlurmCE(t *testing.T) {
	if why := Available(); why != "" {
		t.Skip("ARC CE not available: " + why)
	}
	env := slurmtest.Start(t, slurmtest.Options{}, "arcs")
	cluster := env.Cluster("arcs")
	ce := Start(t, Options{Name: "slurm", Slurm: cluster})
	ok, err := ce.Submit(hello)
	if err != nil {
		t.Fatal(err)
	}
	long, err := ce.Submit(`&(executable="/bin/sleep")(arguments="600")(jobname="gmark-long")`)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := ce.WaitState(ok, 3*time.Minute, "FINISHED", "FAILED", "KILLED"); err != nil || st != "FINISHED" {
		t.Fatalf("hello job ended %q: %v", st, err)
	}
	got, err := os.ReadFile(filepath.Join(ce.Dir, "session", ok, "out.txt"))
	if err != nil || !strings.HasPrefix(string(got), "hello from nobody job ") || strings.TrimSpace(string(got)) == "hello from nobody job" {
		t.Errorf("the job wrote %q (%v), want it to run in Slurm as nobody", got, err)
	}
	if _, err := ce.WaitState(long, 2*time.Minute, "RUNNING"); err != nil {
		t.Fatal(err)
	}
	if out := squeue(t, cluster); !strings.Contains(out, "nobody RUNNING") {
		t.Fatalf("squeue does not show the mapped user's job running:\n%s", out)
	}
	if out, err := ce.Cmd("arckill", "-j", ce.JobList(), ce.JobURL(long)).CombinedOutput(); err != nil {
		t.Fatalf("arckill: %v\n%s", err, out)
	}
	if st, err := ce.WaitState(long, 2*time.Minute, "KILLED", "FAILED", "FINISHED"); err != nil || st != "KILLED" {
		t.Errorf("killed job ended %q: %v", st, err)
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

// A CE fronting a loopback Grid Engine cell submits through qsub as the
// mapped user: the job runs in the cell (its SGE job id is in what it
// wrote), a failing one ends FAILED with the LRM's exit code, and arckill
// deletes a running one from the cell. ARC's scan-sge-job sleeps 60 s
// after each scan, so a job's end is seen up to a minute late: the test
// lets both ends fall into one scan (about 95 s).
func TestSGECE(t *testing.T) {
	t.Parallel()
	if why := Available(); why != "" {
		t.Skip("ARC CE not available: " + why)
	}
	cell := sgetest.Start(t, sgetest.Options{Slots: 2})
	ce := Start(t, Options{Name: "sge", SGE: cell, InfoPeriod: 5 * time.Second, WakeupPeriod: 2 * time.Second})
	bad, err := ce.Submit(`&(executable="/bin/sh")(arguments="-c" "echo hello from $(id -un) job $JOB_ID; exit 3")` +
		`(stdout="out.txt")(jobname="gmark-bad")`)
	if err != nil {
		t.Fatal(err)
	}
	long, err := ce.Submit(`&(executable="/bin/sleep")(arguments="600")(jobname="gmark-long")`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ce.WaitState(long, 2*time.Minute, "RUNNING"); err != nil {
		t.Fatal(err)
	}
	if out := qstat(t, cell); !strings.Contains(out, "gmark_long nobody r") {
		t.Fatalf("qstat does not show the mapped user's job running:\n%s", out)
	}
	if out, err := ce.Cmd("arckill", "-j", ce.JobList(), ce.JobURL(long)).CombinedOutput(); err != nil {
		t.Fatalf("arckill: %v\n%s", err, out)
	}
	if st, err := ce.WaitState(bad, 3*time.Minute, "FINISHED", "FAILED", "KILLED"); err != nil || st != "FAILED" {
		t.Fatalf("exit-3 job ended %q: %v", st, err)
	}
	got, err := os.ReadFile(filepath.Join(ce.Dir, "session", bad, "out.txt"))
	if err != nil || !strings.HasPrefix(string(got), "hello from nobody job ") || strings.TrimSpace(string(got)) == "hello from nobody job" {
		t.Errorf("the job wrote %q (%v), want it to run in the cell as nobody", got, err)
	}
	jobs, err := ce.Jobs("info", bad)
	if err != nil || len(jobs) != 1 || jobs[0].ExitCode != "3" || jobs[0].Error == "" {
		t.Errorf("info of the failed job: %+v %v, want exit code 3 and a failure text", jobs, err)
	}
	if st, err := ce.WaitState(long, 2*time.Minute, "KILLED", "FAILED", "FINISHED"); err != nil || st != "KILLED" {
		t.Errorf("killed job ended %q: %v", st, err)
	}
	if out := qstat(t, cell); out != "" {
		t.Errorf("the killed job is still in the cell:\n%s", out)
	}
}

// qstat is the cell's jobs, one "name user state" line each.
func qstat(t *testing.T, c *sgetest.Cell) string {
	out, err := c.Cmd("qstat", "-u", "*").CombinedOutput()
	if err != nil {
		t.Fatalf("qstat: %v\n%s", err, out)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 5 && f[0] != "job-ID" && !strings.HasPrefix(f[0], "---") {
			b.WriteString(f[2] + " " + f[3] + " " + f[4] + "\n")
		}
	}
	return b.String()
}
