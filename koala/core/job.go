package core

import (
	"fmt"
	"strings"
	"time"

	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/workload"
)

// Priority is one of KOALA's four placement queues.
type Priority int

const (
	SuperHigh Priority = iota
	High
	Low
	SuperLow
)

var priorityNames = [...]string{"super-high", "high", "low", "super-low"}

func (p Priority) String() string { return priorityNames[p] }

// ParsePriority reads "super-high", "high", "low" or "super-low".
func ParsePriority(s string) (Priority, error) {
	for i, n := range priorityNames {
		if strings.EqualFold(s, n) || strings.EqualFold(s, strings.ReplaceAll(n, "-", "")) {
			return Priority(i), nil
		}
	}
	return 0, fmt.Errorf("unknown priority %q (super-high, high, low or super-low)", s)
}

// Runner is how a job's components are started.
type Runner string

const (
	// KRunner runs components independently (KOALA's default runner): the
	// application synchronizes itself. On emulated clusters the claimed
	// components start together at the job's start time; a component on a
	// real cluster (lrm = "slurm") starts its program as soon as the
	// controller starts it.
	KRunner Runner = "krunner"
	// DRunner starts all components together (a barrier, as DUROC does) and
	// restarts the whole job when a component fails. On real clusters each
	// component holds its processors once started, until every component
	// has started and the start time has come; then all are released.
	DRunner Runner = "drunner"
	// IRunner gives the components a per-job rendezvous service to find
	// each other (as the IRunner gives Ibis a nameserver). On real clusters
	// the components start as they are claimed, as under the KRunner, and
	// the application's processes meet at the rendezvous.
	IRunner Runner = "irunner"
)

// ParseRunner reads a runner name.
func ParseRunner(s string) (Runner, error) {
	switch r := Runner(strings.ToLower(s)); r {
	case KRunner, DRunner, IRunner:
		return r, nil
	}
	return "", fmt.Errorf("unknown runner %q (krunner, drunner or irunner)", s)
}

// State is a job's place in its life cycle.
type State string

const (
	Queued    State = "queued"    // in a placement queue
	Claiming  State = "claiming"  // placed; files moving; waiting to claim processors
	Running   State = "running"   // all components claimed; some or all executing
	Finished  State = "finished"  // every component ended successfully
	Failed    State = "failed"    // ended without success; Reason says why
	Cancelled State = "cancelled" // cancelled by the user
)

// Terminal tells whether the state is final.
func (s State) Terminal() bool { return s == Finished || s == Failed || s == Cancelled }

// Options are what a submission says besides the job.
type Options struct {
	Policy   string   // placement policy; "" for the grid's default
	Priority Priority // placement queue
	Runner   Runner
	// Key is the client's idempotency key: a second submission with the same
	// key is refused, so a resubmitting client never runs a job twice.
	Key string
	// DeadlinePolicy and DeadlineL override the grid's deadline_policy
	// (rpp, wait-X) and deadline_l (L_p) for a job with a start deadline;
	// "" and 0 take the grid's.
	DeadlinePolicy string
	DeadlineL      float64
}

