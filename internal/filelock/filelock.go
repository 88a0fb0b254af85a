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
)

// ErrBusy is returned by TryLock when another process holds the lock.
var ErrBusy = errors.New("in use by another process")

// BusyError is TryLock's error for a lock held elsewhere; it is ErrBusy.
type BusyError struct {
	Path string // the lock file
	Pid  string // the holder's, as it wrote it ("" if unknown)
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%v (pid %s; lock %s)", ErrBusy, e.Pid, e.Path)
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
			b := make([]byte, 32)
			n, _ := readHolder(path, b)
			return nil, &BusyError{Path: path, Pid: strings.TrimSpace(string(b[:n]))}
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}

func readHolder(path string, b []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Read(b)
}
