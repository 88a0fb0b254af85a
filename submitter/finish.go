package submitter

import (
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
)

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
		ev = &store.Event{RunID: r.runID, JobID: j.ID, Attempt: tr.sub.Attempt, TimeNS: when.UnixNano(), Kind: string(st), Payload: record.JSON(payload)}
	}
	if tr.task < 0 {
		row := r.jobRow(j, "", tr, st.JobState(), reason, tr.sub.Attempt)
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
		r.event(j.ID, tr.sub.Attempt, when, record.EventRetry, map[string]any{"reason": reason, "next_attempt": next[0].Attempt})
		r.logf("%s: attempt %d %s (%s); retrying", j.ID, tr.sub.Attempt, st, reason)
	} else {
		row := r.jobRow(j, t.job.ID, tr, st.JobState(), reason, d.Attempts(tr.task))
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
		ev := store.Event{RunID: r.runID, JobID: task.ID, TimeNS: when.UnixNano(), Kind: record.EventSkipped, Payload: record.JSON(map[string]any{"reason": s.Reason})}
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
			r.event(task.ID, s.Attempt, due, record.EventReleased, nil)
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
	// Its submission and times are its tasks': the first submit and start,
	// the last end.
	o := record.Outcome{State: st.JobState(), Reason: reason, Attempts: 1, ScheduledNS: t.scheduledNS, SubmitNS: t.aggSubmit,
		TargetSubmitNS: t.aggTSubmit, StartNS: t.aggStart, EndNS: t.aggEnd}
	if t.aggHasDelay {
		o.DelayNS = t.aggDelay
	}
	row := record.JobRow(r.runID, t.job, "", o)
	ev := store.Event{RunID: r.runID, JobID: t.job.ID, TimeNS: time.Now().UnixNano(), Kind: string(st), Payload: record.JSON(map[string]any{"reason": reason})}
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
	r.dropLive(t)
	r.finalTops++
	r.summary.Jobs[st.JobState()]++
	if !t.firstSeen {
		t.firstSeen = true
		r.awaitingFirst--
	}
	if t.slot {
		t.slot = false
		<-r.slots
	}
}
