// Package peer connects the processes of a parallel job to each other, all
// to all over TCP, and exchanges elements between them superstep by
// superstep, noticing at once when a peer dies and within a timeout when it
// goes silent.
//
// After a rendezvous gives every process the table of listen addresses,
// rank i dials every rank below it and accepts every rank above it. The
// dialer opens with one JSON line, {"v":1,"job":"…","rank":i}, and the
// acceptor answers {"v":1,"ok":true} (or closes a connection that is not
// from its job). Then both sides speak frames, version 1:
//
//	'D' step:u32 count:u32 count×float64   the elements of one superstep
//	'H'                                    heartbeat: I am alive
//	'A' missing:i32 timeout:u8 len:u32 text  I give up because of rank missing (−1: not a peer's
//	                                         fault); timeout 1 when it went silent rather than died
//	'F'                                    I finished; nothing follows
//
// integers and floats little-endian. Every process sends heartbeats while it
// computes, so silence longer than the timeout means a hung, stopped or
// unreachable peer, never merely a slow one; a closed connection without
// 'F' means a dead one.
package peer

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gmark/gmark/apps/rendezvous"
)

// Version is the version of the handshake and frames.
const Version = 1

const (
	frameData      = 'D'
	frameHeartbeat = 'H'
	frameAbort     = 'A'
	frameFinish    = 'F'
)

// helloTimeout bounds the greeting on a new connection: a real peer greets
// at once, and a stray connection must not hold up the others for long.
const helloTimeout = 10 * time.Second

// maxCount bounds a data frame (256 MB), so a corrupt header cannot make a
// process allocate without limit.
const maxCount = 32 << 20

// Config describes this process and its job.
type Config struct {
	Job      string
	Rank     int
	Table    []rendezvous.Member // from the rendezvous, sorted by rank
	Listener net.Listener        // where this process accepts its peers (its address is in Table)
	// Timeout is the longest a peer may stay silent, and the longest a send
	// may block, before it is declared lost.
	Timeout time.Duration
}

// Error is the failure of the exchange, naming the rank at fault.
type Error struct {
	Rank int    // the rank lost or silent; −1 when no peer is to blame
	Kind string // "lost", "timeout", "aborted", "protocol" or "send"
	Step int    // the superstep this process was in
	By   int    // for "aborted": the rank that gave up and told us
	// Timeout is set when the rank at fault went silent (for "aborted": as
	// the rank that gave up saw it).
	Timeout bool
	Msg     string
	// Root is the message of the original failure, without "reported by":
	// what this process passes on when it gives up in turn.
	Root string
}

func (e *Error) Error() string { return e.Msg }

// Reason is the summary's reason for this failure: "peer-timeout" when the
// peer went silent, else "peer-lost".
func (e *Error) Reason() string {
	if e.Timeout {
		return "peer-timeout"
	}
	return "peer-lost"
}

type frame struct {
	step int
	data []float64
}

type link struct {
	rank int
	conn net.Conn
	r    *bufio.Reader
	wmu  sync.Mutex // one frame at a time on the wire
	w    *bufio.Writer
	recv chan frame
	fin  chan struct{} // closed when the peer's 'F' arrives
}

// Mesh is this process's connections to all its peers.
type Mesh struct {
	cfg   Config
	links []*link // by rank; nil for self
	peers []*link // the non-nil links, in rank order

	step      atomic.Int64
	closing   atomic.Bool // we are closing: connection errors are ours, not news
	finishing atomic.Bool // 'F' is being sent: no heartbeat may follow it

	failOnce sync.Once
	failed   chan struct{}
	err      *Error

	quit   chan struct{} // unblocks readers
	hbQuit chan struct{} // stops the heartbeat
	hbOnce sync.Once
	wg     sync.WaitGroup
}

type hello struct {
	V    int    `json:"v"`
	Job  string `json:"job"`
	Rank int    `json:"rank"`
	OK   bool   `json:"ok,omitempty"`
}

