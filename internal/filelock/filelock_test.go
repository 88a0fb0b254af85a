//go:build unix

package filelock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	release, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	// A second holder, even in the same process (another open file), is
	// refused with the first's pid.
	if _, err := TryLock(path); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	release()
	release2, err := TryLock(path)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	release2()
}

// A holder killed with kill -9 holds the lock no longer.
func TestLockDiesWithItsProcess(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) to hold the lock from another process")
	}
	path := filepath.Join(t.TempDir(), "x.lock")
	// -o: flock(1) itself holds the lock, not the sleep it starts; both
	// are in a process group of their own, killed whole.
	holder := exec.Command("flock", "-x", "-o", path, "sleep", "60")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := holder.Process.Pid
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(20 * time.Second)
	for {
		release, err := TryLock(path)
		if errors.Is(err, ErrBusy) {
			break
		}
		if err == nil {
			release()
		}
		if time.Now().After(deadline) {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	release, err := TryLock(path)
	if err != nil {
		t.Fatalf("after kill -9 of the holder: %v", err)
	}
	release()
}

// A holder that has taken the lock but not yet written its pid: the one
// refused waits for the pid rather than naming an empty one, and says
// "unknown" if none comes.
func TestBusyBeforeThePidIsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := tryLock(f); err != nil { // the lock, and no pid yet
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		f.WriteAt([]byte("4242\n"), 0)
	}()
	_, err = TryLock(path)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Pid != "4242" {
		t.Fatalf("%v: want the pid written after the lock was taken", err)
	}
	f.Truncate(0)
	if _, err = TryLock(path); !errors.As(err, &busy) || busy.Pid != "" || !strings.Contains(err.Error(), "pid unknown") {
		t.Fatalf("%v: want an unknown pid", err)
	}
}
