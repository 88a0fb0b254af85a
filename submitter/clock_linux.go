package submitter

import (
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// preciseThread pins the calling goroutine to its OS thread and asks the
// kernel for the finest timer slack on it, so that the short sleeps of
// sleepUntil end within tens of microseconds of their deadline. It returns
// the function that undoes the pinning.
func preciseThread() (release func()) {
	runtime.LockOSThread()
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err == nil {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	}
	return func() {
		if err == nil {
			_ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
		}
		runtime.UnlockOSThread()
	}
}

// fineSleep sleeps d in the kernel, blocking the thread: Go's timers wake
// up to a millisecond late (the poller's timeout is in milliseconds), which
// is the whole delay budget at 1,000 jobs/s.
func fineSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
