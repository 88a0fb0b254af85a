// Package testkit holds the helpers that tests of several packages share,
// so that each exists once: where the shared traces are, and how a test
// writes a workload directory.
package testkit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/workload"
)

// RepoRoot is the module's root: the nearest directory above the working
// directory (a test's is its package's) that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Shared is the path of a file of ../shared, beside the repository (the
// real traces live there, not in the repository); the test is skipped,
// saying so, when it is not there.
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{RepoRoot(t), "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not there (../shared/ lives beside the repository): %v", p, err)
	}
	return p
}

// LCG is the path of the LCG grid trace, ../shared/traces/LCG.swf.gz.
func LCG(t testing.TB) string {
	t.Helper()
	return Shared(t, "traces", "LCG.swf.gz")
}

// WriteWorkload writes jobs, each checked by Job.Validate, as a workload
// directory (workload.WriteDir, with a manifest) and returns its path.
func WriteWorkload(t testing.TB, jobs ...workload.Job) string {
	t.Helper()
	for i := range jobs {
		if err := jobs[i].Validate(); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "workload")
	m := &workload.Manifest{GmarkVersion: "test", Spec: workload.FileDigest{Path: "test.wdl", SHA256: "00"}, Seed: 42}
	if err := workload.WriteDir(dir, jobs, m, false); err != nil {
		t.Fatal(err)
	}
	return dir
}
