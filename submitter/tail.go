package submitter

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// expireTail cancels everything left when the tail is over.
func (r *Runner) expireTail() {
	r.tailExpired.Store(true)
	r.event("", 0, time.Now(), record.EventTailExpired, nil)
	left := 0
	var toCancel []*track
	for _, t := range r.liveTops() {
		if !t.final {
			left++
			toCancel = append(toCancel, r.expireTop(t)...)
		}
	}
	if left > 0 {
		r.logf("tail of %s expired: cancelling %d jobs", r.settings.Tail, left)
	}
	r.cancelTracks(toCancel)
}

// expireTop ends a top-level job at the end of the tail: its tasks not yet
// released never will be; it returns its submissions to cancel.
func (r *Runner) expireTop(t *top) []*track {
	if t.final {
		return nil
	}
	if t.job.Kind != workload.Composite {
		if t.tr != nil && t.tr.submitted && !t.tr.final {
			return []*track{t.tr}
		}
		return nil
	}
	if t.dag == nil {
		return nil // not yet released: it will be, and expire then
	}
	r.skipTasks(t, t.dag.Cancel("the tail expired before it was released"), time.Now())
	var out []*track
	for _, tr := range t.tasks {
		if tr != nil && tr.submitted && !tr.final {
			out = append(out, tr)
		}
	}
	r.checkComposite(t)
	return out
}

// cancelTrack asks the target to cancel one submitted job.
func (r *Runner) cancelTrack(tr *track) { r.cancelTracks([]*track{tr}) }

// cancelTracks asks the target to cancel submitted jobs: the queued ones
// first, then the running ones, so that killing a running job does not
// make room for a queued one to start just before it is cancelled. At most
// cancelParallel calls are made at once.
func (r *Runner) cancelTracks(trs []*track) {
	var queued, running []*track
	for _, tr := range trs {
		if tr.cancelling || tr.final {
			continue
		}
		tr.cancelling = true
		if !r.caps.Cancel {
			r.finalize(tr, Cancelled, "the tail expired; the target cannot cancel jobs, so it may still run", time.Now(), nil, true)
			continue
		}
		if tr.state == Running {
			running = append(running, tr)
		} else {
			queued = append(queued, tr)
		}
	}
	if len(queued)+len(running) == 0 {
		return
	}
	go func() {
		for _, phase := range [][]*track{queued, running} {
			var wg sync.WaitGroup
			sem := make(chan struct{}, cancelParallel)
			for _, tr := range phase {
				wg.Add(1)
				sem <- struct{}{}
				go func(tr *track) {
					defer wg.Done()
					defer func() { <-sem }()
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					err := r.target.Cancel(ctx, &tr.sub)
					select {
					case r.cancels <- cancelDone{tr, err}:
					case <-r.loopDone:
					}
				}(tr)
			}
			wg.Wait()
		}
	}()
}

// cancelParallel bounds the cancel calls in progress.
const cancelParallel = 8

func (r *Runner) onCancelDone(c cancelDone) {
	if c.tr.final {
		return
	}
	reason := "cancelled at the end of the tail"
	if c.err != nil {
		reason += fmt.Sprintf(" (cancel failed: %v; the job may still run)", c.err)
	}
	now := time.Now()
	if c.tr.startNS != 0 {
		c.tr.endNS = now.UnixNano()
	}
	r.finalize(c.tr, Cancelled, reason, now, nil, true)
}
