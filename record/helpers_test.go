package record

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

// unitary is a one-processor hello job due at offset.
func unitary(id string, offset time.Duration) workload.Job {
	return workload.Job{ID: id, Unit: 1, Kind: workload.Unitary, Type: "hello", Submit: offset,
		SiteType: workload.Single, App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: "*", Count: 1}}}
}

// composite builds a composite job from task names and edges "a>b".
func composite(id string, offset time.Duration, tasks []string, edges ...string) workload.Job {
	j := workload.Job{ID: id, Unit: 2, Kind: workload.Composite, Type: "dag", Submit: offset}
	for i, n := range tasks {
		task := unitary(id+"."+n, offset)
		task.Unit, task.Index = 2, i
		j.Tasks = append(j.Tasks, task)
	}
	for _, e := range edges {
		var a, b string
		for i := 0; i < len(e); i++ {
			if e[i] == '>' {
				a, b = e[:i], e[i+1:]
			}
		}
		j.Deps = append(j.Deps, workload.Dependency{From: id + "." + a, To: id + "." + b})
	}
	return j
}

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
