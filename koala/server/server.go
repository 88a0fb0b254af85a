// Package server runs the scheduler core live: a driver goroutine owns the
// core, advances it with a (possibly scaled) clock, applies the HTTP API's
// requests, commits the core's state to SQLite once per step (group commit)
// and only then answers the requests of that step and publishes its events.
package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmark/gmark/koala/clock"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/persist"
)

// Config sets up a server.
type Config struct {
	Grid     *grid.Grid
	State    string // the SQLite database of the core's state
	Token    string // required on every state-changing request
	Executor core.Executor
	// Clock overrides the grid's time scale (tests use a fake clock).
	Clock clock.Clock
	// MaxWait bounds how long the driver sleeps between steps.
	MaxWait time.Duration
	// HTTP limits the API's clients; zero fields take DefaultHTTPLimits.
	HTTP HTTPLimits
	// Controllers are the real local resource managers of the grid's
	// lrm = "slurm" clusters, by cluster name (core.NewWith).
	Controllers map[string]core.Controller
	// Agents work beside the core while it runs (the controllers' pollers).
	Agents []Agent
	// AwaitRun holds the grid's local workloads until a run declares its
	// origin (POST /v1/run/begin, core.Begin), so that they stand against
	// the run's workload as in a simulation of it. A core restarted on a
	// state it ran on before (a run resumed, which declares no origin)
	// starts them at once.
	AwaitRun bool
}

// An Agent works beside the core on goroutines of its own: Run is called
// once when the server runs and returns when ctx ends. It reports to the
// core through do, which runs fn on the driver's goroutine within a step
// (committed when do returns) and returns false once the server stops.
type Agent interface {
	Run(ctx context.Context, do func(fn func(*core.Core)) bool)
}

// Server is a running core.
type Server struct {
	cfg     Config
	core    *core.Core
	store   *persist.Store
	clock   clock.Clock
	cmds    chan *command
	stream  *broadcaster
	started time.Time
	stats   stats
	streams atomic.Int64 // event-stream requests being served
	mu      sync.Mutex   // guards closed and listenNames
	closed  bool
	// listenNames are the host names the server listens on (Listen),
	// answered as Host like localhost.
	listenNames []string
	done        chan struct{}
}

type stats struct {
	steps, commands atomic.Uint64 // driver steps that applied commands, and the commands
	commitNanos     atomic.Uint64

	mu          sync.Mutex
	events      map[core.EventKind]uint64
	submissions uint64
	rejected    uint64
}

// command is work for the driver goroutine.
type command struct {
	fn    func() (any, error)
	value any
	err   error
	done  chan struct{}
}

// New opens the state database, restores the jobs a previous run left, and
// prepares the core. Run starts it.
func New(cfg Config) (*Server, error) {
	if cfg.Grid == nil {
		return nil, errors.New("server: no grid")
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = time.Second
	}
	cfg.HTTP = cfg.HTTP.WithDefaults(DefaultHTTPLimits)
	store, err := persist.Open(cfg.State)
	if err != nil {
		return nil, err
	}
	clk, err := restoreClock(store, cfg)
	if err != nil {
		store.Close()
		return nil, err
	}
	saved, err := store.Load()
	if err != nil {
		store.Close()
		return nil, err
	}
	lastSeq, err := store.LastSeq()
	if err != nil {
		store.Close()
		return nil, err
	}
	now := clk.Now()
	last, ranBefore, _ := store.Meta("last_time")
	if ranBefore {
		// Never start before the last recorded time: core time only goes on.
		if n, err := strconv.ParseInt(last, 10, 64); err == nil && time.Unix(0, n).After(now) {
			now = time.Unix(0, n)
		}
	}
	c, err := core.NewWith(cfg.Grid, now, store, cfg.Executor, cfg.Controllers)
	if err != nil {
		store.Close()
		return nil, err
	}
	c.SetEventSeq(lastSeq)
	store.Attach(c.Job)
	if err := resumeOrigin(c, store); err != nil {
		store.Close()
		return nil, err
	}
	if err := c.Restore(saved, "the core restarted"); err != nil {
		store.Close()
		return nil, err
	}
	if cfg.AwaitRun && len(saved) == 0 && !ranBefore {
		if err := c.HoldLocal(); err != nil {
			store.Close()
			return nil, err
		}
	}
	s := &Server{cfg: cfg, core: c, store: store, clock: clk, cmds: make(chan *command, 4096),
		stream: newBroadcaster(), started: time.Now(), done: make(chan struct{}),
		stats: stats{events: map[core.EventKind]uint64{}}}
	if err := s.commit(); err != nil {
		store.Close()
		return nil, err
	}
	return s, nil
}

// restoreClock keeps core time continuous across restarts: the origin of a
// scaled clock is stored with the state.
func restoreClock(store *persist.Store, cfg Config) (clock.Clock, error) {
	if cfg.Clock != nil {
		return cfg.Clock, nil
	}
	scale := cfg.Grid.Scheduler.TimeScale
	if scale == 1 {
		return clock.NewReal(), nil
	}
	origin, okO, err := store.Meta("clock_origin")
	if err != nil {
		return nil, err
	}
	wall, okW, err := store.Meta("clock_wall_origin")
	if err != nil {
		return nil, err
	}
	if okO && okW {
		o, err1 := strconv.ParseInt(origin, 10, 64)
		w, err2 := strconv.ParseInt(wall, 10, 64)
		if err1 == nil && err2 == nil {
			c := clock.NewScaled(time.Unix(0, o), scale)
			c.WallOrigin = time.Unix(0, w)
			return c, nil
		}
	}
	c := clock.NewScaled(time.Now(), scale)
	if err := store.SetMeta("clock_origin", fmt.Sprint(c.Origin.UnixNano())); err != nil {
		return nil, err
	}
	return c, store.SetMeta("clock_wall_origin", fmt.Sprint(c.WallOrigin.UnixNano()))
}

