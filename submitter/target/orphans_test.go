package target

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

// An orphan that execs another command (a site's sbatch wrapper that
// sleeps, then execs the real sbatch, whose arguments differ from the
// wrapper's) is still submitting: Wait returns only once the exec'd
// command has ended. (Wait used to compare the command line, so it
// returned at the exec, and a resumed Slurm run submitted a job twice.)
func TestOrphansWaitFollowsExec(t *testing.T) {
	dir := t.TempDir()
	stop, pidFile := filepath.Join(dir, "stop"), filepath.Join(dir, "pid")
	execd := filepath.Join(dir, "execd")
	// The wrapper names the submission in its arguments; after the exec
	// the process's arguments are the inner shell's, which do not.
	wrapper := filepath.Join(dir, "wrapper.sh")
	script := "echo $$ > " + pidFile + "\nwhile [ ! -e " + execd + " ]; do sleep 0.02; done\n" +
		"exec sh -c 'while [ ! -e " + stop + " ]; do sleep 0.02; done; true'\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "sh "+wrapper+" --job-name=gmark-1-0.a1-r1 >/dev/null 2>&1 </dev/null &")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
				t.Fatal(err)
			}
		} else if time.Now().After(deadline) {
			t.Fatal("the orphan did not start")
		}
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	var o Orphans
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The scan sees the wrapper.
	if err := o.Wait(ctx, "gmark-1-0.a1-r1", 50*time.Millisecond); err == nil || !IsTransient(err) {
		t.Fatalf("Wait with the wrapper running: %v", err)
	}
	// It execs: its arguments no longer name the submission, but it runs.
	if err := os.WriteFile(execd, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if len(b) > 0 && !strings.Contains(string(b), "gmark-1-0.a1-r1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the orphan did not exec: %q", b)
		}
	}
	if err := o.Wait(ctx, "gmark-1-0.a1-r1", 50*time.Millisecond); err == nil || !IsTransient(err) {
		t.Fatalf("Wait after the exec, the command still running: %v", err)
	}
	// It ends: Wait returns, and the process is gone (or a zombie).
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := o.Wait(ctx, "gmark-1-0.a1-r1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if st, ok := readStat(pid); ok && st.state != 'Z' && st.state != 'X' {
		t.Fatalf("Wait returned while the orphan %d runs (state %c)", pid, st.state)
	}
}

func TestParseStat(t *testing.T) {
	tail := " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4242 1000 0" // starttime is the 4242
	cases := []struct {
		line  string
		ok    bool
		state byte
		ppid  int
		start uint64
	}{
		{"17 (sbatch) S 1" + tail, true, 'S', 1, 4242},
		{"17 (a b) c) (d) Z 99" + tail, true, 'Z', 99, 4242},
		{"17 (sbatch) S 1 0 0", false, 0, 0, 0},
		{"17 sbatch S 1" + tail, false, 0, 0, 0},
		{"17 (sbatch) S x" + tail, false, 0, 0, 0},
		{"17 (sbatch) SS 1" + tail, false, 0, 0, 0},
		{"", false, 0, 0, 0},
	}
	for _, c := range cases {
		st, ok := parseStat([]byte(c.line))
		if ok != c.ok || ok && (st.state != c.state || st.ppid != c.ppid || st.start != c.start) {
			t.Errorf("parseStat(%q) = %+v, %v", c.line, st, ok)
		}
	}
	// This process's own line parses, with its parent.
	st, ok := readStat(os.Getpid())
	if !ok || st.ppid != os.Getppid() || st.start == 0 {
		t.Errorf("readStat(self) = %+v, %v; parent %d", st, ok, os.Getppid())
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("17 (sbatch) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4242 1000 0"))
	f.Add([]byte("1 ()) R 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, ok := parseStat(b)
		if !ok && st != (procStat{}) {
			t.Errorf("not ok, yet %+v", st)
		}
	})
}
