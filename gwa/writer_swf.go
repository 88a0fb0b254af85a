package gwa

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SWFWriter writes SWF: a ';' header, then 18 whitespace-separated numeric
// fields per record.
//
// SWF identifiers are integers. An identifier that is a decimal integer
// (SWF's own, or GWF's read from an SWF) is written as it is, so SWF → GWF →
// SWF keeps every number. Other identifiers (GWF's anonymized strings) are
// numbered in order of first appearance from 1, skipping numbers already
// taken, and the numbering is written as trailing "; gmark-KIND: N name"
// comments so it can be reversed. The partition field holds the record's
// PartitionID, or its site when it has no partition (GWF's execution site).
type SWFWriter struct {
	w      *bufio.Writer
	buf    []byte
	jobs   jobIDs
	ids    [5]idMap // user, group, executable, queue, partition
	closed bool
}

var swfIDKinds = [...]string{"user", "group", "executable", "queue", "partition"}

// idMap numbers the identifiers of one kind.
type idMap struct {
	ids   map[string]int
	used  map[int]bool
	next  int
	table []string // "N name" for renumbered identifiers, in order
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

func (m *idMap) id(v string) int {
	if missingString(v) {
		return Missing
	}
	if n, ok := m.ids[v]; ok {
		return n
	}
	if m.ids == nil {
		m.ids, m.used, m.next = map[string]int{}, map[int]bool{}, 1
	}
	if n, ok := isDecimal(v); ok && !m.used[n] {
		m.ids[v], m.used[n] = n, true
		return n
	}
	for m.used[m.next] {
		m.next++
	}
	n := m.next
	m.ids[v], m.used[n] = n, true
	m.table = append(m.table, strconv.Itoa(n)+" "+field(v))
	return n
}

// jobIDs numbers job identifiers: decimal ones are kept and not stored (a
// trace of 10^7 numbered jobs needs no table); others get numbers above
// every number seen so far, and so does a decimal one that arrives after its
// number was given to another identifier, so that no two jobs share a
// number.
type jobIDs struct {
	ids      map[string]int
	assigned map[int]bool
	max      int
	table    []string
}

func (j *jobIDs) id(v string) int {
	if missingString(v) {
		return Missing
	}
	if n, ok := j.ids[v]; ok {
		return n
	}
	if n, ok := isDecimal(v); ok && !j.assigned[n] {
		j.max = max(j.max, n)
		return n
	}
	if j.ids == nil {
		j.ids, j.assigned = map[string]int{}, map[int]bool{}
	}
	j.max++
	j.ids[v], j.assigned[j.max] = j.max, true
	j.table = append(j.table, strconv.Itoa(j.max)+" "+field(v))
	return j.max
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
	b := s.buf[:0]
	b = strconv.AppendInt(b, int64(s.jobs.id(r.JobID)), 10)
	for _, v := range [...]float64{r.SubmitTime, r.WaitTime, r.RunTime, r.NProcs, r.AvgCPUTimeUsed, r.UsedMemory, r.ReqNProcs, r.ReqTime, r.ReqMemory} {
		b = append(b, ' ')
		b = appendNum(b, v)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(r.Status), 10)
	part := r.PartitionID
	if missingString(part) {
		part = r.Site()
	}
	for k, v := range [...]string{r.UserID, r.GroupID, r.ExecutableID, r.QueueID, part} {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(s.ids[k].id(v)), 10)
	}
	b = append(b, ' ')
	// A preceding job not seen yet gets its number now (the table keeps
	// its name), rather than being lost.
	b = strconv.AppendInt(b, int64(s.jobs.id(r.PrecedingJob)), 10)
	b = append(b, ' ')
	b = appendNum(b, r.ThinkTime)
	b = append(b, '\n')
	s.buf = b
	_, err := s.w.Write(b)
	return err
}

// Flush writes the identifier tables as trailing comments (once), then
// buffered data.
func (s *SWFWriter) Flush() error {
	if !s.closed {
		s.closed = true
		for _, e := range s.jobs.table {
			fmt.Fprintf(s.w, "; gmark-job: %s\n", e)
		}
		for k := range s.ids {
			for _, e := range s.ids[k].table {
				fmt.Fprintf(s.w, "; gmark-%s: %s\n", strings.ToLower(swfIDKinds[k]), e)
			}
		}
	}
	return s.w.Flush()
}

// Close is Flush.
func (s *SWFWriter) Close() error { return s.Flush() }
