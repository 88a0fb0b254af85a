// Package aheadwrite writes a stream on another goroutine. The producer
// fills one large buffer while the ones before it (up to Depth) are hashed
// and written: `gmark generate` spent a quarter of its time in
// workload.jsonl's SHA-256 and write(2) on the goroutine that draws the
// jobs, with the machine's second core idle.
package aheadwrite

import (
	"hash"
	"io"
	"sync/atomic"
)

// DefaultSize is the buffer size New uses for size <= 0; Depth how many
// full buffers may wait to be written (or be written) while the next one
// fills.
const (
	DefaultSize = 1 << 20
	Depth       = 3
)

// Writer is an io.Writer that hands full buffers to a goroutine which
// writes each to the underlying writer (and first to the hash, when there
// is one), in order. Depth+1 buffers take turns, so memory stays at that
// many times the size whatever the length of the stream. A write error surfaces at a
// later Write or at Flush; after one, everything fails with it.
//
// A Writer is not safe for concurrent use. The hash and the underlying
// writer may be used only after Flush.
type Writer struct {
	w    io.Writer
	h    hash.Hash
	buf  []byte             // being filled
	ring Ring[[]byte, byte] // the buffers in flight, and the first error
	n    int64
}

// New returns a Writer over w with buffers of size bytes, hashing what it
// writes into h (which may be nil).
func New(w io.Writer, h hash.Hash, size int) *Writer {
	if size <= 0 {
		size = DefaultSize
	}
	a := &Writer{w: w, h: h}
	a.buf = a.ring.Init(Depth, size)
	return a
}

// AvailableBuffer returns an empty slice over the free part of the buffer
// being filled, for the caller to append to and give to Write at once,
// which then takes the bytes where they are instead of copying them. When
// fewer than min bytes are free it hands the buffer on first, so that
// that much fits (up to the buffer's size). After an error it returns nil,
// the error for Write to report.
func (a *Writer) AvailableBuffer(min int) []byte {
	if a.ring.Err() != nil {
		return nil
	}
	if cap(a.buf)-len(a.buf) < min && len(a.buf) > 0 {
		if a.handOn() != nil {
			return nil
		}
	}
	return a.buf[len(a.buf):len(a.buf):cap(a.buf)]
}

// Write copies p into the buffer, handing the buffer on whenever it fills;
// p appended to AvailableBuffer's slice, and still in it, is not copied.
func (a *Writer) Write(p []byte) (int, error) {
	if a.ring.Err() != nil {
		return 0, a.ring.Err()
	}
	if free := a.buf[len(a.buf):cap(a.buf)]; len(p) > 0 && len(p) <= len(free) && &p[0] == &free[0] {
		a.buf = a.buf[:len(a.buf)+len(p)]
		a.n += int64(len(p))
		return len(p), nil
	}
	done := 0
	for done < len(p) {
		if len(a.buf) == cap(a.buf) {
			if err := a.handOn(); err != nil {
				return done, err
			}
		}
		k := copy(a.buf[len(a.buf):cap(a.buf)], p[done:])
		a.buf = a.buf[:len(a.buf)+k]
		done += k
	}
	a.n += int64(done)
	return done, nil
}

// Written is the number of bytes given to Write so far.
func (a *Writer) Written() int64 { return a.n }

// Flush hands on what is buffered and waits until everything given to
// Write is written; it returns the first error.
func (a *Writer) Flush() error {
	if a.ring.Err() == nil && len(a.buf) > 0 {
		if err := a.handOn(); err != nil {
			return err
		}
	}
	return a.wait()
}

// handOn queues the full buffer (waiting for the oldest in flight when
// Depth are) and takes the next to fill: the one queued longest ago, whose
// writing is over.
func (a *Writer) handOn() error {
	if err := a.ring.Err(); err != nil {
		return err
	}
	w, h := a.w, a.h
	a.buf = a.ring.HandOn(a.buf, func(chunk []byte) error {
		if h != nil {
			h.Write(chunk)
		}
		n, err := w.Write(chunk)
		if err == nil && n < len(chunk) {
			err = io.ErrShortWrite
		}
		return err
	})
	return a.ring.Err()
}

func (a *Writer) wait() error { return a.ring.Wait() }

// Ring is the buffers of a producer whose full ones are worked on in the
// background, one after another (its InFlight): up to depth are queued or
// worked on while the next one fills, so depth+1 take turns, and the one
// handed back to fill is always the one queued longest ago, whose work Go
// has waited for. The writing buffers of Writer and the job batches of
// workload.jsonl's encoder.
type Ring[S ~[]E, E any] struct {
	InFlight
	bufs []S
	cur  int
}

// Init makes the ring's depth+1 empty buffers, of capacity size each, and
// returns the one to fill first.
func (r *Ring[S, E]) Init(depth, size int) S {
	r.Depth, r.bufs = depth, make([]S, max(1, depth)+1)
	for i := range r.bufs {
		r.bufs[i] = make(S, 0, size)
	}
	return r.bufs[0]
}

// HandOn queues work on full, the buffer being filled (as it may have
// grown), and returns the next one to fill, emptied.
func (r *Ring[S, E]) HandOn(full S, work func(S) error) S {
	r.Go(func() error { return work(full) })
	r.bufs[r.cur] = full
	r.cur = (r.cur + 1) % len(r.bufs)
	return r.bufs[r.cur][:0]
}

// InFlight is a queue of pieces of work, done one after another, in the
// order given, each on a goroutine of its own that waits for the one
// before; at most Depth (at least 1) are queued or running, and Go waits
// for the oldest before it queues another. It keeps the first error any of
// them returned, and once one has failed the later ones do not run. The
// double buffering of Writer and of the encoder of workload.jsonl's lines:
// with more than one piece queued the producer runs ahead over a stall of
// the consumer instead of stopping at it (with one, generating 10^6
// Lublin jobs spent a quarter of its wall time with the drawing goroutine
// waiting for the encoder).
type InFlight struct {
	Depth  int
	queue  []step // oldest first
	err    error
	failed atomic.Bool // a piece failed: the later ones are skipped
}

// step is a queued piece of work: its result, and a channel closed once it
// is over (what the next one waits for).
type step struct {
	result chan error
	over   chan struct{}
}

// Go queues work, first waiting for the oldest piece when Depth are
// queued.
func (f *InFlight) Go(work func() error) {
	if len(f.queue) >= max(1, f.Depth) {
		f.waitOldest()
	}
	var before chan struct{}
	if n := len(f.queue); n > 0 {
		before = f.queue[n-1].over
	}
	s := step{result: make(chan error, 1), over: make(chan struct{})}
	f.queue = append(f.queue, s)
	go func() {
		defer close(s.over)
		if before != nil {
			<-before
		}
		if f.failed.Load() {
			s.result <- nil // the first error is the one that failed
			return
		}
		err := work()
		if err != nil {
			f.failed.Store(true)
		}
		s.result <- err
	}()
}

func (f *InFlight) waitOldest() {
	if err := <-f.queue[0].result; err != nil && f.err == nil {
		f.err = err
	}
	f.queue[0] = step{}
	f.queue = f.queue[1:]
}

// Wait waits for all the work queued and returns the first error.
func (f *InFlight) Wait() error {
	for len(f.queue) > 0 {
		f.waitOldest()
	}
	f.queue = f.queue[:0:0]
	return f.err
}

// Err is the first error of the work waited for.
func (f *InFlight) Err() error { return f.err }
