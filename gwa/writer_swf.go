package gwa

import (
	"bufio"
	"io"
	"slices"

	"github.com/gmark/gmark/internal/decimal"
)

// SWFWriter writes SWF: a ';' header, then 18 whitespace-separated numeric
// fields per record.
//
// SWF identifiers are integers. An identifier that is a decimal integer
// (SWF's own, or GWF's read from an SWF) is written as it is, so SWF → GWF →
// SWF keeps every number. Other identifiers (GWF's anonymized strings) are
// numbered in order of first appearance from 1, skipping numbers already
// taken, and each numbering is written as a "; gmark-KIND: N name" comment
// line just before the first record that uses it, so that a reader streaming
// the trace knows the name before it meets the number (gmark's SWF reader
// reads the names back; other readers skip the comments). The partition
// field holds the record's PartitionID, or its site when it has no partition
// (GWF's execution site).
type SWFWriter struct {
	w    *bufio.Writer
	buf  []byte
	jobs jobIDs
	ids  [5]idMap // user, group, executable, queue, partition
}

var swfIDKinds = [...]string{"user", "group", "executable", "queue", "partition"}

// idMap numbers the identifiers of one kind.
type idMap struct {
	ids  map[string]int
	used map[int]bool
	next int
}

// isDecimal tells whether s is a canonical decimal integer >= 0 (no sign,
// no leading zero), which SWF can hold as it is.
func isDecimal(s string) (int, bool) {
	if s == "" || len(s) > 15 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// id is v's number; renumbered is set when v was given a number other than
// its own just now (its table line is then due).
func (m *idMap) id(v string) (n int, renumbered bool) {
	if missingString(v) {
		return Missing, false
	}
	if n, ok := m.ids[v]; ok {
		return n, false
	}
	if m.ids == nil {
		m.ids, m.used, m.next = map[string]int{}, map[int]bool{}, 1
	}
	if n, ok := isDecimal(v); ok && !m.used[n] {
		m.ids[v], m.used[n] = n, true
		return n, false
	}
	for m.used[m.next] {
		m.next++
	}
	n = m.next
	m.ids[v], m.used[n] = n, true
	return n, true
}

// jobIDs numbers job identifiers: decimal ones are kept and not stored (a
// trace of 10^7 numbered jobs needs no table); others get numbers above
// every number seen so far, and so does a decimal one that arrives after its
// number was given to another identifier, so that no two jobs share a
// number.
//
// The first few renumbered ids are kept in a short list, the rest in a
// map: a generated workload forgets them after each job (ForgetJobIDs),
// whose ids are one or a few, and a map's insert and clear a job cost more
// than a search of the list.
type jobIDs struct {
	few      []jobID
	ids      map[string]int
	assigned numberRuns
	max      int
}

type jobID struct {
	v string
	n int
}

// fewJobIDs is how many renumbered ids the list holds.
const fewJobIDs = 8

// id is v's number; renumbered as for idMap.
func (j *jobIDs) id(v string) (n int, renumbered bool) {
	if missingString(v) {
		return Missing, false
	}
	for _, e := range j.few {
		if e.v == v {
			return e.n, false
		}
	}
	if n, ok := j.ids[v]; ok {
		return n, false
	}
	if n, ok := isDecimal(v); ok && !j.assigned.has(n) {
		j.max = max(j.max, n)
		return n, false
	}
	j.max++
	if len(j.few) < fewJobIDs {
		j.few = append(j.few, jobID{v, j.max})
	} else {
		if j.ids == nil {
			j.ids = map[string]int{}
		}
		j.ids[v] = j.max
	}
	j.assigned.add(j.max)
	return j.max, true
}

// forget forgets the renumbered ids.
func (j *jobIDs) forget() {
	clear(j.few) // no strings of jobs written kept alive
	j.few = j.few[:0]
	if len(j.ids) > 0 {
		clear(j.ids)
	}
}

// numberRuns is a set of numbers as sorted runs of consecutive ones: the
// numbers jobIDs gives are each above every number before, so a stream of
// renumbered ids is one run, whatever its length.
type numberRuns []struct{ lo, hi int }

// add adds n, above every number in the set.
func (r *numberRuns) add(n int) {
	if k := len(*r); k > 0 && (*r)[k-1].hi == n-1 {
		(*r)[k-1].hi = n
		return
	}
	*r = append(*r, struct{ lo, hi int }{n, n})
}

func (r numberRuns) has(n int) bool {
	i, _ := slices.BinarySearchFunc(r, n, func(e struct{ lo, hi int }, n int) int {
		switch {
		case e.hi < n:
			return -1
		case e.lo > n:
			return 1
		}
		return 0
	})
	return i < len(r) && r[i].lo <= n && n <= r[i].hi
}

// ForgetJobIDs forgets the job identifiers renumbered so far, for a stream
// whose later records never name them again (a generated workload: each
// job's id is its own, and a task's preceding job is a task of the same
// job, written just before): the table grows no more with the trace. The
// numbers given stay taken.
func (s *SWFWriter) ForgetJobIDs() { s.jobs.forget() }

// appendTableLine appends the "; gmark-KIND: N name" line of a renumbered
// identifier.
func appendTableLine(b []byte, kind string, n int, name string) []byte {
	b = append(b, "; gmark-"...)
	b = append(b, kind...)
	b = append(b, ": "...)
	b = decimal.AppendInt(b, int64(n))
	b = append(b, ' ')
	b = append(b, field(name)...)
	return append(b, '\n')
}

// NewSWFWriter writes the header lines (each prefixed with "; ").
func NewSWFWriter(w io.Writer, header ...string) (*SWFWriter, error) {
	return NewSWFWriterHeader(w, &Header{Lines: header})
}

// NewSWFWriterHeader writes h's lines as the header, after a "Version: 2.2"
// line when h has none.
func NewSWFWriterHeader(w io.Writer, h *Header) (*SWFWriter, error) {
	if err := checkHeader(h); err != nil {
		return nil, err
	}
	s := &SWFWriter{w: bufio.NewWriterSize(w, 256<<10)}
	if h == nil || !h.hasKey("Version") {
		s.w.WriteString("; Version: 2.2\n")
	}
	writeComments(s.w, ";", h)
	return s, nil
}

// Write appends one record.
func (s *SWFWriter) Write(r *Record) error {
	if err := writable(r); err != nil {
		return err
	}
	return s.write(r)
}

// write is Write of a record known to be writable (the trace pipe's,
// checked as they were queued).
func (s *SWFWriter) write(r *Record) error {
	// The identifiers first: a renumbered one's table line goes before
	// the record.
	b := s.buf[:0]
	job, fresh := s.jobs.id(r.JobID)
	if fresh {
		b = appendTableLine(b, "job", job, r.JobID)
	}
	part := r.PartitionID
	if missingString(part) {
		part = r.Site()
	}
	var ids [5]int
	for k, v := range [...]string{r.UserID, r.GroupID, r.ExecutableID, r.QueueID, part} {
		if ids[k], fresh = s.ids[k].id(v); fresh {
			b = appendTableLine(b, swfIDKinds[k], ids[k], v)
		}
	}
	// A preceding job not seen yet gets its number now, rather than being
	// lost.
	prec, fresh := s.jobs.id(r.PrecedingJob)
	if fresh {
		b = appendTableLine(b, "job", prec, r.PrecedingJob)
	}
	b = decimal.AppendInt(b, int64(job))
	for _, v := range [...]float64{r.SubmitTime, r.WaitTime, r.RunTime, r.NProcs, r.AvgCPUTimeUsed, r.UsedMemory, r.ReqNProcs, r.ReqTime, r.ReqMemory} {
		b = append(b, ' ')
		b = appendNum(b, v)
	}
	b = append(b, ' ')
	b = appendInt(b, int64(r.Status))
	for _, n := range ids {
		b = append(b, ' ')
		b = appendInt(b, int64(n))
	}
	b = append(b, ' ')
	b = appendInt(b, int64(prec))
	b = append(b, ' ')
	b = appendNum(b, r.ThinkTime)
	b = append(b, '\n')
	s.buf = b
	_, err := s.w.Write(b)
	return err
}

// Flush writes buffered data.
func (s *SWFWriter) Flush() error { return s.w.Flush() }

// Close is Flush.
func (s *SWFWriter) Close() error { return s.Flush() }
