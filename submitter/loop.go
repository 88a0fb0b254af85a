package submitter

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

// startLead is how far after the run is recorded its schedule starts, so
// the first submissions are not late by the submitter's own start-up.
const startLead = 100 * time.Millisecond

// neverStarted is the internal state of a submission that was not made
// (the tail expired first); it is recorded as never-started.
const neverStarted State = "never-started"

type atomicBool = atomic.Bool

// top is one top-level job of the workload.
type top struct {
	job         *workload.Job
	idx         int
	due         time.Time // set by the dispatcher (or on resume)
	scheduledNS int64
	handled     bool   // on resume: dispatched before; the dispatcher skips it
	recoverTr   *track // on resume: dispatched before, outcome unknown: dispatch this track again
	slot        bool   // holds a max-in-flight slot

	// Loop-owned.
	tr        *track   // a unitary job's submission
	dag       *DAG     // a composite job's executor
	tasks     []*track // a composite job's current submission per task
	final     bool
	firstSeen bool // a submission of it has been made (or it is final)
	// Aggregates over the tasks of a composite job, for its row.
	aggSubmit, aggStart, aggEnd, aggDelay, aggTSubmit int64
	aggHasDelay                                       bool
}

// track is one submission (a job or task attempt) from intent to outcome.
type track struct {
	sub         Submission
	top         *top
	task        int // index in the composite job's tasks; -1 for a unitary job
	due         time.Time
	scheduledNS int64
	scheduled   bool // due by the schedule (its delay counts in the statistics)
	recover     bool // its intent is recorded from an earlier process: Find before submitting
	intentSeq   uint64

	// Loop-owned.
	submitted  bool
	receipt    Receipt
	submitNS   int64
	delayNS    int64
	hasDelay   bool
	state      State // "" until the target says queued
	startNS    int64
	endNS      int64
	tsubmitNS  int64 // the target's own submit time
	exit       *int
	summary    string
	sites      []string
	pending    []Update
	final      bool
	cancelling bool
	bucket     int
}

type submitResult struct {
	tr          *track
	ok          bool
	receipt     Receipt
	t0          time.Time // the first submit call (or Find) began
	tOK         time.Time // the successful call began
	tries       int
	err         error
	recovered   bool
	skipped     string // not submitted, and why
	interrupted bool   // stopped by an interrupt before an outcome: leave it to --resume
}

type dispatchDone struct{}
type cancelDone struct {
	tr  *track
	err error
}

// Progress buckets of a track.
const (
	bNone = iota
	bPending
	bQueued
	bRunning
	bSucceeded
	bFailed
	bCancelled
)

func (r *Runner) setBucket(tr *track, b int) {
	dec := func(b int, d int) {
		switch b {
		case bPending:
			r.counts.Pending += d
		case bQueued:
			r.counts.Queued += d
		case bRunning:
			r.counts.Running += d
		case bSucceeded:
			r.counts.Succeeded += d
		case bFailed:
			r.counts.Failed += d
		case bCancelled:
			r.counts.Cancelled += d
		}
	}
	dec(tr.bucket, -1)
	tr.bucket = b
	dec(b, 1)
}

func (r *Runner) dueOf(offset time.Duration) (time.Time, int64) {
	d := time.Duration(float64(offset) / r.settings.Speedup)
	return r.anchor.Add(d), r.anchorNS + int64(d)
}

func (r *Runner) register(tr *track) {
	r.regMu.Lock()
	r.reg[tr.sub.Key] = tr
	r.regMu.Unlock()
}

func (r *Runner) lookup(key string) *track {
	r.regMu.Lock()
	defer r.regMu.Unlock()
	return r.reg[key]
}

func (r *Runner) unregister(key string) {
	r.regMu.Lock()
	delete(r.reg, key)
	r.regMu.Unlock()
}

