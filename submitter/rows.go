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
