package printers

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/gmark/gmark/workload"
)

// appendFunc builds the description of a job at the end of b. Every printer of
// this package is one; building in memory lets the Sink reuse one buffer per
// format and keeps the formats free of I/O error handling.
type appendFunc func(b []byte, j *workload.Job, cfg Config) ([]byte, error)

// scratch holds buffers for Print calls whose writer is not a *bytes.Buffer,
// so that printing to a file or a network stream does not allocate per job.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// printWith is the Print method of every printer here: it checks the job,
// builds the description and writes it with one Write call. A *bytes.Buffer
// (what the Sink passes) is appended to in place.
func printWith(w io.Writer, j *workload.Job, cfg Config, build appendFunc) error {
	cfg = cfg.withDefaults()
	if err := checkText(j, cfg); err != nil {
		return err
	}
	if buf, ok := w.(*bytes.Buffer); ok {
		b, err := build(buf.AvailableBuffer(), j, cfg)
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	b, err := build((*bp)[:0], j, cfg)
	if err != nil {
		return err
	}
	*bp = b
	_, err = w.Write(b)
	return err
}

// checkUnitary rejects the jobs a per-job format cannot describe. Composite
// jobs reach such printers only by mistake: the Sink hands them their tasks.
func checkUnitary(format string, j *workload.Job) error {
	if j.Kind == workload.Composite {
		return fmt.Errorf("job %s: %s describes unitary jobs; print the tasks of a composite job one by one", j.ID, format)
	}
	if len(j.Components) == 0 {
		return fmt.Errorf("job %s: no components to describe", j.ID)
	}
	return nil
}

// checkText rejects control characters (newlines above all) in anything a
// printer copies into a description: every format here is line-based, and a
// newline inside a value would end a directive early and start a new one.
func checkText(j *workload.Job, cfg Config) error {
	if hasControl(cfg.Executable) {
		return controlError("", "executable", cfg.Executable)
	}
	if hasControl(cfg.WorkDir) {
		return controlError("", "work directory", cfg.WorkDir)
	}
	for _, f := range [...]struct{ what, s string }{{"hold file", cfg.HoldUntil}, {"name", cfg.Name}, {"queue", cfg.Queue}} {
		if hasControl(f.s) {
			return controlError("", f.what, f.s)
		}
	}
	for _, kv := range cfg.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || hasControl(kv) {
			return fmt.Errorf("environment %q is not NAME=value on one line", kv)
		}
	}
	return checkJobText(j)
}

func checkJobText(j *workload.Job) error {
	fields := [...]struct{ what, s string }{
		{"id", j.ID}, {"application", j.App.Name}, {"user", j.User}, {"group", j.Group},
	}
	for _, f := range fields {
		if hasControl(f.s) {
			return controlError(j.ID, f.what, f.s)
		}
	}
	for _, p := range j.App.Params {
		if hasControl(p.Key) || hasControl(p.Value) {
			return controlError(j.ID, "parameter "+p.Key, p.Value)
		}
	}
	for _, c := range j.Components {
		if hasControl(c.Site) {
			return controlError(j.ID, "site", c.Site)
		}
	}
	for _, f := range j.Files {
		if hasControl(f.Name) {
			return controlError(j.ID, "file", f.Name)
		}
	}
	for i := range j.Tasks {
		if err := checkJobText(&j.Tasks[i]); err != nil {
			return err
		}
	}
	return nil
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

func controlError(id, what, s string) error {
	err := fmt.Errorf("%s %q contains a control character, which no job description can carry", what, s)
	if id != "" {
		err = fmt.Errorf("job %s: %w", id, err)
	}
	return err
}
