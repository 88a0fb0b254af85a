package koalatarget

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/submitter/target"
)

// Core is a bundled core the submitter runs as a process of its own
// (`gmark koala serve`), on loopback, its state in a run's directory. It
// outlives the submitter on purpose: a kill -9 of the submitter does not
// kill the scheduler with the jobs it runs (the core fails a job that was
// running when it restarts, since running it again would run it twice), and
// the --resume that follows reconnects to it. The submitter stops it when
// the run ends.
//
// The run directory holds the core's log (CoreLog) and a record of the
// process (CoreRecord: pid, log offset); the token is the core's own,
// in STATE.token.
type Core struct {
	Endpoint string
	Token    string
	Pid      int
	cmd      *exec.Cmd     // the process, when this process started it
	exited   chan struct{} // closed when cmd has been reaped
	args     []byte        // its command line, to tell it from a reused pid
}

// CoreSpec says how to start a core.
type CoreSpec struct {
	Executable string   // the gmark binary
	Grid       string   // grid file
	State      string   // state database; its directory holds the log and record
	Args       []string // more `koala serve` flags (--policy, --time-scale, ...)
	// Ready bounds the wait for a starting core to serve. Default 30s.
	Ready time.Duration
}

// CoreLog and CoreRecord are the files of a core next to its state.
const (
	CoreLog    = "koala.log"
	CoreRecord = "koala.json"
)

type coreRecord struct {
	Pid       int   `json:"pid"`
	LogOffset int64 `json:"log_offset"` // where this process's log starts
}

// maxCoreRecord bounds koala.json: two numbers.
const maxCoreRecord = 64 << 10

// parseCoreRecord reads koala.json. One that is not the record StartCore
// writes (other JSON, a pid no process can have, a negative offset) is an
// error.
func parseCoreRecord(b []byte) (coreRecord, error) {
	var rec coreRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return coreRecord{}, fmt.Errorf("%s: %v", CoreRecord, err)
	}
	if dec.More() {
		return coreRecord{}, fmt.Errorf("%s: data after the record", CoreRecord)
	}
	if rec.Pid <= 1 || rec.Pid > 1<<22 || rec.LogOffset < 0 {
		return coreRecord{}, fmt.Errorf("%s: pid %d or log offset %d out of range", CoreRecord, rec.Pid, rec.LogOffset)
	}
	return rec, nil
}

var servingLine = regexp.MustCompile(`serving (http://[0-9.:]+)/v1/`)

// StartCore returns the core of spec.State: the one an earlier submitter
// started, if it still runs, or a new one started on the state (which
// restores every job the state holds).
func StartCore(ctx context.Context, spec CoreSpec) (*Core, error) {
	if spec.Ready <= 0 {
		spec.Ready = 30 * time.Second
	}
	dir := filepath.Dir(spec.State)
	if c, err := adoptCore(ctx, spec, dir); c != nil || err != nil {
		return c, err
	}
	logPath := filepath.Join(dir, CoreLog)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	st, err := logf.Stat()
	if err != nil {
		return nil, err
	}
	args := append([]string{"koala", "serve", "--listen", "127.0.0.1:0", "--grid", spec.Grid, "--state", spec.State}, spec.Args...)
	cmd := exec.Command(spec.Executable, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: a Ctrl-C in the terminal is the submitter's
	// to handle, not the scheduler's.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The token is the core's own (STATE.token), never on a command line.
	cmd.Env = withoutEnv(os.Environ(), "GMARK_KOALA_TOKEN")
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the bundled core: %v", err)
	}
	c := &Core{Pid: cmd.Process.Pid, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.exited) }()
	c.args, _ = os.ReadFile("/proc/" + strconv.Itoa(c.Pid) + "/cmdline")
	rec, _ := json.Marshal(coreRecord{Pid: c.Pid, LogOffset: st.Size()})
	if err := outfile.WriteFile(filepath.Join(dir, CoreRecord), rec); err != nil {
		_ = c.Stop()
		return nil, err
	}
	if err := c.await(ctx, spec, logPath, st.Size()); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// adoptCore returns the core an earlier submitter left running on the
