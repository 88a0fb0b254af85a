package submitter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// CheckWorkload refuses, before anything is written, a directory that is
// not there, a manifest-less workload.jsonl with a line that is no job, and
// composite jobs where only unitary ones are taken; it passes a good one.
func TestCheckWorkload(t *testing.T) {
	unitary := testkit.WriteWorkload(t, workload.Job{ID: "a", Kind: workload.Unitary, SiteType: workload.Single,
		Components: []workload.Component{{Site: "*", Count: 1}}, App: workload.App{Name: "hello"}})
	if w, err := CheckWorkload(unitary, "koala simulate"); err != nil {
		t.Errorf("a unitary workload (warning %q): %v", w, err)
	}
	if _, err := CheckWorkload(filepath.Join(t.TempDir(), "none"), ""); err == nil || !strings.Contains(err.Error(), "workload directory") {
		t.Errorf("a missing directory: %v", err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, workload.JobsFile), []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w, err := CheckWorkload(bad, ""); err == nil || w == "" {
		t.Errorf("a malformed workload without a manifest: warning %q, %v", w, err)
	}
	// Composite jobs, as the manifest counts their tasks (gmark generate's)
	// and with no manifest at all (the file is read).
	job := workload.Job{ID: "c", Kind: workload.Composite,
		Tasks: []workload.Job{{ID: "c.t", Kind: workload.Unitary, SiteType: workload.Single, Components: []workload.Component{{Site: "*", Count: 1}}, App: workload.App{Name: "hello"}}}}
	vouched := filepath.Join(t.TempDir(), "w")
	if err := workload.WriteDir(vouched, []workload.Job{job}, &workload.Manifest{GmarkVersion: "test", Jobs: 1, Tasks: 1}, false); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(t.TempDir(), "w")
	if err := os.MkdirAll(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(vouched, workload.JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bare, workload.JobsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{vouched, bare} {
		if _, err := CheckWorkload(dir, ""); err != nil {
			t.Errorf("composite jobs where they are taken: %v", err)
		}
		if _, err := CheckWorkload(dir, "koala simulate"); !errors.Is(err, ErrComposite) || !strings.Contains(err.Error(), "koala simulate takes unitary jobs only") {
			t.Errorf("composite jobs for koala simulate: %v", err)
		}
	}
}
