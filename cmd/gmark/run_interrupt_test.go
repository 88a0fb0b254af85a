package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

// Ctrl-C (SIGINT) of 'gmark run' on the bundled core stops what gmark run
// started, the core included, records the run as interrupted (no end) and
// leaves it resumable: 'gmark submit --resume' takes it to its end.
func TestRunInterruptStopsTheCore(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "s.wdl"), "1\tunitary\t6\tswf\tsingle\t1\t*:1\tC(1s)\tRunTime=C(2s)\n", 0o644)
	p := startGmark(t, dir, "run", "s.wdl", "-o", "out", "-q")
	var runDir string
	deadline := time.Now().Add(3 * time.Minute)
	for runDir == "" || !submitted(filepath.Join(dir, "out", "results.db")) {
		if time.Now().After(deadline) {
			t.Fatalf("no job submitted in 3 minutes:\n%s", p.out.String())
		}
		select {
		case <-p.done:
			t.Fatalf("gmark run ended before it was interrupted:\n%s", p.out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "out", "runs", "*", "koala.json")); len(m) == 1 {
			runDir = filepath.Dir(m[0])
		}
	}
	stopBundledCore(t, runDir)
	pid := bundledCorePid(t, runDir)
	if err := syscall.Kill(p.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		t.Fatal("gmark run did not stop within a minute of SIGINT")
	}
	out := p.out.String()
	m := regexp.MustCompile(`continue with: gmark submit --resume (\S+) --db (\S+)`).FindStringSubmatch(out)
	if code := p.cmd.ProcessState.ExitCode(); code != 1 || m == nil {
		t.Fatalf("interrupted: exit %d:\n%s", code, out)
	}
	if pid == 0 || processRuns(pid) {
		t.Fatalf("the bundled core (pid %d) still runs after the interrupted gmark run ended:\n%s", pid, out)
	}
	st, err := store.OpenReadOnly(filepath.Join(dir, m[2]))
	if err != nil {
		t.Fatal(err)
	}
	_, ended, err := st.RunEnd(m[1])
	st.Close()
	if err != nil || ended {
		t.Fatalf("the interrupted run has an end (%v): it cannot be resumed", err)
	}
	stdout, stderr, code := run(t, dir, "submit", "--resume", m[1], "--db", m[2], "-q")
	if code != 0 || !strings.Contains(stdout, "jobs:  6 (") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if processRuns(bundledCorePid(t, runDir)) {
		t.Errorf("the resumed run's core still runs after it ended")
	}
}

// submitted tells whether the store at db records a submission yet.
func submitted(db string) bool {
	if _, err := os.Stat(db); err != nil {
		return false
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return false
	}
	defer st.Close()
	var n int
	return st.DB().QueryRow(`SELECT count(*) FROM submissions`).Scan(&n) == nil && n > 0
}
