package submitter

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// The dispatcher writes the intent records of the jobs due soon ahead of
// time (up to lookaheadJobs jobs, or lookaheadTime of schedule), so that at
// a job's instant its record is long committed and handing it to a worker
// is all that is left to do.
const (
	lookaheadJobs = 256
	lookaheadTime = time.Second
)

type ahead struct {
	t     *top
	tr    *track   // a unitary job's submission
	roots []*track // a composite job's first tasks
}

// dispatch walks the schedule in order and hands each top-level job's
// first submissions to the workers handAhead before its instant; the worker
// that takes one sleeps to the instant (sleepUntil). The instants come
// from the schedule, not from the previous wake-up, so delays do not drift
// with the number of jobs.
func (r *Runner) dispatch(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	stop := ctx.Done()
	src, err := r.stream()
	var window []ahead
	for err == nil {
		window, err = r.fillWindow(window, src)
		if len(window) == 0 {
			break
		}
		a := window[0]
		window[0] = ahead{}
		window = window[1:]
		if r.slots != nil {
			select {
			case r.slots <- struct{}{}:
				a.t.slot = true
			case <-stop:
				return
			}
		}
		if !wakeAt(a.t.due.Add(-handAhead), timer, stop) {
			return
		}
		subs := a.roots
		if a.tr != nil {
			subs = []*track{a.tr}
		}
		for _, tr := range subs {
			if r.rec.Wait(tr.intentSeq) != nil {
				return
			}
			tr.handed = true
			r.work.Push(tr)
		}
	}
	select {
	case r.control <- dispatchDone{err: err}:
	case <-stop:
	}
}

// fillWindow adds to the window the jobs due soon, read from src, and
// returns it; a job read that is not due soon is held in src for the next
// call.
func (r *Runner) fillWindow(window []ahead, src *jobSource) ([]ahead, error) {
	now := time.Now()
	for len(window) < lookaheadJobs {
		t, err := r.nextTop(src)
		if t == nil || err != nil {
			return window, err
		}
		due, schedNS := r.dueOf(t.job.Submit)
		if len(window) > 0 && due.Sub(now) > lookaheadTime {
			src.held = t
			break
		}
		t.due, t.scheduledNS = due, schedNS
		r.addLive(t)
		window = append(window, r.prepare(t, due, schedNS))
	}
	return window, nil
}

// nextTop is the next top-level job to dispatch (nil after the last one):
// on resume, the jobs handled before are skipped and those whose outcome
// is unknown are the ones restored.
func (r *Runner) nextTop(src *jobSource) (*top, error) {
	if t := src.held; t != nil {
		src.held = nil
		return t, nil
	}
	for {
		j, idx, err := src.Next()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if r.skip.has(idx) {
			continue
		}
		if t := r.restored[idx]; t != nil {
			delete(r.restored, idx)
			return t, nil
		}
		return &top{job: j, idx: idx}, nil
	}
}

// prepare makes the first submissions of top-level job t, due at due, and
// queues their intents.
func (r *Runner) prepare(t *top, due time.Time, schedNS int64) ahead {
	a := ahead{t: t}
	if t.job.Kind == workload.Composite {
		// The DAG is made here and handed to the loop with the first
		// submissions of its tasks.
		t.dag = NewDAG(t.job, r.settings.Retries)
		if r.caps.Dependencies {
			t.dag.TargetDependencies()
		}
		r.recordDAG(t.job, due)
		t.tasks = make([]*track, len(t.job.Tasks))
		for _, st := range t.dag.Start() {
			tr := r.newTrack(t, st.Task, &t.job.Tasks[st.Task], st.Attempt, due, schedNS)
			tr.scheduled = true
			t.tasks[st.Task] = tr
			a.roots = append(a.roots, tr)
		}
		return a
	}
	if t.recoverTr != nil {
		a.tr = t.recoverTr
		a.tr.due, a.tr.scheduledNS = due, schedNS
		r.register(a.tr)
	} else {
		a.tr = r.newTrack(t, -1, t.job, 1, due, schedNS)
	}
	a.tr.scheduled = true
	t.tr = a.tr
	return a
}

