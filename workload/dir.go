package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"
)

// The workload directory, written by `gmark generate` and read by `gmark submit`:
//
//	DIR/workload.jsonl              one job per line (see jsonl.go)
//	DIR/manifest.json               how the workload was made (Manifest)
//	DIR/jdf/<format>/<unit>/<id>.<ext>   one job description per job and format
//	DIR/jdf/<format>.<ext>          or, with --single-file, one stream per format
//	DIR/workload.swf, workload.gwf  the workload as a trace, on request
const (
	JobsFile     = "workload.jsonl"
	ManifestFile = "manifest.json"
	JDFDir       = "jdf"
)

// Manifest records the provenance of a generated workload.
type Manifest struct {
	GmarkVersion string       `json:"gmark_version"`
	Spec         FileDigest   `json:"spec"`
	Includes     []FileDigest `json:"includes,omitempty"` // external files the spec read
	Seed         uint64       `json:"seed"`
	Jobs         int          `json:"jobs"`
	Tasks        int          `json:"tasks"` // sub-jobs of composite jobs
	Processors   int          `json:"processors"`
	Units        []UnitInfo   `json:"units"`
	FirstSubmit  Seconds      `json:"first_submit"`
	LastSubmit   Seconds      `json:"last_submit"`
	JDF          []string     `json:"jdf,omitempty"`
	SingleFile   bool         `json:"single_file,omitempty"`
	Traces       []string     `json:"traces,omitempty"`
	// JobsFile identifies the workload.jsonl written with the manifest;
	// `gmark submit` refuses a file that differs. Manifests written before
	// gmark recorded it lack it.
	JobsFile *JobsDigest `json:"workload_jsonl,omitempty"`
	// WarmJobs are the ids of the warm jobs (Job.Warm), in workload order.
	// The manifest travels into the results store with every run
	// (provenance), so the metrics know them from the store alone.
	WarmJobs []string `json:"warm_jobs,omitempty"`
	// Placement is what the workload leaves a placement policy to decide
	// (PlacementScope); manifests written before gmark counted it lack it.
	Placement *PlacementScope `json:"placement,omitempty"`
}

// JobsDigest identifies a workload.jsonl: its SHA-256 (lower-case hex), its
// size in bytes and its number of jobs (non-blank lines).
type JobsDigest struct {
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	Jobs   int    `json:"jobs"`
}

// FileDigest names an input file and its SHA-256.
type FileDigest struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// UnitInfo summarises what one WDL unit produced.
type UnitInfo struct {
	ID    int          `json:"id"`
	Type  string       `json:"type"`
	Line  int          `json:"line"`
	Jobs  int          `json:"jobs"`
	Trace *TraceReplay `json:"trace,omitempty"` // a wl:trace unit's source
}

// TraceReplay records the trace window a wl:trace unit replayed: enough for
// `gmark report --fidelity` to read the original jobs again, and to tell
// when the trace changed since.
type TraceReplay struct {
	Path   string `json:"path"`   // the trace, absolute
	SHA256 string `json:"sha256"` // of the trace file as read (compressed, if it is)
	Format string `json:"format"` // swf, gwf or sqlite
	Strict bool   `json:"strict"`
	// Description is the selection in words (gwa.Selection.Describe).
	Description string `json:"description"`
	// Selection is the gwa.Selection that reads the window again, as JSON,
	// its representative area folded into the submit window (so reading it
	// again needs no area selection).
	Selection json.RawMessage `json:"selection"`
	// Origin is the window's start in the trace's time (seconds from its
	// time base): the instant the replay's time 0 stands for.
	Origin float64 `json:"origin"`
	// Period is the window's length in workload time (the replay period);
	// StartAt is the unit's StartAt, where the window starts in the workload.
	Period  Seconds `json:"period"`
	StartAt Seconds `json:"start_at"`
	Jobs    int     `json:"jobs"`    // trace jobs in the window (one replay)
	Replays int     `json:"replays"` // NTimes
	// Warm counts the warm jobs emitted before the window's (WarmStart=true):
	// Running of them were running at Origin, the others queued.
	Warm    int `json:"warm"`
	Running int `json:"running"`
	// Unknown counts the jobs submitted before the window whose wait or
	// run time the trace does not give, so that whether they were in flight
	// cannot be told: they are not warm jobs.
	Unknown int `json:"unknown,omitempty"`
}

// Seconds is a duration written in JSON as exact decimal seconds.
type Seconds time.Duration

func (s Seconds) MarshalJSON() ([]byte, error) {
	return AppendSeconds(nil, time.Duration(s)), nil
}