// Connect establishes the connections with every peer, or fails when ctx
// ends first. It takes ownership of cfg.Listener.
func Connect(ctx context.Context, cfg Config) (*Mesh, error) {
	size := len(cfg.Table)
	if cfg.Rank < 0 || cfg.Rank >= size {
		return nil, fmt.Errorf("rank %d is not in a table of %d", cfg.Rank, size)
	}
	if cfg.Timeout <= 0 {
		return nil, errors.New("peer timeout must be > 0")
	}
	m := &Mesh{cfg: cfg, links: make([]*link, size), failed: make(chan struct{}),
		quit: make(chan struct{}), hbQuit: make(chan struct{})}
	stop := context.AfterFunc(ctx, func() {
		if d, ok := cfg.Listener.(interface{ SetDeadline(time.Time) error }); ok {
			d.SetDeadline(time.Now())
		}
	})
	defer stop()

	errc := make(chan error, 2)
	go func() { errc <- m.acceptHigher(ctx) }()
	go func() { errc <- m.dialLower(ctx) }()
	var first error
	for range 2 {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	cfg.Listener.Close()
	if first != nil {
		for _, l := range m.links {
			if l != nil {
				l.conn.Close()
			}
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connecting to the peers: %w (%v)", ctx.Err(), first)
		}
		return nil, first
	}
	for _, l := range m.links {
		if l != nil {
			m.peers = append(m.peers, l)
		}
	}
	for _, l := range m.peers {
		m.wg.Add(1)
		go m.read(l)
	}
	m.wg.Add(1)
	go m.heartbeat()
	return m, nil
}

func newLink(rank int, c net.Conn, r *bufio.Reader) *link {
	return &link{rank: rank, conn: c, r: r, w: bufio.NewWriterSize(c, 64<<10),
		recv: make(chan frame, 2), fin: make(chan struct{})}
}

func (m *Mesh) dialLower(ctx context.Context) error {
	for j := 0; j < m.cfg.Rank; j++ {
		addr := m.cfg.Table[j].Addr
		var c net.Conn
		for {
			var d net.Dialer
			var err error
			c, err = d.DialContext(ctx, "tcp", addr)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("cannot reach rank %d at %s: %w", j, addr, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.SetDeadline(deadline(ctx, min(m.cfg.Timeout, helloTimeout)))
		b, _ := json.Marshal(hello{V: Version, Job: m.cfg.Job, Rank: m.cfg.Rank})
		if _, err := c.Write(append(b, '\n')); err != nil {
			c.Close()
			return fmt.Errorf("cannot greet rank %d at %s: %w", j, addr, err)
		}
		r := bufio.NewReaderSize(c, 64<<10)
		line, err := r.ReadBytes('\n')
		var h hello
		if err == nil {
			err = json.Unmarshal(line, &h)
		}
		if err != nil || h.V != Version || !h.OK {
			c.Close()
			return fmt.Errorf("rank %d at %s refused the connection (%v)", j, addr, err)
		}
		c.SetDeadline(time.Time{})
		m.links[j] = newLink(j, c, r)
	}
	return nil
}

func (m *Mesh) acceptHigher(ctx context.Context) error {
	want := len(m.cfg.Table) - 1 - m.cfg.Rank
	for got := 0; got < want; {
		c, err := m.cfg.Listener.Accept()
		if err != nil {
			missing := []int{}
			for j := m.cfg.Rank + 1; j < len(m.links); j++ {
				if m.links[j] == nil {
					missing = append(missing, j)
				}
			}
			return fmt.Errorf("ranks %v never connected: %w", missing, err)
		}
		c.SetDeadline(deadline(ctx, min(m.cfg.Timeout, helloTimeout)))
		r := bufio.NewReaderSize(c, 64<<10)
		line, err := r.ReadBytes('\n')
		var h hello
		if err == nil {
			err = json.Unmarshal(line, &h)
		}
		// Anything that is not a new peer of this job is dropped: a stray
		// connection must not take a peer's place.
		if err != nil || h.V != Version || h.Job != m.cfg.Job || h.Rank <= m.cfg.Rank ||
			h.Rank >= len(m.links) || m.links[h.Rank] != nil {
			c.Close()
			continue
		}
		b, _ := json.Marshal(hello{V: Version, Job: m.cfg.Job, Rank: m.cfg.Rank, OK: true})
		if _, err := c.Write(append(b, '\n')); err != nil {
			c.Close()
			continue
		}
		c.SetDeadline(time.Time{})
		m.links[h.Rank] = newLink(h.Rank, c, r)
		got++
	}
	return nil
}

// deadline is now+d, or ctx's deadline when that is sooner.
func deadline(ctx context.Context, d time.Duration) time.Time {
	t := time.Now().Add(d)
	if cd, ok := ctx.Deadline(); ok && cd.Before(t) {
		return cd
	}
	return t
}

// Peers is the number of other processes.
func (m *Mesh) Peers() int { return len(m.peers) }

// SetStep tells the mesh which superstep this process is in, for messages.
func (m *Mesh) SetStep(step int) { m.step.Store(int64(step)) }

// Failed is closed when a peer is lost, silent or gives up.
func (m *Mesh) Failed() <-chan struct{} { return m.failed }

// Err is the failure, once Failed is closed.
func (m *Mesh) Err() *Error {
	select {
	case <-m.failed:
		return m.err
	default:
		return nil
	}
}

func (m *Mesh) fail(e *Error) {
	if m.closing.Load() {
		return
	}
	if e.Root == "" {
		e.Root = e.Msg
	}
	m.failOnce.Do(func() {
		m.err = e
		close(m.failed)
	})
}

// read runs for the life of a link: it keeps the silence deadline and turns
// what arrives into frames or failures.
func (m *Mesh) read(l *link) {
	defer m.wg.Done()
	var hdr [8]byte
	for {
		l.conn.SetReadDeadline(time.Now().Add(m.cfg.Timeout))
		typ, err := l.r.ReadByte()
		if err != nil {
			m.readFailed(l, err)
			return
		}
		switch typ {
		case frameHeartbeat:
		case frameData:
			if _, err := io.ReadFull(l.r, hdr[:]); err != nil {
				m.readFailed(l, err)
				return
			}
			step := int(binary.LittleEndian.Uint32(hdr[0:]))
			count := binary.LittleEndian.Uint32(hdr[4:])
			if count > maxCount {
				m.protocolError(l, fmt.Sprintf("a frame of %d elements", count))
				return
			}
			raw := make([]byte, 8*int(count))
			if _, err := io.ReadFull(l.r, raw); err != nil {
				m.readFailed(l, err)
				return
			}
			data := make([]float64, count)
			for i := range data {
				data[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
			select {
			case l.recv <- frame{step: step, data: data}:
			case <-m.quit:
				return
			}
		case frameAbort:
			var ah [9]byte
			if _, err := io.ReadFull(l.r, ah[:]); err != nil {
				m.readFailed(l, err)
				return
			}
			missing := int(int32(binary.LittleEndian.Uint32(ah[0:])))
			n := binary.LittleEndian.Uint32(ah[5:])
			text := make([]byte, min(n, 4096))
			io.ReadFull(l.r, text)
			m.fail(&Error{Rank: missing, Kind: "aborted", By: l.rank, Step: int(m.step.Load()), Timeout: ah[4] == 1,
				Msg: fmt.Sprintf("%s (reported by rank %d)", text, l.rank), Root: string(text)})
			return
		case frameFinish:
			close(l.fin)
			return
		default:
			m.protocolError(l, fmt.Sprintf("an unknown frame type %q", typ))
			return
		}
	}
}

func (m *Mesh) readFailed(l *link, err error) {
	m.linkFailed(l, err, "lost", "peer rank %d silent for %v during superstep %d (hung, stopped or unreachable)",
		"peer rank %d lost during superstep %d: %s (the process died or was killed)")
}

// linkFailed fails the mesh for an error on the link to a peer: a timeout
// (timeoutMsg: rank, timeout, superstep) or else a kind of loss (lostMsg:
// rank, superstep, cause).
func (m *Mesh) linkFailed(l *link, err error, kind, timeoutMsg, lostMsg string) {
	step := int(m.step.Load())
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		m.fail(&Error{Rank: l.rank, Kind: "timeout", Step: step, Timeout: true,
			Msg: fmt.Sprintf(timeoutMsg, l.rank, m.cfg.Timeout, step)})
		return
	}
	m.fail(&Error{Rank: l.rank, Kind: kind, Step: step, Msg: fmt.Sprintf(lostMsg, l.rank, step, describe(err))})
}

func (m *Mesh) protocolError(l *link, what string) {
	step := int(m.step.Load())
	m.fail(&Error{Rank: l.rank, Kind: "protocol", Step: step,
		Msg: fmt.Sprintf("peer rank %d sent %s during superstep %d", l.rank, what, step)})
}

// describe says what happened to a connection in a few words; the
// addresses in the error are of no use to whoever reads the message.
func describe(err error) string {
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EPIPE):
		return "connection broken"
	}
	return err.Error()
}

// heartbeat keeps every link busy while this process computes. A link that
// is already sending data needs no heartbeat, so a busy lock is skipped.
func (m *Mesh) heartbeat() {
	defer m.wg.Done()
	every := min(time.Second, m.cfg.Timeout/4)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.hbQuit:
			return
		case <-t.C:
		}
		for _, l := range m.peers {
			if !l.wmu.TryLock() {
				continue
			}
			if m.finishing.Load() {
				l.wmu.Unlock()
				return
			}
			err := m.writeFrame(l, []byte{frameHeartbeat})
			l.wmu.Unlock()
			if err != nil {
				m.sendFailed(l, err)
			}
		}
	}
}

