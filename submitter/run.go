package submitter

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/version"
	"github.com/gmark/gmark/workload"
)

// Config is what a run needs.
type Config struct {
	WorkloadDir string       // the workload directory to submit
	Store       *store.Store // where to record
	Target      Target
	// TargetConfig describes the target's configuration, recorded in the
	// run's provenance (any JSON-encodable value).
	TargetConfig any

	Project  string // default "default"
	Scenario string // default: the workload directory's base name
	RunID    string // a new run's id; default NewRunID()

	// Resume continues the run with this id instead of starting one. The
	// run's recorded settings are used; Workers may differ.
	Resume string

	Settings
	// CommandLine is recorded in the provenance (os.Args by default), its
	// secrets redacted (RedactArgs).
	CommandLine []string
	// Progress, when set, is called from one goroutine about four times a
	// second and once at the end.
	Progress func(Progress)
	// Log receives one line per notable happening (retries, outages); nil
	// discards them.
	Log io.Writer
	// OnStart, when set, is called with the run id once the run is recorded,
	// before the first submission.
	OnStart func(runID string)
}

// Settings are the knobs of a run, recorded with it (runs.settings).
type Settings struct {
	Workers     int     `json:"workers"`       // submitting goroutines; default 5
	Speedup     float64 `json:"speedup"`       // offsets are divided by it; default 1
	MaxInFlight int     `json:"max_in_flight"` // top-level jobs submitted and not final; 0 = no cap
	// Tail, when HasTail, is how long to wait after the last scheduled
	// submission before cancelling what is left. Without it the run waits
	// for every job.
	Tail    time.Duration `json:"tail_ns"`
	HasTail bool          `json:"has_tail"`
	// Retries is how many times a failed task of a composite job is
	// submitted again (0: retry off).
	Retries int `json:"retries"`
	// SubmitRetries is how many times a submit call failing with a
	// transient error is retried, waiting Backoff, then twice as long each
	// time up to MaxBackoff. Defaults 4 (0 means the default, a negative
	// value no retries), 500ms, 30s.
	SubmitRetries int           `json:"submit_retries"`
	Backoff       time.Duration `json:"backoff_ns"`
	MaxBackoff    time.Duration `json:"max_backoff_ns"`
	// RetryFor is how long a call failing with transient errors (Submit,
	// Find, Track) is retried at least, counted from its first failure,
	// however many tries SubmitRetries allows: long enough to ride through
	// a scheduler's restart or a controller's failover. Default
	// DefaultRetryFor (0 means the default, a negative value no time
	// budget: SubmitRetries alone).
	RetryFor time.Duration `json:"retry_for_ns"`
}

func (s *Settings) defaults() {
	if s.Workers <= 0 {
		s.Workers = 5
	}
	if s.Speedup <= 0 {
		s.Speedup = 1
	}
	if s.SubmitRetries == 0 {
		s.SubmitRetries = DefaultSubmitRetries
	}
	if s.Backoff <= 0 {
		s.Backoff = 500 * time.Millisecond
	}
	if s.MaxBackoff <= 0 {
		s.MaxBackoff = 30 * time.Second
	}
	if s.RetryFor == 0 {
		s.RetryFor = DefaultRetryFor
	}
	if s.MaxBackoff < s.Backoff {
		s.MaxBackoff = s.Backoff
	}
	if s.Retries < 0 {
		s.Retries = 0
	}
	if s.MaxInFlight < 0 {
		s.MaxInFlight = 0
	}
}

// DefaultSubmitRetries is the default of Settings.SubmitRetries.
const DefaultSubmitRetries = 4

// DefaultRetryFor is the default of Settings.RetryFor: a restart of the
// bundled core takes about a second, a Slurm controller's failover up to
// a minute (its SlurmctldTimeout defaults to 120 s).
const DefaultRetryFor = 2 * time.Minute

// MaxRetryFor bounds Settings.RetryFor (and --retry-for).
const MaxRetryFor = 24 * time.Hour

// retryMore reports whether a call that has failed tries times with a
// transient error, the first failure at first, may be tried again.
func (s *Settings) retryMore(tries int, first time.Time) bool {
	return tries <= max(s.SubmitRetries, 0) || s.RetryFor > 0 && time.Since(first) < s.RetryFor
}

// Progress is a snapshot of a run for a progress display.
type Progress struct {
	Total       int // unitary submissions expected: unitary jobs plus tasks
	Submitted   int // submitted (all attempts)
	Queued      int // submitted and waiting
	Running     int
	Succeeded   int
	Failed      int
	Cancelled   int
	Pending     int           // submissions due but not yet made, or being retried
	LastDelay   time.Duration // delay of the latest scheduled submission
	TopDone     int           // top-level jobs final
	TopTotal    int
	InTail      bool
	TailLeft    time.Duration
	Elapsed     time.Duration
	Interrupted bool
}