// Core returns the core (only for use on the driver goroutine, via Do).
func (s *Server) Core() *core.Core { return s.core }

// Do runs fn on the driver goroutine, within a step: its effects are
// committed before Do returns.
func (s *Server) Do(ctx context.Context, fn func() (any, error)) (any, error) {
	cmd := &command{fn: fn, done: make(chan struct{})}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, errShuttingDown
	}
	select {
	case s.cmds <- cmd:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, errShuttingDown
	}
	select {
	case <-cmd.done:
		return cmd.value, cmd.err
	case <-s.done:
		return nil, errShuttingDown
	}
}

var errShuttingDown = errors.New("the scheduler is shutting down")

// Run drives the core until ctx ends. Each step: advance the core to the
// clock's time, apply the pending commands, commit, publish the step's
// events, answer the commands, then sleep until the next internal event or
// the next command.
func (s *Server) Run(ctx context.Context) error {
	// The agents stop with the loop; one waiting in Do is let go by done.
	agentCtx, stopAgents := context.WithCancel(ctx)
	var agents sync.WaitGroup
	defer func() {
		stopAgents()
		close(s.done)
		agents.Wait()
	}()
	// The writer commits each step's batch, in order, then answers the
	// step's commands and publishes its events. The driver goes on with the
	// next step meanwhile; with one batch in flight, commands pile up while
	// SQLite works and the next batch is bigger: group commit.
	writes := make(chan *step, 1)
	writerDone := make(chan error, 1)
	go func() { writerDone <- s.writer(writes) }()
	finish := func(err error) error {
		close(writes)
		werr := <-writerDone
		s.store.Close()
		if err == nil {
			err = werr
		}
		return err
	}
	for _, a := range s.cfg.Agents {
		agents.Add(1)
		go func() {
			defer agents.Done()
			a.Run(agentCtx, func(fn func(*core.Core)) bool {
				_, err := s.Do(agentCtx, func() (any, error) { fn(s.core); return nil, nil })
				return err == nil
			})
		}()
	}
	var first *command // a command that woke the loop
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		s.core.Advance(s.clock.Now())
		st := &step{}
		if first != nil {
			st.cmds, first = append(st.cmds, first), nil
		}
	drain:
		for len(st.cmds) < 4096 {
			select {
			case cmd := <-s.cmds:
				st.cmds = append(st.cmds, cmd)
			default:
				break drain
			}
		}
		for _, cmd := range st.cmds {
			cmd.value, cmd.err = cmd.fn()
		}
		if err := s.hand(st, writes, writerDone); err != nil {
			return finish(err)
		}
		if len(st.cmds) > 0 {
			continue // more commands may be waiting
		}
		wait := s.cfg.MaxWait
		if next, ok := s.core.NextEvent(); ok {
			if d := s.clock.Wall(next.Sub(s.clock.Now())); d < wait {
				wait = max(d, 0)
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.closed = true
			s.mu.Unlock()
			return finish(nil)
		case first = <-s.cmds:
			if !timer.Stop() {
				<-timer.C
			}
		case <-timer.C:
		}
	}
}

// step is what one driver step hands to the writer.
type step struct {
	batch *persist.Batch
	cmds  []*command
}

// hand snapshots the step's writes and passes them to the writer.
func (s *Server) hand(st *step, writes chan<- *step, writerDone <-chan error) error {
	b, err := s.store.Snapshot()
	if err != nil {
		return err
	}
	st.batch = b
	if b.Empty() && len(st.cmds) == 0 {
		return nil
	}
	select {
	case writes <- st:
		return nil
	case err := <-writerDone:
		if err == nil {
			err = errors.New("the writer stopped")
		}
		return err
	}
}

// writer commits batches; on a failed commit it fails the step's commands
// and stops (the server cannot promise durability any more).
func (s *Server) writer(writes <-chan *step) error {
	for st := range writes {
		t0 := time.Now()
		err := s.store.Write(st.batch)
		s.stats.commitNanos.Add(uint64(time.Since(t0)))
		if len(st.cmds) > 0 {
			s.stats.steps.Add(1)
			s.stats.commands.Add(uint64(len(st.cmds)))
		}
		if err != nil {
			for _, cmd := range st.cmds {
				cmd.value, cmd.err = nil, fmt.Errorf("could not record the change: %v", err)
				close(cmd.done)
			}
			for st := range writes { // fail what is queued behind
				for _, cmd := range st.cmds {
					cmd.value, cmd.err = nil, errShuttingDown
					close(cmd.done)
				}
			}
			return err
		}
		s.publish(st.batch)
		for _, cmd := range st.cmds {
			close(cmd.done)
		}
	}
	return nil
}

// publish counts and streams committed events.
func (s *Server) publish(b *persist.Batch) {
	if b.Empty() {
		return
	}
	s.stats.mu.Lock()
	b.EachEvent(func(_ uint64, kind string, _ string) { s.stats.events[core.EventKind(kind)]++ })
	s.stats.mu.Unlock()
	b.EachEvent(func(seq uint64, _ string, data string) { s.stream.publish(seq, []byte(data)) })
}

// commit writes everything pending at once, on the calling goroutine (used
// before Run starts: the restore's events).
func (s *Server) commit() error {
	b, err := s.store.Snapshot()
	if err != nil {
		return err
	}
	if err := s.store.Write(b); err != nil {
		return err
	}
	s.publish(b)
	return nil
}