// newTrack makes a submission of job j (task index task of t, or -1) and
// queues its intent record.
func (r *Runner) newTrack(t *top, task int, j *workload.Job, attempt int, due time.Time, schedNS int64) *track {
	parent := ""
	if task >= 0 {
		parent = t.job.ID
	}
	tr := &track{sub: Submission{Key: Key(r.runID, j.ID, attempt), RunID: r.runID, Job: j, Attempt: attempt, ParentID: parent},
		top: t, task: task, due: due, scheduledNS: schedNS}
	r.register(tr)
	intent := store.Submission{Key: tr.sub.Key, RunID: r.runID, JobID: j.ID, ParentID: parent, Attempt: attempt,
		ScheduledNS: schedNS, IntentNS: time.Now().UnixNano()}
	tr.intentSeq = r.rec.Add(func(tx *store.Tx) error { return tx.InsertSubmission(intent) })
	return tr
}

// event queues an event record.
func (r *Runner) event(jobID string, attempt int, when time.Time, kind string, payload any) {
	e := store.Event{RunID: r.runID, JobID: jobID, Attempt: attempt, TimeNS: when.UnixNano(), Kind: kind, Payload: toJSON(payload)}
	r.rec.Add(func(tx *store.Tx) error { return tx.InsertEvent(e) })
}