// writeFrame writes b to l; the caller holds l.wmu.
func (m *Mesh) writeFrame(l *link, b []byte) error {
	l.conn.SetWriteDeadline(time.Now().Add(m.cfg.Timeout))
	if _, err := l.w.Write(b); err != nil {
		return err
	}
	return l.w.Flush()
}

func (m *Mesh) sendFailed(l *link, err error) {
	m.linkFailed(l, err, "send", "peer rank %d has not taken data for %v during superstep %d (hung, stopped or unreachable)",
		"cannot send to peer rank %d during superstep %d: %s (the process died or was killed)")
}

// Exchange sends send to every peer and returns what every peer sent for
// the same step, indexed by rank (nil at this process's own rank). It fails
// when a peer is lost, goes silent, gives up, or ctx ends.
func (m *Mesh) Exchange(ctx context.Context, step int, send []float64) ([][]float64, error) {
	m.SetStep(step)
	if err := m.Err(); err != nil {
		return nil, err
	}
	payload := make([]byte, 9+8*len(send))
	payload[0] = frameData
	binary.LittleEndian.PutUint32(payload[1:], uint32(step))
	binary.LittleEndian.PutUint32(payload[5:], uint32(len(send)))
	for i, v := range send {
		binary.LittleEndian.PutUint64(payload[9+8*i:], math.Float64bits(v))
	}
	var writers sync.WaitGroup
	for _, l := range m.peers {
		writers.Go(func() {
			l.wmu.Lock()
			err := m.writeFrame(l, payload)
			l.wmu.Unlock()
			if err != nil {
				m.sendFailed(l, err)
			}
		})
	}
	sent := make(chan struct{})
	go func() { writers.Wait(); close(sent) }()

	recv := make([][]float64, len(m.links))
	for _, l := range m.peers {
		var f frame
		select {
		case f = <-l.recv:
		case <-l.fin:
			// A peer that finished sends nothing more: its frames that came
			// before its finish are taken, else this superstep never ends.
			select {
			case f = <-l.recv:
			default:
				m.fail(&Error{Rank: l.rank, Kind: "protocol", Step: step,
					Msg: fmt.Sprintf("peer rank %d finished (its last frame) while this process is in superstep %d", l.rank, step)})
				return nil, m.Err()
			}
		case <-m.failed:
			return nil, m.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.step != step || len(f.data) != len(send) {
			e := &Error{Rank: l.rank, Kind: "protocol", Step: step,
				Msg: fmt.Sprintf("peer rank %d sent %d elements for superstep %d while this process is in superstep %d expecting %d", l.rank, len(f.data), f.step, step, len(send))}
			m.fail(e)
			return nil, m.Err()
		}
		recv[l.rank] = f.data
	}
	select {
	case <-sent:
	case <-m.failed:
		return nil, m.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return recv, nil
}

// Abort tells every peer that this process gives up, because of cause
// (nil when no peer is to blame: the walltime, a signal) with the given
// text, and closes the connections. It waits at most a second for peers
// that do not read.
func (m *Mesh) Abort(cause *Error, text string) {
	if m.closing.Swap(true) {
		return
	}
	missing, timeout := -1, byte(0)
	if cause != nil {
		missing = cause.Rank
		if cause.Timeout {
			timeout = 1
		}
	}
	msg := []byte(text)
	b := make([]byte, 10+len(msg))
	b[0] = frameAbort
	binary.LittleEndian.PutUint32(b[1:], uint32(int32(missing)))
	b[5] = timeout
	binary.LittleEndian.PutUint32(b[6:], uint32(len(msg)))
	copy(b[10:], msg)
	var wg sync.WaitGroup
	for _, l := range m.peers {
		wg.Go(func() {
			l.wmu.Lock()
			l.conn.SetWriteDeadline(time.Now().Add(time.Second))
			l.w.Write(b)
			l.w.Flush()
			l.wmu.Unlock()
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	m.shutdown()
}

// Close finishes cleanly: it tells every peer this process is done and
// waits (at most the timeout) until every peer has said the same, so that
// no connection is closed with data unread (which would reset it under the
// peer's last frames). It returns an error naming peers that did not finish.
func (m *Mesh) Close() error {
	if m.closing.Load() {
		return nil
	}
	// 'F' is the last frame on a link: no heartbeat may follow it.
	m.finishing.Store(true)
	m.stopHeartbeat()
	for _, l := range m.peers {
		l.wmu.Lock()
		err := m.writeFrame(l, []byte{frameFinish})
		l.wmu.Unlock()
		if err != nil {
			m.sendFailed(l, err)
		}
	}
	timeout := time.After(m.cfg.Timeout)
	var missing []int
	for _, l := range m.peers {
		select {
		case <-l.fin:
		case <-timeout:
			missing = append(missing, l.rank)
		case <-m.failed:
			if !isFinished(l) {
				missing = append(missing, l.rank)
			}
		}
	}
	m.closing.Store(true)
	m.shutdown()
	if len(missing) > 0 {
		return fmt.Errorf("peer ranks %v did not finish cleanly after the last superstep", missing)
	}
	return nil
}

func isFinished(l *link) bool {
	select {
	case <-l.fin:
		return true
	default:
		return false
	}
}

func (m *Mesh) stopHeartbeat() { m.hbOnce.Do(func() { close(m.hbQuit) }) }

func (m *Mesh) shutdown() {
	m.stopHeartbeat()
	close(m.quit)
	for _, l := range m.peers {
		l.conn.Close()
	}
	m.wg.Wait()
}
