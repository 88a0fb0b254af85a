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
	max     int
	filled  bool
	held    []Record
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
	if s.next < len(s.held) {
		rec := s.held[s.next]
		s.held[s.next] = Record{}
		s.next++
		if s.next == len(s.held) {
			s.held = nil
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
func (s *submitOrder) fill() error {
	ordered := true
	for len(s.held) <= s.max { // one more than max tells whether more come
		rec, err := s.Reader.Next()
		if err == io.EOF {
			slices.SortStableFunc(s.held, CompareSubmitOrder)
			return nil
		}
		if err != nil {
			// Strict reading stopped at a malformed line: what was read
			// comes first, in order, then the error.
			slices.SortStableFunc(s.held, CompareSubmitOrder)
			return err
		}
		s.records++
		rec.Dependencies = slices.Clone(rec.Dependencies)
		if n := len(s.held); n > 0 && rec.SubmitTime < s.held[n-1].SubmitTime {
			ordered = false
		}
		s.held = append(s.held, rec)
	}
	// More records than max: they must come in order from here on.
	if !ordered {
		return fmt.Errorf("%s: %w, and it has more than %d records, more than gmark sorts in memory: sort it by submit time first (docs/trace.md, \"Order of the lines\")",
			s.name(), ErrNotInSubmitOrder, s.max)
	}
	s.stream, s.last = true, s.held[len(s.held)-1].SubmitTime
	return nil
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
