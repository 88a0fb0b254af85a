package sgetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
