//go:build unix

package store

import "golang.org/x/sys/unix"

// writable tells whether this process may write path (by its effective
// user and groups, as the open itself will be judged).
func writable(path string) bool {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS) == nil
}
