package workload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A Sink receives every job a DirWriter writes, to put more files into the
// workload directory beside workload.jsonl (job description files, traces).
// Close is called once, before the manifest is written.
type Sink interface {
	Write(*Job) error
	Close() error
}

// DirWriter writes a workload directory: workload.jsonl, streamed, then
// manifest.json with the digest of what was written. It writes into a
// staging directory (Stage) renamed into place by Commit, so a failed or
// killed writer leaves no half-written workload behind.
//
// It is the one writer of the format: `gmark generate` streams millions of
// jobs through it; imports and tests write a slice with WriteDir.
type DirWriter struct {
	stage  *Staging
	file   *os.File
	jobs   *Writer
	sinks  []Sink
	closed bool  // the sinks were closed (Commit or Abort)
	err    error // the first write error; Commit refuses after one
}

// CreateDir starts writing the workload directory out (a path as given by
// the user; ResolveOutputDir applies). Nothing is visible at out until
// Commit.
func CreateDir(out string) (*DirWriter, error) {
	resolved, err := ResolveOutputDir(out)
	if err != nil {
		return nil, err
	}
	st, err := Stage(resolved)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(st.Dir, JobsFile))
	if err != nil {
		st.Abort()
		return nil, err
	}
	return &DirWriter{stage: st, file: f, jobs: NewWriter(f)}, nil
}

// Dir is the staging directory, where sinks write their files.
func (d *DirWriter) Dir() string { return d.stage.Dir }

// AddSink has every job written from now on also given to s.
func (d *DirWriter) AddSink(s Sink) { d.sinks = append(d.sinks, s) }

// Write appends a job to workload.jsonl and gives it to every sink. A
// sink's error is returned as it is, for the caller to place.
func (d *DirWriter) Write(j *Job) error {
	if d.err != nil {
		return d.err
	}
	if err := d.jobs.Write(j); err != nil {
		d.err = err
		return err
	}
	for _, s := range d.sinks {
		if err := s.Write(j); err != nil {
			d.err = err
			return err
		}
	}
	return nil
}

// Count is the number of jobs written so far.
func (d *DirWriter) Count() int { return d.jobs.Count() }

// Commit finishes the files, writes m as manifest.json (its JobsFile set to
// the digest of what was written; its Jobs must agree) and moves the
// directory into place; with replace, over a workload directory already
// there (never over anything else: ErrNotWorkload).
func (d *DirWriter) Commit(m *Manifest, replace bool) error {
	if d.err != nil {
		return d.err
	}
	if err := d.finish(m); err != nil {
		return err
	}
	return d.stage.Commit(replace)
}

func (d *DirWriter) finish(m *Manifest) error {
	if err := d.jobs.Flush(); err != nil {
		return err
	}
	if err := d.file.Close(); err != nil {
		return err
	}
	d.closed = true
	for _, s := range d.sinks {
		if err := s.Close(); err != nil {
			return err
		}
	}
	digest := d.jobs.Digest()
	if digest.Jobs != m.Jobs {
		return fmt.Errorf("internal error: wrote %d job lines for %d jobs", digest.Jobs, m.Jobs)
	}
	m.JobsFile = &digest
	mf, err := os.Create(filepath.Join(d.stage.Dir, ManifestFile))
	if err != nil {
		return err
	}
	if err := WriteManifest(mf, m); err != nil {
		mf.Close()
		return err
	}
	return mf.Close()
}

// Abort removes what was written; it does nothing after Commit. The
// sinks are closed first (a sink may hold a goroutine), their errors
// unreported.
func (d *DirWriter) Abort() {
	if !d.closed {
		for _, s := range d.sinks {
			s.Close()
		}
	}
	d.closed = true
	d.file.Close()
	d.stage.Abort()
}

// WriteDir writes jobs as the workload directory out, with m as its
// manifest (Jobs and JobsFile are filled in).
func WriteDir(out string, jobs []Job, m *Manifest, replace bool) error {
	d, err := CreateDir(out)
	if err != nil {
		return err
	}
	defer d.Abort()
	for i := range jobs {
		if err := d.Write(&jobs[i]); err != nil {
			return err
		}
	}
	m.Jobs = len(jobs)
	return d.Commit(m, replace)
}

// IsOutputConflict tells whether err is the output being in the way (there
// and not to be replaced): the user's to resolve, not a failure.
func IsOutputConflict(err error) bool {
	return errors.Is(err, ErrOutputExists) || errors.Is(err, ErrNotWorkload)
}
