package submitter

import (
	"fmt"
	"io"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
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
	// Inputs are recorded in the provenance of the run (and of a resume):
	// the input files by content, the scheduler's parameters in force.
	Inputs record.Inputs
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

// Final is how many submissions are final: succeeded, failed or cancelled.
func (p Progress) Final() int { return p.Succeeded + p.Failed + p.Cancelled }

// Detail is the progress in a line, for a progress bar or a log: "submitted
// 12 · queued 3 · running 5 · done 4 · failed 0 · delay 0.412ms", and the
// tail's time left in it.
func (p Progress) Detail() string {
	s := fmt.Sprintf("submitted %d · queued %d · running %d · done %d · failed %d · delay %.3fms",
		p.Submitted, p.Queued, p.Running, p.Succeeded, p.Failed+p.Cancelled, float64(p.LastDelay)/float64(time.Millisecond))
	if p.InTail {
		s += fmt.Sprintf(" · tail %s left", p.TailLeft.Round(time.Second))
	}
	return s
}
