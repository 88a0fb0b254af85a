// Package filelock keeps two processes from working on the same file at
// once (two schedulers on one state, two submitters on one run, two sweeps
// on one store).
//
// The lock is the kernel's: a POSIX record lock (fcntl F_SETLK) on a lock
// file, so a process killed with kill -9 holds it no longer. A record lock
// belongs to the process that took it, not to its open file: a child the
// holder forked does not hold it, even between its fork and its exec (a
// flock would stay held by such a child after its parent's death). Two
// consequences shape the code: locks of one process do not exclude each
// other (a table of the locks this process holds does), and closing any
// descriptor of a locked file drops the lock (the package never closes one
// while the lock is held, and no one else may open a held lock file).
//
// ForFile locks a file, not a name: the target is resolved through its
// symbolic links, and a file with more than one hard link is refused
// (ErrLinked), so every name of a file leads to the same lock. release gives
// the lock up and removes the lock file: a taker checks, once it holds the
// lock, that the file it locked is still the one at the path, so a lock
// file removed under it is never taken twice.
package filelock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gmark/gmark/internal/readlimit"
)

// ErrBusy is returned by TryLock when another process holds the lock.
var ErrBusy = errors.New("in use by another process")

// BusyError is TryLock's error for a lock held elsewhere; it is ErrBusy.
type BusyError struct {
	Path string // the lock file
	Pid  string // the holder's ("" if unknown)
}

func (e *BusyError) Error() string {
	pid := e.Pid
	if pid == "" {
		pid = "unknown"
	}
	return fmt.Sprintf("%v (pid %s; lock %s)", ErrBusy, pid, e.Path)
}

func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// ErrLinked is ForFile's error for a file with more than one hard link.
var ErrLinked = errors.New("the file has more than one name (hard links)")

// LinkedError is ErrLinked, naming the file and its number of links.
type LinkedError struct {
	Path  string
	Links uint64
}

func (e *LinkedError) Error() string {
	return fmt.Sprintf("%s has %d names (hard links): a process given another of them would take a lock of its own "+
		"and work on the same file at once; give the file one name (remove the other links, or work on a copy)", e.Path, e.Links)
}

func (e *LinkedError) Is(target error) bool { return target == ErrLinked }

// ExitCode is 2: a file of several names is bad input, and a command line
// that asks its errors for an exit code (urfave/cli's ExitCoder) says so.
func (e *LinkedError) ExitCode() int { return 2 }

// How long TryLock waits before it says a lock is busy: a holder that was
// just killed gives the lock up when its last thread has closed its files,
// which can take a moment after kill(2) returned (its memory is unmapped
// first). TryLock waits grace in any case, and up to dyingWait while the
// holder is exiting (on Linux, as /proc tells).
var (
	grace     = 200 * time.Millisecond
	dyingWait = 10 * time.Second
)

// TryLock takes the exclusive lock of the lock file at path (created if
// needed; a symbolic link there is refused) without waiting for a live
// holder. The error of a lock held elsewhere wraps ErrBusy and names the
// holder's pid. release gives the lock up and removes the lock file.
func TryLock(path string) (release func(), err error) {
	start := time.Now()
	for {
		release, busy, err := tryOnce(path)
		if busy == nil {
			return release, err
		}
		pid, _ := strconv.Atoi(busy.Pid)
		waited := time.Since(start)
		if pid == os.Getpid() || waited >= dyingWait || waited >= grace && !(pid > 0 && dying(pid)) {
			return nil, busy
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ForFile takes the lock of the file target, which need not exist yet: the
// lock file is the target's real path (through every symbolic link) with
// suffix added. A target with more than one hard link is refused
// (*LinkedError), and so is a symbolic link to nothing: under another name
// the same file would get another lock.
func ForFile(target, suffix string) (release func(), err error) {
	real, err := RealPath(target)
	if err != nil {
		return nil, err
	}
	return TryLock(real + suffix)
}

// RealPath is the path of the file target names, through every symbolic
// link (the target itself may not exist yet, its directory must). A regular
// file with more than one hard link is refused (*LinkedError), and so is a
// symbolic link to nothing.
func RealPath(target string) (string, error) {
	if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
		dir, err := filepath.EvalSymlinks(filepath.Dir(target))
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, filepath.Base(target)), nil
	} else if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(target)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is a symbolic link to nothing: give the file it should name", target)
	}
	if _, serr := os.Stat(target); err != nil && errors.Is(serr, syscall.ELOOP) {
		return "", readlimit.Check(target) // "open PATH: a loop of symbolic links, …"
	}
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if n := links(fi); fi.Mode().IsRegular() && n > 1 {
		return "", &LinkedError{Path: target, Links: n}
	}
	return real, nil
}

// CheckLinks refuses a regular file with more than one hard link
// (*LinkedError); a missing file, or another kind, passes.
func CheckLinks(path string) error {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if n := links(fi); n > 1 {
		return &LinkedError{Path: path, Links: n}
	}
	return nil
}

// held is the table of the locks this process holds, by lock file: the
// kernel's record locks do not exclude each other within a process.
var (
	mu   sync.Mutex
	held = map[fileKey]*lock{}
)

type lock struct {
	path  string
	key   fileKey
	f     *os.File
	extra []*os.File // other descriptors of the file, closed with f: closing one drops the lock
}

// tryOnce makes one attempt; busy is set when the lock is held.
func tryOnce(path string) (release func(), busy *BusyError, err error) {
	mu.Lock()
	defer mu.Unlock()
	self := &BusyError{Path: path, Pid: strconv.Itoa(os.Getpid())}
	for range 100 {
		if fi, err := os.Lstat(path); err == nil && held[keyOf(fi)] != nil {
			return nil, self, nil
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o644)
		if err != nil {
			return nil, nil, err
		}
		fi, err := f.Stat()
		if err == nil && !fi.Mode().IsRegular() {
			err = errors.New("not a regular file")
		}
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		key := keyOf(fi)
		if l := held[key]; l != nil { // the path changed to a held lock's file in between
			l.extra = append(l.extra, f)
			return nil, self, nil
		}
		if err := setLock(f); err != nil {
			if errors.Is(err, errWouldBlock) {
				b := &BusyError{Path: path, Pid: holder(f)}
				f.Close()
				return nil, b, nil
			}
			f.Close()
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		// A holder's release removes the file: a file taken after that is
		// no longer the one at the path, and its lock excludes no one.
		if now, err := os.Lstat(path); err != nil || !os.SameFile(now, fi) {
			f.Close()
			continue
		}
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		l := &lock{path: path, key: key, f: f}
		held[key] = l
		return l.release, nil, nil
	}
	return nil, nil, fmt.Errorf("%s: the lock file was replaced 100 times while it was being taken", path)
}

// release removes the lock file, if it is still the one locked, then gives
// the lock up; a second call does nothing.
func (l *lock) release() {
	mu.Lock()
	defer mu.Unlock()
	if held[l.key] != l {
		return
	}
	delete(held, l.key)
	if fi, err := os.Lstat(l.path); err == nil && keyOf(fi) == l.key {
		_ = os.Remove(l.path)
	}
	for _, f := range l.extra {
		f.Close()
	}
	l.f.Close()
}

// holder is the pid holding f's lock: the kernel's answer, or, when it has
// none (a holder in another pid namespace), the pid the holder wrote.
func holder(f *os.File) string {
	if pid := lockHolder(f); pid > 0 {
		return strconv.Itoa(pid)
	}
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	return strings.TrimSpace(string(b[:n]))
}
