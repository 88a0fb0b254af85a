package sgetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A cell with two queues runs a serial job and a parallel one where they
// ask, with the slots they ask for, and its accounting file says so.
func TestCellRunsJobs(t *testing.T) {
	c := Start(t, Options{Slots: 4, Queues: []string{"all.q", "fs0"}})
	cases := []struct {
		name, queue string
		pe          []string
		slots       string
	}{
		{"serial", "all.q", nil, "1"},
		{"parallel", "fs0", []string{"-pe", "mpi", "4"}, "4"},
	}
	// The cell's settings.sh is all a shell needs to reach it.
	settings := filepath.Join(c.Root, c.Name, "common", "settings.sh")
	if out, err := exec.Command("env", "-i", "PATH="+os.Getenv("PATH"), "sh", "-c", ". "+settings+" && qconf -sql").CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "fs0") {
		t.Errorf("qconf -sql after sourcing settings.sh: %v\n%s", err, out)
	}
	script := filepath.Join(c.Root, "job.sh")
	body := "#!/bin/sh\necho \"$QUEUE $NSLOTS ${PE:-none}\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		out := filepath.Join(c.Root, tc.name+".out")
		args := append([]string{"-sync", "y", "-N", tc.name, "-q", tc.queue, "-o", out, "-j", "y"}, tc.pe...)
		if b, err := c.Cmd("qsub", append(args, script)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: qsub: %v: %s\n%s", tc.name, err, b, c.Logs())
		}
		got, _ := os.ReadFile(out)
		pe := "none"
		if tc.pe != nil {
			pe = "mpi"
		}
		if want := fmt.Sprintf("%s %s %s\n", tc.queue, tc.slots, pe); string(got) != want {
			t.Errorf("%s: the job printed %q, want %q", tc.name, got, want)
		}
		acct, err := c.Cmd("qacct", "-j", tc.name).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: qacct: %v: %s", tc.name, err, acct)
		}
		for _, want := range []string{"qname        " + tc.queue, "slots        " + tc.slots, "exit_status  0"} {
			if !strings.Contains(string(acct), want) {
				t.Errorf("%s: qacct has no %q:\n%s", tc.name, want, acct)
			}
		}
	}
}

// Two cells on one machine leave each other's jobs alone. execd tags each
// job's processes with a supplementary group id from the cell's gid_range,
// and a shepherd killing its job kills every process carrying that id:
// cells that shared Debian's one range gave their first jobs the same id,
// and a job killed in one cell took the other cell's job with it (SIGKILL,
// "failed 100: assumedly after job"). They shared /tmp/1.1.all.q as TMPDIR
// too, which one cell removed under the other's job.
func TestCellsLeaveEachOthersJobsAlone(t *testing.T) {
	long, other := Start(t, Options{Slots: 1}), Start(t, Options{Slots: 1})
	var groups [2]map[string]bool
	for i, c := range []*Cell{long, other} {
		marker := filepath.Join(c.Root, "job.running")
		script := filepath.Join(c.Root, "job.sh")
		body := "#!/bin/sh\n{ echo \"$TMP\"; grep '^Groups:' /proc/self/status; } > " + marker + ".tmp\nmv " + marker + ".tmp " + marker + "\nexec sleep 300\n"
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := c.Cmd("qsub", "-N", "job", "-o", "/dev/null", "-j", "y", script).CombinedOutput(); err != nil {
			t.Fatalf("qsub: %v: %s", err, out)
		}
		if err := c.waitFor("the job to start", func() (bool, string) {
			_, err := os.Stat(marker)
			return err == nil, ""
		}, 2*time.Minute); err != nil {
			t.Fatalf("%v\n%s", err, c.Logs())
		}
		b, _ := os.ReadFile(marker)
		tmp, ids, _ := strings.Cut(string(b), "\n")
		if !strings.HasPrefix(tmp, c.tmpDir()+"/") {
			t.Errorf("the job's TMP is %q, want it under the cell's %s", tmp, c.tmpDir())
		}
		groups[i] = map[string]bool{}
		for _, id := range strings.Fields(strings.TrimPrefix(ids, "Groups:")) {
			groups[i][id] = id != "0" // root's own group is not execd's tag
		}
	}
	for id, tag := range groups[0] {
		if tag && groups[1][id] {
			t.Errorf("the jobs of both cells carry supplementary group %s: killing one kills the other", id)
		}
	}
	// The other cell's job is deleted while it runs: its shepherd kills it.
	if out, err := other.Cmd("qdel", "1").CombinedOutput(); err != nil {
		t.Fatalf("qdel: %v: %s", err, out)
	}
	if err := other.waitFor("the deleted job to go", func() (bool, string) {
		out, err := other.Cmd("qstat", "-u", "*").CombinedOutput()
		return err == nil && len(strings.TrimSpace(string(out))) == 0, string(out)
	}, time.Minute); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // execd's clean-up after the deleted job
	out, err := long.Cmd("qstat", "-u", "*").CombinedOutput()
	if err != nil || !strings.Contains(string(out), " r ") {
		acct, _ := long.Cmd("qacct", "-j", "job").CombinedOutput()
		t.Fatalf("the job is not running after the other cell's job was deleted (qstat: %v):\n%s\n%s\n%s", err, out, acct, long.Logs())
	}
}
