// Package filelock keeps two processes from working on the same file at
// once (two schedulers on one state, two submitters on one run). The lock
// is the kernel's (flock on a lock file), so a process killed with kill -9
// holds it no longer and the next one goes ahead; the lock file records the
// holder's pid, for the message of the one refused.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrBusy is returned by TryLock when another process holds the lock.
var ErrBusy = errors.New("in use by another process")

// BusyError is TryLock's error for a lock held elsewhere; it is ErrBusy.
type BusyError struct {
	Path string // the lock file
	Pid  string // the holder's, as it wrote it ("" if unknown)
}

func (e *BusyError) Error() string {
	pid := e.Pid
	if pid == "" {
		pid = "unknown"
	}
	return fmt.Sprintf("%v (pid %s; lock %s)", ErrBusy, pid, e.Path)
}

func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// TryLock takes the exclusive lock of the lock file at path (created if
// needed) without waiting. The error of a lock held elsewhere wraps ErrBusy
// and names the holder's pid. release gives the lock up.
func TryLock(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, &BusyError{Path: path, Pid: holder(path)}
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}

// holder is the pid the lock's holder wrote. A holder that has just taken
// the lock writes it a moment later: an empty file is read again for up to
// half a second before the pid is given as unknown ("").
func holder(path string) string {
	b := make([]byte, 32)
	for i := 0; ; i++ {
		n, _ := readHolder(path, b)
		if pid := strings.TrimSpace(string(b[:n])); pid != "" || i == 50 {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readHolder(path string, b []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Read(b)
}
