package koalatarget

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/submitter"
)

// Local is a bundled core started in this process, for `--target koala`
// without an endpoint: it serves on a loopback port of its own, and the
// target talks to it over HTTP like to any other.
type Local struct {
	Endpoint string
	Token    string
	stop     context.CancelFunc
	http     *http.Server
	done     chan error
	once     sync.Once
	err      error
}

// StartLocal starts a core for grid g with its state in the SQLite file
// state. It serves a run: its local workloads wait for the run's origin
// (server.Config.AwaitRun).
func StartLocal(g *grid.Grid, state string) (*Local, error) {
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		return nil, err
	}
	token := hex.EncodeToString(buf)
	srv, err := server.New(server.Config{Grid: g, State: state, Token: token, AwaitRun: true})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Local{Endpoint: "http://" + ln.Addr().String(), Token: token, stop: cancel,
		http: &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}, done: make(chan error, 1)}
	go func() { l.done <- srv.Run(ctx) }()
	go func() { _ = l.http.Serve(ln) }()
	return l, nil
}

// Stop stops the core (its state stays in the database). Stopping twice
// is harmless.
func (l *Local) Stop() error {
	l.once.Do(func() {
		// Event streams never end by themselves: give requests a second,
		// then close what is left.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if l.http.Shutdown(ctx) != nil {
			_ = l.http.Close()
		}
		l.stop()
		if err := <-l.done; !errors.Is(err, context.Canceled) {
			l.err = err
		}
	})
	return l.err
}

// Owned is a target together with the core it started (in-process, or a
// process of its own): closing it stops both, unless Keep was called.
type Owned struct {
	*Target
	Core interface{ Stop() error }
	keep bool
}

// Keep leaves the core running when the target is closed: an interrupted
// run's core keeps running its jobs, and the --resume reconnects to it.
func (o *Owned) Keep() { o.keep = true }

// Close implements submitter.Target.
func (o *Owned) Close() error {
	err := o.Target.Close()
	if o.keep {
		return err
	}
	if serr := o.Core.Stop(); err == nil {
		err = serr
	}
	return err
}

// KeepCore leaves the bundled core of t running when t closes, with the
// jobs it runs (an interrupted 'gmark submit': the --resume reconnects to
// it), and returns its pid; 0 when t owns no core process.
func KeepCore(t submitter.Target) int {
	if o, ok := t.(*Owned); ok {
		if core, ok := o.Core.(*Core); ok {
			o.Keep()
			return core.Pid
		}
	}
	return 0
}
