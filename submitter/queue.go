package submitter

import "sync"

// fifo is an unbounded first-in first-out queue of T that never blocks the
// pusher: the dispatcher and the Runner's loop push work that the workers
// pop, and neither may wait for a busy worker.
type fifo[T any] struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []T
	head   int
	closed bool
}

func newFIFO[T any]() *fifo[T] {
	q := &fifo[T]{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Push appends v and wakes one waiting popper.
func (q *fifo[T]) Push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.cond.Signal()
}

// Pop removes the oldest item, waiting for one; ok is false once the queue
// is closed and empty.
func (q *fifo[T]) Pop() (v T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.items) {
		return v, false
	}
	v = q.items[q.head]
	var zero T
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return v, true
}

// Drain removes and returns everything queued, without waiting.
func (q *fifo[T]) Drain() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := append([]T(nil), q.items[q.head:]...)
	q.items, q.head = q.items[:0], 0
	return out
}

// Close wakes every popper; Pop returns what is left, then ok = false.
func (q *fifo[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
