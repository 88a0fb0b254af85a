//go:build !linux

package submitter

import "time"

func preciseThread() (release func()) { return func() {} }

func fineSleep(d time.Duration) { time.Sleep(d) }
