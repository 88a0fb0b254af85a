//go:build !linux

package filelock

// dying: without /proc, a holder is taken to be alive.
func dying(int) bool { return false }
