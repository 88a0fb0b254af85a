//go:build !unix

package apps

// usage is not measured on this system.
func usage() (user, sys float64, maxRSSKiB int64) { return 0, 0, 0 }
