package submitter

import (
	"slices"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// neverStarted is the internal state of a submission that was not made
// (the tail expired first); it is recorded as never-started.
const neverStarted State = "never-started"

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
	handed      bool // handed to the workers before due by the dispatcher: the worker sleeps to due
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

// addLive adds t to the top-level jobs in progress.
func (r *Runner) addLive(t *top) {
	r.liveMu.Lock()
	r.live[t.idx] = t
	r.liveMu.Unlock()
}

// dropLive removes t from the jobs in progress: once final, nothing of it
// is kept.
func (r *Runner) dropLive(t *top) {
	r.liveMu.Lock()
	delete(r.live, t.idx)
	r.liveMu.Unlock()
}

// liveTops lists the top-level jobs in progress, in workload order.
func (r *Runner) liveTops() []*top {
	r.liveMu.Lock()
	out := make([]*top, 0, len(r.live))
	for _, t := range r.live {
		out = append(out, t)
	}
	r.liveMu.Unlock()
	slices.SortFunc(out, func(a, b *top) int { return a.idx - b.idx })
	return out
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
	intent := record.IntentRow(r.runID, j, parent, attempt, schedNS, time.Now().UnixNano()) // under its key (record.Key)
	tr := &track{sub: Submission{Key: intent.Key, RunID: r.runID, Job: j, Attempt: attempt, ParentID: parent},
		top: t, task: task, due: due, scheduledNS: schedNS}
	if task >= 0 && t.dag.AtTarget() {
		for _, p := range t.dag.Preds(task) {
			if pt := t.tasks[p]; pt != nil && pt.receipt.TargetID != "" && pt.state != Succeeded {
				tr.sub.After = append(tr.sub.After, pt.receipt.TargetID)
			}
		}
	}
	r.register(tr)
	tr.intentSeq = r.rec.Add(func(tx *store.Tx) error { return tx.InsertSubmission(intent) })
	return tr
}
