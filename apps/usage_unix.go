//go:build unix

package apps

import (
	"runtime"
	"syscall"
)

// usage is the process's user and system CPU seconds and its peak resident
// memory in KiB (ru_maxrss is in KiB on Linux and the BSDs, in bytes on
// macOS).
func usage() (user, sys float64, maxRSSKiB int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	rss := int64(ru.Maxrss)
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		rss /= 1024
	}
	return tv(ru.Utime), tv(ru.Stime), rss
}
