// Package aheadwrite writes a stream on another goroutine. The producer
// fills one large buffer while the previous one is hashed and written:
// `gmark generate` spent a quarter of its time in workload.jsonl's SHA-256
// and write(2) on the goroutine that draws the jobs, with the machine's
// second core idle.
package aheadwrite

import (
	"hash"
	"io"
)

// DefaultSize is the buffer size New uses for size <= 0.
const DefaultSize = 1 << 20

// Writer is an io.Writer that hands full buffers to a goroutine which
// writes each to the underlying writer (and first to the hash, when there
// is one), in order. Two buffers alternate, so memory stays at twice the
// size whatever the length of the stream. A write error surfaces at a
// later Write or at Flush; after one, everything fails with it.
//
// A Writer is not safe for concurrent use. The hash and the underlying
// writer may be used only after Flush.
type Writer struct {
	w     io.Writer
	h     hash.Hash
	buf   []byte   // being filled
	spare []byte   // the other buffer: free once nothing is in flight
	fl    InFlight // the buffer in flight, and the first error
	n     int64
}

// New returns a Writer over w with buffers of size bytes, hashing what it
// writes into h (which may be nil).
func New(w io.Writer, h hash.Hash, size int) *Writer {
	if size <= 0 {
		size = DefaultSize
	}
	return &Writer{w: w, h: h, buf: make([]byte, 0, size), spare: make([]byte, 0, size)}
}

// AvailableBuffer returns an empty slice over the free part of the buffer
// being filled, for the caller to append to and give to Write at once,
// which then takes the bytes where they are instead of copying them. When
// fewer than min bytes are free it hands the buffer on first, so that
// that much fits (up to the buffer's size). After an error it returns nil,
// the error for Write to report.
func (a *Writer) AvailableBuffer(min int) []byte {
	if a.fl.Err() != nil {
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
	if a.fl.Err() != nil {
		return 0, a.fl.Err()
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
	if a.fl.Err() == nil && len(a.buf) > 0 {
		if err := a.handOn(); err != nil {
			return err
		}
	}
	return a.wait()
}

// handOn waits for the buffer in flight, then sends the full one off and
// takes the free one to fill.
func (a *Writer) handOn() error {
	if err := a.wait(); err != nil {
		return err
	}
	chunk := a.buf
	a.buf, a.spare = a.spare[:0], chunk
	w, h := a.w, a.h
	a.fl.Go(func() error {
		if h != nil {
			h.Write(chunk)
		}
		n, err := w.Write(chunk)
		if err == nil && n < len(chunk) {
			err = io.ErrShortWrite
		}
		return err
	})
	return nil
}

func (a *Writer) wait() error { return a.fl.Wait() }

// InFlight is one piece of work at a time on a goroutine of its own, and
// the first error any of them returned: the double buffering of Writer
// and of the encoder of workload.jsonl's lines.
type InFlight struct {
	pending chan error // the result of the work in flight; nil when none
	err     error
}

// Go starts work on a goroutine of its own; the work before must have been
// waited for.
func (f *InFlight) Go(work func() error) {
	done := make(chan error, 1)
	f.pending = done
	go func() { done <- work() }()
}

// Wait waits for the work in flight, if any, and returns the first error.
func (f *InFlight) Wait() error {
	if f.pending != nil {
		if err := <-f.pending; err != nil && f.err == nil {
			f.err = err
		}
		f.pending = nil
	}
	return f.err
}

// Err is the first error of the work waited for.
func (f *InFlight) Err() error { return f.err }