// worker makes submit calls, one at a time.
func (r *Runner) worker(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		tr, ok := r.work.Pop()
		if !ok {
			return
		}
		if ctx.Err() != nil {
			continue // interrupted: its intent is recorded, --resume settles it
		}
		if r.rec.Wait(tr.intentSeq) != nil {
			continue // the loop stops the run
		}
		release := func() {}
		if tr.handed {
			var due bool
			if release, due = sleepUntil(tr.due, ctx.Done()); !due {
				release()
				continue // interrupted before its instant: as above
			}
		}
		res := submitResult{tr: tr, skipped: "the tail expired before it was submitted"}
		if !r.tailExpired.Load() {
			res = r.submit(ctx, tr)
		}
		release()
		select {
		case r.results <- res:
		case <-r.loopDone: // the run stopped (the store failed)
			return
		}
	}
}

// submit makes one submission: Find first when it is being recovered, then
// Submit, retrying transient errors with exponential backoff (and asking
// Find before each retry, when the target can, so a call that got through
// before failing is not repeated).
func (r *Runner) submit(ctx context.Context, tr *track) submitResult {
	// A call in progress is finished even when the run is interrupted, so
	// its outcome is known and recorded.
	sctx := context.WithoutCancel(ctx)
	res := submitResult{tr: tr}
	backoff := r.settings.Backoff
	find := r.caps.Find
	mustFind := tr.recover && find
	var submitErr error     // the last submit call's error
	var firstFail time.Time // the first transient failure
	fail := func(err error) submitResult {
		res.err = err
		if submitErr != nil && err != submitErr {
			res.err = fmt.Errorf("%w (then could not check whether it got through: %v)", submitErr, err)
		}
		return res
	}
	for {
		t := time.Now()
		if res.t0.IsZero() {
			res.t0 = t
		}
		if mustFind {
			rc, found, err := r.target.Find(sctx, &tr.sub)
			if err == nil && found {
				res.ok, res.receipt, res.recovered, res.tOK, res.err = true, rc, true, t, nil
				return res
			}
			if err == nil {
				mustFind = false
				t = time.Now()
			} else {
				// Not knowing whether an earlier call got through, do not
				// submit: ask again later.
				res.tries++
				if firstFail.IsZero() {
					firstFail = t
				}
				if !r.settings.retryMore(res.tries, firstFail) || !target.IsTransient(err) && res.tries > max(r.settings.SubmitRetries, 0) {
					return fail(err)
				}
				if !r.backoff(ctx, tr, res.tries, err, &backoff) {
					res.interrupted = true
					return res
				}
				continue
			}
		}
		rc, err := r.target.Submit(sctx, &tr.sub)
		res.tries++
		if err == nil {
			res.ok, res.receipt, res.tOK, res.err = true, rc, t, nil
			return res
		}
		submitErr, res.receipt = err, rc
		if firstFail.IsZero() {
			firstFail = t
		}
		if !target.IsTransient(err) || !r.settings.retryMore(res.tries, firstFail) {
			return fail(err)
		}
		if !r.backoff(ctx, tr, res.tries, err, &backoff) {
			res.interrupted = true
			return res
		}
		mustFind = find
	}
}

// backoff records a retry and waits; false when interrupted.
func (r *Runner) backoff(ctx context.Context, tr *track, try int, err error, backoff *time.Duration) bool {
	r.retries.Add(1)
	wait := *backoff
	r.event(tr.sub.Job.ID, tr.sub.Attempt, time.Now(), record.EventRetry, map[string]any{"try": try, "error": err.Error(), "backoff_ns": wait.Nanoseconds()})
	r.logf("%s: submit failed (%v); retrying in %s", tr.sub.Job.ID, err, wait)
	*backoff *= 2
	if *backoff > r.settings.MaxBackoff {
		*backoff = r.settings.MaxBackoff
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
