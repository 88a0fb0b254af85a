//go:build unix

package filelock

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary is also the other process of these tests: run with
// GMARK_FILELOCK_HELPER set, it does what the variable says (helperMain).
func TestMain(m *testing.M) {
	if mode := os.Getenv("GMARK_FILELOCK_HELPER"); mode != "" {
		os.Exit(helperMain(mode, os.Getenv("GMARK_FILELOCK_PATH")))
	}
	os.Exit(m.Run())
}

// keep holds what a helper must not let the collector close.
var keep []any

// helperMain: "hold" takes the lock and says "locked"; "hold-fork" does
// too, after starting a child (sleep) that has the lock file open as a
// forked child has it until its exec; "count N" takes and gives up the lock
// N times, checking no one else is inside meanwhile. Then it waits to be
// killed (hold) or exits (count).
func helperMain(mode, path string) int {
	switch {
	case mode == "hold" || mode == "hold-fork":
		if _, err := TryLock(path); err != nil {
			fmt.Println("error:", err)
			return 1
		}
		if mode == "hold-fork" {
			f := lockFileDescriptor(path)
			if f == nil {
				fmt.Println("error: the lock file is not open")
				return 1
			}
			// A child that closes its copy (it exits) takes nothing
			// from the holder; one that keeps it open lives on.
			brief := exec.Command("true")
			brief.ExtraFiles = []*os.File{f}
			if err := brief.Run(); err != nil {
				fmt.Println("error:", err)
				return 1
			}
			child := exec.Command("sleep", "60")
			child.ExtraFiles = []*os.File{f}
			if err := child.Start(); err != nil {
				fmt.Println("error:", err)
				return 1
			}
			keep = append(keep, f, child)
			fmt.Println("child", child.Process.Pid)
		}
		fmt.Println("locked")
		time.Sleep(time.Hour)
		return 0
	case strings.HasPrefix(mode, "count "):
		n, _ := strconv.Atoi(strings.TrimPrefix(mode, "count "))
		inside := path + ".inside"
		for i := 0; i < n; {
			release, err := TryLock(path)
			if errors.Is(err, ErrBusy) {
				continue
			}
			if err != nil {
				fmt.Println("error:", err)
				return 1
			}
			f, err := os.OpenFile(inside, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				fmt.Println("two holders at once:", err)
				return 1
			}
			f.Close()
			os.Remove(inside)
			release()
			i++
		}
		return 0
	}
	fmt.Println("error: no helper mode", mode)
	return 2
}

// lockFileDescriptor finds the descriptor this process has open on path
// (by /proc/self/fd), whatever opened it.
func lockFileDescriptor(path string) *os.File {
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == path {
			fd, _ := strconv.Atoi(e.Name())
			return os.NewFile(uintptr(fd), path)
		}
	}
	return nil
}

// helper is a helper process, killed (by pid) at the end of the test.
type helper struct {
	cmd   *exec.Cmd
	lines *bufio.Scanner
	child int
}

func startHelper(t *testing.T, mode, path string) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GMARK_FILELOCK_HELPER="+mode, "GMARK_FILELOCK_PATH="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, lines: bufio.NewScanner(out)}
	t.Cleanup(func() {
		syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		if h.child > 0 {
			syscall.Kill(h.child, syscall.SIGKILL)
		}
		cmd.Wait()
	})
	return h
}

// waitLocked reads the helper's lines until it says it holds the lock.
func (h *helper) waitLocked(t *testing.T) {
	t.Helper()
	for h.lines.Scan() {
		line := h.lines.Text()
		if c, ok := strings.CutPrefix(line, "child "); ok {
			h.child, _ = strconv.Atoi(c)
			continue
		}
		if line == "locked" {
			return
		}
		t.Fatalf("helper: %s", line)
	}
	t.Fatal("the helper ended before it took the lock")
}

func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	release, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	// A second holder, even in the same process (another open file), is
	// refused with the first's pid, at once.
	t0 := time.Now()
	if _, err := TryLock(path); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	if d := time.Since(t0); d >= grace {
		t.Errorf("a lock this process holds was refused after %v, not at once", d)
	}
	release()
	// Released, the lock file is gone; a second release does nothing.
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after release the lock file is still there: %v", err)
	}
	release()
	release2, err := TryLock(path)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	release2()
}

// A lock file that is a symbolic link is refused, and the file it names is
// not touched (a lock file's content is replaced by its holder's pid).
func TestLockFileSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "precious")
	os.WriteFile(victim, []byte("keep me\n"), 0o644)
	path := filepath.Join(dir, "x.lock")
	os.Symlink(victim, path)
	if release, err := TryLock(path); err == nil {
		release()
		t.Fatal("a symbolic link as lock file was taken")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Fatalf("the file the link names was changed: %q", b)
	}
}

