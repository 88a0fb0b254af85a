package gwa

import (
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"github.com/gmark/gmark/internal/outfile"
)

// NewWriter makes a writer of a text trace format (SWF or GWF) on w, with
// h as the header; compress gzips the output. Closing the writer finishes
// the trace (and the gzip stream) but does not close w.
func NewWriter(w io.Writer, f Format, h *Header, compress bool) (Writer, error) {
	var zw *gzip.Writer
	if compress {
		zw = gzip.NewWriter(w)
		w = zw
	}
	var tw Writer
	var err error
	switch f {
	case SWF:
		tw, err = NewSWFWriterHeader(w, h)
	case GWF:
		tw, err = NewGWFWriterHeader(w, h)
	case Workflow:
		tw, err = NewWorkflowWriter(w, h)
	case WfFormat:
		tw = NewWfFormatWriter(w, h)
	default:
		return nil, fmt.Errorf("%q is not a text trace format (swf, gwf or wf)", f)
	}
	if err != nil || zw == nil {
		return tw, err
	}
	return &gzipWriter{Writer: tw, zw: zw}, nil
}

// gzipWriter finishes the gzip stream after the trace.
type gzipWriter struct {
	Writer
	zw *gzip.Writer
}

func (w *gzipWriter) Close() error {
	err := w.Writer.Close()
	if e := w.zw.Close(); err == nil {
		err = e
	}
	return err
}

// WriteTrace writes every record of r to a trace file at path, in format f
// (from the name when empty: .swf, .gwf, .db3/.sqlite/.db; .gz compresses
// text), with h as the header, and returns how many it wrote. The path is
// an output as package outfile has it: a file is replaced only when the
// whole trace is written (a failure leaves the old file as it was), a
// symbolic link keeps pointing at the new trace, a FIFO or a device is
// written through, and a directory is refused. GWF-SQLite, which SQLite
// writes by seeking, needs a regular file. progress, when not nil, is
// called every 64 Ki records.
func WriteTrace(path string, f Format, h *Header, r Reader, progress func(int64)) (int64, error) {
	if f == "" {
		f = FormatFromName(path)
	}
	if f == "" {
		return 0, fmt.Errorf("%s: cannot tell the output format from the name (.swf, .gwf, .db3); give it", path)
	}
	switch {
	case f == WTA:
		return writeWTA(path, h, r, progress)
	case f == WfFormat && IsDirOutput(path):
		return writeWfFormatDir(path, h, r, progress)
	}
	if f == SQLite {
		st, err := outfile.Stage(path)
		if err != nil {
			return 0, err
		}
		defer st.Abort()
		w, err := CreateSQLite(st.Temp, h)
		if err != nil {
			return 0, err
		}
		n, err := copyAndClose(w, r, progress)
		if err != nil {
			return n, err
		}
		return n, st.Commit()
	}
	out, err := outfile.Create(path)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	w, err := NewWriter(out, f, h, strings.HasSuffix(strings.ToLower(path), ".gz"))
	if err != nil {
		return 0, err
	}
	n, err := copyAndClose(w, r, progress)
	if err != nil {
		return n, err
	}
	return n, out.Commit()
}

// copyAndClose copies r into w and finishes w, returning the first error.
func copyAndClose(w Writer, r Reader, progress func(int64)) (int64, error) {
	n, err := Copy(w, r, progress)
	if e := w.Close(); err == nil {
		err = e
	}
	return n, err
}

// OutputFormat is the format to write path in: the one named (--format;
// swf, gwf, wf or sqlite), else the one its name tells (FormatFromName).
func OutputFormat(named, path string) (Format, error) {
	if named != "" {
		f, ok := ParseFormat(named)
		if !ok {
			return f, fmt.Errorf("--format %q: swf, gwf, wf, sqlite, wfformat or wta", named)
		}
		return f, nil
	}
	if f := FormatFromName(path); f != "" {
		return f, nil
	}
	return "", fmt.Errorf("%s: cannot tell the output format from the name; use .swf, .gwf, .wf.gwf, .db3, .json (WfFormat), .parquet (WTA) or --format", path)
}
