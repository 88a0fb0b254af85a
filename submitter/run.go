package submitter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
)

// ErrInterrupted is returned by Run when its context was cancelled: the run
// is recorded as far as it went and can be resumed.
var ErrInterrupted = errors.New("interrupted")

// Run submits the workload of cfg.WorkloadDir to cfg.Target and records the
// run in cfg.Store, or continues a run with cfg.Resume. It returns when
// every job is final (or cancelled at the end of the tail), with the
// summary; when ctx is cancelled it stops submitting, records what it saw
// and returns ErrInterrupted with the partial summary.
func Run(ctx context.Context, cfg Config) (*record.Summary, error) {
	if cfg.Store == nil || cfg.Target == nil {
		return nil, errors.New("submitter: Config needs a Store and a Target")
	}
	w, err := record.ReadWorkload(cfg.WorkloadDir)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	r := &Runner{cfg: cfg, st: cfg.Store, target: cfg.Target, caps: cfg.Target.Caps(), w: w, live: map[int]*top{}}
	if r.cfg.CommandLine == nil {
		r.cfg.CommandLine = os.Args
	}
	if r.cfg.Log == nil {
		r.cfg.Log = io.Discard
	}
	if cfg.Resume != "" {
		err = r.prepareResume()
	} else {
		err = r.prepareNew()
	}
	if err != nil {
		return nil, err
	}
	return r.run(ctx)
}

func (r *Runner) prepareNew() error {
	r.cfg.Settings.defaults()
	r.settings = r.cfg.Settings
	r.runID = r.cfg.RunID
	if r.runID == "" {
		r.runID = record.NewRunID()
	}
	open, err := record.NewOpening(r.cfg.Project, r.cfg.Scenario, r.provenanceSource(0))
	if err != nil {
		return err
	}
	err = r.st.Write(context.Background(), open.Insert)
	if err != nil {
		if r.cfg.RunID != "" {
			if _, e := r.st.Run(r.cfg.RunID); e == nil {
				return fmt.Errorf("run %s already exists; use --resume to continue it", r.cfg.RunID)
			}
		}
		return err
	}
	r.awaitingFirst = r.w.Count
	return nil
}

// provenanceSource is what this invocation's provenance record (number
// seq of the run) is made of.
func (r *Runner) provenanceSource(seq int) record.Source {
	return record.Source{RunID: r.runID, Seq: seq, Workload: r.w, Dir: r.cfg.WorkloadDir, Target: r.target.Name(),
		TargetConfig: r.cfg.TargetConfig, Settings: r.settings, CommandLine: r.cfg.CommandLine, Inputs: r.cfg.Inputs}
}

// Runner is one run in progress; see Run.
type Runner struct {
	cfg      Config
	settings Settings
	st       *store.Store
	rec      *record.Recorder
	target   Target
	caps     Caps
	w        *record.Workload
	runID    string
	resumed  bool

	// The top-level jobs are read from the workload as they are due; the
	// Runner holds only those in progress (live), and on resume the set of
	// those handled before (skip) and those to dispatch again (restored).
	liveMu   sync.Mutex
	live     map[int]*top
	skip     bitset
	restored map[int]*top

	// The schedule: job i is due at anchor + offset/speedup. anchor carries
	// a monotonic reading; anchorNS is the same instant as Unix time.
	anchor   time.Time
	anchorNS int64
	// resumeItems are the submissions to make (or find) at once on resume.
	resumeItems []*track
	// resumeTracks are the submissions to track again on resume.
	resumeTracks []*track
	// resumeDAGs are composite jobs in progress on resume, whose released
	// tasks the loop submits at start.
	resumeSteps []resumeStep

	work    *fifo[*track]
	results chan submitResult
	control chan any // dispatcher → loop

	regMu sync.Mutex
	reg   map[string]*track

	updMu     sync.Mutex
	upd       []Update
	updNotify chan struct{}

	slots       chan struct{}
	tailExpired atomicBool
	retries     atomic.Int64
	loopDone    chan struct{}

	failMu      sync.Mutex
	failReasons map[string]int

	resumeSeq int   // seq of this invocation's provenance record
	shiftNS   int64 // how far a resume moved the schedule

	interrupted   bool
	dispatched    bool // the dispatcher handed out every top-level job
	finalTops     int
	awaitingFirst int // top-level jobs with no submission made yet

	// Loop-owned state.
	delays    record.Delays
	summary   record.Summary
	counts    Progress
	started   time.Time
	cancels   chan cancelDone
	inTail    bool
	tailAt    time.Time
	lastDelay time.Duration
}

