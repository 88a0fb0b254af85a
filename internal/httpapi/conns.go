package httpapi

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// reclaimAfter is how long a connection must have been idle, or silent
// since it was accepted, before a new one may take its place at the cap.
const reclaimAfter = time.Second

// connLimiter is a listener that serves at most max connections at once
// and, at the cap, makes room for a new one by closing a connection that
// does nothing: idle between requests (the oldest first), else one that has
// not sent its request's header a second after it was accepted. A
// connection serving a request, an event stream included, is never closed
// for another. So no client can lock the others out by holding idle or
// silent connections; what it can hold is what the server's handlers give
// it (an event stream needs the token and has a cap of its own). A new
// connection waits, unserved, while no connection can be closed, as it
// would in the kernel's backlog.
type connLimiter struct {
	net.Listener
	max int

	mu    sync.Mutex
	conns map[*trackedConn]struct{}
	freed chan struct{} // a connection was closed
	done  chan struct{} // the listener was closed
	once  sync.Once
}

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max, conns: map[*trackedConn]struct{}{},
		freed: make(chan struct{}, 1), done: make(chan struct{})}
}

// trackedConn is a served connection and what the server last said of it.
type trackedConn struct {
	net.Conn
	l     *connLimiter
	state http.ConnState // guarded by l.mu
	since time.Time      // when it entered state
	once  sync.Once
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		select {
		case c.l.freed <- struct{}{}:
		default:
		}
	})
	return err
}

// Accept accepts a connection and serves it once there is room.
func (l *connLimiter) Accept() (net.Conn, error) {
	raw, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	var tick <-chan time.Time // made when the cap is reached
	for {
		l.mu.Lock()
		if len(l.conns) < l.max {
			c := &trackedConn{Conn: raw, l: l, state: http.StateNew, since: time.Now()}
			l.conns[c] = struct{}{}
			l.mu.Unlock()
			return c, nil
		}
		victim := l.reclaimable(time.Now())
		l.mu.Unlock()
		if victim != nil {
			victim.Close()
			continue
		}
		if tick == nil {
			t := time.NewTicker(reclaimAfter / 10)
			defer t.Stop()
			tick = t.C
		}
		select {
		case <-l.freed:
		case <-tick: // a connection may have gone idle meanwhile
		case <-l.done:
			raw.Close()
			return nil, net.ErrClosed
		}
	}
}

// reclaimable is the connection to close for a new one, or nil: the one
// idle the longest, else the one silent the longest since it was accepted,
// if for reclaimAfter at least.
func (l *connLimiter) reclaimable(now time.Time) *trackedConn {
	var idle, silent *trackedConn
	for c := range l.conns {
		if now.Sub(c.since) < reclaimAfter {
			continue
		}
		switch c.state {
		case http.StateIdle:
			if idle == nil || c.since.Before(idle.since) {
				idle = c
			}
		case http.StateNew:
			if silent == nil || c.since.Before(silent.since) {
				silent = c
			}
		}
	}
	if idle != nil {
		return idle
	}
	return silent
}

func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// connState is the server's ConnState hook: it tells the limiter what each
// connection is doing.
func connState(c net.Conn, s http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	tc.l.mu.Lock()
	tc.state, tc.since = s, time.Now()
	tc.l.mu.Unlock()
}
