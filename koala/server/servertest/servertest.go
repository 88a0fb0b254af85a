// Package servertest runs the bundled core's server inside a test's
// process, over whatever controllers the test gives it (koala/slurmlrm's
// real Slurm clusters, koala/celrm's CEs), and reads what the core knows
// of its jobs: the live tests of those controllers share it.
package servertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/workload"
)

// Live is a server running on its own goroutine until Close (or the
// test's end).
type Live struct {
	t    testing.TB
	Srv  *server.Server
	stop context.CancelFunc
	done chan error
}

// Start makes the server of cfg and runs it; a test that starts a second
// one on the same state (a restart) closes the first before.
func Start(t testing.TB, cfg server.Config) *Live {
	t.Helper()
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	l := &Live{t: t, Srv: srv, stop: stop, done: make(chan error, 1)}
	go func() { l.done <- srv.Run(ctx) }()
	t.Cleanup(l.Close)
	return l
}

// Close stops the server and waits for it; again, it does nothing.
func (l *Live) Close() {
	if l.stop == nil {
		return
	}
	l.stop()
	if err := <-l.done; err != nil {
		l.t.Error(err)
	}
	l.stop = nil
}

// Do runs fn on the core's goroutine and returns its value.
func (l *Live) Do(fn func(c *core.Core) (any, error)) any {
	l.t.Helper()
	v, err := l.Srv.Do(context.Background(), func() (any, error) { return fn(l.Srv.Core()) })
	if err != nil {
		l.t.Fatal(err)
	}
	return v
}

// Submit submits j under the runner, its id the idempotency key, and
// returns the core's id of it.
func (l *Live) Submit(j workload.Job, runner core.Runner) string {
	l.t.Helper()
	return l.Do(func(c *core.Core) (any, error) {
		job, err := c.Submit(j, core.Options{Runner: runner, Key: j.ID})
		if err != nil {
			return nil, err
		}
		return job.ID, nil
	}).(string)
}

// JobState is a copy of what the core knows of a job.
type JobState struct {
	State      core.State
	Reason     string
	JST        time.Time
	Deadline   time.Time
	Start      time.Time
	Components []core.Component
}

// Job is the core's job of that id now.
func (l *Live) Job(id string) JobState {
	l.t.Helper()
	return l.Do(func(c *core.Core) (any, error) {
		j, _ := c.Job(id)
		return JobState{State: j.State, Reason: j.Reason, JST: j.JST, Deadline: j.Deadline, Start: j.Start,
			Components: append([]core.Component(nil), j.Components...)}, nil
	}).(JobState)
}

// Wait waits for the job to end (at most limit, else the test fails) and
// returns its state.
func (l *Live) Wait(id string, limit time.Duration) JobState {
	l.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		js := l.Job(id)
		if js.State.Terminal() {
			return js
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("job %s still %s after %v: %+v", id, js.State, limit, js)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Log is an io.Writer of the test's log, a line a write (a controller's
// Options.Log).
type Log struct{ T testing.TB }

func (w Log) Write(b []byte) (int, error) {
	w.T.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
