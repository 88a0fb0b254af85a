package printers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gmark/gmark/workload"
)

// Sink writes the JDFs of a stream of jobs into a workload directory, in
// every requested format, so that the generator can print as it generates
// without holding the workload in memory.
//
// In per-job mode each job gets one file per format, at
// DIR/workload.JDFPath(format, ext, job). A composite job given to a format
// that describes unitary jobs only (every format but dagman and dot) gets one
// file per task instead, at workload.JDFPath(format, ext, task): the tasks
// are what the submitter sends to such a resource manager.
//
// In single-file mode each format has one file, DIR/workload.SingleJDFPath,
// in which every description is preceded by the format's comment line
// "job <id>" (for the tasks of a composite job, "job <task id>"). A stream
// is for archiving and for readers that split it at those lines: except for
// dagman's, whose DAGs join into one, it is not a file a resource manager
// takes whole (a condor_submit reading it would carry settings over from one
// job to the next).
//
// Per-job mode is bound by file creation; the Sink keeps the rest out of
// the way: one reused buffer per format, and each unit directory created
// once.
type Sink struct {
	dir        string
	cfg        Config
	singleFile bool
	outputs    []sinkOutput
	unitDirs   map[unitDir]struct{} // per-job mode: unit directories known to exist
	closed     bool
}

// sinkOutput is one format's state.
type sinkOutput struct {
	printer Printer
	buf     bytes.Buffer // the description being written; reused for every job
	path    string       // single-file mode: the stream's file
	file    *os.File
	stream  *bufio.Writer
}

// unitDir names the directory of one unit in one format (the index of the
// format in Sink.outputs).
type unitDir struct {
	format int
	unit   int
}

// NewSink prepares a Sink writing the given formats (registry names) under
// the workload directory dir. In single-file mode it creates the stream
// files at once, so a bad directory is reported before any job is generated.
func NewSink(dir string, formats []string, singleFile bool, cfg Config) (*Sink, error) {
	s := &Sink{dir: dir, cfg: cfg, singleFile: singleFile, unitDirs: make(map[unitDir]struct{})}
	seen := make(map[string]bool, len(formats))
	for _, name := range formats {
		p, err := Lookup(name)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, fmt.Errorf("job description format %q is given twice", name)
		}
		seen[name] = true
		s.outputs = append(s.outputs, sinkOutput{printer: p})
	}
	if !singleFile {
		return s, nil
	}
	if err := os.MkdirAll(filepath.Join(dir, workload.JDFDir), 0o755); err != nil {
		return nil, err
	}
	for i := range s.outputs {
		o := &s.outputs[i]
		o.path = filepath.Join(dir, workload.SingleJDFPath(o.printer.Name(), o.printer.Ext()))
		f, err := os.Create(o.path)
		if err != nil {
			s.Close()
			return nil, err
		}
		o.file = f
		o.stream = bufio.NewWriterSize(f, 256<<10)
	}
	return s, nil
}

// Write writes the descriptions of one job in every format.
func (s *Sink) Write(j *workload.Job) error {
	if s.closed {
		return errors.New("printers: write to a closed Sink")
	}
	for i := range s.outputs {
		o := &s.outputs[i]
		if j.Kind == workload.Composite && !o.printer.Composite() {
			for t := range j.Tasks {
				if err := s.write(i, o, &j.Tasks[t]); err != nil {
					return err
				}
			}
			continue
		}
		if err := s.write(i, o, j); err != nil {
			return err
		}
	}
	return nil
}

// write prints one job (or task) in one format, to its file or its stream.
func (s *Sink) write(format int, o *sinkOutput, j *workload.Job) error {
	o.buf.Reset()
	if s.singleFile {
		o.buf.WriteString(o.printer.Comment("job " + j.ID))
		if err := o.printer.Print(&o.buf, j, s.cfg); err != nil {
			return fmt.Errorf("%s: %v", o.path, err)
		}
		_, err := o.stream.Write(o.buf.Bytes()) // an *os.PathError, naming the file
		return err
	}
	name := filepath.Join(s.dir, workload.JDFPath(o.printer.Name(), o.printer.Ext(), j))
	if err := o.printer.Print(&o.buf, j, s.cfg); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	key := unitDir{format, j.Unit}
	if _, ok := s.unitDirs[key]; !ok {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		s.unitDirs[key] = struct{}{}
	}
	return os.WriteFile(name, o.buf.Bytes(), 0o644)
}

// Close flushes and closes the single-file streams; it returns the first
// error, naming the file. A per-job Sink has nothing to close, but is
// closed all the same, so that late writes are caught.
func (s *Sink) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var first error
	for i := range s.outputs {
		o := &s.outputs[i]
		if o.file == nil {
			continue
		}
		err := o.stream.Flush() // file errors are *os.PathError, naming the file
		if cerr := o.file.Close(); err == nil {
			err = cerr
		}
		if err != nil && first == nil {
			first = err
		}
		o.file = nil
	}
	return first
}
