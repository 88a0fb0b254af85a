package record

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/gmark/gmark/analyzer/store"
)

// Recorder writes to the store from one goroutine, committing whatever has
// been queued since the last commit in one transaction (group commit): the
// submitter queues records at any rate without waiting for the disk, and
// waits only where it must, for the record of a submission to be committed
// before the submission is made.
//
// If a commit fails the Recorder stops: every later Wait returns the error
// and the submitter stops submitting, since a submission it cannot record must
// not be made.
type Recorder struct {
	st *store.Store

	mu        sync.Mutex
	cond      *sync.Cond
	queue     []func(*store.Tx) error
	queued    uint64 // sequence number of the last queued record
	committed uint64 // sequence number of the last committed record
	err       error
	closing   bool
	done      chan struct{}

	batches int // commits made, for tests and statistics
}

// maxBatch bounds one transaction, so a backlog is committed in steps and
// early records do not wait for the whole backlog.
const maxBatch = 2048

// yieldEvery is how many records the recorder writes between yields.
const yieldEvery = 16

// NewRecorder starts a recorder writing to st.
func NewRecorder(st *store.Store) *Recorder {
	r := &Recorder{st: st, done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	go r.loop()
	return r
}

// Add queues a record and returns its sequence number, for Wait.
func (r *Recorder) Add(op func(*store.Tx) error) uint64 {
	r.mu.Lock()
	r.queue = append(r.queue, op)
	r.queued++
	seq := r.queued
	r.mu.Unlock()
	r.cond.Broadcast()
	return seq
}

// Wait blocks until the record with sequence number seq is committed, or
// the recorder failed.
func (r *Recorder) Wait(seq uint64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.committed < seq && r.err == nil {
		r.cond.Wait()
	}
	return r.err
}

// Sync queues nothing and waits for everything queued so far.
func (r *Recorder) Sync() error {
	r.mu.Lock()
	seq := r.queued
	r.mu.Unlock()
	return r.Wait(seq)
}

// Err is the error that stopped the recorder, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close commits what is queued and stops the recorder.
func (r *Recorder) Close() error {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	r.cond.Broadcast()
	<-r.done
	return r.Err()
}

func (r *Recorder) loop() {
	defer close(r.done)
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && !r.closing && r.err == nil {
			r.cond.Wait()
		}
		if r.err != nil || (len(r.queue) == 0 && r.closing) {
			r.mu.Unlock()
			return
		}
		n := len(r.queue)
		if n > maxBatch {
			n = maxBatch
		}
		batch := r.queue[:n:n]
		r.queue = r.queue[n:]
		last := r.committed + uint64(n)
		r.mu.Unlock()

		err := r.st.Write(context.Background(), func(tx *store.Tx) error {
			for i, op := range batch {
				if err := op(tx); err != nil {
					return err
				}
				if i%yieldEvery == yieldEvery-1 {
					// Let the dispatcher have a processor: a goroutine
					// that never blocks is preempted only every 10 ms.
					runtime.Gosched()
				}
			}
			return nil
		})

		r.mu.Lock()
		if err != nil {
			r.err = errors.Join(errors.New("recording to the results store failed; no further job is submitted"), err)
		} else {
			r.committed = last
			r.batches++
		}
		r.mu.Unlock()
		r.cond.Broadcast()
	}
}
