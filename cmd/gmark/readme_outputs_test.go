package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeCommands are the commands README.md tells a user to run in the
// clone, as it writes them, and how this test runs them (faster, to the
// same paths: the runs on dryrun, compressed); "> FILE" is a redirection.
var readmeCommands = []struct{ readme, run string }{
	{"gmark run examples/quickstart.wdl", "run examples/quickstart.wdl --target dryrun --speedup 1000 -q"},
	{"gmark generate examples/koala-w30.wdl -o w30 --seed 1 -q", ""},
	{"gmark koala simulate --grid examples/das2.toml --seed 1 --db baseline.db w30", ""},
	{"gmark koala simulate --grid examples/das2.toml --seed 1 --db new.db w30", ""},
	{"gmark report --db new.db --baseline baseline.db --metrics mean-wait,p95-wait,p95-bsld,success-rate --threshold 5% --alpha 0.01", ""},
	{"gmark report --db new.db --baseline baseline.db --format json > gate.json", ""},
	{"gmark report --db new.db -o report/", ""},
	{"gmark submit DIR --target T", "submit w30 --target dryrun --speedup 1000 -q"},
	{"gmark report --compare policy --db results.db", "report --compare target --db results.db"}, // its runs have no policy
}

// What the README's own commands write into the clone is ignored by git
// (.gitignore): otherwise every later build is stamped "modified" and
// --compare revision splits the runs on it.
func TestReadmeOutputsAreIgnored(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git to ask")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The README's commands as one line each: continuation lines joined.
	flat := regexp.MustCompile(`\s*\\\n\s*`).ReplaceAllString(string(readme), " ")
	dir := t.TempDir()
	for _, c := range readmeCommands {
		if !strings.Contains(flat, c.readme) {
			t.Errorf("README.md no longer says %q: bring the table up to date", c.readme)
			continue
		}
		line := c.run
		if line == "" {
			line = strings.TrimPrefix(c.readme, "gmark ")
		}
		args, redirect, _ := strings.Cut(line, " > ")
		stdout, stderr, code := run(t, dir, strings.Fields(args)...)
		if code == 2 {
			t.Fatalf("%s: exit %d\n%s", line, code, stderr)
		}
		if redirect != "" {
			if err := os.WriteFile(filepath.Join(dir, redirect), []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var written []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			written = append(written, rel)
		}
		return err
	})
	if len(written) < 10 {
		t.Fatalf("the commands wrote %v: did they run?", written)
	}
	reported := map[string]bool{} // one line per top directory
	for _, p := range written {
		top := strings.SplitN(filepath.ToSlash(p), "/", 2)[0]
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", p)
		cmd.Dir = "../.."
		if err := cmd.Run(); err != nil && !reported[top] {
			reported[top] = true
			t.Errorf("%s, written by the README's commands, is not ignored by .gitignore (%v)", p, err)
		}
	}
}
