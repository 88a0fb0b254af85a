// Package lrmkit is what the bundled core's controllers of real clusters
// share, whatever the cluster's kind (koala/slurmlrm's Slurm clusters,
// koala/celrm's clusters behind compute elements): per cluster, a worker
// that runs its calls to the local resource manager one at a time, in
// order, and a poller that asks the resource manager every poll and hands
// its reports to the core's driver; the submissions they follow; the
// release files of the components that hold their processors; when a
// cluster whose manager does not answer goes out of service; the log, and
// the IRunner's rendezvous server, started the first time a job needs it.
//
// A controller keeps what is its own: how a component is submitted, how a
// job is cancelled and what a poll asks and makes of the answer.
package lrmkit

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/apps/rendezvous"
	"github.com/gmark/gmark/koala/core"
)

// Do hands a report to the core's driver; false: the driver has stopped
// (server.Agent's do).
type Do = func(func(*core.Core)) bool

// Set is what the controllers of one grid's clusters of a kind share: the
// log, the rendezvous server, and their workers and pollers (Run).
type Set struct {
	ctls   map[string]core.Controller
	log    io.Writer
	logMu  sync.Mutex
	rdvAt  string
	once   sync.Once
	rdv    *rendezvous.Server
	rdvErr error
	runs   []runner
}

type runner interface {
	work(ctx context.Context)
	pollLoop(ctx context.Context, do Do)
}

// NewSet is a set whose lines go to log (nil: none) and whose rendezvous
// server listens at rdvAt when a job first needs it.
func NewSet(log io.Writer, rdvAt string) *Set {
	return &Set{log: log, rdvAt: rdvAt, ctls: map[string]core.Controller{}}
}

// Empty tells whether the set has no cluster.
func (s *Set) Empty() bool { return len(s.runs) == 0 }

// Controllers are the clusters' controllers (Config.Controller), by
// cluster name.
func (s *Set) Controllers() map[string]core.Controller {
	out := make(map[string]core.Controller, len(s.ctls))
	for name, c := range s.ctls {
		out[name] = c
	}
	return out
}

// Run runs every cluster's worker and poller until ctx ends (server.Agent),
// then stops the rendezvous server.
func (s *Set) Run(ctx context.Context, do Do) {
	var wg sync.WaitGroup
	for _, c := range s.runs {
		wg.Add(2)
		go func() { defer wg.Done(); c.work(ctx) }()
		go func() { defer wg.Done(); c.pollLoop(ctx, do) }()
	}
	wg.Wait()
	if s.rdv != nil {
		s.rdv.Close()
	}
}

// Rendezvous is the address of the IRunner's rendezvous server, started the
// first time it is needed (a failure to start is kept: every later call
// gets it).
func (s *Set) Rendezvous() (string, error) {
	s.once.Do(func() { s.rdv, s.rdvErr = rendezvous.Start(s.rdvAt) })
	if s.rdvErr != nil {
		return "", s.rdvErr
	}
	return s.rdv.Addr(), nil
}

// logf writes one line, whole, whatever the goroutines writing at once.
func (s *Set) logf(format string, args ...any) {
	if s.log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, "gmark koala: "+format+"\n", args...)
}

// JobName is the resource manager's name of a submission of the core whose
// jobs are named after prefix: gmark-<prefix>-<job>.c<component>.s<attempt>.
func JobName(prefix string, ref core.Ref) string {
	return NamePrefix(prefix) + ref.String()
}

// NamePrefix is how the names of the core's jobs begin.
func NamePrefix(prefix string) string { return "gmark-" + prefix + "-" }

// Sub is one submission of a component, as its cluster's controller
// follows it; ID is the resource manager's job id (its zero value: not
// known yet). Its fields are guarded by the cluster's lock.
type Sub[ID comparable] struct {
	Ref     core.Ref
	Name    string // the resource manager's name of it (JobName)
	Size    int
	Dir     string // Dir/<job>/: where it works
	Release string // the file that releases it; "" when it does not hold
	ID      ID     // the resource manager's id, zero until it answers
	Failed  string // why the submission failed
	Cancel  string // why the core cancelled it ("" while it did not)
	Missing int    // polls in a row the resource manager did not know it
	Start   time.Time

	ReportedSubmit, ReportedStart, ReportedEnd bool
}

