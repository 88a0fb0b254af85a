package gwa

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gmark/gmark/workload"
)

// TraceSink writes a workload's jobs as traces (workload.gwf, workload.swf)
// while the workload is written: a workload.Sink. Each job becomes the
// records of JobRecords. A job the formats cannot hold (a submit offset
// beyond their range) is an error wrapping ErrOutOfRange.
type TraceSink struct {
	files []*os.File
	gwf   *GWFWriter
	swf   *SWFWriter
	wf    *workflowSink
	// wfDir is where each composite job is written as a WfFormat
	// instance (DIR/workflows), "" when not asked for.
	wfDir string
	recs  []Record   // the records of the job being written, reused
	pipe  *tracePipe // writes GWF and SWF on a goroutine of its own (tracepipe.go)
}

// TraceFormats are the formats a TraceSink writes: GWF, SWF, the
// workflow variant of GWF (workload.wf.gwf) and WfFormat (workflows/, one
// instance a composite job).
var TraceFormats = []string{"gwf", "swf", "wf", "wfformat"}

// NewTraceSink creates DIR/workload.FORMAT for each of formats ("gwf",
// "swf"), each opening with note as its header comment and, when
// processors (the grid's size) is above 0, a MaxProcs line: the system
// size of the trace's utilization and ranking; for "wf"
// DIR/workload.wf.gwf, with no comment (see workflowSink).
func NewTraceSink(dir string, formats []string, note string, processors int) (*TraceSink, error) {
	t := &TraceSink{}
	for _, f := range formats {
		if f == "wfformat" {
			t.wfDir = filepath.Join(dir, WfFormatDir)
			if err := os.MkdirAll(t.wfDir, 0o755); err != nil {
				t.Close()
				return nil, err
			}
			continue
		}
		if f != "gwf" && f != "swf" && f != "wf" {
			t.Close()
			return nil, fmt.Errorf("unknown trace format %q (gwf, swf, wf or wfformat)", f)
		}
		name := "workload." + f
		if f == "wf" {
			name = "workload.wf.gwf"
		}
		file, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Close()
			return nil, err
		}
		t.files = append(t.files, file)
		switch f {
		case "gwf":
			t.gwf, err = NewGWFWriterHeader(file, &Header{Lines: []string{note}, MaxProcs: processors})
		case "swf":
			t.swf, err = NewSWFWriterHeader(file, &Header{Lines: []string{"Note: " + note}, MaxProcs: processors})
		default:
			t.wf, err = newWorkflowSink(file)
		}
		if err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

// Write appends the job's records to every trace.
func (t *TraceSink) Write(j *workload.Job) error {
	if t.gwf == nil && t.swf == nil && t.wf == nil && t.wfDir == "" {
		return nil
	}
	if t.wf == nil && t.wfDir == "" {
		// Only the pipe takes the records: made straight into its batch.
		if t.pipe == nil {
			t.pipe = newTracePipe(t.gwf, t.swf)
		}
		return t.pipe.addJob(j)
	}
	recs := AppendJobRecords(t.recs[:0], j)
	t.recs = recs
	if t.wfDir != "" && j.Kind == workload.Composite {
		if err := writeInstanceFile(filepath.Join(t.wfDir, fileSafe(j.ID)+".json"), recs); err != nil {
			return fmt.Errorf("job %s: %v", j.ID, err)
		}
	}
	if t.wf != nil {
		if err := t.wf.write(recs); err != nil {
			return err
		}
	}
	if t.gwf == nil && t.swf == nil {
		return nil
	}
	if t.pipe == nil {
		t.pipe = newTracePipe(t.gwf, t.swf)
	}
	return t.pipe.add(recs)
}

// Close flushes and closes the traces; it returns the first error.
func (t *TraceSink) Close() error {
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	if t.pipe != nil {
		keep(t.pipe.close())
		t.pipe = nil
	}
	if t.gwf != nil {
		keep(t.gwf.Flush())
		t.gwf = nil
	}
	if t.swf != nil {
		keep(t.swf.Flush())
		t.swf = nil
	}
	if t.wf != nil {
		keep(t.wf.w.Flush())
		t.wf = nil
	}
	for _, f := range t.files {
		keep(f.Close())
	}
	t.files = nil
	return first
}