// Summary is what a finished (or interrupted) run reports.
type Summary struct {
	RunID   string
	Resumed bool
	Status  string         // store.RunCompleted, or "interrupted"
	Jobs    map[string]int // final states of top-level jobs
	Tasks   map[string]int // final states of composite jobs' tasks
	// Submitted counts the submissions the target accepted, over the whole
	// run (every process that worked on it); SubmitFailed those it did not.
	Submitted, SubmitFailed int
	Delay                   DelayStats // of this process's scheduled submissions
	Retries                 int        // submit calls retried after transient errors
	Recovered               int        // submissions found at the target on resume
	Elapsed                 time.Duration
	Notes                   []string // what happened that the user should know
}

// ErrInterrupted is returned by Run when its context was cancelled: the run
// is recorded as far as it went and can be resumed.
var ErrInterrupted = errors.New("interrupted")

// NewRunID returns a fresh run id: the UTC time and 6 random hex digits.
func NewRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Key is the idempotency key of a job's attempt in a run.
func Key(runID, jobID string, attempt int) string {
	return fmt.Sprintf("%s/%s/%d", runID, jobID, attempt)
}

// workloadInfo is what Run reads from the workload directory.
type workloadInfo struct {
	jobs     []workload.Job
	tasks    int
	sha256   string
	manifest []byte
	m        *workload.Manifest
}

func readWorkload(dir string) (*workloadInfo, error) {
	path := filepath.Join(dir, workload.JobsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	jobs, err := workload.ReadAll(dir)
	if err != nil {
		return nil, err
	}
	w := &workloadInfo{jobs: jobs, sha256: hex.EncodeToString(sum[:])}
	seen := make(map[string]bool, len(jobs))
	for i := range jobs {
		if seen[jobs[i].ID] {
			return nil, fmt.Errorf("%s: job id %s appears twice", path, jobs[i].ID)
		}
		seen[jobs[i].ID] = true
		w.tasks += len(jobs[i].Tasks)
	}
	if mb, err := os.ReadFile(filepath.Join(dir, workload.ManifestFile)); err == nil {
		w.manifest = mb
		if m, err := workload.ReadManifest(dir); err == nil {
			w.m = m
		}
	}
	return w, nil
}

// Run submits the workload of cfg.WorkloadDir to cfg.Target and records the
// run in cfg.Store, or continues a run with cfg.Resume. It returns when
// every job is final (or cancelled at the end of the tail), with the
// summary; when ctx is cancelled it stops submitting, records what it saw
// and returns ErrInterrupted with the partial summary.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if cfg.Store == nil || cfg.Target == nil {
		return nil, errors.New("submitter: Config needs a Store and a Target")
	}
	w, err := readWorkload(cfg.WorkloadDir)
	if err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, st: cfg.Store, target: cfg.Target, caps: cfg.Target.Caps(), w: w}
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

// provenance builds the provenance record of this invocation.
func (r *Runner) provenance(seq int) (store.Provenance, error) {
	return provenanceRecord(r.runID, seq, r.w, r.cfg.WorkloadDir, r.target.Name(), r.cfg.TargetConfig, r.cfg.CommandLine)
}

// provenanceRecord is the provenance of a run of the workload read from dir:
// who ran what, where, from which spec and seed, on which target.
func provenanceRecord(runID string, seq int, w *workloadInfo, dir, target string, targetConfig any, commandLine []string) (store.Provenance, error) {
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	uname := ""
	if u, err := user.Current(); err == nil {
		uname = u.Username
	}
	// The store is meant to be shared and its rows cannot be scrubbed:
	// never a secret in it.
	cl, _ := json.Marshal(RedactArgs(commandLine))
	tc := []byte("{}")
	if targetConfig != nil {
		b, err := json.Marshal(targetConfig)
		if err != nil {
			return store.Provenance{}, fmt.Errorf("target configuration: %v", err)
		}
		tc = b
	}
	absDir, _ := filepath.Abs(dir)
	p := store.Provenance{
		RunID: runID, Seq: seq, RecordedNS: time.Now().UnixNano(),
		GmarkVersion: version.String(), GoVersion: runtime.Version(), Host: host,
		OSArch: runtime.GOOS + "/" + runtime.GOARCH, User: uname, CommandLine: string(cl),
		WorkingDir: wd, WorkloadDir: absDir, WorkloadSHA256: w.sha256,
		Manifest: string(w.manifest), Target: target, TargetConfig: string(tc),
	}
	if m := w.m; m != nil {
		p.SpecPath, p.SpecSHA256 = m.Spec.Path, m.Spec.SHA256
		seed := m.Seed
		p.Seed = &seed
		inc, _ := json.Marshal(m.Includes)
		if m.Includes == nil {
			inc = []byte("[]")
		}
		p.Includes = string(inc)
	}
	return p, nil
}

