package procexec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/apps/launch"
)

// The processes a core started are killed by the next core on the same
// directory when the first was killed before it could stop them (its
// running jobs are failed on restart: they are never run again). A process
// is named by its pid and its start time since boot, as the kernel reports
// them (/proc/PID/stat), and the boot: a pid reused since, by whatever
// program, has another start time and is left alone. The records are the
// executor's own files under Dir/.started/, outside every job's directory.

// started is one record: the boot it was written in and the processes.
type started struct {
	boot  string
	procs []startedProc
}

type startedProc struct {
	pid   int
	start uint64 // clock ticks after boot (/proc/PID/stat's 22nd field)
}

// startedHeader begins a record; the boot id follows it.
const startedHeader = "gmark-procexec-started boot="

// maxStartedRecord bounds a record Cleanup reads: a job of the largest
// grid's processes takes far less.
const maxStartedRecord = 8 << 20

// String is the record as it is written: the header, then one line per
// process, "PID START".
func (s started) String() string {
	var b strings.Builder
	b.WriteString(startedHeader + s.boot + "\n")
	for _, p := range s.procs {
		fmt.Fprintf(&b, "%d %d\n", p.pid, p.start)
	}
	return b.String()
}

// parseStarted reads a record. Errors name the line.
func parseStarted(name string, b []byte) (started, error) {
	var s started
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 4096)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			boot, ok := strings.CutPrefix(text, startedHeader)
			if !ok || boot == "" || strings.ContainsAny(boot, " \t") {
				return started{}, fmt.Errorf("%s:1: not a record of started processes", name)
			}
			s.boot = boot
			continue
		}
		pid, start, ok := strings.Cut(text, " ")
		p, err1 := strconv.Atoi(pid)
		t, err2 := strconv.ParseUint(start, 10, 64)
		if !ok || err1 != nil || err2 != nil || p <= 1 || t == 0 || strconv.Itoa(p) != pid {
			return started{}, fmt.Errorf("%s:%d: want a pid above 1 and its start time, got %q", name, line, text)
		}
		s.procs = append(s.procs, startedProc{pid: p, start: t})
	}
	if err := sc.Err(); err != nil {
		return started{}, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if line == 0 {
		return started{}, fmt.Errorf("%s:1: empty", name)
	}
	return s, nil
}

// recordStarted writes the record of a job's processes, atomically, and
// returns its path ("" when it could not: then a killed core leaves them
// running, as it would any process it cannot identify).
func (e *Executor) recordStarted(jobID string, procs []launch.Proc) string {
	boot, err := bootID()
	if err != nil {
		return ""
	}
	s := started{boot: boot}
	for _, p := range procs {
		// The process is this one's child, not yet waited for: its pid
		// cannot have been reused.
		t, err := procStart(p.Pid)
		if err != nil {
			continue
		}
		s.procs = append(s.procs, startedProc{pid: p.Pid, start: t})
	}
	dir := filepath.Join(e.Dir, startedDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	name := filepath.Join(dir, jobenv.Safe(jobID))
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, []byte(s.String()), 0o644); err != nil {
		return ""
	}
	if err := os.Rename(tmp, name); err != nil {
		_ = os.Remove(tmp)
		return ""
	}
	return name
}

// Cleanup kills the processes a previous executor on dir started and left
// behind (its core was killed and could not stop them): each recorded
// process that still runs, the same process (its pid, its start time, this
// boot). Nothing else is killed, whatever its name or a job's files say. The
// records are removed.
func Cleanup(dir string) (killed int) {
	files, _ := filepath.Glob(filepath.Join(dir, startedDir, "*"))
	boot, bootErr := bootID()
	for _, f := range files {
		if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxStartedRecord {
			continue // not one of the executor's records
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		_ = os.Remove(f)
		s, err := parseStarted(f, b)
		if err != nil || bootErr != nil || s.boot != boot {
			continue // damaged (a write cut short leaves a .tmp, not this), or of another boot
		}
		for _, p := range s.procs {
			if t, err := procStart(p.pid); err != nil || t != p.start {
				continue // ended, or the pid is another process's now
			}
			if syscall.Kill(p.pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	return killed
}

// bootID names this boot of the machine.
func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if id == "" || strings.ContainsAny(id, " \t\n") {
		return "", errors.New("no boot id")
	}
	return id, nil
}

// procStart is a process's start time, in clock ticks after boot.
func procStart(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseProcStat(b)
}

// parseProcStat takes the start time out of a /proc/PID/stat line: the
// 22nd field, the 20th after the command name, which is in parentheses
// and may hold blanks and parentheses itself (so the fields are counted
// after the last ')').
func parseProcStat(b []byte) (uint64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("no command name")
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 {
		return 0, errors.New("too few fields")
	}
	t, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil || t == 0 {
		return 0, fmt.Errorf("start time %q", fields[19])
	}
	return t, nil
}
