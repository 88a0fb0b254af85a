package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"

	"github.com/gmark/gmark/internal/aheadwrite"
)

// Writer streams jobs to workload.jsonl, one line each, and keeps the
// digest of what it wrote for the manifest. Three goroutines share the
// work: the caller's copies each job into a batch; the batches are
// encoded on another, up to writerDepth queued (each waits for the one
// before, so the lines stay in order); the lines are hashed and written on
// a third (aheadwrite). `gmark generate` draws the jobs on the caller's, and
// encoding them there made it the slowest of the three.
//
// A line is encoded straight into the writing buffer
// (aheadwrite.AvailableBuffer), not copied there, while the lines are
// shorter than inPlaceLine; after a longer one, into a buffer of the
// Writer's own (a line that overflows the free space is a new slice).
type Writer struct {
	w    *aheadwrite.Writer // the encoding goroutine's while one is in flight
	h    hash.Hash
	buf  []byte
	long bool // a line was longer than inPlaceLine
	jobs int

	fill []jobSlot                           // the batch being filled
	ring aheadwrite.Ring[[]jobSlot, jobSlot] // the batches in flight, and the first error
}

// jobSlot is a job of a batch: a copy of it that the caller's later jobs
// do not touch, or, for a composite job (whose tasks would need copying
// one by one), its line already encoded.
type jobSlot struct {
	job  Job
	line []byte
}

// inPlaceLine is the room a line is encoded into in place; writerBatch
// the jobs a batch holds, writerDepth how many full batches may wait to be
// encoded (or be encoded) while the next one fills.
const (
	inPlaceLine = 64 << 10
	writerBatch = 256
	writerDepth = 3
)

// NewWriter returns a Writer that buffers its output to w; call Flush at the end.
func NewWriter(w io.Writer) *Writer {
	h := sha256.New()
	wr := &Writer{w: aheadwrite.New(w, h, 0), h: h, buf: make([]byte, 0, 1024)}
	wr.fill = wr.ring.Init(writerDepth, writerBatch)
	return wr
}

// Write appends one job line. An error writing earlier lines is returned
// here or at Flush.
func (w *Writer) Write(j *Job) error {
	if w.ring.Err() != nil {
		return w.ring.Err()
	}
	w.jobs++
	w.fill = w.fill[:len(w.fill)+1]
	s := &w.fill[len(w.fill)-1]
	if len(j.Tasks) > 0 {
		s.line = append(j.AppendJSON(s.line[:0]), '\n')
		s.job = Job{}
	} else {
		copyJob(&s.job, j)
		s.line = s.line[:0]
	}
	if len(w.fill) == cap(w.fill) {
		return w.handOn()
	}
	return nil
}

// copyJob copies a job without tasks into dst, reusing dst's slices; the
// strings are shared (they are never changed).
func copyJob(dst, src *Job) {
	params, comps, files, outs, deps := dst.App.Params[:0], dst.Components[:0], dst.Files[:0], dst.Outputs[:0], dst.Deps[:0]
	*dst = *src
	dst.App.Params = append(params, src.App.Params...)
	dst.Components = append(comps, src.Components...)
	dst.Files = append(files, src.Files...)
	dst.Outputs = append(outs, src.Outputs...)
	dst.Deps = append(deps, src.Deps...)
	dst.Tasks = nil
}

// handOn queues the full batch to be encoded (waiting for the oldest in
// flight when writerDepth are) and takes the next to fill: the one queued
// longest ago, whose encoding is over.
func (w *Writer) handOn() error {
	if err := w.ring.Err(); err != nil {
		return err
	}
	w.fill = w.ring.HandOn(w.fill, w.encode)
	return w.ring.Err()
}

func (w *Writer) wait() error { return w.ring.Wait() }

// encode writes a batch's lines, on the encoding goroutine.
func (w *Writer) encode(batch []jobSlot) error {
	for i := range batch {
		s := &batch[i]
		if len(s.line) > 0 {
			if _, err := w.w.Write(s.line); err != nil {
				return err
			}
			continue
		}
		if err := w.encodeLine(&s.job); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) encodeLine(j *Job) error {
	var b []byte
	if !w.long {
		b = w.w.AvailableBuffer(inPlaceLine)
	}
	if b == nil {
		b = w.buf[:0]
	}
	b = append(j.AppendJSON(b), '\n')
	if len(b) > inPlaceLine {
		w.long, w.buf = true, b
	}
	_, err := w.w.Write(b)
	return err
}

// Count is the number of jobs written so far.
func (w *Writer) Count() int { return w.jobs }

// Digest identifies what was written so far: the manifest's workload_jsonl.
// It flushes first (the hash is the writing goroutine's until then); Flush
// reports the error, if there is one.
func (w *Writer) Digest() JobsDigest {
	_ = w.Flush()
	return JobsDigest{SHA256: hex.EncodeToString(w.h.Sum(nil)), Bytes: w.w.Written(), Jobs: w.jobs}
}

// Flush writes any buffered data to the underlying writer, and waits
// until it is written.
func (w *Writer) Flush() error {
	if w.ring.Err() == nil && len(w.fill) > 0 {
		if err := w.handOn(); err != nil {
			return err
		}
	}
	if err := w.wait(); err != nil {
		return err
	}
	return w.w.Flush()
}
