package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/submitter/gram/gramtest"
)

// gridDirs are a work directory and a copy of gmark that a CE's mapped
// account (nobody) can reach, removed at the end of the test.
func gridDirs(t *testing.T, bin string) (work, exe string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "gmark-grid-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	exe, work = filepath.Join(dir, "gmark"), filepath.Join(dir, "work")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return work, exe
}

// arcSubmit starts an ARC CE on fork (docs/grid.md) and returns the
// `gmark submit` of workload wl through it (--target arc).
func arcSubmit(t *testing.T, wl, db, bin string) []string {
	ce := arctest.Start(t, arctest.Options{Name: "fork", InfoPeriod: 5 * time.Second, WakeupPeriod: 2 * time.Second})
	work, exe := gridDirs(t, bin)
	toml := fmt.Sprintf("[arc]\nproxy = %q\nca_dir = %q\nworkdir = %q\npoll = \"1s\"\n[[arc.ce]]\nname = \"fork\"\nurl = %q\n",
		ce.Proxy, ce.Creds.CADir, work, ce.URL)
	targets := writeFile(t, filepath.Join(filepath.Dir(db), "targets.toml"), toml, 0o644)
	return []string{"submit", wl, "--target", "arc", "--targets", targets, "--gmark", exe, "--db", db, "-q"}
}

// gramSubmit starts a GRAM5 gatekeeper with jobmanager-fork and returns
// the `gmark submit` of workload wl through it (--target gram).
func gramSubmit(t *testing.T, wl, db, bin string) []string {
	g := gramtest.Start(t, gramtest.Options{Name: "fork"})
	work, exe := gridDirs(t, bin)
	toml := fmt.Sprintf("[gram]\nproxy = %q\nca_dir = %q\nworkdir = %q\npoll = \"1s\"\n[[gram.ce]]\nname = \"fork\"\ncontact = %q\n",
		g.Proxy, g.Creds.CADir, work, g.Resource("fork"))
	targets := writeFile(t, filepath.Join(filepath.Dir(db), "targets.toml"), toml, 0o644)
	return []string{"submit", wl, "--target", "gram", "--targets", targets, "--gmark", exe, "--db", db, "-q"}
}
