package gwa

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// WorkflowWriter writes the workflow variant of GWF: the header's lines as
// '#' comments (none when the header has none), the column line
// WorkflowColumns, then one comma-separated line per task. The variant has
// no other columns: GWF's other fields are not written.
type WorkflowWriter struct {
	w   *bufio.Writer
	buf []byte
}

// NewWorkflowWriter writes the header and the column line.
func NewWorkflowWriter(w io.Writer, h *Header) (*WorkflowWriter, error) {
	if err := checkHeader(h); err != nil {
		return nil, err
	}
	g := &WorkflowWriter{w: bufio.NewWriterSize(w, 256<<10)}
	writeComments(g.w, "#", h)
	_, err := g.w.WriteString(strings.Join(WorkflowColumns, ",") + "\n")
	return g, err
}

// Write appends one task. A record with no WorkflowID (from a trace
// without workflows) is a workflow of its own, named by its JobID.
func (g *WorkflowWriter) Write(r *Record) error {
	if err := writable(r); err != nil {
		return err
	}
	if missingString(r.JobID) {
		return fmt.Errorf("a job with no JobID: the workflow variant names every task, for the tasks that depend on it")
	}
	wf := r.WorkflowID
	if missingString(wf) {
		wf = r.JobID
	}
	b := append(g.buf[:0], csvField(wf)...)
	b = append(b, ',')
	b = append(b, csvField(r.JobID)...)
	for _, v := range [...]float64{r.SubmitTime, r.RunTime, r.NProcs, r.ReqNProcs} {
		b = append(b, ',')
		b = appendNum(b, v)
	}
	b = append(b, ',')
	for i, d := range r.Dependencies {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, csvField(d)...)
	}
	b = append(b, '\n')
	g.buf = b
	if len(b) >= maxLine {
		return fmt.Errorf("job %s: the line would be %d bytes; readers refuse lines of 1 MiB or more", csvField(r.JobID), len(b))
	}
	_, err := g.w.Write(b)
	return err
}

// Flush writes buffered data.
func (g *WorkflowWriter) Flush() error { return g.w.Flush() }

// Close flushes; the variant has no trailer.
func (g *WorkflowWriter) Close() error { return g.Flush() }

// csvField is an identifier as the variant holds it: quoted as GWF quotes
// (see field: a leading '#' or '"'), and also when it holds a comma,
// written \x2c, or white space of any kind anywhere (Dependencies splits
// on it), so that it never splits its line's fields or a dependency list.
func csvField(s string) string {
	if s != "" && !needsQuote(s) && !strings.Contains(s, ",") && strings.IndexFunc(s, unicode.IsSpace) < 0 {
		return s
	}
	return quoteReplacer.Replace(strconv.Quote(s))
}

var quoteReplacer = strings.NewReplacer(" ", `\x20`, ",", `\x2c`)

// workflowSink writes a generated workload in the workflow variant: each
// job a workflow (a unitary job one of a single task), numbered from 0 in
// the order of workload.jsonl, and its tasks numbered from 0 across the
// whole file in the order of the job's tasks, so that tools that read the
// identifiers as integers (OpenDC) read it too. Dependencies name those
// numbers. NProcs, unknown before a run, is written as the requested size,
// the size such tools take. No comment line: plain CSV readers read it.
type workflowSink struct {
	w     *WorkflowWriter
	jobs  int
	tasks int
	ids   map[string]string
}

func newWorkflowSink(w io.Writer) (*workflowSink, error) {
	ww, err := NewWorkflowWriter(w, nil)
	if err != nil {
		return nil, err
	}
	return &workflowSink{w: ww, ids: map[string]string{}}, nil
}

// write writes the records of one job (JobRecords).
func (s *workflowSink) write(recs []Record) error {
	wf := strconv.Itoa(s.jobs)
	s.jobs++
	clear(s.ids)
	for i := range recs {
		s.ids[recs[i].JobID] = strconv.Itoa(s.tasks + i)
	}
	for i := range recs {
		r := recs[i]
		r.WorkflowID, r.JobID = wf, s.ids[r.JobID]
		r.Dependencies = make([]string, len(recs[i].Dependencies))
		for k, d := range recs[i].Dependencies {
			r.Dependencies[k] = s.ids[d]
		}
		if !Known(r.NProcs) {
			r.NProcs = r.ReqNProcs
		}
		if err := s.w.Write(&r); err != nil {
			return err
		}
	}
	s.tasks += len(recs)
	return nil
}
