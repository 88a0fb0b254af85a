//go:build unix

package workload

import (
	"os"
	"syscall"
)

// haveLocks tells that staging directories are locked by their writers, so
// that the dead writers' ones can be told apart and removed.
const haveLocks = true

// lockDir takes an exclusive flock on dir, waiting for it: the short
// critical sections of Stage and Commit.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// tryLock takes an exclusive flock on f without waiting; it fails when
// another open file holds one. The lock lasts until f is closed.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
