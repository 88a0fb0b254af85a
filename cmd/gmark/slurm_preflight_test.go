package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// A Slurm cluster that cannot be used when the run starts (its controller
// does not answer within unreachable_after) fails the run at once, exit 1
// as 'submit --help' says, rather than recording every job failed and
// exiting 0; nothing is submitted, and --resume can continue the run when
// the controller is back.
func TestSubmitSlurmUnusableAtStart(t *testing.T) {
	t.Parallel() // waits on Slurm timeouts: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{MessageTimeout: 2}, "alpha")
	e.Cluster("alpha").StopController()
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t5\thello\tsingle\t1\talpha:1\tC(100ms)\n")
	targets := filepath.Join(dir, "targets.toml")
	toml := strings.Replace(e.TargetsTOML(), "[slurm]\n", "[slurm]\nunreachable_after = \"3s\"\n", 1)
	if err := os.WriteFile(targets, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "results.db")
	stdout, stderr, code := run(t, dir, "submit", wl, "--target", "slurm", "--targets", targets, "--db", db, "--run-id", "s1", "-q")
	if code != exitFailure || !strings.Contains(stderr, "cluster alpha cannot be used") || !strings.Contains(stderr, "Unable to contact slurm controller") {
		t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, exitFailure, stdout, stderr)
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var submitted int
	if err := st.DB().QueryRow(`SELECT count(*) FROM submissions`).Scan(&submitted); err != nil || submitted != 0 {
		t.Errorf("%d submissions recorded (%v): the run went on without its cluster", submitted, err)
	}
	st.Close()
	if err := e.Cluster("alpha").StartController(false); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = run(t, dir, "submit", "--resume", "s1", "--db", db, "-q", "--tail", "5m")
	if code != 0 || !strings.Contains(stdout, "jobs:  5 (5 succeeded)") {
		t.Fatalf("--resume after the controller came back: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}
