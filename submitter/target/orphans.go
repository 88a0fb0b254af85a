package target

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// Orphans are the submit commands (sbatch, qsub, condor_submit) that an
// earlier submitter process left running when it died: a kill -9 kills the
// submitter, not the commands it had started, and such a command may still
// be submitting its job. Until it ends the scheduler may not show that job,
// so a Find made meanwhile would miss it and the job would be submitted
// twice. A target's Find waits for the orphans that name its submission.
//
// The process table is read once, at the first Wait: the orphans of a dead
// process are all there by then (none is started later), and this
// process's own commands are not orphans.
//
// An orphan is matched by its arguments once, at the scan, and followed by
// its pid and start time after that, not by its arguments: a command may
// exec another with other arguments (a site's sbatch wrapper that execs
// the real sbatch), and the submission is under way until that ends.
type Orphans struct {
	once  sync.Once
	procs []orphan
}

type orphan struct {
	pid     int
	start   uint64 // when it started, in clock ticks after boot: a reused pid's is later
	cmdline []byte // NUL-separated arguments at the scan, as /proc has them
}

// Wait waits until no orphan whose arguments name the submission name
// runs, at most timeout; then it returns an error marked Transient (the
// caller asks again later). A name matches an argument that contains it
// between characters that cannot be part of a name, so run r1 does not
// match run r10.
func (o *Orphans) Wait(ctx context.Context, name string, timeout time.Duration) error {
	o.once.Do(o.scan)
	var waiting []orphan
	for _, p := range o.procs {
		if namesIn(p.cmdline, name) {
			waiting = append(waiting, p)
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		alive := waiting[:0]
		for _, p := range waiting {
			if p.running() {
				alive = append(alive, p)
			}
		}
		waiting = alive
		if len(waiting) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return Transient(fmt.Errorf("a submit command for %s left by an earlier process (pid %d) still runs after %s", name, waiting[0].pid, timeout))
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return Transient(ctx.Err())
		}
	}
}

// scan reads the command lines of the processes that are not this
// process's children.
func (o *Orphans) scan() {
	self := os.Getpid()
	for _, p := range Procs() {
		st, ok := readStat(p.Pid)
		if ok && p.Pid != self && st.ppid != self {
			o.procs = append(o.procs, orphan{pid: p.Pid, start: st.start, cmdline: p.Cmdline})
		}
	}
}

// Proc is a process of this machine and its command line.
type Proc struct {
	Pid     int
	Cmdline []byte // NUL-separated arguments, as /proc has them
}

// Procs lists the processes of this machine that have a command line
// (not kernel threads, not zombies), from /proc.
func Procs() []Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue
		}
		out = append(out, Proc{Pid: pid, Cmdline: b})
	}
	return out
}

// running reports whether the process still runs: the same pid with the
// same start time (a reused pid has a later one), and not a zombie (it has
// ended; its parent has not reaped it yet). Whatever it execs since the
// scan, it is the same process.
func (p orphan) running() bool {
	st, ok := readStat(p.pid)
	return ok && st.start == p.start && st.state != 'Z' && st.state != 'X'
}

// procStat is what gmark reads of /proc/PID/stat.
type procStat struct {
	state byte
	ppid  int
	start uint64 // starttime: clock ticks after boot
}

// readStat reads /proc/PID/stat; false if the process is gone or the line
// is not understood.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseStat(b)
}

// parseStat reads "pid (comm) state ppid ... starttime ..." (proc(5));
// comm may hold spaces and parentheses, so the fields are counted from
// the last ')'. starttime is field 22, the 20th after comm.
func parseStat(b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	start, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, start: start}, true
}

// namesIn reports whether an argument of cmdline contains name, bounded by
// characters that cannot belong to a name.
func namesIn(cmdline []byte, name string) bool {
	for _, arg := range bytes.Split(cmdline, []byte{0}) {
		for off := 0; ; {
			i := bytes.Index(arg[off:], []byte(name))
			if i < 0 {
				break
			}
			i += off
			end := i + len(name)
			if (i == 0 || !NameChar(arg[i-1])) && (end == len(arg) || !NameChar(arg[end])) {
				return true
			}
			off = i + 1
		}
	}
	return false
}

// NameChar reports whether c is a character of job and run ids (which
// continue a name): a run id is made of these and '.' (record.CheckRunID).
func NameChar(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
