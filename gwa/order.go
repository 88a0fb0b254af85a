package gwa

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Submit order. The analysis (Analyzer) is indifferent to the order of a
// trace's lines within its budget; what follows the jobs one after the
// other — selections (a window, the first N jobs, the origin of rebasing),
// replays, bags-of-tasks — reads a trace through InSubmitOrder, so that
// each of them too is a function of the set of jobs, not of the order of
// the lines (docs/trace.md, "Order of the lines").

// MaxSortedRecords is the most records InSubmitOrder holds in memory (about
// 500 bytes each, so 256 MiB): a trace of at most that many is sorted
// whatever its order; a longer one must come in submit order past them.
const MaxSortedRecords = 1 << 19

// ErrNotInSubmitOrder is InSubmitOrder's error for a trace longer than it
// sorts whose records are not in submit order.
var ErrNotInSubmitOrder = errors.New("not in submit order")

// InSubmitOrder returns r's records in submit order. Records submitted at
// the same time are ordered by workflow, then by job id (as numbers when
// both are whole numbers), then as they came, so that the order does not
// depend on the lines' either. It holds up to max records (0:
// MaxSortedRecords); when r has more and they came in submit order, the
// ones held are returned and the rest streamed as they come (ties then in
// file order); a record out of order past max is ErrNotInSubmitOrder,
// naming it. Stats and Header are r's.
func InSubmitOrder(r Reader, max int) Reader {
	switch r.(type) {
	case *submitOrder, *mixer: // a mix merges inputs in submit order (Mix)
		return r
	}
	if max <= 0 {
		max = MaxSortedRecords
		if HasWorkflows(r.Header().Format) {
			// Its reader holds the trace anyway, up to its own bound: a
			// workflow trace (grouped by workflow, as such files are) is
			// sorted whole.
			max = MaxWorkflowTasks
		}
	}
	return &submitOrder{Reader: r, max: max}
}

// OpenInSubmitOrder is InSubmitOrder of the reader open opens, each time.
func OpenInSubmitOrder(open func() (Reader, error)) func() (Reader, error) {
	return func() (Reader, error) {
		r, err := open()
		if err != nil {
			return nil, err
		}
		return InSubmitOrder(r, 0), nil
	}
}

type submitOrder struct {
	Reader
	max    int
	filled bool
	// held: the records read and held, in submit order, in chunks (see
	// fill); next is the next one of the first chunk.
	held    [][]Record
	next    int
	stream  bool    // past the held records, r is read as it comes
	last    float64 // the latest submission returned, while streaming
	records int64   // records read from r
	err     error
}

func (s *submitOrder) Next() (Record, error) {
	if !s.filled {
		s.filled = true
		s.err = s.fill()
	}
	if len(s.held) > 0 {
		c := s.held[0]
		rec := c[s.next]
		c[s.next] = Record{}
		s.next++
		if s.next == len(c) {
			s.held[0], s.held, s.next = nil, s.held[1:], 0
		}
		return rec, nil
	}
	if s.err != nil || !s.stream {
		if s.err == nil {
			s.err = io.EOF
		}
		return Record{}, s.err
	}
	rec, err := s.Reader.Next()
	if err != nil {
		s.err = err
		return Record{}, err
	}
	s.records++
	if rec.SubmitTime < s.last {
		s.err = s.notInOrder(&rec)
		return Record{}, s.err
	}
	s.last = rec.SubmitTime
	return rec, nil
}

