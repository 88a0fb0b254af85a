package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// CommandError is a resource manager's command that failed. Its exit status
// is recorded with a failed submission.
type CommandError struct {
	Name   string
	Status int // -1 when the command did not exit on its own
	Stderr string
}

func (e *CommandError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = "no message"
	}
	if e.Status < 0 {
		return fmt.Sprintf("%s: %s", e.Name, msg)
	}
	return fmt.Sprintf("%s (exit status %d): %s", e.Name, e.Status, msg)
}

// ExitStatus is the command's exit status.
func (e *CommandError) ExitStatus() int { return e.Status }

// Command is how a target runs its resource manager's commands.
type Command struct {
	Timeout time.Duration // bounds every command
	Env     []string      // the command's environment; nil: this process's
	// TransientMessages are the resource manager's ways of saying "not now":
	// a failure whose standard error contains one is marked Transient.
	TransientMessages []string
	// CPU, when not nil, is given the CPU time (user and system) the
	// command used, also when it failed: a poller paces itself by it.
	CPU *time.Duration
}

// Run runs the command and returns its standard output. A failure is a
// *CommandError, marked Transient when the command timed out or said one of
// the transient messages.
func (c Command) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if c.CPU != nil && cmd.ProcessState != nil {
		*c.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err == nil {
		return stdout.Bytes(), nil
	}
	ce := &CommandError{Name: name, Status: -1, Stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ce.Status = ee.ExitCode()
	} else if ce.Stderr == "" {
		ce.Stderr = err.Error()
	}
	if ctx.Err() != nil {
		ce.Stderr = strings.TrimSpace(ce.Stderr + " (timed out after " + c.Timeout.String() + ")")
		return stdout.Bytes(), Transient(ce)
	}
	for _, m := range c.TransientMessages {
		if strings.Contains(ce.Stderr, m) {
			return stdout.Bytes(), Transient(ce)
		}
	}
	return stdout.Bytes(), ce
}