// Config sets up the controller of one cluster.
type Config[ID comparable] struct {
	Name string // the cluster's
	// Controller is the cluster's controller as the core knows it
	// (Set.Controllers), the one built on this Cluster.
	Controller core.Controller
	Dir        string // each job works in Dir/<job id>/
	Prefix     string // names the core's jobs (JobName)
	// Job is what the resource manager's jobs are called in the log
	// ("Slurm job"); Submitting what a failed submission is called
	// ("sbatch of").
	Job, Submitting string
	// Every is the time between polls; UnreachableAfter how long the
	// resource manager may fail to answer before the cluster is out of
	// service for placement.
	Every, UnreachableAfter time.Duration
	// Send submits a component (on the worker): base names its files in
	// sb.Dir (c<component>.s<attempt>). Kill cancels a job Send submitted
	// (on the worker) and logs how it went. Poll asks the resource manager
	// (on the poller) and returns what to tell the core, or nil.
	Send func(ctx context.Context, sb *Sub[ID], s *core.Submission, base string) (ID, error)
	Kill func(ctx context.Context, sb *Sub[ID], id ID, reason string)
	Poll func(ctx context.Context) func(*core.Core)
}

// Cluster is the machinery of one cluster's controller: its submissions,
// its worker's queue of calls and its poller.
type Cluster[ID comparable] struct {
	set *Set
	cfg Config[ID]
	now func() time.Time

	mu sync.Mutex
	// Subs are the submissions the controller follows, by reference
	// (under Lock).
	Subs  map[core.Ref]*Sub[ID]
	calls []func(context.Context)
	wake  chan struct{}

	failingSince time.Time // owned by the poller
}

// NewCluster makes the controller of one cluster of s, whose worker and
// poller s.Run runs.
func NewCluster[ID comparable](s *Set, cfg Config[ID]) *Cluster[ID] {
	c := &Cluster[ID]{set: s, cfg: cfg, now: time.Now, Subs: map[core.Ref]*Sub[ID]{}, wake: make(chan struct{}, 1)}
	s.runs = append(s.runs, c)
	if cfg.Controller != nil {
		s.ctls[cfg.Name] = cfg.Controller
	}
	return c
}

// Lock guards Subs, the submissions' fields and what the controller keeps
// with them.
func (c *Cluster[ID]) Lock() { c.mu.Lock() }

// Unlock releases Lock.
func (c *Cluster[ID]) Unlock() { c.mu.Unlock() }

// Logf writes a line of the cluster's: "gmark koala: <cluster>: ...".
func (c *Cluster[ID]) Logf(format string, args ...any) {
	c.set.logf("%s: "+format, append([]any{c.cfg.Name}, args...)...)
}

// Submit follows a new submission and queues it for the worker, which
// sends it (Config.Send) and, when the core cancelled it meanwhile,
// cancels it (Config.Kill) once the resource manager has taken it.
func (c *Cluster[ID]) Submit(s *core.Submission) {
	dir := filepath.Join(c.cfg.Dir, jobenv.Safe(s.Job))
	base := fmt.Sprintf("c%d.s%d", s.Component, s.Attempt)
	sb := &Sub[ID]{Ref: s.Ref, Name: JobName(c.cfg.Prefix, s.Ref), Size: s.Size, Dir: dir}
	if s.Hold {
		sb.Release = filepath.Join(dir, base+".release")
	}
	c.mu.Lock()
	c.Subs[s.Ref] = sb
	c.mu.Unlock()
	sub := *s
	c.Enqueue(func(ctx context.Context) { c.send(ctx, sb, &sub, base) })
}

func (c *Cluster[ID]) send(ctx context.Context, sb *Sub[ID], s *core.Submission, base string) {
	id, err := c.cfg.Send(ctx, sb, s, base)
	c.mu.Lock()
	if err != nil {
		sb.Failed = err.Error()
	} else {
		sb.ID = id
	}
	cancel := sb.Cancel
	c.mu.Unlock()
	if err != nil {
		c.Logf("%s %s failed: %v", c.cfg.Submitting, sb.Name, err)
		return
	}
	c.Logf("submitted %s as %s %v", sb.Name, c.cfg.Job, id)
	if cancel != "" {
		c.cfg.Kill(ctx, sb, id, cancel)
	}
}

