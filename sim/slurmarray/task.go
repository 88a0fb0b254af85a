package slurmarray

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/sim/experiment"
)

// ResultFile is what a task writes when its run ends: the run's result as
// the store records it, and the task's provenance (an invocation of its
// own: the node, the build, the command line). The coordinator merges it
// into the store.
type ResultFile struct {
	Format     string              `json:"format"`
	Array      string              `json:"array"` // the array's name and the task's index
	Task       int                 `json:"task"`
	Try        int                 `json:"try"`
	SlurmJob   string              `json:"slurm_job"` // <array job id>_<task id>, from the task's environment
	Digest     string              `json:"digest"`
	StartedNS  int64               `json:"started_ns"`
	Invocation store.SimInvocation `json:"invocation"`
	Contents   map[string][]byte   `json:"contents"` // the invocation's stored inputs, by SHA-256
	Result     store.SimResult     `json:"result"`
}

const resultFormat = "gmark-sim-result/1"

// maxResultFile bounds a result file read whole: the experiment and
// topology files and a run's result (a few kilobytes).
const maxResultFile = 2*experiment.MaxFileSize + 1<<24

// ErrWrongRun is returned by RunTask when the run the manifest names is not
// the run the experiment expands into at its index (the experiment, a
// topology or a trace it names changed since the array was submitted, or
// another gmark version runs the task).
var ErrWrongRun = errors.New("not the run the coordinator assigned")

// RunTask is one array task: it computes the run at index task of the
// manifest and writes its result file. A run whose result file is already
// there (a task that ended after writing it, run again) is not computed
// again.
func RunTask(ctx context.Context, manifest string, task int, commandLine []string) error {
	m, err := ReadManifest(manifest)
	if err != nil {
		return err
	}
	if task < 0 || task >= len(m.Tasks) {
		return fmt.Errorf("%s: task %d: the array has tasks 0 to %d", manifest, task, len(m.Tasks)-1)
	}
	t := m.Tasks[task]
	path := filepath.Join(m.Results, t.Digest+".json")
	if _, err := readResult(path, t.Digest); err == nil {
		return nil
	}
	e, err := experiment.Parse(m.Experiment, m.Source, experiment.Options{Scale: m.Scale})
	if err != nil {
		return err
	}
	if _, digest, err := e.Definition(); err != nil {
		return err
	} else if digest != m.ExperimentDigest {
		return fmt.Errorf("%s: the experiment resolves to definition %.12s, the coordinator's was %.12s: %w", manifest, digest, m.ExperimentDigest, ErrWrongRun)
	}
	r, err := e.Run(t.Run)
	if err != nil {
		return err
	}
	if r.Digest != t.Digest {
		return fmt.Errorf("%s: task %d: run %d has digest %.12s here, %.12s for the coordinator: %w", manifest, task, t.Run+1, r.Digest, t.Digest, ErrWrongRun)
	}
	start := time.Now()
	inv, err := experiment.NewInvocation(e, commandLine, 1, start.UnixNano())
	if err != nil {
		return err
	}
	row, err := experiment.Compute(ctx, e, r)
	if err != nil {
		return err
	}
	rf := ResultFile{Format: resultFormat, Array: m.Name, Task: task, Try: t.Try, Digest: t.Digest, StartedNS: start.UnixNano(),
		SlurmJob: os.Getenv("SLURM_ARRAY_JOB_ID") + "_" + os.Getenv("SLURM_ARRAY_TASK_ID"), Invocation: inv, Contents: inv.Contents, Result: row}
	b, err := json.Marshal(rf)
	if err != nil {
		return err
	}
	return outfile.WriteFile(path, b)
}

// readResult reads and checks the result file of the run of this digest.
func readResult(path, digest string) (*ResultFile, error) {
	b, err := readlimit.File(path, maxResultFile)
	if err != nil {
		return nil, err
	}
	var rf ResultFile
	if err := json.Unmarshal(b, &rf); err != nil {
		return nil, fmt.Errorf("%s: not a result file: %v", path, err)
	}
	switch {
	case rf.Format != resultFormat:
		return nil, fmt.Errorf("%s: format %q, not %q", path, rf.Format, resultFormat)
	case rf.Digest != digest || rf.Result.Digest != digest:
		return nil, fmt.Errorf("%s: the result of run %.12s, not %.12s", path, rf.Result.Digest, digest)
	case rf.Array == "" || rf.Task < 0 || rf.Try < 1:
		return nil, fmt.Errorf("%s: no array task", path)
	}
	rf.Invocation.Contents = rf.Contents
	return &rf, nil
}
