package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func ptr(v int64) *int64 { return &v }

// sliceJobs is a next function over jobs.
func sliceJobs(jobs []SimJob) func(j *SimJob) (bool, error) {
	i := 0
	return func(j *SimJob) (bool, error) {
		if i == len(jobs) {
			return false, nil
		}
		*j = jobs[i]
		i++
		return true, nil
	}
}

// A run's jobs are written with its result, read back in arrival order
// whatever order they were written in, written once, and immutable; a run
// without them says so.
func TestSimJobs(t *testing.T) {
	s, inv := simStore(t, filepath.Join(t.TempDir(), "r.db"))
	defer s.Close()
	ctx := context.Background()
	jobs := []SimJob{
		{Seq: 2, ID: "c", State: "rejected", SubmitNS: 5, Procs: 99, WorkNS: 1},
		{Seq: 0, ID: "a", State: "finished", SubmitNS: 0, StartNS: ptr(1), EndNS: ptr(11), Procs: 2, EstimateNS: ptr(20), WorkNS: 10, Cluster: "c0", Home: "c0", Restarts: 1},
		{Seq: 1, ID: "b", State: "running", SubmitNS: 3, StartNS: ptr(3), Procs: 1, WorkNS: 100, Cluster: "c1"},
		{Seq: 3, ID: "d", State: "waiting", SubmitNS: 7, Procs: 4, EstimateNS: ptr(9), WorkNS: 9, Home: "c1"},
	}
	if err := s.Write(ctx, func(tx *Tx) error {
		if err := tx.InsertSimResult(SimResult{Digest: "r1", InvocationID: inv, Workload: "{}", Result: "{}"}); err != nil {
			return err
		}
		n, err := tx.InsertSimJobs("r1", sliceJobs(jobs))
		if n != 4 {
			t.Errorf("wrote %d jobs", n)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var got []SimJob
	if err := s.SimJobs("r1", func(j *SimJob) error { got = append(got, *j); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []SimJob{jobs[1], jobs[2], jobs[0], jobs[3]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read\n%+v\nwant\n%+v", got, want)
	}
	if has, err := s.HasSimJobs([]string{"r1", "nope"}); err != nil || !has["r1"] || has["nope"] {
		t.Errorf("HasSimJobs: %v %v", has, err)
	}
	if err := s.SimJobs("nope", func(*SimJob) error { return nil }); !errors.Is(err, ErrNoSimJobs) {
		t.Errorf("a run without jobs: %v", err)
	}
	err := s.Write(ctx, func(tx *Tx) error { _, err := tx.InsertSimJobs("r1", sliceJobs(jobs[:1])); return err })
	if err == nil || !strings.Contains(err.Error(), "already recorded") {
		t.Errorf("second write of a run's jobs: %v", err)
	}
	for _, q := range []string{"UPDATE sim_jobs SET state = 'failed'", "DELETE FROM sim_jobs", "DELETE FROM sim_job_runs"} {
		if _, err := s.db.Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// Bad rows are refused before anything is committed: a state that is not
// one, a start before the submission, jobs of a run without a result.
func TestSimJobsRefused(t *testing.T) {
	s, inv := simStore(t, filepath.Join(t.TempDir(), "r.db"))
	defer s.Close()
	ctx := context.Background()
	if err := s.Write(ctx, func(tx *Tx) error {
		return tx.InsertSimResult(SimResult{Digest: "r1", InvocationID: inv, Workload: "{}", Result: "{}"})
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		digest string
		j      SimJob
	}{
		{"r1", SimJob{ID: "a", State: "done"}},
		{"r1", SimJob{ID: "a", State: "finished", SubmitNS: 5, StartNS: ptr(4), EndNS: ptr(6)}},
		{"r1", SimJob{ID: "a", State: "finished", StartNS: ptr(4), EndNS: ptr(3)}},
		{"r1", SimJob{ID: "a", State: "finished", Procs: -1}},
		{"no-such-run", SimJob{ID: "a", State: "finished"}},
	} {
		err := s.Write(ctx, func(tx *Tx) error { _, err := tx.InsertSimJobs(tc.digest, sliceJobs([]SimJob{tc.j})); return err })
		if err == nil {
			t.Errorf("%s %+v: accepted", tc.digest, tc.j)
		}
	}
	if has, _ := s.HasSimJobs([]string{"r1", "no-such-run"}); len(has) != 0 {
		t.Errorf("refused writes left %v", has)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM sim_jobs`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d job rows left (%v)", n, err)
	}
}

// A store of version 5 reads as having no per-job rows, and migrates.
func TestSimJobsVersion5(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v5.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(strings.Join(migrations[:5], "") + "PRAGMA user_version = 5;"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if has, err := ro.HasSimJobs([]string{"x"}); err != nil || len(has) != 0 {
		t.Errorf("version 5, read-only: %v %v", has, err)
	}
	if err := ro.SimJobs("x", func(*SimJob) error { return nil }); !errors.Is(err, ErrNoSimJobs) {
		t.Errorf("version 5: %v", err)
	}
	ro.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(); v != SchemaVersion || v < 6 {
		t.Errorf("version %d after migration", v)
	}
}
