package submitter

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startOrphan starts, through a shell that exits at once, a process that
// is not this process's child (as the sbatch of a killed submitter is
// not), whose arguments are args, and which runs until its stop file
// appears. It returns its pid; the test's cleanup kills it.
func startOrphan(t *testing.T, stop string, args ...string) int {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The inner shell waits for the stop file; "; true" keeps it a shell
	// (not exec'd away), so its arguments stay in its command line.
	inner := "echo $$ > " + pidFile + "; while [ ! -e " + stop + " ]; do sleep 0.02; done; true"
	quoted := []string{}
	for _, a := range args {
		quoted = append(quoted, "'"+a+"'")
	}
	cmd := exec.Command("sh", "-c", "sh -c '"+strings.ReplaceAll(inner, "'", `'\''`)+"' sh "+strings.Join(quoted, " ")+" &")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatal("the orphan did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNamesIn(t *testing.T) {
	cmdline := func(args ...string) []byte { return []byte(strings.Join(args, "\x00") + "\x00") }
	cases := []struct {
		cmdline []byte
		name    string
		want    bool
	}{
		{cmdline("sbatch", "--parsable", "--job-name=gmark-1-0.a1-r1", "x.sbatch"), "gmark-1-0.a1-r1", true},
		{cmdline("sbatch", "--job-name=gmark-1-0.a1-r10"), "gmark-1-0.a1-r1", false},
		{cmdline("sbatch", "--job-name=gmark-11-0.a1-r1"), "gmark-1-0.a1-r1", false},
		{cmdline("qsub", "-terse", "-N", "gmark-2-3.a2-run"), "gmark-2-3.a2-run", true},
		{cmdline("condor_submit", "+GmarkName = \"gmark-2-3.a1-run\"", "/w/jdf/gmark-2-3.a1-run.sub"), "gmark-2-3.a1-run", true},
		{cmdline("sbatch", "--job-name=gmark-1-0.c0.a1-r1"), "gmark-1-0.a1-r1", false},
		{cmdline("sleep", "1"), "gmark-1-0.a1-r1", false},
		{nil, "gmark-1-0.a1-r1", false},
	}
	for _, c := range cases {
		if got := namesIn(c.cmdline, c.name); got != c.want {
			t.Errorf("namesIn(%q, %q) = %v", c.cmdline, c.name, got)
		}
	}
}

// Wait returns only once the orphan naming the submission has ended, and
// does not wait for one naming another submission.
func TestOrphansWait(t *testing.T) {
	dir := t.TempDir()
	stopMine, stopOther := filepath.Join(dir, "stop-mine"), filepath.Join(dir, "stop-other")
	mine := startOrphan(t, stopMine, "--job-name=gmark-1-0.a1-r1")
	other := startOrphan(t, stopOther, "--job-name=gmark-1-0.a1-r10")
	var o Orphans
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Another submission's orphan: Wait returns while it still runs.
	if err := o.Wait(ctx, "gmark-1-0.a1-r1x", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(other, 0); err != nil {
		t.Fatalf("the other orphan ended: %v", err)
	}
	// With a short timeout the orphan is still there: a transient error.
	if err := o.Wait(ctx, "gmark-1-0.a1-r1", 50*time.Millisecond); err == nil || !IsTransient(err) {
		t.Fatalf("Wait with the orphan running: %v", err)
	}
	// It ends: Wait returns after it has.
	if err := os.WriteFile(stopMine, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := o.Wait(ctx, "gmark-1-0.a1-r1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(mine) + "/cmdline"); err == nil && strings.Contains(string(b), "r1\x00") {
		t.Fatalf("Wait returned while the orphan %d runs", mine)
	}
	os.WriteFile(stopOther, nil, 0o644)
}
