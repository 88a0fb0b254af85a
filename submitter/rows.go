package submitter

import (
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// event queues an event record.
func (r *Runner) event(jobID string, attempt int, when time.Time, kind string, payload any) {
	e := store.Event{RunID: r.runID, JobID: jobID, Attempt: attempt, TimeNS: when.UnixNano(), Kind: kind, Payload: record.JSON(payload)}
	r.rec.Add(func(tx *store.Tx) error { return tx.InsertEvent(e) })
}

// jobRow builds the final record of job j from its submission tr (nil for
// a job never submitted).
func (r *Runner) jobRow(j *workload.Job, parent string, tr *track, state, reason string, attempts int) store.Job {
	return record.JobRow(r.runID, j, parent, tr.outcome(state, reason, attempts))
}

// outcome is what became of the submission tr (nil: never submitted).
func (tr *track) outcome(state, reason string, attempts int) record.Outcome {
	o := record.Outcome{State: state, Reason: reason, Attempts: attempts}
	if tr == nil {
		return o
	}
	o.ScheduledNS, o.SubmitNS, o.TargetSubmitNS = tr.scheduledNS, tr.submitNS, tr.tsubmitNS
	if tr.hasDelay {
		o.DelayNS = tr.delayNS
	}
	o.Receipt = tr.receipt
	o.StartNS, o.EndNS, o.ExitStatus = tr.startNS, tr.endNS, tr.exit
	o.Sites, o.Summary = tr.sites, tr.summary
	return o
}

// resultRecord is the record of a submit call's outcome
// (submission_results), written after the call.
func resultRecord(tr *track, res submitResult, now time.Time) store.Result {
	result := store.Result{Key: tr.sub.Key, RunID: tr.sub.RunID, OK: res.ok, DoneNS: now.UnixNano(), Tries: res.tries,
		Recovered: res.recovered, TargetID: res.receipt.TargetID, Output: res.receipt.Output, ExitStatus: res.receipt.ExitStatus}
	if res.ok {
		result.SubmitNS, result.DelayNS = tr.submitNS, tr.delayNS
	} else if res.err != nil {
		result.Error = res.err.Error()
		if ee, ok := res.err.(interface{ ExitStatus() int }); ok {
			s := ee.ExitStatus()
			result.ExitStatus = &s
		}
	}
	return result
}
