package workload

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// stageDir stages and commits a one-job workload at out.
func stageDir(t *testing.T, out string, replace bool) error {
	t.Helper()
	s, err := Stage(out)
	if err != nil {
		return err
	}
	defer s.Abort()
	writeDir(t, s.Dir, 1)
	return s.Commit(replace)
}

// listDir lists dir's names.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// wantWorkload asserts that dir holds a complete workload of one job.
func wantWorkload(t *testing.T, dir string) {
	t.Helper()
	if warning, err := Check(dir); warning != "" || err != nil {
		t.Errorf("%s: %q %v", dir, warning, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("%s: mode %v (%v), want 0755", dir, fi.Mode(), err)
	}
}

func TestStageCommit(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "wl")
	if err := stageDir(t, out, false); err != nil {
		t.Fatal(err)
	}
	wantWorkload(t, out)
	if names := listDir(t, parent); !slices.Equal(names, []string{"wl"}) {
		t.Errorf("left %v", names)
	}
	// A second writer is refused the non-empty output unless it replaces
	// it; either way nothing is left beside it.
	if err := stageDir(t, out, false); !errors.Is(err, ErrOutputExists) {
		t.Errorf("commit onto a workload: %v, want ErrOutputExists", err)
	}
	if err := stageDir(t, out, true); err != nil {
		t.Error(err)
	}
	wantWorkload(t, out)
	if names := listDir(t, parent); !slices.Equal(names, []string{"wl"}) {
		t.Errorf("left %v", names)
	}
	// An empty directory is no workload to protect.
	empty := filepath.Join(parent, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := stageDir(t, empty, false); err != nil {
		t.Error(err)
	}
	wantWorkload(t, empty)
}

// A killed gmark generate left .NAME.partial-N
// directories that nothing removed. The next Stage in the same directory
// removes those of dead writers (no lock) and leaves a live writer's alone.
func TestStageRemovesOnlyDeadWritersDirectories(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "wl")
	// Left by a gmark that did not lock (before this change) or was killed.
	dead := filepath.Join(parent, ".wl.partial-123")
	if err := os.MkdirAll(filepath.Join(dead, "jdf", "rsl"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeDir(t, dead, 3)
	// A live writer: its staging directory stays locked while it writes.
	live, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	// Another output's, left by a killed writer: removed too (gmark run
	// never writes to the same name twice).
	if err := os.Mkdir(filepath.Join(parent, ".run-7.partial-42"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Not staging directories: a directory, files and a link that only
	// look like one. None is touched, and the link is not followed.
	victim := t.TempDir()
	writeDir(t, victim, 1)
	if err := os.Mkdir(filepath.Join(parent, ".mine.partial-draft"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".wl2.partial-9", ".wl.partial-123-file"} {
		if err := os.WriteFile(filepath.Join(parent, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(parent, ".wl.partial-7")); err != nil {
		t.Fatal(err)
	}

	if err := stageDir(t, out, false); err != nil {
		t.Fatal(err)
	}
	got := listDir(t, parent)
	want := []string{".mine.partial-draft", ".wl.partial-123-file", ".wl.partial-7", filepath.Base(live.Dir), ".wl2.partial-9", "wl"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("after a second writer: %v, want %v", got, want)
	}
	wantWorkload(t, victim)
	// The live writer finishes after the other committed: a clean error,
	// and its staging directory goes with Abort.
	writeDir(t, live.Dir, 2)
	if err := live.Commit(false); !errors.Is(err, ErrOutputExists) {
		t.Errorf("late commit: %v", err)
	}
	live.Abort()
	if _, err := os.Stat(live.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Abort left %s: %v", live.Dir, err)
	}
}

// An output that is a symbolic link to a directory is written through: the
// link stays a link and its target gets the workload. Anything else that is
// not a directory is refused, before anything is written.
func TestResolveOutputDir(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	got, err := ResolveOutputDir(link)
	if err != nil || got != target {
		t.Fatalf("ResolveOutputDir(link) = %q, %v; want %q", got, err, target)
	}
	if err := stageDir(t, got, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	wantWorkload(t, link)

	file := filepath.Join(parent, "file")
	fifo := filepath.Join(parent, "fifo")
	sock := filepath.Join(parent, "sock")
	dangling := filepath.Join(parent, "dangling")
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Symlink("nowhere", dangling); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want string }{
		{file, "is a regular file, not a directory"},
		{fifo, "is a FIFO (named pipe), not a directory"},
		{sock, "is a socket, not a directory"},
		{"/dev/null", "is a character device, not a directory"},
		{dangling, "symbolic link to nowhere, which does not exist"},
	}
	for _, c := range cases {
		if got, err := ResolveOutputDir(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ResolveOutputDir(%s) = %q, %v; want an error with %q", c.path, got, err, c.want)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep" {
		t.Errorf("the file changed: %q %v", b, err)
	}
}

// --force replaces a workload directory, never another non-empty directory
// (a home directory given as -o by mistake).
func TestCheckOutput(t *testing.T) {
	parent := t.TempDir()
	wl := filepath.Join(parent, "wl")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(wl, 0o755))
	writeDir(t, wl, 1)
	home := filepath.Join(parent, "home")
	must(os.Mkdir(home, 0o755))
	must(os.WriteFile(filepath.Join(home, ".profile"), []byte("x"), 0o644))
	empty := filepath.Join(parent, "empty")
	must(os.Mkdir(empty, 0o755))
	cases := []struct {
		dir     string
		replace bool
		want    error
	}{
		{filepath.Join(parent, "absent"), false, nil},
		{empty, false, nil},
		{wl, false, ErrOutputExists},
		{wl, true, nil},
		{home, false, ErrOutputExists},
		{home, true, ErrNotWorkload},
	}
	for _, c := range cases {
		if err := CheckOutput(c.dir, c.replace); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("CheckOutput(%s, %v) = %v, want %v", filepath.Base(c.dir), c.replace, err, c.want)
		}
	}
	// Commit holds to the same rule when the directory appeared meanwhile.
	s, err := Stage(home)
	must(err)
	defer s.Abort()
	writeDir(t, s.Dir, 1)
	if err := s.Commit(true); !errors.Is(err, ErrNotWorkload) {
		t.Errorf("Commit over a home directory: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(home, ".profile")); err != nil || string(b) != "x" {
		t.Errorf("the home directory changed: %q %v", b, err)
	}
}

func TestIsStagingName(t *testing.T) {
	for name, want := range map[string]bool{
		".wl.partial-123": true, ".a.b.partial-0": true, "..partial-1": false, ".partial-1": false,
		".wl.partial-": false, ".wl.partial-12x": false, "wl.partial-1": false, ".wl.partial-123-4f": false, ".wl": false,
	} {
		if got := isStagingName(name); got != want {
			t.Errorf("isStagingName(%q) = %v", name, got)
		}
	}
}