// RunRecords are the records that open a run in the store.
type RunRecords struct {
	Run        store.Run
	Provenance store.Provenance
	Jobs       []workload.Job // the workload's jobs, in file order
}

// DescribeRun reads the workload directory dir and builds the run and
// provenance records of a run of it on a target, for tools that record runs
// without the Runner (the bundled core's simulator). The run's ScenarioID is
// left for the caller to set.
func DescribeRun(runID, dir, target string, targetConfig, settings any, commandLine []string) (*RunRecords, error) {
	w, err := readWorkload(dir)
	if err != nil {
		return nil, err
	}
	prov, err := provenanceRecord(runID, 0, w, dir, target, targetConfig, commandLine)
	if err != nil {
		return nil, err
	}
	set, err := json.Marshal(settings)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(dir)
	return &RunRecords{
		Run: store.Run{ID: runID, CreatedNS: time.Now().UnixNano(), WorkloadDir: abs, WorkloadSHA256: w.sha256,
			Jobs: len(w.jobs), Tasks: w.tasks, Target: target, Settings: string(set), ProvenanceSHA256: prov.ComputeDigest()},
		Provenance: prov, Jobs: w.jobs}, nil
}

func (r *Runner) prepareNew() error {
	r.cfg.Settings.defaults()
	r.settings = r.cfg.Settings
	r.runID = r.cfg.RunID
	if r.runID == "" {
		r.runID = NewRunID()
	}
	project, scenario := r.cfg.Project, r.cfg.Scenario
	if project == "" {
		project = "default"
	}
	if scenario == "" {
		abs, _ := filepath.Abs(r.cfg.WorkloadDir)
		scenario = filepath.Base(abs)
	}
	prov, err := r.provenance(0)
	if err != nil {
		return err
	}
	settings, _ := json.Marshal(r.settings)
	abs, _ := filepath.Abs(r.cfg.WorkloadDir)
	now := time.Now()
	err = r.st.Write(context.Background(), func(tx *store.Tx) error {
		pid, err := tx.EnsureProject(project, "", now.UnixNano())
		if err != nil {
			return err
		}
		sid, err := tx.EnsureScenario(pid, scenario, "", now.UnixNano())
		if err != nil {
			return err
		}
		if err := tx.InsertRun(store.Run{ID: r.runID, ScenarioID: sid, CreatedNS: now.UnixNano(), WorkloadDir: abs,
			WorkloadSHA256: r.w.sha256, Jobs: len(r.w.jobs), Tasks: r.w.tasks, Target: r.target.Name(),
			Settings: string(settings), ProvenanceSHA256: prov.ComputeDigest()}); err != nil {
			return err
		}
		return tx.InsertProvenance(prov)
	})
	if err != nil {
		if r.cfg.RunID != "" {
			if _, e := r.st.Run(r.cfg.RunID); e == nil {
				return fmt.Errorf("run %s already exists; use --resume to continue it", r.cfg.RunID)
			}
		}
		return err
	}
	r.tops = make([]*top, len(r.w.jobs))
	for i := range r.w.jobs {
		r.tops[i] = &top{job: &r.w.jobs[i], idx: i}
	}
	r.dispatchFrom = 0
	r.awaitingFirst = len(r.tops)
	return nil
}

// Runner is one run in progress; see Run.
type Runner struct {
	cfg      Config
	settings Settings
	st       *store.Store
	rec      *Recorder
	target   Target
	caps     Caps
	w        *workloadInfo
	runID    string
	resumed  bool
	tops     []*top

	// The schedule: job i is due at anchor + offset/speedup. anchor carries
	// a monotonic reading; anchorNS is the same instant as Unix time.
	anchor   time.Time
	anchorNS int64
	// dispatchFrom is the first top the dispatcher considers (all before it
	// were handled before a resume).
	dispatchFrom int
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
	delays    Delays
	summary   Summary
	counts    Progress
	started   time.Time
	cancels   chan cancelDone
	inTail    bool
	tailAt    time.Time
	lastDelay time.Duration
}
