package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

// The commands run in-process through runGmark, as main runs them: the
// exit codes, the output, and no state carried from one run to the next
// (flag values of an earlier run, such as a slice flag, must not leak).
func TestRunGmarkInProcess(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.wdl")
	if err := os.WriteFile(spec, []byte("# a small spec\n1\tunitary\t3\tswf\tsingle\t?\t*:?\tPoisson(1s)\tTotalCPUsWithWeights=1,RunTime=U(5s,20s)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inProcess := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := runGmark(context.Background(), append([]string{"gmark"}, args...), &out, &errb)
		return out.String(), errb.String(), code
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // a part of stdout
		stderr string // a part of stderr
	}{
		{"no such command", []string{"bogus"}, exitUsage, "", `"bogus" is not a command`},
		{"no such flag", []string{"generate", "--bogus", spec}, exitUsage, "", "bogus"},
		{"validate", []string{"generate", "--validate", spec}, 0, "valid (1.1 layout, 1 unit, 3 jobs from job units)", ""},
		{"missing spec", []string{"generate", filepath.Join(dir, "none.wdl")}, exitUsage, "", "none.wdl"},
		{"with jdf", []string{"generate", "-q", "--jdf", "sbatch", "-o", filepath.Join(dir, "a"), spec}, 0, "", ""},
		{"without jdf", []string{"generate", "-q", "-o", filepath.Join(dir, "b"), spec}, 0, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := inProcess(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout with %q, stderr with %q", code, tc.code, out, errs, tc.stdout, tc.stderr)
			}
		})
	}
	// The second generate ran after one with --jdf: it must not have
	// inherited it.
	m, err := workload.ReadManifest(filepath.Join(dir, "b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.JDF) != 0 {
		t.Fatalf("a run without --jdf printed %v: a flag value leaked from the previous in-process run", m.JDF)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", workload.JDFDir)); !os.IsNotExist(err) {
		t.Fatalf("jdf directory in the run without --jdf: %v", err)
	}
}

// A command that does not watch the interrupt context (generate) still
// ends on the first SIGINT, by the signal, leaving no workload behind; the
// one signal context in main must not swallow it.
func TestInterruptEndsACommandThatDoesNotWatch(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "big.wdl", 50_000_000)
	cmd := exec.Command(buildGmark(t), "generate", "-q", "-o", "out", spec)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-done
	}()
	// Wait until it writes (its staging directory holds jobs).
	for {
		matches, _ := filepath.Glob(filepath.Join(dir, ".out.partial-*", workload.JobsFile))
		if len(matches) > 0 {
			if st, err := os.Stat(matches[0]); err == nil && st.Size() > 0 {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("generate ended before it was interrupted: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err // for the deferred wait
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("generate ended with %v after SIGINT, want an exit by the signal", err)
		}
		ws, ok := ee.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
			t.Fatalf("generate ended with %v after SIGINT, want an exit by the signal", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("generate still running a minute after SIGINT: the signal was swallowed")
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Fatalf("an interrupted generate left its output: %v", err)
	}
}