// run is the body of Run once the run (or resume) is prepared: it starts
// the target's reporting, the workers, the resumed work and the dispatcher,
// runs the loop until every job is final (or the run is interrupted), and
// records how the run ended.
func (r *Runner) run(ctx context.Context) (*record.Summary, error) {
	r.init()
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	if err := r.start(watchCtx); err != nil {
		r.rec.Close()
		return nil, err
	}
	defer spareProcs(r.settings.Workers)()
	workersDone := r.startWorkers(ctx)
	r.startResume(ctx)

	dispCtx, stopDispatch := context.WithCancel(ctx)
	defer stopDispatch()
	go r.dispatch(dispCtx)

	err := r.loop(ctx, workersDone)
	stopDispatch()
	r.work.Close()
	if err == nil {
		<-workersDone
		if f, ok := r.target.(Finisher); ok {
			f.Finish(ctx, reporter{r})
		}
	}
	close(r.loopDone)
	return r.end(err)
}

// init makes the run's channels, queues and counters.
func (r *Runner) init() {
	r.rec = record.NewRecorder(r.st)
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
	r.summary = record.Summary{RunID: r.runID, Resumed: r.resumed, Jobs: map[string]int{}, Tasks: map[string]int{}}
	r.started = time.Now()
	r.counts.TopTotal = r.w.Count
	r.counts.Total = r.w.Units
}

// start starts the target's reporting and records the start (or the
// resumption) of the run, committed before anything is submitted.
func (r *Runner) start(watchCtx context.Context) error {
	if err := r.target.Watch(watchCtx, reporter{r}); err != nil {
		return fmt.Errorf("target %s: %w", r.target.Name(), err)
	}
	if !r.resumed {
		r.anchor = time.Now().Add(startLead)
		if o, ok := r.target.(Originator); ok {
			a, err := o.Origin(watchCtx, r.anchor, r.settings.Speedup)
			if err != nil {
				return fmt.Errorf("target %s: %w", r.target.Name(), err)
			}
			r.anchor = a
		}
		r.anchorNS = r.anchor.UnixNano()
		r.event("", 0, time.Now(), record.EventRunStart, map[string]any{"anchor_ns": r.anchorNS, "settings": r.settings,
			"jobs": r.w.Count, "tasks": r.w.Tasks, "target": r.target.Name()})
	} else if err := r.recordResume(); err != nil {
		return err
	}
	if err := r.rec.Sync(); err != nil {
		return err
	}
	if r.cfg.OnStart != nil {
		r.cfg.OnStart(r.runID)
	}
	return nil
}

// startWorkers starts the workers; the channel is closed when they are
// all done.
func (r *Runner) startWorkers(ctx context.Context) <-chan struct{} {
	var wg sync.WaitGroup
	for i := 0; i < r.settings.Workers; i++ {
		wg.Add(1)
		go r.worker(ctx, &wg)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

// end records how the run ended (err is the loop's): the summary, and the
// run's end when it completed or an "interrupted" event.
func (r *Runner) end(err error) (*record.Summary, error) {
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
		r.event("", 0, time.Now(), record.EventInterrupted, r.summaryJSON())
	case nil:
		status := record.EndStatus(r.finalTops, r.w.Count)
		r.summary.Status = status
		end := record.RunEndRow(r.runID, time.Now().UnixNano(), status, r.summaryJSON())
		r.event("", 0, time.Now(), record.EventRunEnd, map[string]any{"status": status})
		r.rec.Add(func(tx *store.Tx) error { return tx.InsertRunEnd(end) })
	}
	r.progress()
	if cerr := r.rec.Close(); cerr != nil && (err == nil || err == ErrInterrupted) {
		return &r.summary, cerr
	}
	return &r.summary, err
}
