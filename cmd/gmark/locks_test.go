package main

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// After a normal end, no lock file is left behind: a run's submit.lock,
// the bundled core's koala.db.lock, a sweep's STORE.sim.lock (the lock
// files are internal/filelock's, whose release removes them safely: only
// the file the process holds, while it holds it).
func TestNoLockFilesAfterNormalEnds(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "s.wdl"), "1\tunitary\t4\tswf\tsingle\t1\t*:1\tC(1s)\tRunTime=C(1s)\n", 0o644)
	for _, args := range [][]string{
		{"run", "s.wdl", "-o", "out", "-q", "--speedup", "20"},
		{"generate", "-q", "-o", "w", "s.wdl"},
		{"submit", "w", "--target", "dryrun", "--db", "a.db", "--speedup", "100", "-q"},
		{"koala", "simulate", "--db", "k.db", "w"},
		{"sim", "run", "examples/sim/t1-selftest.toml", "--db", "sim.db", "-q", "--scale", "0.05"},
	} {
		if _, stderr, code := run(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".lock") {
				t.Errorf("%v left %s", args, p)
			}
			return err
		})
	}
}
