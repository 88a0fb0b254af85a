package site

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// zinf is a host with no scheduler. Submitting starts the placeholder script
// as a background process in a session of its own (so that Kill takes what
// it runs too) and answers its pid at once, as the thesis's zinfqsub does.
type zinf struct {
	dir, script string
}

func (z *zinf) Submit(ctx context.Context) (string, error) {
	cmd := exec.Command("/bin/sh", z.script)
	cmd.Dir = z.dir
	cmd.Env = append(os.Environ(), SubmittedEnv+"="+strconv.FormatInt(time.Now().UnixNano(), 10))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("starting %s: %w", z.script, err)
	}
	// Reaped here while this process lives (the server); a placeholder's
	// successor outlives its parent and is left to the system.
	go func() { _ = cmd.Wait() }()
	return strconv.Itoa(cmd.Process.Pid), nil
}

// proc reads a process's state letter and command line (ok false: no
// such process).
func proc(pid int) (state byte, cmdline string, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || i+2 >= len(stat) {
		return 0, "", false
	}
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return stat[i+2], string(b), true
}

// ours tells whether pid is a live placeholder of this site: a process
// that is not a zombie and runs this site's agent (its command line names
// the site's directory), so that a reused pid is never taken for one. A
// process in the middle of an exec shows an empty command line for a
// moment: it is taken as ours.
func (z *zinf) ours(pid int) bool {
	st, cmdline, ok := proc(pid)
	return ok && st != 'Z' && st != 'X' && (cmdline == "" || strings.Contains(cmdline, z.dir))
}

func (z *zinf) Kill(ctx context.Context, localID string) error {
	pid, err := strconv.Atoi(localID)
	if err != nil || pid < 2 {
		return fmt.Errorf("zinf: %q is not a process id", localID)
	}
	if st, _, ok := proc(pid); ok && st != 'Z' && st != 'X' && !z.ours(pid) {
		return nil // the pid was reused: not ours
	}
	// The placeholder led a session and process group of its own, which
	// holds the job it runs even when the placeholder itself is gone (and
	// keeps its id from being reused meanwhile): kill the group.
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

func (z *zinf) Alive(ctx context.Context, ids []string) (map[string]bool, error) {
	alive := map[string]bool{}
	for _, id := range ids {
		if pid, err := strconv.Atoi(id); err == nil && pid > 1 && z.ours(pid) {
			alive[id] = true
		}
	}
	return alive, nil
}

// Free is the host's processors: a host with no scheduler keeps no
// account of who uses them (the load of other users is not counted).
func (z *zinf) Free(ctx context.Context) (int, error) { return runtime.NumCPU(), nil }
