//go:build !linux

package submitter

import "time"

func preciseThread() (release func(), raised bool) { return func() {}, false }

func fineSleep(d time.Duration) { time.Sleep(d) }
