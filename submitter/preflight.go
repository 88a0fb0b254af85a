package submitter

import (
	"errors"
	"fmt"
	"os"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// ErrComposite is CheckWorkload's error for composite jobs where only
// unitary ones are taken.
var ErrComposite = errors.New("holds composite jobs")

// CheckWorkload checks a workload directory before a run writes anything
// (the store, the run's directory), so that bad input is refused with
// nothing written: the directory is there; its workload.jsonl is the file
// its manifest was written with (workload.Check: not cut short, not
// edited); and when no manifest vouches for it, every line is a job and no
// id is used twice (the scan the run makes first). Composite jobs are
// refused too when unitaryFor names what takes unitary jobs only ("koala
// simulate"). It returns workload.Check's warning; every error is the
// input's.
func CheckWorkload(dir, unitaryFor string) (warning string, err error) {
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("workload directory: %v", err)
	}
	if warning, err = workload.Check(dir); err != nil {
		return "", err
	}
	if warning == "" {
		if unitaryFor == "" {
			return "", nil
		}
		m, err := workload.ReadManifest(dir)
		if err != nil {
			return "", err
		}
		if m.Tasks > 0 {
			return "", fmt.Errorf("%s %w (%d tasks): %s takes unitary jobs only", dir, ErrComposite, m.Tasks, unitaryFor)
		}
		return "", nil
	}
	w, err := record.ReadWorkload(dir)
	if err != nil {
		return warning, err
	}
	w.Close()
	if unitaryFor != "" && (w.Tasks > 0 || w.Units != w.Count) {
		return warning, fmt.Errorf("%s %w: %s takes unitary jobs only", dir, ErrComposite, unitaryFor)
	}
	return warning, nil
}
