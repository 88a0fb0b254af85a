package main

import (
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/progress"
)

// Where standard error is not a terminal (a CI log), a run of some length
// prints a progress line at a steady interval, not nothing until its end;
// --quiet keeps it silent.
func TestProgressLinesWithoutATerminal(t *testing.T) {
	t.Parallel() // waits on a 4 s schedule in real time: runs beside the others
	every := []string{progress.EveryEnv + "=200ms"}
	dir := t.TempDir()
	spec := writeSpec(t, dir, "s.wdl", 5) // one job a second: 4 s of schedule
	if _, stderr, code := run(t, dir, "generate", "-q", "-o", "w", spec); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code := runEnv(t, every, dir, "submit", "w", "--target", "dryrun", "--db", "a.db")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "submitting: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 || !strings.Contains(lines[len(lines)-1], " of 5 jobs (") || !strings.Contains(lines[len(lines)-1], "· submitted ") {
		t.Fatalf("progress lines %q in stderr:\n%s", lines, stderr)
	}
	if _, stderr, _ := runEnv(t, every, dir, "submit", "w", "--target", "dryrun", "--db", "b.db", "-q"); strings.Contains(stderr, "submitting: ") {
		t.Errorf("--quiet printed progress:\n%s", stderr)
	}
}
