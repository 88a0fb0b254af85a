package batch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter/batch/sgetest"
)

// goldenScripts are the sge printer's golden files, one script each (a
// file of several jobs is cut at its "# job" lines).
func goldenScripts(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join(testkit.RepoRoot(t), "printers", "testdata", "golden", "sge")
	files, err := filepath.Glob(filepath.Join(dir, "*.sge"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden sge scripts in %s: %v", dir, err)
	}
	scripts := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(f), ".sge")
		name, lines := base, []string(nil)
		flush := func() {
			if text := strings.Join(lines, "\n"); strings.TrimSpace(text) != "" {
				scripts[name] = text
			}
		}
		for _, line := range strings.Split(string(b), "\n") {
			if id, ok := strings.CutPrefix(line, "# job "); ok {
				flush()
				name, lines = base+"/"+id, nil
				continue
			}
			lines = append(lines, line)
		}
		flush()
	}
	return scripts
}

// qsubVerify asks the cell whether it would take the script (qsub -w v:
// the script's "#$" options parsed, then checked against the cell's queues,
// parallel environments and limits; nothing is submitted).
func qsubVerify(t *testing.T, c *sgetest.Cell, name, script string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "job.sge")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := c.Cmd("qsub", "-w", "v", path)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("%s: qsub: %v", name, err)
	}
	return string(out), err == nil && strings.Contains(string(out), "found suitable queue(s)")
}

// Grid Engine's own qsub accepts every script of the sge printer's golden
// files, in a cell with the queue they name and the PE "mpi"; and the check
// is real: each broken variant of one of them is refused.
func TestQsubVerifiesPrinterScripts(t *testing.T) {
	cell := sgetest.Start(t, sgetest.Options{Slots: 32, Queues: []string{"all.q", "fs2"}})
	scripts := goldenScripts(t)
	t.Logf("%d scripts", len(scripts))
	for name, script := range scripts {
		if out, ok := qsubVerify(t, cell, name, script); !ok {
			t.Errorf("%s: qsub -w v refused it:\n%s\n%s", name, out, script)
		}
	}
	base := scripts["coalloc"]
	broken := []struct{ name, old, new, why string }{
		{"pe without slots", "#$ -pe mpi 8\n", "#$ -pe mpi\n", "-pe option must have range"},
		{"bad wall time", "h_rt=0:01:30", "h_rt=0:01:3x", `"h_rt" is not a time value`},
		{"unknown queue", "#$ -q fs2", "#$ -q fs9", `unknown queue "fs9"`},
		{"more slots than the cell", "#$ -pe mpi 8", "#$ -pe mpi 100", "no suitable queues"},
		{"unknown pe", "#$ -pe mpi 8", "#$ -pe nompi 8", `"nompi" does not exist`},
		{"unknown option", "#$ -cwd", "#$ -cwdd", `invalid option argument "-cwdd"`},
	}
	for _, b := range broken {
		if !strings.Contains(base, b.old) {
			t.Fatalf("%s: the coalloc script has no %q:\n%s", b.name, b.old, base)
		}
		script := strings.Replace(base, b.old, b.new, 1)
		if out, ok := qsubVerify(t, cell, b.name, script); ok || !strings.Contains(out, b.why) {
			t.Errorf("%s: qsub -w v said (accepted %v):\n%s\nwant a refusal saying %q of\n%s", b.name, ok, out, b.why, script)
		}
	}
}