// state, if there is one (nil if there is none): the recorded one, or one
// found in the process table (the earlier submitter died before it
// recorded the core it had just started). Two cores never serve one state.
func adoptCore(ctx context.Context, spec CoreSpec, dir string) (*Core, error) {
	var rec coreRecord
	if b, err := readlimit.File(filepath.Join(dir, CoreRecord), maxCoreRecord); err == nil {
		rec, _ = parseCoreRecord(b) // a damaged record: the process table is searched instead
	}
	serves := func(args []byte) bool {
		return bytes.Contains(args, []byte("koala\x00serve\x00")) && bytes.Contains(args, []byte("\x00--state\x00"+spec.State+"\x00"))
	}
	c := &Core{}
	if args, err := os.ReadFile("/proc/" + strconv.Itoa(rec.Pid) + "/cmdline"); rec.Pid > 0 && err == nil && serves(args) {
		c.Pid, c.args = rec.Pid, args
	} else {
		for _, p := range target.Procs() {
			if serves(p.Cmdline) {
				c.Pid, c.args = p.Pid, p.Cmdline
				rec = coreRecord{Pid: p.Pid}
				b, _ := json.Marshal(rec)
				if err := outfile.WriteFile(filepath.Join(dir, CoreRecord), b); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	if c.Pid == 0 {
		return nil, nil
	}
	if err := c.await(ctx, spec, filepath.Join(dir, CoreLog), rec.LogOffset); err != nil {
		return nil, fmt.Errorf("the bundled core left running (pid %d): %v", c.Pid, err)
	}
	return c, nil
}

// await reads the core's log from offset until it says where it serves,
// then reads the token.
func (c *Core) await(ctx context.Context, spec CoreSpec, logPath string, offset int64) error {
	deadline := time.Now().Add(spec.Ready)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if ep := servingIn(logPath, offset); ep != "" {
			tok, err := os.ReadFile(spec.State + ".token")
			if err != nil {
				return fmt.Errorf("the bundled core's token: %v", err)
			}
			c.Endpoint, c.Token = ep, strings.TrimSpace(string(tok))
			return nil
		}
		if !c.running() {
			return fmt.Errorf("the bundled core exited: %s", logTail(logPath, offset))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the bundled core did not serve within %s: %s", spec.Ready, logTail(logPath, offset))
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func servingIn(logPath string, offset int64) string {
	f, err := os.Open(logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	// The last one: from offset 0 the log holds earlier cores' lines too,
	// and the core that runs is the latest.
	ep := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
			ep = m[1]
		}
	}
	return ep
}

func logTail(logPath string, offset int64) string {
	b, _ := os.ReadFile(logPath)
	if offset >= 0 && int64(len(b)) >= offset {
		b = b[offset:]
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	if s := strings.TrimSpace(string(b)); s != "" {
		return s
	}
	return "(nothing in " + logPath + ")"
}

// running reports whether the core's process still runs.
func (c *Core) running() bool {
	if c.exited != nil {
		select {
		case <-c.exited:
			return false
		default:
			return true
		}
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.Pid) + "/cmdline")
	return err == nil && bytes.Equal(b, c.args)
}

// Stop stops the core: SIGTERM (it finishes its last commit and exits),
// then SIGKILL if it has not exited after 10 s. Stopping a stopped core is
// harmless.
func (c *Core) Stop() error {
	if !c.running() {
		return nil
	}
	if err := syscall.Kill(c.Pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.running() {
		if time.Now().After(deadline) {
			_ = syscall.Kill(c.Pid, syscall.SIGKILL)
			return fmt.Errorf("the bundled core (pid %d) did not stop within 10s of SIGTERM; killed", c.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