// fill reads up to max records and sorts them; with more to come, in
// order so far, it streams the rest.
//
// The records are read into chunks (a record is about 500 bytes: growing
// one slice as they come copied the trace several times over, a fifth of
// a replay's time on LCG), and a trace already in submit order, as most
// are, is returned from them as it is; one to sort is put together once.
func (s *submitOrder) fill() error {
	var h holder
	err := h.read(s)
	if err != nil || h.n <= s.max {
		// At the end, or where strict reading stopped at a malformed line:
		// what was read comes first, in order (then the error).
		s.held = h.chunks
		if !h.sorted {
			all := h.joined()
			slices.SortStableFunc(all, CompareSubmitOrder)
			s.held = [][]Record{all}
		}
		return err
	}
	// More records than max: they must come in order from here on.
	if !h.ordered {
		return fmt.Errorf("%s: %w, and it has more than %d records, more than gmark sorts in memory: sort it by submit time first (docs/trace.md, \"Order of the lines\")",
			s.name(), ErrNotInSubmitOrder, s.max)
	}
	s.held = h.chunks
	c := h.chunks[len(h.chunks)-1]
	s.stream, s.last = true, c[len(c)-1].SubmitTime
	return nil
}

// holder is what fill reads: the records in chunks, whether their submit
// times never go back (ordered), and whether they are in submit order,
// ties included (sorted: then they need no sort).
type holder struct {
	chunks          [][]Record
	n               int
	ordered, sorted bool
}

// holdChunk is the records of one of holder's chunks.
const holdChunk = 4096

// read reads up to s.max+1 records (one more than max tells whether more
// come), or to the end (nil) or an error.
func (h *holder) read(s *submitOrder) error {
	h.ordered, h.sorted = true, true
	var last *Record
	for h.n <= s.max {
		rec, err := s.Reader.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		s.records++
		rec.Dependencies = slices.Clone(rec.Dependencies)
		if last != nil && h.sorted {
			if rec.SubmitTime < last.SubmitTime {
				h.ordered, h.sorted = false, false
			} else if CompareSubmitOrder(*last, rec) > 0 {
				h.sorted = false
			}
		} else if last != nil && rec.SubmitTime < last.SubmitTime {
			h.ordered = false
		}
		if k := len(h.chunks); k == 0 || len(h.chunks[k-1]) == cap(h.chunks[k-1]) {
			h.chunks = append(h.chunks, make([]Record, 0, min(holdChunk, s.max+1)))
		}
		c := &h.chunks[len(h.chunks)-1]
		*c = append(*c, rec)
		last = &(*c)[len(*c)-1]
		h.n++
	}
	return nil
}

// joined is the records read, in one slice.
func (h *holder) joined() []Record {
	if len(h.chunks) == 1 {
		return h.chunks[0]
	}
	out := make([]Record, 0, h.n)
	for i, c := range h.chunks {
		out = append(out, c...)
		h.chunks[i] = nil
	}
	return out
}

func (s *submitOrder) notInOrder(rec *Record) error {
	return fmt.Errorf("%s: %w: record %d (job %s) is submitted at %s s, before a job at %s s, and the trace has more than %d records, more than gmark sorts in memory: sort it by submit time first (docs/trace.md, \"Order of the lines\")",
		s.name(), ErrNotInSubmitOrder, s.records, rec.JobID, strconv.FormatFloat(rec.SubmitTime, 'f', -1, 64), strconv.FormatFloat(s.last, 'f', -1, 64), s.max)
}

// name is the trace's name for messages.
func (s *submitOrder) name() string {
	if n, ok := s.Reader.(interface{ Name() string }); ok && n.Name() != "" {
		return n.Name()
	}
	return "the trace"
}

// CompareSubmitOrder orders records by submit time, then workflow, then
// job id (numerically when both are whole numbers): the order of
// InSubmitOrder.
func CompareSubmitOrder(a, b Record) int {
	if c := cmp.Compare(a.SubmitTime, b.SubmitTime); c != 0 {
		return c
	}
	if c := compareIDs(a.WorkflowID, b.WorkflowID); c != 0 {
		return c
	}
	return compareIDs(a.JobID, b.JobID)
}

// compareIDs compares identifiers as whole numbers when both are, numbers
// first, else as strings.
func compareIDs(a, b string) int {
	if a == b {
		return 0 // (most often two empty workflow ids: failing to parse them made two errors)
	}
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}