// Release makes the release file the component's script waits for
// (core.Controller).
func (c *Cluster[ID]) Release(ref core.Ref) {
	c.mu.Lock()
	sb := c.Subs[ref]
	var id ID
	if sb != nil {
		id = sb.ID
	}
	c.mu.Unlock()
	if sb == nil || sb.Release == "" {
		return
	}
	if err := os.WriteFile(sb.Release, nil, 0o644); err != nil {
		c.Logf("cannot release %s: %v", sb.Name, err)
		return
	}
	c.Logf("released %s (%s %v)", sb.Name, c.cfg.Job, id)
}

// Cancel marks a submission cancelled and, when the resource manager has
// taken it, queues its cancellation (core.Controller); else the worker
// cancels it when the manager answers.
func (c *Cluster[ID]) Cancel(ref core.Ref, reason string) {
	c.mu.Lock()
	sb := c.Subs[ref]
	if sb == nil || sb.Cancel != "" {
		c.mu.Unlock()
		return
	}
	sb.Cancel = reason
	id := sb.ID
	c.mu.Unlock()
	var none ID
	if id != none {
		c.Enqueue(func(ctx context.Context) { c.cfg.Kill(ctx, sb, id, reason) })
	}
}

// Enqueue queues a call for the worker, which runs the calls in order.
func (c *Cluster[ID]) Enqueue(fn func(context.Context)) {
	c.mu.Lock()
	c.calls = append(c.calls, fn)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Queued is how many calls wait for the worker.
func (c *Cluster[ID]) Queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls)
}

// work runs the cluster's calls in order until ctx ends.
func (c *Cluster[ID]) work(ctx context.Context) {
	for {
		c.mu.Lock()
		q := c.calls
		c.calls = nil
		c.mu.Unlock()
		for _, fn := range q {
			if ctx.Err() != nil {
				return
			}
			fn(ctx)
		}
		if len(q) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
	}
}

// pollLoop polls at once and then every Config.Every, handing the reports
// to the driver, until ctx ends or the driver stops.
func (c *Cluster[ID]) pollLoop(ctx context.Context, do Do) {
	t := time.NewTicker(c.cfg.Every)
	defer t.Stop()
	for {
		if report := c.cfg.Poll(ctx); report != nil && !do(report) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Unanswered is what to tell the core when a poll's call to the resource
// manager failed with err: nothing while it has failed for less than
// Config.UnreachableAfter (or the poll was stopped), then that the cluster's
// controller is unreachable. Only the poller calls it.
func (c *Cluster[ID]) Unanswered(ctx context.Context, err error) func(*core.Core) {
	if ctx.Err() != nil {
		return nil
	}
	now := c.now()
	if c.failingSince.IsZero() {
		c.failingSince = now
	}
	if now.Sub(c.failingSince) < c.cfg.UnreachableAfter {
		return nil
	}
	name, reason := c.cfg.Name, err.Error()
	return func(k *core.Core) { k.ControllerUnreachable(name, reason) }
}

// Answered tells that the resource manager answered a poll: its next
// failure starts the count of Unanswered again.
func (c *Cluster[ID]) Answered() { c.failingSince = time.Time{} }

// The defaults of the controllers' options.
const (
	DefaultTimeout          = time.Minute      // of every call to a resource manager
	DefaultUnreachableAfter = 30 * time.Second // Config.UnreachableAfter
)

// Or is d, or def when d is not positive (an option left out).
func Or(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// CheckPrefix refuses a prefix of the core's jobs' names (JobName) that
// would not be one word of them: pkg names the package that refuses it.
func CheckPrefix(pkg, prefix string) error {
	if prefix == "" || strings.ContainsAny(prefix, " -./") {
		return fmt.Errorf("%s: the prefix %q must be a word without '-', '.' or '/'", pkg, prefix)
	}
	return nil
}

// Paths are the gmark binary the components of a core whose state is the
// database state run (this process's), and the directory their jobs work
// under: dir, STATE.jobs when dir is "", made absolute.
func Paths(state, dir string) (exe, jobs string, err error) {
	if exe, err = os.Executable(); err != nil {
		return "", "", err
	}
	if dir == "" {
		dir = state + ".jobs"
	}
	if jobs, err = filepath.Abs(dir); err != nil {
		return "", "", err
	}
	return exe, jobs, nil
}
