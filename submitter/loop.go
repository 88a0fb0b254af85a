package submitter

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
)

// startLead is how far after the run is recorded its schedule starts, so
// the first submissions are not late by the submitter's own start-up.
const startLead = 100 * time.Millisecond

type atomicBool = atomic.Bool

// dispatchDone is the dispatcher's last message: every top-level job was
// handed out, or reading the workload failed (err).
type dispatchDone struct{ err error }
type cancelDone struct {
	tr  *track
	err error
}

func (r *Runner) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, format+"\n", args...)
}

// reporter is the Reporter the Runner gives its target.
type reporter struct{ r *Runner }

func (p reporter) Report(u Update) {
	r := p.r
	r.updMu.Lock()
	r.upd = append(r.upd, u)
	r.updMu.Unlock()
	select {
	case r.updNotify <- struct{}{}:
	default:
	}
}

func (p reporter) Annotate(kind, key, value string) {
	r := p.r
	a := store.Annotation{RunID: r.runID, TimeNS: time.Now().UnixNano(), Kind: kind, Key: key, Value: value, Source: r.target.Name()}
	r.rec.Add(func(tx *store.Tx) error { return tx.InsertAnnotation(a) })
	if record.LoggedAnnotation(kind) {
		r.logf("%s: %s %s", r.target.Name(), key, value)
	}
}

func (r *Runner) takeUpdates() []Update {
	r.updMu.Lock()
	u := r.upd
	r.upd = nil
	r.updMu.Unlock()
	return u
}

// loop is the one goroutine that owns the run's state: it takes submit
// results, target updates and dispatcher messages, and decides.
func (r *Runner) loop(ctx context.Context, workersDone <-chan struct{}) error {
	ticker := time.NewTicker(250 * time.Millisecond)
	defer ticker.Stop()
	var tailC <-chan time.Time
	var tailTimer *time.Timer
	defer func() {
		if tailTimer != nil {
			tailTimer.Stop()
		}
	}()
	interrupted := false
	ctxDone := ctx.Done()
	for {
		if err := r.rec.Err(); err != nil {
			r.interrupted = true
			return err
		}
		if !interrupted && r.dispatched && r.finalTops == r.w.Count {
			return nil
		}
		if !interrupted && r.dispatched && !r.inTail && r.settings.HasTail && r.awaitingFirst == 0 {
			r.inTail = true
			r.tailAt = time.Now().Add(r.settings.Tail)
			tailTimer = time.NewTimer(r.settings.Tail)
			tailC = tailTimer.C
			r.event("", 0, time.Now(), record.EventTailStart, map[string]any{"tail_ns": r.settings.Tail.Nanoseconds()})
		}
		select {
		case res := <-r.results:
			r.onResult(res)
		case <-r.updNotify:
			for _, u := range r.takeUpdates() {
				r.onUpdate(u)
			}
		case m := <-r.control:
			switch m := m.(type) {
			case dispatchDone:
				if m.err != nil {
					r.interrupted = true
					return m.err
				}
				r.dispatched = true
			}
		case c := <-r.cancels:
			r.onCancelDone(c)
		case <-tailC:
			tailC = nil
			r.expireTail()
		case <-ticker.C:
			r.progress()
		case <-ctxDone:
			// Stop submitting; let the submit calls in progress finish and
			// record their outcome, then stop. Everything else is left for
			// --resume to settle.
			interrupted = true
			r.interrupted = true
			ctxDone = nil
			r.work.Close()
		case <-workersDone:
			if interrupted {
				for {
					select {
					case res := <-r.results:
						r.onResult(res)
						continue
					default:
					}
					break
				}
				return ErrInterrupted
			}
			workersDone = nil
		}
	}
}

// onResult takes the outcome of a submit call.
func (r *Runner) onResult(res submitResult) {
	tr := res.tr
	t := tr.top
	if res.interrupted {
		return
	}
	if !t.firstSeen {
		t.firstSeen = true
		r.awaitingFirst--
	}
	now := time.Now()
	if res.skipped != "" {
		result := store.Result{Key: tr.sub.Key, RunID: r.runID, DoneNS: now.UnixNano(), Error: res.skipped}
		r.rec.Add(func(tx *store.Tx) error { return tx.InsertResult(result) })
		r.finalize(tr, neverStarted, res.skipped, now, nil, true)
		return
	}
	if res.ok {
		r.noteSubmitted(tr, res)
	}
	result := resultRecord(tr, res, now)
	r.rec.Add(func(tx *store.Tx) error { return tx.InsertResult(result) })
	if !res.ok {
		r.onSubmitFailed(tr, res, result.Error, now)
		return
	}
	r.onSubmitted(tr, res)
}

