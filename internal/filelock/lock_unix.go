//go:build unix

package filelock

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

var errWouldBlock = syscall.EAGAIN

const noFollow = syscall.O_NOFOLLOW

// setLock takes a write lock of the whole file, without waiting: EAGAIN
// (or EACCES, which POSIX allows) when another process holds one.
func setLock(f *os.File) error {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	for {
		err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EACCES:
			return errWouldBlock
		}
		return err
	}
}

// lockHolder is the pid of the process holding a lock of f (0: none, or
// not known here).
func lockHolder(f *os.File) int {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil || lk.Type == unix.F_UNLCK {
		return 0
	}
	return int(lk.Pid)
}

// fileKey is a file's identity: its device and inode.
type fileKey struct{ dev, ino uint64 }

func keyOf(fi os.FileInfo) fileKey {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}
	}
	return fileKey{uint64(st.Dev), uint64(st.Ino)}
}

func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
