package slurmtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two clusters side by side: each takes a batch job and runs it.
func TestTwoClusters(t *testing.T) {
	e := Start(t, Options{}, "alpha", "beta")
	for _, c := range e.Clusters {
		script := filepath.Join(c.Dir, "hello.sh")
		os.WriteFile(script, []byte("#!/bin/sh\n#SBATCH --ntasks=4\necho hello from $SLURM_CLUSTER_NAME\n"), 0o755)
		out, err := c.Cmd("sbatch", "--parsable", "--chdir="+c.Dir, "--output=hello.out", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: sbatch: %v %s", c.Name, err, out)
		}
	}
	for _, c := range e.Clusters {
		deadline := time.Now().Add(30 * time.Second)
		for {
			b, _ := os.ReadFile(filepath.Join(c.Dir, "hello.out"))
			if strings.Contains(string(b), "hello from "+c.Name) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: job output %q", c.Name, b)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// A cluster of two nodes, each its own slurmd: a job of two nodes runs a
// task on each.
func TestTwoNodes(t *testing.T) {
	e := Start(t, Options{Nodes: 2}, "gamma")
	c := e.Clusters[0]
	if want := []string{"gamman1", "gamman2"}; strings.Join(c.Nodes, ",") != strings.Join(want, ",") || c.Node != want[0] {
		t.Fatalf("nodes %v, first %s", c.Nodes, c.Node)
	}
	script := filepath.Join(c.Dir, "nodes.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n#SBATCH --nodes=2 --ntasks=2\nsrun sh -c 'echo on $SLURMD_NODENAME'\n"), 0o755)
	if out, err := c.Cmd("sbatch", "--parsable", "--chdir="+c.Dir, "--output=nodes.out", script).CombinedOutput(); err != nil {
		t.Fatalf("sbatch: %v %s", err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(c.Dir, "nodes.out"))
		if strings.Contains(string(b), "on gamman1") && strings.Contains(string(b), "on gamman2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job output %q", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A cluster's slurmd started again (as Start does when its node stays
// unregistered) is a new process, and the node is idle again and runs jobs.
func TestRestartSlurmd(t *testing.T) {
	e := Start(t, Options{CPUs: 2}, "re")
	c := e.Clusters[0]
	before := c.slurmd[0].Process.Pid
	if err := c.restartSlurmd(); err != nil {
		t.Fatal(err)
	}
	if after := c.slurmd[0].Process.Pid; after == before {
		t.Fatalf("slurmd still pid %d", before)
	}
	if err := c.waitIdle(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	if out, err := c.Cmd("srun", "-N1", "-n1", "true").CombinedOutput(); err != nil {
		t.Fatalf("srun after the restart: %v: %s", err, out)
	}
}
