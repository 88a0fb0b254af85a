package gwa

import (
	"container/heap"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// MixInput is one trace of a mix.
type MixInput struct {
	Reader Reader
	// Tag, when set, prefixes the trace's job, user, group, site and
	// workflow identifiers ("lcg:17"), so that two traces' user 1 stay two
	// users (and a task's dependencies keep naming its predecessors).
	Tag string
	// Shift is added to the trace's submit offsets: 0 aligns every trace's
	// start (offset 0 of its time base).
	Shift float64
}

// Mix merges traces into one, in submit order (ties go to the earlier
// input), each input read in submit order (InSubmitOrder). The result's header names the inputs; its time base is the first
// input's; MaxProcs is the sum of the inputs' (the mixed system is their
// union); partition names carry their tags.
func Mix(inputs []MixInput) Reader {
	m := &mixer{}
	m.hdr.Format = GWF
	var names []string
	for i, in := range inputs {
		h := in.Reader.Header()
		if i == 0 {
			m.hdr.UnixStartTime, m.hdr.TimeZone = h.UnixStartTime, h.TimeZone
		}
		m.hdr.MaxProcs += h.MaxProcs
		m.hdr.SWFFields = m.hdr.SWFFields || h.SWFFields
		for num, name := range h.Partitions {
			if m.hdr.Partitions == nil {
				m.hdr.Partitions = map[string]string{}
			}
			m.hdr.Partitions[tagged(in.Tag, num)] = name
		}
		n := in.Tag
		if n == "" {
			n = fmt.Sprintf("input %d", i+1)
		}
		names = append(names, n)
		in.Reader = InSubmitOrder(in.Reader, 0)
		m.inputs = append(m.inputs, &mixStream{in: in, order: i})
	}
	m.hdr.Lines = []string{"Note: a mix of " + strings.Join(names, ", ") + " by gmark"}
	return m
}

func tagged(tag, id string) string {
	if tag == "" || missingString(id) {
		return id
	}
	return tag + ":" + id
}

type mixStream struct {
	in    MixInput
	order int
	rec   Record
}

type mixer struct {
	hdr     Header
	inputs  []*mixStream
	h       mixHeap
	started bool
	stats   ReadStats
}

func (m *mixer) Header() *Header { return &m.hdr }

// Stats adds up the inputs' statistics.
func (m *mixer) Stats() *ReadStats {
	s := ReadStats{}
	for _, in := range m.inputs {
		x := in.in.Reader.Stats()
		s.Lines += x.Lines
		s.Records += x.Records
		s.Bytes += x.Bytes
		s.Skipped += x.Skipped
		s.Errors = append(s.Errors, x.Errors...)
		s.AbsoluteSubmit += x.AbsoluteSubmit
		s.NegativeWait += x.NegativeWait
		s.CancelledBeforeStart += x.CancelledBeforeStart
		s.LateComments += x.LateComments
		s.TrailingSpace += x.TrailingSpace
		s.ExtraFields += x.ExtraFields
		s.OutOfOrder += x.OutOfOrder
		s.BlankLines += x.BlankLines
	}
	m.stats = s
	return &m.stats
}

func (m *mixer) Close() error {
	var err error
	for _, in := range m.inputs {
		if e := in.in.Reader.Close(); err == nil {
			err = e
		}
	}
	return err
}

func (s *mixStream) advance() (bool, error) {
	rec, err := s.in.Reader.Next()
	if isEOF(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	rec.SubmitTime += s.in.Shift
	if t := s.in.Tag; t != "" {
		rec.JobID = tagged(t, rec.JobID)
		rec.UserID = tagged(t, rec.UserID)
		rec.GroupID = tagged(t, rec.GroupID)
		rec.PartitionID = tagged(t, rec.PartitionID)
		rec.OrigSiteID = tagged(t, rec.OrigSiteID)
		rec.LastRunSiteID = tagged(t, rec.LastRunSiteID)
		rec.PrecedingJob = tagged(t, rec.PrecedingJob)
		if rec.WorkflowID != "" {
			rec.WorkflowID = tagged(t, rec.WorkflowID)
			deps := make([]string, len(rec.Dependencies))
			for i, d := range rec.Dependencies {
				deps[i] = tagged(t, d)
			}
			rec.Dependencies = deps
		}
	}
	s.rec = rec
	return true, nil
}

func (m *mixer) Next() (Record, error) {
	if !m.started {
		m.started = true
		for _, s := range m.inputs {
			ok, err := s.advance()
			if err != nil {
				return Record{}, err
			}
			if ok {
				m.h = append(m.h, s)
			}
		}
		heap.Init(&m.h)
	}
	if len(m.h) == 0 {
		return Record{}, errEOF
	}
	s := m.h[0]
	rec := s.rec
	ok, err := s.advance()
	if err != nil {
		return Record{}, err
	}
	if ok {
		heap.Fix(&m.h, 0)
	} else {
		heap.Pop(&m.h)
	}
	return rec, nil
}

type mixHeap []*mixStream

func (h mixHeap) Len() int { return len(h) }
func (h mixHeap) Less(a, b int) bool {
	if h[a].rec.SubmitTime != h[b].rec.SubmitTime {
		return h[a].rec.SubmitTime < h[b].rec.SubmitTime
	}
	return h[a].order < h[b].order
}
func (h mixHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *mixHeap) Push(x any)   { *h = append(*h, x.(*mixStream)) }
func (h *mixHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// DefaultTags are the tags of traces mixed without tags of their own: their
// file names without .gz, numbered where two are the same.
func DefaultTags(paths []string) []string {
	var tags []string
	seen := map[string]bool{}
	for i, p := range paths {
		b := strings.TrimSuffix(filepath.Base(p), ".gz")
		if seen[b] {
			b += "#" + strconv.Itoa(i+1)
		}
		seen[b] = true
		tags = append(tags, b)
	}
	return tags
}
