package procexec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A record names a process by its pid, its start time and the boot: a
// pid that another process took since (another start time), a record of
// another boot, or a damaged record kill nothing, and every record is
// removed.
func TestCleanupSparesReusedPids(t *testing.T) {
	decoy := startDecoy(t)
	pid := decoy.Process.Pid
	start, err := procStart(pid)
	if err != nil {
		t.Fatal(err)
	}
	boot, err := bootID()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	records := map[string]string{
		"k1": started{boot: boot, procs: []startedProc{{pid, start + 1}}}.String(),
		"k2": started{boot: boot + "0", procs: []startedProc{{pid, start}}}.String(),
		"k3": startedHeader + boot + "\n" + strconv.Itoa(pid) + "\n",
		"k4": startedHeader + boot + "\n" + strconv.Itoa(pid) + " " + strconv.FormatUint(start, 10) + " x\n",
		"k5": strconv.Itoa(pid) + " " + strconv.FormatUint(start, 10) + "\n",
	}
	if err := os.MkdirAll(filepath.Join(dir, startedDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range records {
		if err := os.WriteFile(filepath.Join(dir, startedDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := Cleanup(dir); n != 0 {
		t.Errorf("Cleanup killed %d processes", n)
	}
	if err := decoy.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the decoy was killed: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, startedDir)); len(left) != 0 {
		t.Errorf("records left: %v", left)
	}

	// The same process, this boot: killed.
	rec := started{boot: boot, procs: []startedProc{{pid, start}}}.String()
	if err := os.WriteFile(filepath.Join(dir, startedDir, "k6"), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := Cleanup(dir); n != 1 {
		t.Errorf("Cleanup killed %d processes, want 1", n)
	}
	if err := decoy.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the recorded process: %v, want killed", err)
	}
}

// The start time is the 22nd field of /proc/PID/stat, counted after the
// command name, which may hold blanks and parentheses.
func TestParseProcStat(t *testing.T) {
	tail := " S 1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 200"
	for _, tc := range []struct {
		line string
		want uint64
	}{
		{"123 (sleep)" + tail, 98765},
		{"123 (a b) c)" + tail, 98765},
		{"123 ((x)" + tail + " 7 8", 98765},
		{"123 sleep" + tail, 0},
		{"123 (sleep) S 1 2", 0},
		{"123 (sleep)" + strings.Replace(tail, "98765", "-1", 1), 0},
	} {
		got, err := parseProcStat([]byte(tc.line))
		if got != tc.want || (err == nil) != (tc.want != 0) {
			t.Errorf("%q: %d %v, want %d", tc.line, got, err, tc.want)
		}
	}
	own, err := procStart(os.Getpid())
	if err != nil || own == 0 {
		t.Errorf("this process's start time: %d %v", own, err)
	}
}
