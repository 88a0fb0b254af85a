package record

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

// JSON is v as a record's JSON text (an event's payload, a run's summary):
// "{}" for nil, a string as it is (already JSON), otherwise v encoded; an
// error encoding v is recorded in its place.
func JSON(v any) string {
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

// Receipt is what a target says when it accepts a job.
type Receipt struct {
	TargetID   string    // the target's id for the job ("alpha:12", "local:3", …)
	Output     string    // what the submit command printed, or the API's answer
	ExitStatus *int      // the submit command's exit status; nil when no command ran
	Sites      []string  // where the job was sent, when the target decides it at submission
	Time       time.Time // when the target accepted it; zero: when Submit returned
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
// o. It is the one place a job row is built: for the runs the submitter
// makes and for those recorded without it (RecordRun, RunRecording).
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

// IntentRow is the record of the attempt-th submission of job j of run
// runID (a task of the composite job parent, or top-level: parent ""),
// written before it is made, under its key (Key).
func IntentRow(runID string, j *workload.Job, parent string, attempt int, scheduledNS, intentNS int64) store.Submission {
	return store.Submission{Key: Key(runID, j.ID, attempt), RunID: runID, JobID: j.ID, ParentID: parent, Attempt: attempt,
		ScheduledNS: scheduledNS, IntentNS: intentNS}
}

// EndStatus is the status of a run of which final top-level jobs out of
// total are final: completed when every one is.
func EndStatus(final, total int) string {
	if final == total {
		return store.RunCompleted
	}
	return store.RunAborted
}

// RunEndRow closes a run: its status and summary (SummaryRecord).
func RunEndRow(runID string, endNS int64, status string, summary map[string]any) store.RunEnd {
	return store.RunEnd{RunID: runID, EndNS: endNS, Status: status, Summary: JSON(summary)}
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