// A holder in another process is named by its pid; killed with kill -9, it
// holds the lock no longer, even before it is reaped.
func TestLockDiesWithItsProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	h := startHelper(t, "hold", path)
	h.waitLocked(t)
	_, err := TryLock(path)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Pid != strconv.Itoa(h.cmd.Process.Pid) {
		t.Fatalf("held by pid %d: %v", h.cmd.Process.Pid, err)
	}
	if err := syscall.Kill(h.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not reaped: TryLock waits while the holder exits.
	release, err := TryLock(path)
	if err != nil {
		t.Fatalf("after kill -9 of the holder: %v", err)
	}
	release()
}

// A child of the holder that has the lock file open, as a child has it
// between its fork and its exec, does not hold the lock: once the holder
// is killed, the lock is free while the child lives on. Nor does a child
// closing its copy (at its exec, or its exit) drop the holder's lock.
func TestLockNotHeldByAForkedChild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	h := startHelper(t, "hold-fork", path)
	h.waitLocked(t)
	if h.child == 0 {
		t.Fatal("the helper named no child")
	}
	// Children closing their copies took nothing from the holder.
	if _, err := TryLock(path); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d;", h.cmd.Process.Pid)) {
		t.Fatalf("held by pid %d, whose child closed the file: %v", h.cmd.Process.Pid, err)
	}
	syscall.Kill(h.cmd.Process.Pid, syscall.SIGKILL)
	h.cmd.Wait()
	if err := syscall.Kill(h.child, 0); err != nil {
		t.Fatalf("the child is gone: %v", err)
	}
	release, err := TryLock(path)
	if err != nil {
		t.Fatalf("with the holder dead and its child alive: %v", err)
	}
	release()
}

// Processes that take and give up one lock over and over, each release
// removing the lock file, are never inside together.
func TestReleaseRemovesSafely(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	var hs []*helper
	for range 3 {
		hs = append(hs, startHelper(t, "count 150", path))
	}
	for i, h := range hs {
		var out []string
		for h.lines.Scan() {
			out = append(out, h.lines.Text())
		}
		if err := h.cmd.Wait(); err != nil {
			t.Errorf("helper %d: %v: %s", i, err, strings.Join(out, "; "))
		}
	}
}

// Every name of a file leads to its one lock: through a symbolic link (of
// the file or of its directory) the lock is the same; a file with two hard
// links, or a link to nothing, is refused.
func TestForFileThroughLinks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "state.db")
	os.WriteFile(db, nil, 0o644)
	release, err := ForFile(db, ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := os.Stat(db + ".lock"); err != nil {
		t.Fatalf("no lock beside the file: %v", err)
	}
	other := t.TempDir()
	link := filepath.Join(other, "link.db")
	os.Symlink(db, link)
	dirLink := filepath.Join(other, "d")
	os.Symlink(dir, dirLink)
	for _, name := range []string{link, filepath.Join(dirLink, "state.db")} {
		if _, err := ForFile(name, ".lock"); !errors.Is(err, ErrBusy) {
			t.Errorf("%s: %v, want busy", name, err)
		}
	}
	hard := filepath.Join(other, "hard.db")
	if err := os.Link(db, hard); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{hard, db, link} {
		_, err := ForFile(name, ".lock")
		var le *LinkedError
		if !errors.As(err, &le) || le.Links != 2 || !strings.Contains(err.Error(), name+" has 2 names (hard links)") {
			t.Errorf("%s: %v, want it refused for its two names", name, err)
		}
		if err := CheckLinks(name); !errors.Is(err, ErrLinked) {
			t.Errorf("CheckLinks(%s): %v", name, err)
		}
	}
	dangling := filepath.Join(other, "dangling.db")
	os.Symlink(filepath.Join(other, "nothing.db"), dangling)
	if _, err := ForFile(dangling, ".lock"); err == nil || !strings.Contains(err.Error(), "symbolic link to nothing") {
		t.Errorf("a link to nothing: %v", err)
	}
	// A file not made yet is locked by its future name, through its
	// directory's links.
	r1, err := ForFile(filepath.Join(dirLink, "new.db"), ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer r1()
	if _, err := ForFile(filepath.Join(dir, "new.db"), ".lock"); !errors.Is(err, ErrBusy) {
		t.Errorf("a new file by two paths: %v, want busy", err)
	}
}

func TestDying(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if dying(os.Getpid()) {
		t.Fatal("this process is dying")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	if dying(pid) {
		t.Fatal("a sleeping process is dying")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for !dying(pid) { // pending SIGKILL, exiting, then a zombie till reaped
		if time.Now().After(deadline) {
			t.Fatal("a killed process never looked dying")
		}
		time.Sleep(time.Millisecond)
	}
}
