package workload

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
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
}

// FileDigest names an input file and its SHA-256.
type FileDigest struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// UnitInfo summarises what one WDL unit produced.
type UnitInfo struct {
	ID   int    `json:"id"`
	Type string `json:"type"`
	Line int    `json:"line"`
	Jobs int    `json:"jobs"`
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

// ReadManifest reads DIR/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, ManifestFile), err)
	}
	return &m, nil
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

// ReadAll reads every job of a workload directory into memory; for small
// workloads and tests. Large workloads should stream with NewReader.
func ReadAll(dir string) ([]Job, error) {
	name := filepath.Join(dir, JobsFile)
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := NewReader(f, name)
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
