package report

import (
	"errors"
	"fmt"
	"os"

	"github.com/gmark/gmark/analyzer/store"
)

// StoreError is a results store that cannot be reported on as asked: it
// does not exist, is not a store, holds no run, or lacks a named run. It
// is the user's to fix (a usage error), unlike a failure to read.
type StoreError struct{ Msg string }

func (e *StoreError) Error() string { return e.Msg }

// CheckStore checks, before any work, that the store at path exists and
// holds the named runs, or (none named, needRun) at least one run.
func CheckStore(path string, runs []string, needRun bool) error {
	if _, err := os.Stat(path); err != nil {
		return &StoreError{fmt.Sprintf("results store %s: %v", path, errors.Unwrap(err))}
	}
	st, err := store.OpenReadOnly(path)
	if errors.Is(err, store.ErrEmpty) && len(runs) > 0 {
		// A store killed in its making holds no run: the run asked for is
		// not in it, and may be started again.
		return &StoreError{fmt.Sprintf("run %s is not in %s: it is an empty database (a store whose making was cut short holds no run)", runs[0], path)}
	}
	if err != nil {
		return &StoreError{err.Error()}
	}
	defer st.Close()
	if len(runs) == 0 && needRun {
		all, err := st.Runs()
		if err != nil {
			return err
		}
		if len(all) == 0 {
			return &StoreError{fmt.Sprintf("results store %s holds no run: record one with 'gmark submit' or 'gmark koala simulate --db %s'", path, path)}
		}
	}
	for _, r := range runs {
		ok, err := st.RunExists(r)
		if err != nil {
			return err
		}
		if !ok {
			return &StoreError{fmt.Sprintf("run %s is not in %s (list the runs with: gmark report sql --db %s \"SELECT id, created_ns, target FROM runs\")", r, path, path)}
		}
	}
	return nil
}
