package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gmark/gmark/internal/filelock"
)

// ErrRunBusy is returned by LockRun when another process submits the run.
var ErrRunBusy = errors.New("the run is being recorded by another process")

// LockRun takes the run's lock, a file in dir (the run's directory beside
// the store), so that two processes never submit one run at once (two
// --resume of one run would both submit its jobs). The lock is the
// kernel's (filelock): a process killed with kill -9 holds it no longer,
// nor does any child it forked. The returned function releases it and
// removes the lock file.
func LockRun(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	release, err = filelock.TryLock(filepath.Join(dir, "submit.lock"))
	var busy *filelock.BusyError
	if errors.As(err, &busy) {
		return nil, fmt.Errorf("%w (pid %s; %s)", ErrRunBusy, busy.Pid, busy.Path)
	}
	return release, err
}

// ErrBadRunID is LockStoreRun's error for a run id CheckRunID refuses.
var ErrBadRunID = errors.New("bad run id")

// LockStoreRun takes the lock of run runID of the results store at db, in
// the run's directory beside the store's real path (LockRun on
// DIR/runs/RUN, DIR the directory of the file db names through its
// symbolic links), so that one process at a time records a run, whatever
// name it gives the store: a submit, its --resume, or a simulation recorded
// as it runs. A store with more than one hard link is refused
// (filelock.ErrLinked), whatever the run. An empty runID (a new run, whose
// id is made fresh) needs no lock. Its errors wrap ErrBadRunID or
// ErrRunBusy when it refuses.
func LockStoreRun(db, runID string) (release func(), err error) {
	if runID == "" {
		if err := filelock.CheckLinks(db); err != nil {
			return nil, err
		}
		return func() {}, nil
	}
	if err := CheckRunID(runID); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRunID, err)
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		return nil, err
	}
	real, err := filelock.RealPath(db)
	if err != nil {
		return nil, err
	}
	release, err = LockRun(filepath.Join(filepath.Dir(real), "runs", runID))
	if err != nil && errors.Is(err, ErrRunBusy) {
		return nil, fmt.Errorf("run %s: %w", runID, err)
	}
	return release, err
}
