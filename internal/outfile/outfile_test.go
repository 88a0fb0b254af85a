package outfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// entries lists dir's names, to check that no temporary file is left.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestCreateByKindOfPath(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the output path
		// check verifies the result after WriteFile(path, "new")
		check func(t *testing.T, dir, path string)
	}{
		{"absent", func(t *testing.T, dir string) string { return filepath.Join(dir, "out") },
			func(t *testing.T, dir, path string) { wantContent(t, path, "new") }},
		{"regular file keeps its mode", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "out")
			must(t, os.WriteFile(p, []byte("old old old"), 0o600))
			return p
		}, func(t *testing.T, dir, path string) {
			wantContent(t, path, "new")
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
		}},
		{"symlink to a file stays a link", func(t *testing.T, dir string) string {
			must(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "real", "target"), []byte("old"), 0o644))
			p := filepath.Join(dir, "link")
			must(t, os.Symlink("real/target", p))
			return p
		}, func(t *testing.T, dir, path string) {
			wantLink(t, path)
			wantContent(t, filepath.Join(dir, "real", "target"), "new")
		}},
		{"chain of links, the last dangling", func(t *testing.T, dir string) string {
			must(t, os.Symlink("b", filepath.Join(dir, "a")))
			must(t, os.Symlink("c", filepath.Join(dir, "b")))
			return filepath.Join(dir, "a")
		}, func(t *testing.T, dir, path string) {
			wantLink(t, path)
			wantLink(t, filepath.Join(dir, "b"))
			wantContent(t, filepath.Join(dir, "c"), "new")
		}},
		{"/dev/null is written through", func(t *testing.T, dir string) string { return "/dev/null" },
			func(t *testing.T, dir, path string) {
				fi, err := os.Stat("/dev/null")
				if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
					t.Fatalf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			if err := WriteFile(path, []byte("new")); err != nil {
				t.Fatal(err)
			}
			tc.check(t, dir, path)
			for _, n := range entries(t, dir) {
				if strings.Contains(n, ".partial-") {
					t.Errorf("temporary file left: %s", n)
				}
			}
		})
	}
}

func TestFIFOIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := WriteFile(p, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
}

// A full device is a write error, not a silently replaced /dev/full.
func TestFullDeviceIsAnError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	err := WriteFile("/dev/full", []byte("x"))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("writing /dev/full: %v, want ENOSPC", err)
	}
	fi, err := os.Stat("/dev/full")
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/full is no longer a device: %v", err)
	}
}

func TestRefused(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	loop := filepath.Join(dir, "loop")
	must(t, os.Symlink("loop", loop))
	for _, p := range []string{dir, sock, loop} {
		if f, err := Create(p); err == nil {
			f.Close()
			t.Errorf("Create(%s) accepted", p)
		}
	}
	if _, err := Create(filepath.Join(dir, "no", "such", "dir", "out")); err == nil {
		t.Error("Create in a missing directory accepted")
	}
}

// An output abandoned (an error, a panic unwinding through a defer) leaves
// the old file whole and no temporary file behind.
func TestCloseWithoutCommitKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	must(t, os.WriteFile(p, []byte("old"), 0o644))
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("half a"); err != nil {
		t.Fatal(err)
	}
	wantContent(t, p, "old")
	must(t, f.Close())
	wantContent(t, p, "old")
	if n := entries(t, dir); len(n) != 1 {
		t.Errorf("left behind: %v", n)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Close accepted")
	}
}

func TestStage(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "target.db"), []byte("old"), 0o644))
	link := filepath.Join(dir, "link.db")
	must(t, os.Symlink("target.db", link))
	s, err := Stage(link)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(s.Temp, []byte("new"), 0o644))
	must(t, s.Commit())
	wantLink(t, link)
	wantContent(t, filepath.Join(dir, "target.db"), "new")

	s, err = Stage(filepath.Join(dir, "aborted.db"))
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(s.Temp, []byte("x"), 0o644))
	must(t, os.WriteFile(s.Temp+"-journal", []byte("x"), 0o644))
	s.Abort()
	if n := entries(t, dir); len(n) != 2 {
		t.Errorf("after Abort: %v", n)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		if _, err := Stage(fifo); err == nil {
			t.Error("Stage accepted a FIFO")
		}
	}
	if _, err := Stage("/dev/null"); err == nil {
		t.Error("Stage accepted a device")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantContent(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Errorf("%s: %q %v, want %q", path, b, err, want)
	}
}

func wantLink(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symbolic link: %v", path, err)
	}
}

// A writer killed before Commit leaves its temporary file; the next writer
// of the same output removes it, but never a live writer's.
func TestStaleTemporariesOfDeadWritersAreRemoved(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "out")
	dead := exec.Command("true")
	must(t, dead.Run())
	deadPid := dead.Process.Pid
	stale := []string{
		filepath.Join(dir, ".out.partial-"+strconv.Itoa(deadPid)+"-abc"),
		filepath.Join(dir, ".out.partial-"+strconv.Itoa(deadPid)+"-abc-journal"),
	}
	live := filepath.Join(dir, ".out.partial-"+strconv.Itoa(os.Getpid())+"-live")
	other := filepath.Join(dir, ".other.partial-"+strconv.Itoa(deadPid)+"-x")
	for _, p := range append(stale, live, other) {
		must(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	must(t, WriteFile(final, []byte("new")))
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a dead writer's %s is still there", filepath.Base(p))
		}
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}

func TestCheckBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.swf")
	if err := os.WriteFile(existing, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, regular string
		replace       bool
		want          string // part of the error; "" for none
	}{
		{filepath.Join(dir, "new.swf"), "", false, ""},
		{existing, "", false, "exists; use --force"},
		{existing, "", true, ""},
		{filepath.Join(dir, "missing", "x.swf"), "", false, "does not exist"},
		{dir, "", false, "directory"},
		{fifo, "", false, ""},
		{fifo, "a GWF-SQLite database", false, "a GWF-SQLite database must be written to a file"},
	} {
		err := Check(tc.path, tc.regular, tc.replace)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%s, %q, %v) = %v, want %q", tc.path, tc.regular, tc.replace, err, tc.want)
		}
	}
	if err := CheckDir(existing, "the figures"); err == nil || !strings.Contains(err.Error(), "give a directory for the figures") {
		t.Errorf("CheckDir of a file: %v", err)
	}
	if err := CheckDir(filepath.Join(dir, "new"), "the figures"); err != nil {
		t.Errorf("CheckDir of nothing: %v", err)
	}
}
