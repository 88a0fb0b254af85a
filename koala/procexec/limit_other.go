//go:build !linux

package procexec

// limitFiles does nothing where the kernel cannot set another process's
// limits (prlimit is Linux's): there, max_output is enforced only by
// Screen, which refuses jobs whose arguments ask for larger files.
func (e *Executor) limitFiles(int) error { return nil }
