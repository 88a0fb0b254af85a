package slurmarray

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/sim/experiment"
)

// Manifest is what the tasks of one array compute: task i computes the
// run Tasks[i] of the experiment, as the coordinator resolved it. It is
// written before the array is submitted, and holds the experiment file
// itself, so that a task reads exactly what the coordinator read (files
// the experiment names, a topology or a trace, are read from the shared
// filesystem, and the run's digest says whether they changed).
type Manifest struct {
	Format           string  `json:"format"`
	Name             string  `json:"name"`    // the array's Slurm job name
	Cluster          string  `json:"cluster"` // where it was submitted
	Experiment       string  `json:"experiment"`
	Source           []byte  `json:"source"` // the experiment file as the coordinator read it
	Scale            float64 `json:"scale"`
	ExperimentDigest string  `json:"experiment_digest"`
	Results          string  `json:"results"` // the directory of the result files
	Tasks            []Task  `json:"tasks"`
	CreatedNS        int64   `json:"created_ns"`
}

// Task is one array task's run.
type Task struct {
	Run    int    `json:"run"`    // its index in the experiment's expansion
	Digest string `json:"digest"` // its digest: the task refuses another run
	Try    int    `json:"try"`    // 1, then 2 for the run's first retry, …
}

// manifestFormat names the manifest's layout.
const manifestFormat = "gmark-sim-array/1"

// maxManifest bounds a manifest read whole: the experiment file and at
// most maxArrayTasks tasks.
const maxManifest = experiment.MaxFileSize + maxArrayTasks*256 + 1<<16

// submitted is the marker written beside a manifest once sbatch has
// accepted its array: a manifest without one may never have reached
// Slurm.
type submitted struct {
	Cluster     string `json:"cluster"`
	JobID       int64  `json:"job_id"`
	SubmittedNS int64  `json:"submitted_ns"`
}

// Layout is the shared directory of one experiment's arrays for one
// store: the manifests, the scripts, the tasks' logs and their results.
type Layout struct {
	Dir string // absolute
	Tag string // names the arrays: gmark-sim-<tag>-sNNNN
}

// NewLayout is the directory under workDir of the experiment of this
// digest run into the store db: the tag is a digest of both, so that two
// stores or two experiments sharing a work directory never share arrays.
func NewLayout(workDir, db, experimentDigest string) (Layout, error) {
	absDB, err := filepath.Abs(db)
	if err != nil {
		return Layout{}, err
	}
	absWork, err := filepath.Abs(workDir)
	if err != nil {
		return Layout{}, err
	}
	sum := sha256.Sum256([]byte("gmark-sim-array\x00" + absDB + "\x00" + experimentDigest))
	tag := hex.EncodeToString(sum[:])[:12]
	return Layout{Dir: filepath.Join(absWork, tag), Tag: tag}, nil
}

func (l Layout) manifests() string { return filepath.Join(l.Dir, "manifests") }
func (l Layout) results() string   { return filepath.Join(l.Dir, "results") }
func (l Layout) logs() string      { return filepath.Join(l.Dir, "logs") }

// mkdirs creates the layout's directories.
func (l Layout) mkdirs() error {
	for _, d := range []string{l.manifests(), l.results(), l.logs()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// ArrayName is the Slurm job name of the array of sequence number seq.
func (l Layout) ArrayName(seq int) string { return fmt.Sprintf("gmark-sim-%s-s%04d", l.Tag, seq) }

func (l Layout) manifestPath(name string) string { return filepath.Join(l.manifests(), name+".json") }
func (l Layout) markerPath(name string) string {
	return filepath.Join(l.manifests(), name+".submitted")
}
func (l Layout) scriptPath(name string) string { return filepath.Join(l.manifests(), name+".sh") }

// LogPath is the output of a task (Slurm's --output).
func (l Layout) LogPath(name string, task int) string {
	return filepath.Join(l.logs(), fmt.Sprintf("%s_%d.out", name, task))
}

// ResultPath is the result file of the run of this digest.
func (l Layout) ResultPath(digest string) string { return filepath.Join(l.results(), digest+".json") }

var digestFile = regexp.MustCompile(`^[0-9a-f]{64}\.json$`)

// writeManifest writes m (atomically).
func (l Layout) writeManifest(m *Manifest) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return outfile.WriteFile(l.manifestPath(m.Name), b)
}

// ReadManifest reads and checks a manifest.
func ReadManifest(path string) (*Manifest, error) {
	b, err := readlimit.File(path, maxManifest)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return nil, readlimit.TooLargef("%s: larger than %d bytes: not a manifest of gmark sim run --on slurm", path, maxManifest)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a manifest of gmark sim run --on slurm: %v", path, err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &m, nil
}

func (m *Manifest) check() error {
	switch {
	case m.Format != manifestFormat:
		return fmt.Errorf("format %q, not %q (written by another version of gmark?)", m.Format, manifestFormat)
	case m.Name == "" || m.Experiment == "" || m.Results == "" || !filepath.IsAbs(m.Results):
		return errors.New("no array name, experiment or results directory")
	case len(m.Tasks) == 0 || len(m.Tasks) > maxArrayTasks:
		return fmt.Errorf("%d tasks: from 1 to %d", len(m.Tasks), maxArrayTasks)
	case !(m.Scale > 0 && m.Scale <= 1):
		return fmt.Errorf("scale %g: not in (0, 1]", m.Scale)
	}
	for i, t := range m.Tasks {
		if t.Run < 0 || t.Try < 1 || !digestFile.MatchString(t.Digest+".json") {
			return fmt.Errorf("task %d: run %d, try %d, digest %q", i, t.Run, t.Try, t.Digest)
		}
	}
	return nil
}

// readMarker reads the marker of the array name; ok is false when there
// is none (or it is unreadable: then the array is looked up by name).
func (l Layout) readMarker(name string) (submitted, bool) {
	b, err := readlimit.File(l.markerPath(name), 1<<12)
	var s submitted
	if err != nil || json.Unmarshal(b, &s) != nil || s.JobID < 1 {
		return submitted{}, false
	}
	return s, true
}

func (l Layout) writeMarker(name string, s submitted) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return outfile.WriteFile(l.markerPath(name), b)
}

// manifestNames lists the arrays of the layout, in the order they were
// made, and the greatest sequence number any file of the manifests'
// directory names (an array never submitted included: a name is not
// given twice).
func (l Layout) manifestNames() (names []string, seq int, err error) {
	ents, err := os.ReadDir(l.manifests())
	if err != nil {
		return nil, 0, err
	}
	prefix := "gmark-sim-" + l.Tag + "-s"
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		digits, _, _ := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(digits); err == nil && n > seq {
			seq = n
		}
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && e.Type().IsRegular() {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return compareSeq(a, b) })
	return names, seq, nil
}

// compareSeq orders array names by their sequence number (s0009 before
// s10000).
func compareSeq(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// script is the batch script of an array: the task runs gmark on the
// manifest at its index.
func script(exe, manifest, name string) string {
	return "#!/bin/sh\n# gmark sim run --on slurm: array " + name + ", one run per task.\n" +
		"exec " + shellQuote(exe) + " sim task " + shellQuote(manifest) + ` "$SLURM_ARRAY_TASK_ID"` + "\n"
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
