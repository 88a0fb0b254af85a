//go:build !unix

package store

import "os"

// writable tells whether path's permission bits allow writing; without
// access(2), this is the closest test.
func writable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Perm()&0o222 != 0
}