// noteSubmitted takes the time and delay of an accepted submission.
func (r *Runner) noteSubmitted(tr *track, res submitResult) {
	at := res.tOK
	if !res.receipt.Time.IsZero() {
		at = res.receipt.Time
	}
	tr.submitNS = at.UnixNano()
	if res.recovered {
		r.summary.Recovered++
		tr.delayNS, tr.hasDelay = tr.submitNS-tr.scheduledNS, true
		return
	}
	d := res.t0.Sub(tr.due)
	tr.delayNS, tr.hasDelay = int64(d), true
	if tr.scheduled {
		r.delays.Add(d)
		r.lastDelay = d
	}
}

// onSubmitFailed fails the job of a submission the target did not accept.
func (r *Runner) onSubmitFailed(tr *track, res submitResult, errText string, now time.Time) {
	r.event(tr.sub.Job.ID, tr.sub.Attempt, now, record.EventSubmitFailed, map[string]any{"error": errText, "tries": res.tries})
	reason := fmt.Sprintf("submission failed: %v", res.err)
	if res.tries > 1 {
		reason = fmt.Sprintf("submission failed after %d tries: %v", res.tries, res.err)
	}
	r.logf("%s: %s", tr.sub.Job.ID, reason)
	tr.receipt = res.receipt
	r.finalize(tr, Failed, reason, now, nil, true)
}

// onSubmitted records an accepted submission and applies the updates the
// target sent before the submit call returned.
func (r *Runner) onSubmitted(tr *track, res submitResult) {
	tr.submitted = true
	tr.receipt = res.receipt
	if len(res.receipt.Sites) > 0 {
		tr.sites = res.receipt.Sites
	}
	kind := record.EventSubmitted
	if res.recovered {
		kind = record.EventRecovered
	}
	r.event(tr.sub.Job.ID, tr.sub.Attempt, time.Unix(0, tr.submitNS), kind, map[string]any{"target_id": res.receipt.TargetID,
		"delay_ns": tr.delayNS, "tries": res.tries})
	r.counts.Submitted++
	r.setBucket(tr, bQueued)
	pending := tr.pending
	tr.pending = nil
	for _, u := range pending {
		r.apply(tr, u)
	}
	if !tr.final && r.tailExpired.Load() {
		r.cancelTrack(tr)
	}
	// A target that waits for the dependencies gets the tasks whose
	// predecessors are all submitted now.
	if t := tr.top; tr.task >= 0 && t.dag.AtTarget() && !t.final {
		r.releaseSteps(t, t.dag.Submitted(tr.task), time.Now(), false)
	}
}

// onUpdate takes a state change from the target.
func (r *Runner) onUpdate(u Update) {
	tr := r.lookup(u.Key)
	if tr == nil || tr.final {
		return
	}
	if !tr.submitted {
		tr.pending = append(tr.pending, u)
		return
	}
	r.apply(tr, u)
}

func (r *Runner) apply(tr *track, u Update) {
	if tr.final {
		return
	}
	if u.Time.IsZero() {
		u.Time = time.Now()
	}
	if len(u.Sites) > 0 {
		tr.sites = u.Sites
	}
	if u.TargetID != "" {
		tr.receipt.TargetID = u.TargetID
	}
	if ns := u.Submitted.UnixNano(); !u.Submitted.IsZero() && (tr.tsubmitNS == 0 || ns < tr.tsubmitNS) {
		tr.tsubmitNS = ns // a target seeing more of a job may learn an earlier time
	}
	var detail any
	if len(u.Detail) > 0 {
		detail = json.RawMessage(u.Detail)
	}
	id, att := tr.sub.Job.ID, tr.sub.Attempt
	switch u.State {
	case Queued:
		if tr.state == "" {
			tr.state = Queued
			r.event(id, att, u.Time, record.EventQueued, map[string]any{"detail": detail})
		}
	case Running:
		if tr.state != Running {
			tr.state = Running
			tr.startNS = u.Time.UnixNano()
			if !u.Start.IsZero() {
				tr.startNS = u.Start.UnixNano()
			}
			r.setBucket(tr, bRunning)
			r.event(id, att, u.Time, record.EventStarted, map[string]any{"start_ns": tr.startNS, "sites": tr.sites, "detail": detail})
		}
	case Succeeded, Failed, Cancelled:
		if !u.Start.IsZero() {
			tr.startNS = u.Start.UnixNano()
		}
		tr.endNS = u.Time.UnixNano()
		if !u.End.IsZero() {
			tr.endNS = u.End.UnixNano()
		}
		tr.exit = u.ExitStatus
		if u.Summary != "" {
			tr.summary = u.Summary
		}
		reason := u.Reason
		if tr.cancelling && u.State == Cancelled {
			reason = "cancelled at the end of the tail"
			if u.Reason != "" {
				reason += " (" + u.Reason + ")"
			}
		}
		r.finalizeDetail(tr, u.State, reason, u.Time, detail, true)
	}
}
