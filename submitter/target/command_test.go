package target

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Command runs real processes: its output on success, and on failure a
// CommandError with the exit status, marked transient when the command timed
// out or said a transient message.
func TestCommand(t *testing.T) {
	cmd := Command{Timeout: time.Minute, TransientMessages: []string{"try later"}}
	for _, tc := range []struct {
		name      string
		args      []string
		timeout   time.Duration
		stdout    string
		status    int // -2: no error
		transient bool
		message   string
	}{
		{"succeeds", []string{"sh", "-c", "echo 42"}, 0, "42\n", -2, false, ""},
		{"fails", []string{"sh", "-c", "echo no such queue >&2; exit 3"}, 0, "", 3, false, "sh (exit status 3): no such queue"},
		{"says not now", []string{"sh", "-c", "echo please try later >&2; exit 1"}, 0, "", 1, true, "sh (exit status 1): please try later"},
		{"fails silently", []string{"false"}, 0, "", 1, false, "false (exit status 1): no message"},
		{"is missing", []string{"/nonexistent/gmark-no-such-command"}, 0, "", -1, false, "no such file"},
		{"times out", []string{"sleep", "30"}, 200 * time.Millisecond, "", -1, true, "(timed out after 200ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cmd
			if tc.timeout > 0 {
				c.Timeout = tc.timeout
			}
			out, err := c.Run(context.Background(), tc.args[0], tc.args[1:]...)
			if tc.status == -2 {
				if err != nil || string(out) != tc.stdout {
					t.Fatalf("got %q, %v; want %q", out, err, tc.stdout)
				}
				return
			}
			var ce *CommandError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T), want a *CommandError", err, err)
			}
			if ce.ExitStatus() != tc.status {
				t.Errorf("exit status %d, want %d", ce.ExitStatus(), tc.status)
			}
			if IsTransient(err) != tc.transient {
				t.Errorf("transient %v, want %v", IsTransient(err), tc.transient)
			}
			if !strings.Contains(err.Error(), tc.message) {
				t.Errorf("message %q does not contain %q", err.Error(), tc.message)
			}
		})
	}
}

// Command gives the CPU time a command used, when asked: a busy loop's is
// more than nothing, also when it fails; a command that never started
// leaves it as it was.
func TestCommandCPU(t *testing.T) {
	busy := "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exit $0"
	for _, tc := range []struct {
		name string
		args []string
		used bool
	}{
		{"succeeds", []string{"sh", "-c", busy, "0"}, true},
		{"fails", []string{"sh", "-c", busy, "3"}, true},
		{"is missing", []string{"/nonexistent/gmark-no-such-command"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cpu := time.Duration(-1)
			c := Command{Timeout: time.Minute, CPU: &cpu}
			c.Run(context.Background(), tc.args[0], tc.args[1:]...)
			if tc.used && cpu <= 0 {
				t.Fatalf("CPU %v, want more than 0", cpu)
			}
			if !tc.used && cpu != -1 {
				t.Fatalf("CPU %v, want it left at -1", cpu)
			}
		})
	}
}
