package submitter

import (
	"strings"
	"testing"

	"github.com/gmark/gmark/record"
)

// A failure reason of several lines (sbatch's) is noted in whole lines,
// never cut inside one, the last line (the "fatal:" one) kept.
func TestNoteText(t *testing.T) {
	sbatch := "submission failed: sbatch (exit status 1): sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host\n" +
		"sbatch: error: fetch_config: DNS SRV lookup failed\n" +
		"sbatch: error: _establish_config_source: failed to fetch config\n" +
		"sbatch: error: something else\n" +
		"sbatch: fatal: Could not establish a configuration source\n"
	got := noteText(sbatch)
	lines := strings.Split(got, "\n")
	want := []string{
		"submission failed: sbatch (exit status 1): sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host",
		"sbatch: error: fetch_config: DNS SRV lookup failed",
		"… (2 more lines)",
		"sbatch: fatal: Could not establish a configuration source",
	}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("note:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if got := noteText("exit status 3"); got != "exit status 3" {
		t.Errorf("one short line: %q", got)
	}
	long := strings.Repeat("é", noteLineSize+10)
	if got := noteText(long); got != strings.Repeat("é", noteLineSize)+"…" {
		t.Errorf("a long line cut inside a character, or not cut: %d runes", len([]rune(got)))
	}
	var b strings.Builder
	(&record.Summary{RunID: "R", Status: "completed", Notes: []string{"3 failed: " + got}}).WriteText(&b, "x.db")
	if !strings.Contains(b.String(), "  note: 3 failed: ") {
		t.Errorf("summary:\n%s", b.String())
	}
	s := record.Summary{RunID: "R", Notes: []string{"2 failed: " + noteText(sbatch)}}
	b.Reset()
	s.WriteText(&b, "x.db")
	if !strings.Contains(b.String(), "\n        sbatch: fatal: Could not establish a configuration source\n") {
		t.Errorf("a note's later lines are not under its first:\n%s", b.String())
	}
}
