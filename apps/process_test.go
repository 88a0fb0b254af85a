package apps

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/apps/output"
	"github.com/gmark/gmark/internal/testbin"
)

// These tests run the applications as jobs do: the gmark binary, built
// once, as a separate process, checking exit statuses and signals.

var gmark string

func TestMain(m *testing.M) { testbin.Main(m, &gmark) }

// syncBuffer is a buffer the test may read while the process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Bytes() []byte { return []byte(s.String()) }

func command(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(gmark, append([]string{"app"}, args...)...)
	cmd.Dir = t.TempDir()
	// Only what the test chooses: no job variables from around the test.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestExitStatus(t *testing.T) {
	cases := []struct {
		args    []string
		code    int
		stderr  string // in standard error
		summary bool   // stdout ends with a summary
	}{
		{[]string{"hello"}, 0, "", true},
		{[]string{"lunar", "--dimension", "6"}, 0, "", true},
		{[]string{"sser", "--help"}, 0, "", false},
		{[]string{"--help"}, 0, "", false},
		{[]string{"sser", "--supersteps", "-3"}, 2, `gmark: sser: --supersteps must be a whole number >= 1, got "-3"`, false},
		{[]string{"swf", "--mode", "turbo"}, 2, "--mode must be one of sleep, cpu", false},
		{[]string{}, 2, "which application?", false},
		{[]string{"sser", "--supersteps", "100", "--memory", "10", "--compute", "1000", "--walltime", "200ms"}, 1, "walltime of 200ms reached", true},
	}
	for _, c := range cases {
		cmd, out, errb := command(t, c.args...)
		err := cmd.Run()
		if got := exitCode(err); got != c.code {
			t.Errorf("%v: exit %d, want %d\nstderr: %s", c.args, got, c.code, errb)
		}
		if !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("%v: stderr %q does not contain %q", c.args, errb, c.stderr)
		}
		_, serr := output.ParseSummary(out.Bytes())
		if c.summary != (serr == nil) {
			t.Errorf("%v: summary %v (%v)\n%s", c.args, c.summary, serr, out)
		}
	}
}

// TestSigtermPrintsSummary: a batch system ends a job at its wall time with
// SIGTERM; the application still says what it did.
func TestSigtermPrintsSummary(t *testing.T) {
	cmd, out, errb := command(t, "sser", "--supersteps", "1000000", "--memory", "1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for range 2000 { // until it is computing
		if strings.Contains(errb.String(), "supersteps") {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if exitCode(err) != 1 {
		t.Fatalf("exit %v, stderr %s", err, errb)
	}
	s, perr := output.ParseSummary(out.Bytes())
	if perr != nil || s["ok"] != false || s["reason"] != "interrupted" {
		t.Fatalf("summary %v (%v)", s, perr)
	}
}

// TestSingleProcessSMPI: a job of one process has nobody to meet and
// exchanges nothing.
func TestSingleProcessSMPI(t *testing.T) {
	cmd, out, errb := command(t, "smpi", "--supersteps", "3", "--memory", "1")
	cmd.Env = append(cmd.Env, "GMARK_SIZE=1", "GMARK_JOB_ID=solo")
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	s, _ := output.ParseSummary(out.Bytes())
	if s["ok"] != true || num(s, "sent_elements") != 0 || num(s, "supersteps") != 3 {
		t.Fatalf("summary %v", s)
	}
}
