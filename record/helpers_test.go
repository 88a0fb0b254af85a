package record

import (
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
)

// unitary and composite build the runner's and the recorder's test jobs
// (testkit.HelloJob, testkit.DAGJob).
var unitary, composite = testkit.HelloJob, testkit.DAGJob

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// byID indexes a run's job rows.
func byID(t testing.TB, st *store.Store, run string) map[string]store.Job {
	t.Helper()
	rows, err := st.Jobs(run)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]store.Job{}
	for _, r := range rows {
		if _, dup := m[r.JobID]; dup {
			t.Fatalf("job %s recorded twice", r.JobID)
		}
		m[r.JobID] = r
	}
	return m
}