// Job is a job in the core.
type Job struct {
	// The fields a placement try reads and writes come first, together,
	// in the first cache line (64 bytes; a Job takes 1,024, so each starts
	// a line): a scan walks tens of thousands of queued jobs, and its
	// touches of each are cache misses, one a line (a third of a
	// simulated run's time when they were spread over the struct; then a
	// fifth when they spread over two lines).
	State          State
	PlacementTries int    // over the job's whole life
	whyGen         uint64 // the core's infoGen when the cheap checks found Why; 0: not found so
	// whyClass: Why is shared with other jobs (Core.sharedWhy; never
	// written to), the reasons of a whyEntry of this class; 0: its own.
	whyClass uint64
	// The request's processors in all, its largest component not fixed on
	// a site (the first of them) and that one's index (initComponents;
	// a component's processors are at most a cluster's, Fits).
	reqNeed           int
	reqLargest, reqAt int32
	flexible          bool     // request.Flexible, beside the others
	excl              bool     // exclude has a site (excludes)
	Restarts          int      // after soft errors, lost clusters, pre-emption
	priority          Priority // current queue, after aging
	// Why says, per site, why the job's last placement try failed (the
	// counts of idle processors are the last try's); empty once the job is
	// placed. A job that failed after max_placement_tries keeps it.
	Why     []placement.Reason
	exclude map[string]bool
	// A lazy job (lazy.go) owes the tries of its queue's bulks since
	// lazyMark, with the reasons of lazyKey.
	lazyMark uint64
	lazyKey  *lazyKey

	ID      string // the core's id
	request placement.Request
	Spec    workload.Job
	Opts    Options
	// Reason says why a job ended (failed, cancelled) or, while it waits
	// again, why it was restarted or re-placed. It is empty while the job
	// runs and once it succeeded: a reason always describes the event
	// that ended the job, never an earlier re-queue.
	Reason string

	Submitted          time.Time
	queuedAt           time.Time
	ClaimTries         int
	Placements         int // successful placements
	TotalPlacementTime time.Duration
	L                  float64 // the claiming fraction, lowered on each missed start time

	JPT     time.Time // last job placement time
	JCT     time.Time // last (or next) claiming time
	JST     time.Time // estimated job start time
	OrigJST time.Time // the first JST, for the start delay
	// Deadline is the job's start deadline on the core's clock (zero:
	// none): its submission plus its deadline's offset from its submit
	// time. Such a job starts at it or fails (deadline.go).
	Deadline time.Time
	// NextTry is when a job with a deadline waiting for placement is
	// tried next (the Repeated Placement Policy's PT_m).
	NextTry time.Time
	// seriesFrom is where its series of tries counts from when it first
	// waits, under waitx_first_try = "skip" (zero: its submission).
	seriesFrom time.Time

	FTT   time.Duration // estimated file transfer time of the last placement
	Start time.Time     // execution start (the last one, after restarts)
	End   time.Time
	// RunTimeSource: where an emulated job's run time came from ("" with
	// real processes).
	RunTimeSource RunTimeSource

	Components []Component
	running    bool // a component has executed since the job was last placed (started was emitted)
	settling   bool // claimTimer decides a claim try that submitted components to controllers
	claimTimer *timer
	tryTimer   *timer // the next RPP try of a job with a deadline
	inWait     bool   // a job with a deadline waiting for its next try
	waitTries  int    // the tries of its current wait (deadline_max_tries)
	ftt        time.Duration
}

// Component is the state of one component.
type Component struct {
	Size      int
	Fixed     string // the site the job fixes for it, or ""
	Site      string // where it is placed now
	FileSites []string
	Transfer  time.Duration
	Claimed   bool
	ClaimedAt time.Time
	Executing bool
	ExecStart time.Time
	Done      bool
	OK        bool
	// Pending: submitted to a real cluster's controller, not started yet
	// (its processors are booked meanwhile).
	Pending bool
	// LRMID is the job id a real cluster's controller gave the component's
	// current submission; Attempt names the submission.
	LRMID    string
	Attempt  uint64
	lrmID    int64
	endTimer *timer
	since    time.Time // when it was submitted (Pending)
	lrmEnd   time.Time // the controller's time of its end
}

// Sites lists the distinct sites the job's components are placed on.
func (j *Job) Sites() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range j.Components {
		if c.Site != "" && !seen[c.Site] {
			seen[c.Site] = true
			out = append(out, c.Site)
		}
	}
	return out
}

// Size is the processors the job asks for.
func (j *Job) Size() int {
	n := 0
	for _, c := range j.Components {
		n += c.Size
	}
	return n
}

// CoAllocated tells whether the job runs on more than one site.
func (j *Job) CoAllocated() bool { return len(j.Sites()) > 1 }

// excludes tells whether the job avoids some site (only a restart makes
// it avoid one: a job never restarted is answered without its map).
// excl is set as restart adds a site to exclude (only a restart makes a
// job avoid one), so that the test reads the job's first cache line only.
func (j *Job) excludes() bool { return j.excl }

// Priority is the job's current placement queue.
func (j *Job) Priority() Priority { return j.priority }
