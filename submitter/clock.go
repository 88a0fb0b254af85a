package submitter

import "time"

// coarseMargin is how long before a deadline the Go timer is asked to wake
// the dispatcher; the rest is slept with fineSleep.
const coarseMargin = 2 * time.Millisecond

// sleepUntil returns at the deadline (on the monotonic clock), or as soon
// as stop is closed, in which case it reports false. t is a stopped timer
// the caller owns.
func sleepUntil(deadline time.Time, t *time.Timer, stop <-chan struct{}) bool {
	if w := time.Until(deadline) - coarseMargin; w > 0 {
		t.Reset(w)
		select {
		case <-t.C:
		case <-stop:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
			return false
		}
	}
	for {
		w := time.Until(deadline)
		if w <= 0 {
			return true
		}
		select {
		case <-stop:
			return false
		default:
		}
		fineSleep(w)
	}
}
