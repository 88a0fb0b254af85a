// Package lunar is the state-space exploration behind the lunar application.
// The thesis gives lunar only as "explores a search space of S dimensions and
// outputs the interesting states"; gmark makes it concrete with a problem
// whose counts are known, so a run can be checked: the space of dimension S
// is the placements of S non-attacking queens on an S×S board, explored by
// depth-first backtracking.
//
//   - A state is a placement of queens on the first rows, one per row, none
//     attacking another. Every state visited counts as explored (the empty
//     board does not), so the count is the size of the search tree.
//   - A solution is a state with S queens.
//   - An interesting state is a solution that is the canonical member of its
//     class under the 8 symmetries of the square (the lexicographically
//     smallest of its images): the "fundamental" solutions, which are far
//     rarer (92 solutions but 12 interesting states for S = 8).
//
// The exploration is split into independent subproblems (every valid
// placement of the first two rows); the normal flavour explores them with
// one worker, the large flavour with one worker per processor. Both find
// the same counts.
package lunar

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// MaxDimension is the largest dimension the bitboards allow.
const MaxDimension = 32

// Counts are cumulative counters, safe to read while the search runs.
type Counts struct {
	States      atomic.Int64 // states explored
	Solutions   atomic.Int64 // complete placements
	Interesting atomic.Int64 // canonical solutions
}

// flushEvery is how many states a worker explores between publishing its
// counts and looking at the stop flag: often enough for a counter line a
// second, rarely enough to cost nothing.
const flushEvery = 1 << 14

// Explore explores the space of dimension n (1 ≤ n ≤ MaxDimension) with
// the given number of workers, adding to c as it goes. It returns false when
// stop became true before the space was exhausted.
func Explore(n, workers int, c *Counts, stop *atomic.Bool) bool {
	if n < 1 || n > MaxDimension {
		panic("lunar: dimension out of range")
	}
	workers = max(1, workers)
	prefixes := split(n, c)
	jobs := make(chan []int)
	var wg sync.WaitGroup
	var stopped atomic.Bool
	for range workers {
		wg.Go(func() {
			w := newWorker(n, c, stop)
			for p := range jobs {
				if !w.search(p) {
					stopped.Store(true)
				}
			}
			w.flush()
		})
	}
	for _, p := range prefixes {
		if stop != nil && stop.Load() {
			stopped.Store(true)
			break
		}
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	return !stopped.Load()
}

// split lists the subproblems: every valid placement of the first two rows
// (or the empty placement for boards too small to split), counting the
// states it visits to find them.
func split(n int, c *Counts) [][]int {
	if n < 4 {
		return [][]int{nil}
	}
	var out [][]int
	var states int64
	for a := range n {
		states++
		for b := range n {
			if b == a || b == a-1 || b == a+1 {
				continue
			}
			states++
			out = append(out, []int{a, b})
		}
	}
	c.States.Add(states)
	return out
}

type worker struct {
	n                   int
	c                   *Counts
	stop                *atomic.Bool
	states, sol, intr   int64
	pos                 [MaxDimension]int
	cols, left, right   [MaxDimension + 1]uint64
	avail               [MaxDimension + 1]uint64
	img                 [MaxDimension]int
	full                uint64
	sinceFlush, pending int64
}

func newWorker(n int, c *Counts, stop *atomic.Bool) *worker {
	return &worker{n: n, c: c, stop: stop, full: 1<<uint(n) - 1}
}

func (w *worker) flush() {
	w.c.States.Add(w.states)
	w.c.Solutions.Add(w.sol)
	w.c.Interesting.Add(w.intr)
	w.states, w.sol, w.intr = 0, 0, 0
}

// search explores every completion of prefix, iteratively (an explicit
// stack of available-column masks), and returns false if stopped.
func (w *worker) search(prefix []int) bool {
	var cols, l, r uint64
	for i, col := range prefix {
		bit := uint64(1) << uint(col)
		w.pos[i] = col
		cols |= bit
		l = (l | bit) << 1
		r = (r | bit) >> 1
	}
	base := len(prefix)
	if base == w.n {
		w.solution()
		return true
	}
	d := base
	w.cols[d], w.left[d], w.right[d] = cols, l, r
	w.avail[d] = w.full &^ (cols | l | r)
	for d >= base {
		a := w.avail[d]
		if a == 0 {
			d--
			continue
		}
		bit := a & -a
		w.avail[d] = a ^ bit
		w.states++
		w.pos[d] = bits.TrailingZeros64(bit)
		if d+1 == w.n {
			w.solution()
		} else {
			nc, nl, nr := w.cols[d]|bit, (w.left[d]|bit)<<1, (w.right[d]|bit)>>1
			d++
			w.cols[d], w.left[d], w.right[d] = nc, nl, nr
			w.avail[d] = w.full &^ (nc | nl | nr)
		}
		if w.sinceFlush++; w.sinceFlush == flushEvery {
			w.sinceFlush = 0
			w.flush()
			if w.stop != nil && w.stop.Load() {
				return false
			}
		}
	}
	return true
}

// solution counts the placement in w.pos and whether it is canonical.
func (w *worker) solution() {
	w.sol++
	if w.canonical() {
		w.intr++
	}
}

// canonical reports whether w.pos (row → column) is no greater,
// lexicographically, than any of its 7 other images under the symmetries of
// the square.
func (w *worker) canonical() bool {
	n := w.n
	p := w.pos[:n]
	m := n - 1
	for t := 1; t < 8; t++ {
		img := w.img[:n]
		for r, c := range p {
			// The image of the queen at (r, c).
			var ir, ic int
			switch t {
			case 1: // rotate 90°
				ir, ic = c, m-r
			case 2: // rotate 180°
				ir, ic = m-r, m-c
			case 3: // rotate 270°
				ir, ic = m-c, r
			case 4: // mirror columns
				ir, ic = r, m-c
			case 5: // mirror rows
				ir, ic = m-r, c
			case 6: // transpose
				ir, ic = c, r
			case 7: // anti-transpose
				ir, ic = m-c, m-r
			}
			img[ir] = ic
		}
		for i := range n {
			if img[i] != p[i] {
				if img[i] < p[i] {
					return false
				}
				break
			}
		}
	}
	return true
}
