package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/workload"
)

// Outside the repository (after go install), 'gmark generate
// examples/koala-w30.wdl' (the README's CI recipe) reads the built-in copy,
// as run, submit, koala simulate and sim run do: the same workload as the
// repository's file, and nothing in the working directory but the output.
func TestGenerateBuiltInExample(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	if _, stderr, code := run(t, dir, "generate", "examples/koala-w30.wdl", "-o", "w30", "--seed", "1", "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != "w30" {
		t.Errorf("the working directory holds %v", entries)
	}
	ref := t.TempDir()
	if _, stderr, code := run(t, ref, "generate", abs(t, "../../examples/koala-w30.wdl"), "-o", "w30", "--seed", "1", "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "w30", workload.JobsFile))
	want, _ := os.ReadFile(filepath.Join(ref, "w30", workload.JobsFile))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("the built-in example's workload (%d bytes) differs from the repository's (%d bytes)", len(got), len(want))
	}
	m, err := workload.ReadManifest(filepath.Join(dir, "w30"))
	if err != nil || m.Jobs != 200 {
		t.Fatalf("manifest: %+v, %v", m, err)
	}
	// The next step of the recipe.
	if _, stderr, code := run(t, dir, "koala", "simulate", "--grid", "examples/das2.toml", "--seed", "1", "--db", "baseline.db", "w30"); code != 0 {
		t.Fatalf("koala simulate: exit %d: %s", code, stderr)
	}
}