func (s *Seconds) UnmarshalJSON(b []byte) error {
	d, err := ParseSeconds(string(b))
	if err != nil {
		return err
	}
	*s = Seconds(d)
	return nil
}

// Span is the time between the first and the last submission.
func (m *Manifest) Span() time.Duration { return time.Duration(m.LastSubmit - m.FirstSubmit) }

// WriteManifest writes m as indented JSON.
func WriteManifest(w io.Writer, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// MaxManifestBytes is the largest manifest.json read (a manifest lists one
// entry per WDL unit and per included file: a few KiB).
const MaxManifestBytes = 16 << 20

// ReadManifest reads and checks DIR/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	name := filepath.Join(dir, ManifestFile)
	b, err := readlimit.File(name, MaxManifestBytes)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return nil, readlimit.TooLargef("%s: larger than %d MiB; not a gmark manifest", name, MaxManifestBytes>>20)
	}
	if err != nil {
		return nil, err
	}
	return ParseManifest(b, name)
}

// ParseManifest decodes a manifest and checks its numbers; name is used in
// errors. Unknown fields are allowed, so that an older gmark reads what a
// newer one adds.
func ParseManifest(b []byte, name string) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, srcerr.JSON(name, b, err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &m, nil
}

// check holds a manifest to the ranges of the jobs it describes.
func (m *Manifest) check() error {
	if m.Jobs < 0 || m.Tasks < 0 || m.Processors < 0 {
		return fmt.Errorf("negative count: jobs %d, tasks %d, processors %d", m.Jobs, m.Tasks, m.Processors)
	}
	first, last := time.Duration(m.FirstSubmit), time.Duration(m.LastSubmit)
	if err := checkTime("first_submit", first); err != nil {
		return err
	}
	if err := checkTime("last_submit", last); err != nil {
		return err
	}
	if first > last {
		return fmt.Errorf("first_submit %v after last_submit %v", first, last)
	}
	for _, u := range m.Units {
		if u.Jobs < 0 || u.Line < 0 {
			return fmt.Errorf("unit %d: negative jobs (%d) or line (%d)", u.ID, u.Jobs, u.Line)
		}
		if tr := u.Trace; tr != nil && (tr.Jobs < 0 || tr.Replays < 0 || tr.Warm < 0 || tr.Running < 0 || tr.Unknown < 0 || tr.Running > tr.Warm ||
			tr.Period < 0 || tr.StartAt < 0) {
			return fmt.Errorf("unit %d: trace: negative count or time, or more running than warm jobs", u.ID)
		}
	}
	if len(m.WarmJobs) > m.Jobs {
		return fmt.Errorf("%d warm jobs of %d jobs", len(m.WarmJobs), m.Jobs)
	}
	if d := m.JobsFile; d != nil {
		if len(d.SHA256) != 64 || strings.Trim(d.SHA256, "0123456789abcdef") != "" {
			return fmt.Errorf("workload_jsonl.sha256 %q is not a SHA-256 in lower-case hex", d.SHA256)
		}
		if d.Bytes < 0 || d.Jobs < 0 || int64(d.Jobs) > d.Bytes {
			return fmt.Errorf("workload_jsonl: %d jobs in %d bytes", d.Jobs, d.Bytes)
		}
		if d.Jobs != m.Jobs {
			return fmt.Errorf("workload_jsonl.jobs %d differs from jobs %d", d.Jobs, m.Jobs)
		}
	}
	return nil
}

// JDFPath is where the job description of job j in the given format lives,
// relative to the workload directory. Jobs are grouped in one folder per unit
// so that no folder holds millions of files.
func JDFPath(format, ext string, j *Job) string {
	return filepath.Join(JDFDir, format, strconv.Itoa(j.Unit), j.ID+"."+ext)
}

// SingleJDFPath is the one stream per format written with --single-file.
func SingleJDFPath(format, ext string) string {
	return filepath.Join(JDFDir, format+"."+ext)
}

// OpenJobs opens dir's workload.jsonl for reading. It must be a regular
// file: a FIFO (which would block the open until a writer came) or a
// device such as /dev/zero (which never ends) is refused at once, with
// an error satisfying readlimit.IsInput.
func OpenJobs(dir string) (*os.File, error) {
	return readlimit.Open(filepath.Join(dir, JobsFile))
}

// ReadAll reads every job of a workload directory into memory; for small
// workloads and tests. Large workloads should stream with NewReader.
func ReadAll(dir string) ([]Job, error) {
	f, err := OpenJobs(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := NewReader(f, f.Name())
	var jobs []Job
	for {
		j, err := r.Next()
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
}
