package procexec

import "golang.org/x/sys/unix"

// limitFiles caps the size of any file the process writes. The limit is
// set just after the process started, before the application has parsed
// its arguments; the files it writes come after that.
func (e *Executor) limitFiles(pid int) error {
	if e.MaxOutput <= 0 {
		return nil
	}
	lim := unix.Rlimit{Cur: uint64(e.MaxOutput), Max: uint64(e.MaxOutput)}
	return unix.Prlimit(pid, unix.RLIMIT_FSIZE, &lim, nil)
}
