package arctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if out := squeue(t, cluster); !strings.Contains(out, "nobody CANCELLED") {
		t.Errorf("Slurm did not cancel the job:\n%s", out)
	}
}

func squeue(t *testing.T, c *slurmtest.Cluster) string {
	out, err := c.Cmd("squeue", "-h", "-t", "all", "-o", "%i %u %T").CombinedOutput()
	if err != nil {
		t.Fatalf("squeue: %v\n%s", err, out)
	}
	return string(out)
}
