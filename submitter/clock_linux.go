package submitter

import (
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// preciseThread pins the calling goroutine to its OS thread, asks the
// kernel for the finest timer slack on it, and, where the process may
// (CAP_SYS_NICE or RLIMIT_RTPRIO), puts the thread in the lowest real-time
// class (SCHED_FIFO, priority 1) with SCHED_RESET_ON_FORK: a thread that
// sleeps in that class is run as soon as it wakes, whatever the load of
// ordinary processes (a nice value would not do: with autogroups it only
// orders the threads of one session), and a process started from it does
// not inherit the class. raised says whether it was put in that class.
// release undoes all of it. The work done in the class is one submission
// (the target's calls are short, or wait on a process or the network), so
// that its delay is not that of an ordinary thread on a loaded machine.
func preciseThread() (release func(), raised bool) {
	runtime.LockOSThread()
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err == nil {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	}
	prev, gerr := unix.SchedGetAttr(0, 0)
	if gerr == nil {
		rt := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Flags: unix.SCHED_FLAG_RESET_ON_FORK, Priority: 1}
		raised = unix.SchedSetAttr(0, &rt, 0) == nil
	}
	return func() {
		if err == nil {
			_ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
		}
		if raised && unix.SchedSetAttr(0, prev, 0) != nil {
			// Leaving the class is always allowed; should it fail, the
			// thread stays pinned to this goroutine (and ends with it)
			// rather than run the runtime's other goroutines.
			return
		}
		runtime.UnlockOSThread()
	}, raised
}

// fineSleep sleeps d in the kernel, blocking the thread: Go's timers wake
// up to a millisecond late (the poller's timeout is in milliseconds), which
// is the whole delay budget at 1,000 jobs/s.
func fineSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
