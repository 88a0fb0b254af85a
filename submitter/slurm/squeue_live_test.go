package slurm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// The target's squeue (--Format) says of every job what squeue --json says,
// but for the expected end of a job not yet ended: a completed job, one
// that exits 3, one killed by a signal, a held one, a cancelled one, a
// running one with a comment and a long name, and a heterogeneous job.
func TestLiveSqueueFormatMatchesJSON(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{Nodes: 2}, "fmt")
	c := e.Clusters[0]
	dir := t.TempDir()
	het := filepath.Join(dir, "het.sh")
	if err := os.WriteFile(het, []byte("#!/bin/sh\n#SBATCH -n1\n#SBATCH hetjob\n#SBATCH -n1\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	long := "gmark-" + strings.Repeat("1-0.c1.t2", 10) + ".a1-20261124T123456Z-abcdef"
	for _, args := range [][]string{
		{"--job-name=ok", "--wrap", "true"},
		{"--job-name=bad", "--wrap", "exit 3"},
		{"--job-name=sig", "--wrap", "kill -9 $$"},
		{"--job-name=held", "-H", "--wrap", "true"},
		{"--job-name=gone", "--begin=now+1hour", "--wrap", "true"},
		{"--job-name=" + long, "--comment=gmark:1-0.1", "--wrap", "sleep 30"},
		{"--job-name=het", het},
	} {
		cmd := c.Cmd("sbatch", append([]string{"--parsable", "--output=/dev/null", "--chdir=" + dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("sbatch %v: %v: %s", args, err, out)
		}
	}
	if out, err := c.Cmd("scancel", "--name=gone").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v: %s", err, out)
	}
	tg := newTarget(t, e, t.TempDir())
	defer tg.Close()
	// Wait for the short jobs to end and the long ones to run.
	want := map[string]string{"ok": "succeeded", "bad": "failed", "sig": "failed", "held": "queued", "gone": "cancelled", long: "running", "het": "running"}
	var fromJSON, fromFormat []slurmcli.Record
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, err := c.Cmd("squeue", "--json").Output()
		if err != nil {
			t.Fatal(err)
		}
		if fromJSON, err = slurmcli.ParseSqueue(out); err != nil {
			t.Fatal(err)
		}
		if fromFormat, err = tg.squeue(context.Background(), tg.clusters[0]); err != nil {
			t.Fatal(err)
		}
		settled := len(fromJSON) == 8
		for _, r := range fromJSON {
			settled = settled && r.Class() == want[r.Name]
		}
		if settled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs not settled after 90 s: %+v", fromJSON)
		}
		time.Sleep(300 * time.Millisecond)
	}
	// Settled, the jobs keep their states between the two reads.
	byID := map[int64]slurmcli.Record{}
	for _, r := range fromFormat {
		byID[r.ID] = r
	}
	if len(byID) != len(fromJSON) {
		t.Fatalf("--Format says %d jobs, --json %d:\n%+v\n%+v", len(byID), len(fromJSON), fromFormat, fromJSON)
	}
	for _, j := range fromJSON {
		f, ok := byID[j.ID]
		if !ok {
			t.Fatalf("job %d (%s) not in the --Format listing", j.ID, j.Name)
		}
		if j.Class() != "succeeded" && j.Class() != "failed" && j.Class() != "cancelled" {
			j.End = 0 // the expected end, which --Format does not print
		}
		if j.CPUs == 0 {
			f.CPUs = 0 // --json's unknown (a job cancelled before it started), the processors asked for in --Format; not stored
		}
		if f != j {
			t.Errorf("job %d:\n--Format %+v\n--json   %+v", j.ID, f, j)
		}
	}
}
