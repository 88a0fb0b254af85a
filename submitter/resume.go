package submitter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// errCorruptStore is Run's error for a --resume whose records do not agree
// (Run's other --resume errors, record.ErrUnknownRun, ErrRunEnded and
// ErrRunMismatch, are usage errors).
var errCorruptStore = errors.New("the store's records of the run are inconsistent")

// resumeStep is work the loop does first on resume: finishing a
// submission whose outcome was recorded as an event but not applied, or
// releasing the tasks of a composite job in progress.
type resumeStep struct {
	t      *top
	tr     *track // set: finalize it with state/reason, without recording the event again
	state  State
	reason string
	steps  []Step // released tasks to submit
	skips  []Skip // tasks to record as never run
}

// What the store says about one submission.
type keyInfo struct {
	sub     store.Submission
	res     *store.Result
	final   State // from the final event of the attempt, "" if none
	reason  string
	exit    *int
	startNS int64
	endNS   int64
	queued  bool
	summary string
}

// prepareResume loads the run to resume and works out, job by job, what was
// done, what is in flight, and what is left.
//
// A job with a final row is done. A submission with an intent and a result
// is in flight: the target tracks it again. A submission with an intent and
// no result may or may not have reached the target: it is dispatched again
// with Find first, so it is submitted only if the target does not have it.
// Jobs with no intent are scheduled as usual. The schedule is shifted by
// the time the submitter was away, so that the jobs still to come keep
// their spacing: the first of them is due now.
//
// It works in four phases: the run and its settings (resumableRun), what
// the store recorded of it (readRecords), each job's state from those
// records (restoreJobs), and the new schedule (shiftSchedule).
func (r *Runner) prepareResume() error {
	run, err := r.resumableRun(r.cfg.Resume)
	if err != nil {
		return err
	}
	recs, err := r.readRecords(run)
	if err != nil {
		return err
	}
	earliest, err := r.restoreJobs(recs)
	if err != nil {
		return err
	}
	r.shiftSchedule(recs.anchorNS, earliest)
	return nil
}

// resumableRun checks that the run can be resumed with this workload and
// target, and takes its recorded settings (the workers may change).
func (r *Runner) resumableRun(id string) (*store.Run, error) {
	run, err := r.st.Run(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", record.ErrUnknownRun, id)
	}
	if err != nil {
		return nil, err
	}
	if _, ended, err := r.st.RunEnd(id); err != nil {
		return nil, err
	} else if ended {
		return nil, fmt.Errorf("%w: %s", record.ErrRunEnded, id)
	}
	if run.WorkloadSHA256 != r.w.SHA256 {
		return nil, fmt.Errorf("%w: run %s was made with workload.jsonl SHA-256 %s, %s has %s", record.ErrRunMismatch, id, run.WorkloadSHA256, r.cfg.WorkloadDir, r.w.SHA256)
	}
	if run.Target != r.target.Name() {
		return nil, fmt.Errorf("%w: run %s used target %s, not %s", record.ErrRunMismatch, id, run.Target, r.target.Name())
	}
	var s Settings
	if err := json.Unmarshal([]byte(run.Settings), &s); err != nil {
		return nil, fmt.Errorf("run %s: settings: %v", id, err)
	}
	if r.cfg.Workers > 0 {
		s.Workers = r.cfg.Workers
	}
	s.defaults()
	r.settings = s
	r.runID = id
	r.resumed = true
	return &run, nil
}

// runRecords is what the store recorded of a run, indexed for resuming it:
// the records of the jobs still open in full, of the finished ones only
// which top-level jobs they are.
type runRecords struct {
	keys     map[string]*keyInfo   // by idempotency key
	byJob    map[string][]*keyInfo // a job's attempts, in order
	rowOf    map[string]*store.Job // final rows of the tasks of composite jobs in progress, by id
	final    finalTops             // the top-level jobs with a final row
	anchorNS int64                 // the schedule's origin, as last recorded
}

