package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// names lists a directory.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// readRuns opens path read-only, reads its runs and closes it.
func readRuns(path string) (int, error) {
	s, err := OpenReadOnly(path)
	if err != nil {
		return 0, err
	}
	runs, err := s.Runs()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return len(runs), err
}

// A read-only report left results.db-wal and
// results.db-shm behind. Reading a closed store leaves its directory as it
// was; reading while a run writes shares the run's WAL, sees its commits,
// and leaves nothing once the writer is gone too.
func TestReadOnlyLeavesNoFiles(t *testing.T) {
	path, _ := seededFile(t)
	dir := filepath.Dir(path)
	before := names(t, dir)
	for i := range 2 {
		if n, err := readRuns(path); err != nil || n != 1 {
			t.Fatalf("read %d: %d runs, %v", i, n, err)
		}
		if after := names(t, dir); !slices.Equal(after, before) {
			t.Fatalf("read %d: directory %v, was %v", i, after, before)
		}
	}

	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(context.Background(), func(tx *Tx) error {
		return tx.InsertEvent(Event{RunID: "r1", TimeNS: 40, Kind: "later"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := r.Events("r1", ""); err != nil || len(ev) != 2 {
		t.Errorf("the reader sees %d events (%v), want the writer's 2", len(ev), err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// The writer is unharmed by the reader's close.
	err = w.Write(context.Background(), func(tx *Tx) error {
		return tx.InsertEvent(Event{RunID: "r1", TimeNS: 41, Kind: "last"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if after := names(t, dir); !slices.Equal(after, before) {
		t.Errorf("after a read during a write: directory %v, was %v", after, before)
	}
	if n, err := readRuns(path); err != nil || n != 1 {
		t.Errorf("%d runs, %v", n, err)
	}
}

// unprivilegedEnv names the store a helper process reads as an unprivileged
// user, in a directory that user cannot write.
const unprivilegedEnv = "GMARK_STORE_TEST_READ"

// A store in a directory the reader cannot write (a shared results archive,
// a read-only mount) opens and reads, closed or while its owner writes it,
// and nothing is left beside it. Root writes anywhere, so as root the
// reader is this test binary run again as user nobody.
func TestReadOnlyDirectory(t *testing.T) {
	for _, writing := range []bool{false, true} {
		t.Run(fmt.Sprintf("writer open %v", writing), func(t *testing.T) {
			path, _ := seededFile(t)
			dir := filepath.Dir(path)
			before := names(t, dir)
			if writing {
				w, err := Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := w.Close(); err != nil {
						t.Error(err)
					}
					if after := names(t, dir); !slices.Equal(after, before) {
						t.Errorf("after the writer closed: directory %v, was %v", after, before)
					}
				}()
			}
			if n, err := readAsOther(t, path); err != nil || n != 1 {
				t.Errorf("%d runs, %v", n, err)
			}
			if after := names(t, dir); !writing && !slices.Equal(after, before) {
				t.Errorf("directory %v, was %v", after, before)
			}
		})
	}
}

// readAsOther reads the runs of path as a user who cannot write its
// directory: this process with the directory made read-only, or, as root,
// this test binary run again as nobody.
func readAsOther(t *testing.T, path string) (int, error) {
	t.Helper()
	dir := filepath.Dir(path)
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o755)
		return readRuns(path)
	}
	// nobody needs to reach the binary and the store: 0755 directories.
	bin := filepath.Join(t.TempDir(), "store.test")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(bin), dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for d := filepath.Dir(filepath.Dir(dir)); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("user nobody cannot reach the test's files through %s (%v): set TMPDIR to a directory others may traverse", d, err)
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), unprivilegedEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	var n int
	if _, err := fmt.Sscanf(string(out), "%d runs\n", &n); err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	return n, nil
}

// helperRead is the unprivileged reader of TestReadOnlyDirectory.
func helperRead(path string) int {
	n, err := readRuns(path)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("%d runs\n", n)
	return 0
}
