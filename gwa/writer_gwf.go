package gwa

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Writer writes records in one trace format.
type Writer interface {
	Write(r *Record) error
	// Close finishes the output (trailing tables, a transaction) and flushes
	// it; it does not close the io.Writer the writer was made with.
	Close() error
}

// The two extra GWF columns that keep SWF's fields 17 and 18 (gmark's
// extension, written only when the records come from SWF).
const (
	colPrecedingJob = "PrecedingJob"
	colThinkTime    = "ThinkTime"
)

// GWFWriter writes GWF text: '#' header lines, a '#' line naming the
// columns, then one tab-separated line per record.
type GWFWriter struct {
	w      *bufio.Writer
	buf    []byte
	swf    bool
	closed bool
}

// NewGWFWriter writes the header; comments are extra header lines.
func NewGWFWriter(w io.Writer, comments ...string) (*GWFWriter, error) {
	return NewGWFWriterHeader(w, &Header{Lines: comments})
}

// NewGWFWriterHeader writes h's lines (and its time base, when no line
// holds it) as the header. With h.SWFFields, two columns after the 29 keep
// SWF's preceding job and think time.
func NewGWFWriterHeader(w io.Writer, h *Header) (*GWFWriter, error) {
	if err := checkHeader(h); err != nil {
		return nil, err
	}
	g := &GWFWriter{w: bufio.NewWriterSize(w, 256<<10), swf: h != nil && h.SWFFields}
	writeComments(g.w, "#", h)
	cols := strings.Join(GWFFields, "\t")
	if g.swf {
		cols += "\t" + colPrecedingJob + "\t" + colThinkTime
	}
	_, err := g.w.WriteString("# " + cols + "\n")
	return g, err
}

// Write appends one record.
func (g *GWFWriter) Write(r *Record) error {
	if err := writable(r); err != nil {
		return err
	}
	return g.write(r)
}

// write is Write of a record known to be writable (the trace pipe's,
// checked as they were queued).
func (g *GWFWriter) write(r *Record) error {
	b := g.buf[:0]
	b = append(b, field(r.JobID)...)
	for _, v := range [...]float64{r.SubmitTime, r.WaitTime, r.RunTime, r.NProcs, r.AvgCPUTimeUsed, r.UsedMemory, r.ReqNProcs, r.ReqTime, r.ReqMemory} {
		b = append(b, '\t')
		b = appendNum(b, v)
	}
	b = append(b, '\t')
	b = appendInt(b, int64(r.Status))
	for _, s := range [...]string{r.UserID, r.GroupID, r.ExecutableID, r.QueueID, r.PartitionID, r.OrigSiteID, r.LastRunSiteID, r.JobStructure, r.JobStructureParams} {
		b = append(b, '\t')
		b = append(b, field(s)...)
	}
	for _, v := range [...]float64{r.UsedNetwork, r.UsedLocalDiskSpace} {
		b = append(b, '\t')
		b = appendNum(b, v)
	}
	b = append(b, '\t')
	b = append(b, field(r.UsedResources)...)
	b = append(b, '\t')
	b = append(b, field(r.ReqPlatform)...)
	for _, v := range [...]float64{r.ReqNetwork, r.ReqLocalDiskSpace} {
		b = append(b, '\t')
		b = appendNum(b, v)
	}
	for _, s := range [...]string{r.ReqResources, r.VOID, r.ProjectID} {
		b = append(b, '\t')
		b = append(b, field(s)...)
	}
	if g.swf {
		b = append(b, '\t')
		b = append(b, field(r.PrecedingJob)...)
		b = append(b, '\t')
		b = appendNum(b, r.ThinkTime)
	}
	b = append(b, '\n')
	g.buf = b
	if len(b) >= maxLine {
		return fmt.Errorf("job %s: the GWF line would be %d bytes; readers refuse lines of 1 MiB or more", field(r.JobID), len(b))
	}
	_, err := g.w.Write(b)
	return err
}

// Flush writes buffered data.
func (g *GWFWriter) Flush() error { return g.w.Flush() }

// Close flushes; GWF has no trailer.
func (g *GWFWriter) Close() error { return g.Flush() }