// readRecords reads the run's open records (store.OpenRecords), the ids of
// its finished top-level jobs and its provenance records, and indexes them.
func (r *Runner) readRecords(run *store.Run) (*runRecords, error) {
	id := run.ID
	open, err := r.st.OpenRecords(id)
	if err != nil {
		return nil, err
	}
	provs, err := r.st.Provenance(id)
	if err != nil {
		return nil, err
	}
	r.resumeSeq = len(provs)

	recs := &runRecords{keys: map[string]*keyInfo{}, byJob: map[string][]*keyInfo{}, rowOf: map[string]*store.Job{}}
	if r.w.IDCollision {
		recs.final.ids = map[string]bool{}
	}
	err = r.st.ScanFinalTops(id, func(jobID string) error {
		recs.final.add(jobID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	recs.final.done()
	for _, x := range open.Submissions {
		k := &keyInfo{sub: x}
		recs.keys[x.Key] = k
		recs.byJob[x.JobID] = append(recs.byJob[x.JobID], k)
	}
	for i := range open.Results {
		if k := recs.keys[open.Results[i].Key]; k != nil {
			k.res = &open.Results[i]
		}
	}
	for i := range open.TaskRows {
		recs.rowOf[open.TaskRows[i].JobID] = &open.TaskRows[i]
	}
	recs.readEvents(id, open.Events)
	if recs.anchorNS == 0 {
		recs.anchorNS = run.CreatedNS
	}
	return recs, nil
}

// finalTops is the set of the finished top-level jobs of a run: the 64-bit
// hashes of their ids, sorted (8 bytes a job), which tell the workload's
// jobs apart exactly when no two of its ids share a hash (record.ReadWorkload
// checks); otherwise the ids themselves.
type finalTops struct {
	hashes []uint64
	ids    map[string]bool
}

func (f *finalTops) add(id string) {
	if f.ids != nil {
		f.ids[id] = true
		return
	}
	f.hashes = append(f.hashes, record.IDHash(id))
}

func (f *finalTops) done() { slices.Sort(f.hashes) }

func (f *finalTops) has(id string) bool {
	if f.ids != nil {
		return f.ids[id]
	}
	_, found := slices.BinarySearch(f.hashes, record.IDHash(id))
	return found
}

// readEvents takes from the events the schedule's origin and, per
// submission, whether it was queued, when it started, and its outcome.
func (recs *runRecords) readEvents(runID string, events []store.Event) {
	for _, e := range events {
		switch e.Kind {
		case record.EventRunStart, record.EventRunResume:
			var p struct {
				AnchorNS int64 `json:"anchor_ns"`
			}
			if json.Unmarshal([]byte(e.Payload), &p) == nil && p.AnchorNS != 0 {
				recs.anchorNS = p.AnchorNS
			}
			continue
		}
		if e.JobID == "" {
			continue
		}
		k := recs.keys[record.Key(runID, e.JobID, e.Attempt)]
		if k == nil {
			continue
		}
		var p struct {
			Reason   string `json:"reason"`
			Exit     *int   `json:"exit_status"`
			StartNS  int64  `json:"start_ns"`
			EndNS    int64  `json:"end_ns"`
			Summary  string `json:"summary"`
			Attempts int    `json:"attempts"`
		}
		_ = json.Unmarshal([]byte(e.Payload), &p)
		switch e.Kind {
		case record.EventQueued:
			k.queued = true
		case record.EventStarted:
			k.startNS = p.StartNS
		case string(Succeeded), string(Failed), string(Cancelled):
			k.final, k.reason, k.exit = State(e.Kind), p.Reason, p.Exit
			if p.StartNS != 0 {
				k.startNS = p.StartNS
			}
			k.endNS = p.EndNS
		}
	}
}

// notYet is the earliest offset of the jobs still to submit when there is
// none.
const notYet = time.Duration(math.MaxInt64)

// restoreJobs rebuilds every top-level job from the records, reading the
// workload through once, and returns the earliest submit offset of the
// jobs still to be dispatched (notYet when none is). It keeps the jobs in
// progress (live), marks those handled before (skip) for the dispatcher,
// and keeps those to dispatch again (restored).
func (r *Runner) restoreJobs(recs *runRecords) (time.Duration, error) {
	src, err := r.stream()
	if err != nil {
		return 0, err
	}
	r.skip = newBitset(r.w.Count)
	r.restored = map[int]*top{}
	r.awaitingFirst = r.w.Count
	earliest := notYet
	for {
		j, idx, err := src.Next()
		if err == io.EOF {
			return earliest, nil
		}
		if err != nil {
			return 0, err
		}
		t := &top{job: j, idx: idx}
		var dispatch bool
		switch {
		case recs.final.has(t.job.ID):
			t.handled, t.final, t.firstSeen = true, true, true
			r.finalTops++
		case t.job.Kind != workload.Composite:
			dispatch = r.restoreUnitary(t, recs)
		default:
			dispatch = r.restoreComposite(t, recs)
		}
		if t.firstSeen {
			r.awaitingFirst--
		}
		switch {
		case t.handled:
			r.skip.set(idx)
			if !t.final {
				r.addLive(t)
			}
		case t.recoverTr != nil:
			r.restored[idx] = t
		}
		if dispatch {
			earliest = min(earliest, t.job.Submit)
		}
	}
}

// restoreUnitary rebuilds a unitary job from its last attempt's records;
// it reports whether the dispatcher is to (re)submit the job.
func (r *Runner) restoreUnitary(t *top, recs *runRecords) bool {
	j := t.job
	atts := recs.byJob[j.ID]
	if len(atts) == 0 {
		return true
	}
	k := atts[len(atts)-1]
	tr := r.restoredTrack(t, -1, j, k)
	t.tr = tr
	if k.res == nil {
		// Outcome unknown: dispatch again, Find first.
		tr.recover = true
		t.recoverTr = tr
		return true
	}
	t.handled, t.firstSeen = true, true
	r.restoreOutcome(t, tr, k)
	return false
}

// restoreComposite rebuilds a composite job in progress: its DAG from its
// tasks' rows and submissions, and the work the loop does first (tasks to
// find, to track, to finalize, to release). It reports whether the job is
// still to be dispatched (none of its tasks has an intent).
func (r *Runner) restoreComposite(t *top, recs *runRecords) bool {
	j := t.job
	started := false
	for ti := range j.Tasks {
		if len(recs.byJob[j.Tasks[ti].ID]) > 0 || recs.rowOf[j.Tasks[ti].ID] != nil {
			started = true
			break
		}
	}
	if !started {
		return true
	}
	t.handled, t.firstSeen = true, true
	t.due, t.scheduledNS = time.Now(), recs.anchorNS+int64(time.Duration(float64(j.Submit)/r.settings.Speedup))
	t.dag = NewDAG(j, r.settings.Retries)
	if r.caps.Dependencies {
		t.dag.TargetDependencies()
	}
	t.tasks = make([]*track, len(j.Tasks))
	var finals []resumeStep
	for ti := range j.Tasks {
		task := &j.Tasks[ti]
		if row := recs.rowOf[task.ID]; row != nil {
			skipped := row.Attempts == 0
			t.dag.Restore(ti, row.Attempts, stateFromStore(row.State), skipped, row.Reason)
			r.aggregate(t, *row)
			continue
		}
		atts := recs.byJob[task.ID]
		if len(atts) == 0 {
			continue
		}
		k := atts[len(atts)-1]
		t.dag.Restore(ti, k.sub.Attempt, "", false, "")
		tr := r.restoredTrack(t, ti, task, k)
		t.tasks[ti] = tr
		switch {
		case k.res == nil:
			tr.recover = true
			r.resumeItems = append(r.resumeItems, tr)
		case !k.res.OK:
			finals = append(finals, resumeStep{t: t, tr: tr, state: Failed, reason: "submission failed: " + k.res.Error})
		case k.final != "":
			finals = append(finals, resumeStep{t: t, tr: tr, state: k.final, reason: k.reason})
		default:
			r.resumeTracks = append(r.resumeTracks, tr)
		}
	}
	steps, skips := t.dag.Resume()
	r.resumeSteps = append(r.resumeSteps, finals...)
	r.resumeSteps = append(r.resumeSteps, resumeStep{t: t, steps: steps, skips: skips})
	return false
}

// shiftSchedule moves the schedule so that the earliest job not yet
// submitted is due now (after the start lead), unless the original
// schedule is later.
func (r *Runner) shiftSchedule(anchorNS int64, earliest time.Duration) {
	now := time.Now()
	nowNS := now.UnixNano()
	r.shiftNS = 0
	newAnchorNS := anchorNS
	if earliest != notYet {
		if cand := nowNS + int64(startLead) - int64(float64(earliest)/r.settings.Speedup); cand > anchorNS {
			newAnchorNS = cand
			r.shiftNS = cand - anchorNS
		}
	}
	r.anchorNS = newAnchorNS
	r.anchor = now.Add(time.Duration(newAnchorNS - nowNS))
}

// restoredTrack rebuilds a submission from its records.
func (r *Runner) restoredTrack(t *top, task int, j *workload.Job, k *keyInfo) *track {
	tr := &track{sub: Submission{Key: k.sub.Key, RunID: r.runID, Job: j, Attempt: k.sub.Attempt, ParentID: k.sub.ParentID},
		top: t, task: task, scheduledNS: k.sub.ScheduledNS, due: time.Now()}
	if k.res != nil && k.res.OK {
		tr.submitted = true
		tr.submitNS = k.res.SubmitNS
		tr.delayNS, tr.hasDelay = k.res.DelayNS, true
		tr.receipt = Receipt{TargetID: k.res.TargetID, Output: k.res.Output, ExitStatus: k.res.ExitStatus}
		tr.startNS, tr.endNS, tr.exit = k.startNS, k.endNS, k.exit
		if k.queued {
			tr.state = Queued
		}
		if k.startNS != 0 {
			tr.state = Running
		}
	} else if k.res != nil {
		tr.receipt = Receipt{Output: k.res.Output, ExitStatus: k.res.ExitStatus}
	}
	return tr
}

// restoreOutcome decides what to do with a unitary job's recorded
// submission on resume.
func (r *Runner) restoreOutcome(t *top, tr *track, k *keyInfo) {
	switch {
	case !k.res.OK:
		r.resumeSteps = append(r.resumeSteps, resumeStep{t: t, tr: tr, state: Failed, reason: "submission failed: " + k.res.Error})
	case k.final != "":
		r.resumeSteps = append(r.resumeSteps, resumeStep{t: t, tr: tr, state: k.final, reason: k.reason})
	default:
		r.resumeTracks = append(r.resumeTracks, tr)
	}
}

func stateFromStore(s string) State {
	switch s {
	case store.Succeeded:
		return Succeeded
	case store.Failed:
		return Failed
	case store.Cancelled:
		return Cancelled
	}
	return Cancelled
}

// recordResume records the resumption: a provenance record and an event.
func (r *Runner) recordResume() error {
	prov, err := record.ProvenanceRecord(r.provenanceSource(r.resumeSeq))
	if err != nil {
		return err
	}
	r.rec.Add(func(tx *store.Tx) error { return tx.InsertProvenance(prov) })
	r.event("", 0, time.Now(), record.EventRunResume, map[string]any{"anchor_ns": r.anchorNS, "shift_ns": r.shiftNS,
		"provenance_seq": r.resumeSeq, "workers": r.settings.Workers})
	return nil
}

// startResume hands the loop what the resume found, before the dispatcher
// starts: submissions to track again, to find or make, and outcomes to
// apply.
func (r *Runner) startResume(ctx context.Context) {
	if !r.resumed {
		return
	}
	for _, tr := range r.resumeTracks {
		r.register(tr)
		r.setBucket(tr, bQueued)
		if tr.state == Running {
			r.setBucket(tr, bRunning)
		}
		// A target that does not answer now (a scheduler restarting) is
		// asked again, with backoff, as a submission would be.
		first, backoff := time.Now(), r.settings.Backoff
		err := r.target.Track(ctx, &tr.sub, tr.receipt)
		for tries := 1; err != nil && target.IsTransient(err) && r.settings.retryMore(tries, first); tries++ {
			if !r.backoff(ctx, tr, tries, err, &backoff) {
				break // interrupted: the next --resume tracks it
			}
			err = r.target.Track(ctx, &tr.sub, tr.receipt)
		}
		if err != nil && ctx.Err() == nil {
			r.finalize(tr, Failed, fmt.Sprintf("lost on resume: %v", err), time.Now(), nil, true)
		}
	}
	for _, tr := range r.resumeItems {
		r.register(tr)
		r.setBucket(tr, bPending)
		r.work.Push(tr)
	}
	for _, s := range r.resumeSteps {
		if s.tr != nil {
			r.register(s.tr)
			r.finalize(s.tr, s.state, s.reason, time.Now(), nil, false)
			continue
		}
		r.skipTasks(s.t, s.skips, time.Now())
		r.releaseSteps(s.t, s.steps, time.Now(), false)
		r.checkComposite(s.t)
	}
	// Tops in flight hold max-in-flight slots as far as there are any.
	if r.slots != nil {
		for _, t := range r.liveTops() {
			if t.handled && !t.final {
				select {
				case r.slots <- struct{}{}:
					t.slot = true
				default:
				}
			}
		}
	}
}