func toJSON(v any) string {
	if v == nil {
		return "{}"
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	return string(b)
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
	if kind == "target-error" || kind == "target-recovered" {
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

// run is the body of Run once the run (or resume) is prepared.
func (r *Runner) run(ctx context.Context) (*Summary, error) {
	r.rec = NewRecorder(r.st)
	r.reg = make(map[string]*track)
	r.work = newFIFO[*track]()
	r.results = make(chan submitResult, 4*r.settings.Workers)
	r.control = make(chan any, 256)
	r.updNotify = make(chan struct{}, 1)
	r.cancels = make(chan cancelDone, 64)
	r.loopDone = make(chan struct{})
	if r.settings.MaxInFlight > 0 {
		r.slots = make(chan struct{}, r.settings.MaxInFlight)
	}
	r.summary = Summary{RunID: r.runID, Resumed: r.resumed, Jobs: map[string]int{}, Tasks: map[string]int{}}
	r.started = time.Now()
	r.counts.TopTotal = len(r.tops)
	r.counts.Total = 0
	for _, t := range r.tops {
		if t.job.Kind == workload.Composite {
			r.counts.Total += len(t.job.Tasks)
		} else {
			r.counts.Total++
		}
	}

	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	if err := r.target.Watch(watchCtx, reporter{r}); err != nil {
		r.rec.Close()
		return nil, fmt.Errorf("target %s: %w", r.target.Name(), err)
	}

	if !r.resumed {
		r.anchor = time.Now().Add(startLead)
		r.anchorNS = r.anchor.UnixNano()
		r.event("", 0, time.Now(), "run-start", map[string]any{"anchor_ns": r.anchorNS, "settings": r.settings,
			"jobs": len(r.tops), "tasks": r.w.tasks, "target": r.target.Name()})
	} else {
		if err := r.recordResume(); err != nil {
			r.rec.Close()
			return nil, err
		}
	}
	if err := r.rec.Sync(); err != nil {
		r.rec.Close()
		return nil, err
	}
	if r.cfg.OnStart != nil {
		r.cfg.OnStart(r.runID)
	}

	var wg sync.WaitGroup
	for i := 0; i < r.settings.Workers; i++ {
		wg.Add(1)
		go r.worker(ctx, &wg)
	}
	workersDone := make(chan struct{})
	go func() { wg.Wait(); close(workersDone) }()

	r.startResume(ctx)

	dispCtx, stopDispatch := context.WithCancel(ctx)
	defer stopDispatch()
	go r.dispatch(dispCtx)

	err := r.loop(ctx, workersDone)
	stopDispatch()
	r.work.Close()
	if err == nil {
		<-workersDone
	}
	close(r.loopDone)
	r.summary.Delay = r.delays.Stats()
	r.summary.Elapsed = time.Since(r.started)
	r.summary.Retries = int(r.retries.Load())
	r.notes()
	if serr := r.rec.Sync(); serr == nil {
		r.countFromStore()
	}
	switch err {
	case ErrInterrupted:
		r.summary.Status = "interrupted"
		r.event("", 0, time.Now(), "interrupted", r.summaryJSON())
	case nil:
		r.summary.Status = store.RunCompleted
		end := store.RunEnd{RunID: r.runID, EndNS: time.Now().UnixNano(), Status: store.RunCompleted, Summary: toJSON(r.summaryJSON())}
		r.event("", 0, time.Now(), "run-end", map[string]any{"status": store.RunCompleted})
		r.rec.Add(func(tx *store.Tx) error { return tx.InsertRunEnd(end) })
	}
	r.progress()
	if cerr := r.rec.Close(); cerr != nil && (err == nil || err == ErrInterrupted) {
		return &r.summary, cerr
	}
	return &r.summary, err
}

// countFromStore counts the final states of the run's jobs and tasks as
// recorded, over every process that worked on the run.
func (r *Runner) countFromStore() {
	rows, err := r.st.Jobs(r.runID)
	if err != nil {
		return
	}
	if results, err := r.st.Results(r.runID); err == nil {
		r.summary.Submitted, r.summary.SubmitFailed = 0, 0
		for _, x := range results {
			if x.OK {
				r.summary.Submitted++
			} else if x.Tries > 0 {
				r.summary.SubmitFailed++
			}
		}
	}
	r.summary.Jobs = map[string]int{}
	r.summary.Tasks = map[string]int{}
	for _, j := range rows {
		if j.ParentID == "" {
			r.summary.Jobs[j.State]++
		} else {
			r.summary.Tasks[j.State]++
		}
	}
}

func (r *Runner) summaryJSON() map[string]any {
	st := r.summary.Delay
	return map[string]any{"jobs": r.summary.Jobs, "tasks": r.summary.Tasks, "retries": r.retries.Load(),
		"submitted": r.summary.Submitted, "submit_failed": r.summary.SubmitFailed,
		"recovered": r.summary.Recovered, "elapsed_ns": time.Since(r.started).Nanoseconds(),
		"delay": map[string]any{"n": st.N, "mean_ns": st.Mean.Nanoseconds(), "p50_ns": st.P50.Nanoseconds(),
			"p75_ns": st.P75.Nanoseconds(), "p99_ns": st.P99.Nanoseconds(), "max_ns": st.Max.Nanoseconds(),
			"drift_ns": st.Drift.Nanoseconds()}}
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
		if !interrupted && r.dispatched && r.finalTops == len(r.tops) {
			return nil
		}
		if !interrupted && r.dispatched && !r.inTail && r.settings.HasTail && r.awaitingFirst == 0 {
			r.inTail = true
			r.tailAt = time.Now().Add(r.settings.Tail)
			tailTimer = time.NewTimer(r.settings.Tail)
			tailC = tailTimer.C
			r.event("", 0, time.Now(), "tail-start", map[string]any{"tail_ns": r.settings.Tail.Nanoseconds()})
		}
		select {
		case res := <-r.results:
			r.onResult(res)
		case <-r.updNotify:
			for _, u := range r.takeUpdates() {
				r.onUpdate(u)
			}
		case m := <-r.control:
			switch m.(type) {
			case dispatchDone:
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

func (r *Runner) progress() {
	if r.cfg.Progress == nil {
		return
	}
	p := r.counts
	p.LastDelay = r.lastDelay
	p.TopDone = r.finalTops
	p.InTail = r.inTail
	if r.inTail {
		p.TailLeft = time.Until(r.tailAt)
		if p.TailLeft < 0 {
			p.TailLeft = 0
		}
	}
	p.Elapsed = time.Since(r.started)
	p.Interrupted = r.interrupted
	r.cfg.Progress(p)
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
	result := store.Result{Key: tr.sub.Key, RunID: r.runID, OK: res.ok, DoneNS: now.UnixNano(), Tries: res.tries,
		Recovered: res.recovered, TargetID: res.receipt.TargetID, Output: res.receipt.Output, ExitStatus: res.receipt.ExitStatus}
	if res.ok {
		at := res.tOK
		if !res.receipt.Time.IsZero() {
			at = res.receipt.Time
		}
		tr.submitNS = at.UnixNano()
		if !res.recovered {
			d := res.t0.Sub(tr.due)
			tr.delayNS, tr.hasDelay = int64(d), true
			result.DelayNS = int64(d)
			if tr.scheduled {
				r.delays.Add(d)
				r.lastDelay = d
			}
		} else {
			r.summary.Recovered++
			tr.delayNS, tr.hasDelay = tr.submitNS-tr.scheduledNS, true
			result.DelayNS = tr.delayNS
		}
		result.SubmitNS = tr.submitNS
	} else if res.err != nil {
		result.Error = res.err.Error()
		if ee, ok := res.err.(interface{ ExitStatus() int }); ok {
			s := ee.ExitStatus()
			result.ExitStatus = &s
		}
		result.Output = res.receipt.Output
	}
	r.rec.Add(func(tx *store.Tx) error { return tx.InsertResult(result) })
	if !res.ok {
		r.event(tr.sub.Job.ID, tr.sub.Attempt, now, "submit-failed", map[string]any{"error": result.Error, "tries": res.tries})
		reason := fmt.Sprintf("submission failed: %v", res.err)
		if res.tries > 1 {
			reason = fmt.Sprintf("submission failed after %d tries: %v", res.tries, res.err)
		}
		r.logf("%s: %s", tr.sub.Job.ID, reason)
		tr.receipt = res.receipt
		r.finalize(tr, Failed, reason, now, nil, true)
		return
	}
	tr.submitted = true
	tr.receipt = res.receipt
	if len(res.receipt.Sites) > 0 {
		tr.sites = res.receipt.Sites
	}
	kind := "submitted"
	if res.recovered {
		kind = "recovered"
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
			r.event(id, att, u.Time, "queued", map[string]any{"detail": detail})
		}
	case Running:
		if tr.state != Running {
			tr.state = Running
			tr.startNS = u.Time.UnixNano()
			if !u.Start.IsZero() {
				tr.startNS = u.Start.UnixNano()
			}
			r.setBucket(tr, bRunning)
			r.event(id, att, u.Time, "started", map[string]any{"start_ns": tr.startNS, "sites": tr.sites, "detail": detail})
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

func (r *Runner) finalize(tr *track, st State, reason string, when time.Time, detail any, recordEvent bool) {
	r.finalizeDetail(tr, st, reason, when, detail, recordEvent)
}

// finalizeDetail records the outcome of a submission and moves its job on:
// a unitary job is final; a task makes its composite job's DAG release,
// retry or skip tasks.
func (r *Runner) finalizeDetail(tr *track, st State, reason string, when time.Time, detail any, recordEvent bool) {
	if tr.final {
		return
	}
	tr.final = true
	tr.state = st
	r.unregister(tr.sub.Key)
	switch st {
	case Succeeded:
		r.setBucket(tr, bSucceeded)
	case Failed:
		r.setBucket(tr, bFailed)
		r.noteFailure(strings.ReplaceAll(reason, tr.sub.Job.ID, "JOB"))
	default:
		r.setBucket(tr, bCancelled)
	}
	t := tr.top
	j := tr.sub.Job
	var ev *store.Event
	if recordEvent {
		payload := map[string]any{"reason": reason, "exit_status": tr.exit, "start_ns": tr.startNS, "end_ns": tr.endNS}
		if detail != nil {
			payload["detail"] = detail
		}
		ev = &store.Event{RunID: r.runID, JobID: j.ID, Attempt: tr.sub.Attempt, TimeNS: when.UnixNano(), Kind: string(st), Payload: toJSON(payload)}
	}
	if tr.task < 0 {
		row := r.jobRow(j, "", tr, storeState(st), reason, tr.sub.Attempt)
		r.rec.Add(func(tx *store.Tx) error {
			if ev != nil {
				if err := tx.InsertEvent(*ev); err != nil {
					return err
				}
			}
			return tx.InsertJob(row)
		})
		r.topFinal(t, st)
		return
	}
	// A task of a composite job.
	d := t.dag
	dst := st
	if st == neverStarted {
		dst = Cancelled
	}
	next, skipped := d.Finish(tr.task, dst, reason)
	retry := len(next) == 1 && next[0].Task == tr.task
	if retry {
		if ev != nil {
			e := *ev
			r.rec.Add(func(tx *store.Tx) error { return tx.InsertEvent(e) })
		}
		r.event(j.ID, tr.sub.Attempt, when, "retry", map[string]any{"reason": reason, "next_attempt": next[0].Attempt})
		r.logf("%s: attempt %d %s (%s); retrying", j.ID, tr.sub.Attempt, st, reason)
	} else {
		row := r.jobRow(j, t.job.ID, tr, storeState(st), reason, d.Attempts(tr.task))
		r.aggregate(t, row)
		r.rec.Add(func(tx *store.Tx) error {
			if ev != nil {
				if err := tx.InsertEvent(*ev); err != nil {
					return err
				}
			}
			return tx.InsertJob(row)
		})
		r.summary.Tasks[row.State]++
	}
	r.skipTasks(t, skipped, when)
	r.releaseSteps(t, next, time.Now(), false)
	r.checkComposite(t)
}

// skipTasks records tasks that will never be submitted.
func (r *Runner) skipTasks(t *top, skipped []Skip, when time.Time) {
	for _, s := range skipped {
		task := &t.job.Tasks[s.Task]
		state := store.Failed
		if !strings.HasSuffix(s.Reason, " failed") {
			state = store.NeverStarted
		}
		row := r.jobRow(task, t.job.ID, nil, state, s.Reason, 0)
		ev := store.Event{RunID: r.runID, JobID: task.ID, TimeNS: when.UnixNano(), Kind: "skipped", Payload: toJSON(map[string]any{"reason": s.Reason})}
		r.rec.Add(func(tx *store.Tx) error {
			if err := tx.InsertEvent(ev); err != nil {
				return err
			}
			return tx.InsertJob(row)
		})
		r.summary.Tasks[state]++
		if state == store.Failed {
			r.counts.Failed++
		} else {
			r.counts.Cancelled++
		}
	}
}

// releaseSteps submits the given tasks of t, due now (or at due).
func (r *Runner) releaseSteps(t *top, steps []Step, due time.Time, scheduled bool) {
	for _, s := range steps {
		task := &t.job.Tasks[s.Task]
		schedNS := due.UnixNano()
		if scheduled {
			schedNS = t.scheduledNS
		}
		tr := r.newTrack(t, s.Task, task, s.Attempt, due, schedNS)
		tr.scheduled = scheduled
		t.tasks[s.Task] = tr
		r.setBucket(tr, bPending)
		if !scheduled {
			r.event(task.ID, s.Attempt, due, "released", nil)
		}
		r.work.Push(tr)
	}
}

// checkComposite records a composite job once all its tasks are final.
func (r *Runner) checkComposite(t *top) {
	if t.final || !t.dag.Done() {
		return
	}
	st, reason := t.dag.Outcome()
	row := r.jobRow(t.job, "", nil, storeState(st), reason, 1)
	row.ScheduledNS = t.scheduledNS
	row.SubmitNS, row.StartNS, row.EndNS, row.TargetSubmitNS = t.aggSubmit, t.aggStart, t.aggEnd, t.aggTSubmit
	if t.aggHasDelay {
		row.DelayNS = t.aggDelay
	}
	ev := store.Event{RunID: r.runID, JobID: t.job.ID, TimeNS: time.Now().UnixNano(), Kind: string(st), Payload: toJSON(map[string]any{"reason": reason})}
	r.rec.Add(func(tx *store.Tx) error {
		if err := tx.InsertEvent(ev); err != nil {
			return err
		}
		return tx.InsertJob(row)
	})
	r.topFinal(t, st)
}

func (r *Runner) aggregate(t *top, row store.Job) {
	if row.SubmitNS != 0 && (t.aggSubmit == 0 || row.SubmitNS < t.aggSubmit) {
		t.aggSubmit = row.SubmitNS
		if row.SubmitNS != 0 {
			t.aggDelay, t.aggHasDelay = row.DelayNS, true
		}
	}
	if row.TargetSubmitNS != 0 && (t.aggTSubmit == 0 || row.TargetSubmitNS < t.aggTSubmit) {
		t.aggTSubmit = row.TargetSubmitNS
	}
	if row.StartNS != 0 && (t.aggStart == 0 || row.StartNS < t.aggStart) {
		t.aggStart = row.StartNS
	}
	if row.EndNS > t.aggEnd {
		t.aggEnd = row.EndNS
	}
}

func (r *Runner) topFinal(t *top, st State) {
	if t.final {
		return
	}
	t.final = true
	r.finalTops++
	r.summary.Jobs[string(storeState(st))]++
	if !t.firstSeen {
		t.firstSeen = true
		r.awaitingFirst--
	}
	if t.slot {
		t.slot = false
		<-r.slots
	}
}

func storeState(st State) string {
	switch st {
	case Succeeded:
		return store.Succeeded
	case Failed:
		return store.Failed
	case Cancelled:
		return store.Cancelled
	}
	return store.NeverStarted
}

// jobRow builds the final record of job j from its submission tr (nil for
// a job never submitted).
func (r *Runner) jobRow(j *workload.Job, parent string, tr *track, state, reason string, attempts int) store.Job {
	comps, _ := json.Marshal(componentsJSON(j.Components))
	row := store.Job{RunID: r.runID, JobID: j.ID, ParentID: parent, Unit: j.Unit, Index: j.Index, Kind: string(j.Kind),
		Type: j.Type, App: j.App.Name, SiteType: string(j.SiteType), Processors: j.Processors(), Components: string(comps),
		WallTimeNS: int64(j.WallTime), RunTimeNS: int64(j.RunTime), OffsetNS: int64(j.Submit), State: state, Reason: reason,
		Attempts: attempts, RecordedNS: time.Now().UnixNano()}
	if tr == nil {
		return row
	}
	row.ScheduledNS = tr.scheduledNS
	row.SubmitNS = tr.submitNS
	if tr.hasDelay {
		row.DelayNS = tr.delayNS
	}
	row.TargetSubmitNS = tr.tsubmitNS
	row.TargetID = tr.receipt.TargetID
	row.StartNS, row.EndNS = tr.startNS, tr.endNS
	row.ExitStatus = tr.exit
	row.SubmitOutput = tr.receipt.Output
	row.SubmitExitStatus = tr.receipt.ExitStatus
	row.Summary = tr.summary
	row.Sites = strings.Join(tr.sites, ",")
	return row
}

type componentJSON struct {
	Site  string `json:"site"`
	Count int    `json:"count"`
}

func componentsJSON(cs []workload.Component) []componentJSON {
	out := make([]componentJSON, len(cs))
	for i, c := range cs {
		out[i] = componentJSON{c.Site, c.Count}
	}
	return out
}

// expireTail cancels everything left when the tail is over.
func (r *Runner) expireTail() {
	r.tailExpired.Store(true)
	r.event("", 0, time.Now(), "tail-expired", nil)
	left := 0
	var toCancel []*track
	for _, t := range r.tops {
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

// noteFailure counts a failure reason for the summary (the job's id
// replaced by JOB, so that one cause is counted once; other numbers are
// kept, as they are usually the point: an exit status, a cluster).
func (r *Runner) noteFailure(reason string) {
	if len(reason) > 160 {
		reason = reason[:160] + "…"
	}
	r.failMu.Lock()
	if r.failReasons == nil {
		r.failReasons = map[string]int{}
	}
	r.failReasons[reason]++
	r.failMu.Unlock()
}

// notes summarises what went wrong, for the user.
func (r *Runner) notes() {
	if n := r.retries.Load(); n > 0 {
		r.summary.Notes = append(r.summary.Notes, fmt.Sprintf("%d submit calls were retried after transient target errors", n))
	}
	r.failMu.Lock()
	defer r.failMu.Unlock()
	if len(r.failReasons) > 0 {
		type kv struct {
			k string
			n int
		}
		var list []kv
		for k, n := range r.failReasons {
			list = append(list, kv{k, n})
		}
		sort.Slice(list, func(i, j int) bool { return list[i].n > list[j].n || (list[i].n == list[j].n && list[i].k < list[j].k) })
		for i, x := range list {
			if i == 5 {
				r.summary.Notes = append(r.summary.Notes, fmt.Sprintf("… and %d other failure reasons", len(list)-5))
				break
			}
			r.summary.Notes = append(r.summary.Notes, fmt.Sprintf("%d failed: %s", x.n, x.k))
		}
	}
}
