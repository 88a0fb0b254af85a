package submitter

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

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

// Outcome is what became of one job (or task) of a run: its submission, as
// the target accepted it, and what the target reported after. With the job
// itself it makes the job's row (JobRow).
type Outcome struct {
	State    string // store.Succeeded, store.Failed, store.Cancelled or store.NeverStarted
	Reason   string // why it failed or was cancelled
	Attempts int    // submissions made (0: never submitted)

	// The submission (all zero for a job never submitted).
	ScheduledNS int64   // when it was due
	SubmitNS    int64   // when the successful submit call began (0: none did)
	DelayNS     int64   // the submitter's delay; recorded when SubmitNS is set
	Receipt     Receipt // the target's id, the submit command's output and exit status

	// What the target reported.
	TargetSubmitNS int64 // when it accepted the job, by its own clock (0: it does not say)
	StartNS        int64
	EndNS          int64
	ExitStatus     *int
	Sites          []string
	Summary        string // the application's final JSON line
}

// JobRow is the final record (the jobs table) of job j of run runID, a task
// of the composite job parent or a top-level job (parent ""), with outcome
// o. It is the one place a job row is built: for the runs the Runner makes
// and for those recorded without it (RecordRun).
func JobRow(runID string, j *workload.Job, parent string, o Outcome) store.Job {
	comps, _ := json.Marshal(componentsJSON(j.Components))
	return store.Job{RunID: runID, JobID: j.ID, ParentID: parent, Unit: j.Unit, Index: j.Index, Kind: string(j.Kind),
		Type: j.Type, App: j.App.Name, SiteType: string(j.SiteType), Processors: j.Processors(), Components: string(comps),
		WallTimeNS: int64(j.WallTime), RunTimeNS: int64(j.RunTime), OffsetNS: int64(j.Submit),
		ScheduledNS: o.ScheduledNS, SubmitNS: o.SubmitNS, DelayNS: o.DelayNS, TargetSubmitNS: o.TargetSubmitNS,
		TargetID: o.Receipt.TargetID, StartNS: o.StartNS, EndNS: o.EndNS, State: o.State, Reason: o.Reason,
		ExitStatus: o.ExitStatus, Attempts: o.Attempts, SubmitOutput: o.Receipt.Output,
		SubmitExitStatus: o.Receipt.ExitStatus, Summary: o.Summary, Sites: strings.Join(o.Sites, ","),
		RecordedNS: time.Now().UnixNano()}
}

// jobRow builds the final record of job j from its submission tr (nil for
// a job never submitted).
func (r *Runner) jobRow(j *workload.Job, parent string, tr *track, state, reason string, attempts int) store.Job {
	return JobRow(r.runID, j, parent, tr.outcome(state, reason, attempts))
}

// outcome is what became of the submission tr (nil: never submitted).
func (tr *track) outcome(state, reason string, attempts int) Outcome {
	o := Outcome{State: state, Reason: reason, Attempts: attempts}
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

// intentRecord is the record of submission s written before it is made.
func intentRecord(s *Submission, scheduledNS, intentNS int64) store.Submission {
	return store.Submission{Key: s.Key, RunID: s.RunID, JobID: s.Job.ID, ParentID: s.ParentID, Attempt: s.Attempt,
		ScheduledNS: scheduledNS, IntentNS: intentNS}
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

// endStatus is the status of a run of which final top-level jobs out of
// total are final: completed when every one is.
func endStatus(final, total int) string {
	if final == total {
		return store.RunCompleted
	}
	return store.RunAborted
}

// runEndRecord closes a run: its status and summary.
func runEndRecord(runID string, endNS int64, status string, summary map[string]any) store.RunEnd {
	return store.RunEnd{RunID: runID, EndNS: endNS, Status: status, Summary: toJSON(summary)}
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
