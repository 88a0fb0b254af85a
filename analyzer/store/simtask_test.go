package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// simStore is a store with an experiment of one run and an invocation.
func simStore(t *testing.T, path string) (*Store, int64) {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var inv int64
	err = s.Write(context.Background(), func(tx *Tx) error {
		id, _, err := tx.EnsureSimExperiment(SimExperiment{Name: "e", Digest: "d", Definition: "{}"},
			[]SimScenario{{Name: "s", Definition: "{}"}}, 1, func(int) SimRun {
				return SimRun{Arch: "dmm", Load: 50, Rep: 1, Digest: "r1", Definition: "{}"}
			})
		if err != nil {
			return err
		}
		inv, err = tx.InsertSimInvocation(SimInvocation{ExperimentID: id, CommandLine: "[]"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, inv
}

// An array task is recorded once, whatever the number of times its end
// is seen; its times are NULL when unknown; its rows are immutable.
func TestSimTasks(t *testing.T) {
	s, inv := simStore(t, filepath.Join(t.TempDir(), "r.db"))
	defer s.Close()
	ctx := context.Background()
	task := SimTask{InvocationID: inv, ArrayName: "gmark-sim-x-s0001", Task: 3, Digest: "r1", Try: 1, Cluster: "c", SlurmJobID: "7_3",
		State: SimTaskFailed, Reason: "FAILED, signal 9", StartedNS: 5e9, RecordedNS: 9}
	var got []bool
	for _, k := range []SimTask{task, func() SimTask { k := task; k.State, k.Reason = SimTaskCompleted, ""; return k }()} {
		err := s.Write(ctx, func(tx *Tx) error {
			ins, err := tx.InsertSimTask(k)
			got = append(got, ins)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || !got[0] || got[1] {
		t.Errorf("inserted %v, want [true false]", got)
	}
	for _, tc := range []struct {
		name string
		k    SimTask
		want string
	}{
		{"no digest", SimTask{InvocationID: inv, ArrayName: "a", Try: 1, State: SimTaskLost}, "needs an array name and a digest"},
		{"no array", SimTask{InvocationID: inv, Digest: "r1", Try: 1, State: SimTaskLost}, "needs an array name and a digest"},
		{"bad state", SimTask{InvocationID: inv, ArrayName: "a", Digest: "r1", Try: 1, State: "gone"}, `bad sim task state "gone"`},
		{"try 0", SimTask{InvocationID: inv, ArrayName: "a", Digest: "r1", State: SimTaskLost}, "CHECK constraint"},
		{"task below 0", SimTask{InvocationID: inv, ArrayName: "a", Task: -1, Digest: "r1", Try: 1, State: SimTaskLost}, "CHECK constraint"},
	} {
		err := s.Write(ctx, func(tx *Tx) error { _, err := tx.InsertSimTask(tc.k); return err })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	tasks, err := s.SimTasks(1)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("%+v %v", tasks, err)
	}
	task.ID = tasks[0].ID
	if tasks[0] != task {
		t.Errorf("read back %+v\nwritten %+v", tasks[0], task)
	}
	var end sql.NullInt64
	if err := s.DB().QueryRow(`SELECT ended_ns FROM sim_tasks`).Scan(&end); err != nil || end.Valid {
		t.Errorf("an unknown end is %v (%v), not NULL", end, err)
	}
	if none, err := s.SimTasks(2); err != nil || len(none) != 0 {
		t.Errorf("tasks of no experiment: %+v %v", none, err)
	}
	for _, q := range []string{"UPDATE sim_tasks SET reason = ''", "DELETE FROM sim_tasks"} {
		if _, err := s.DB().Exec(q); err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("%s: %v", q, err)
		}
	}
	err = s.Write(ctx, func(tx *Tx) error {
		for _, d := range []string{"r1", "r2"} {
			if ok, err := tx.SimResultExists(d); err != nil || ok {
				t.Errorf("%s: %v %v before any result", d, ok, err)
			}
		}
		return tx.InsertSimResult(SimResult{Digest: "r1", InvocationID: inv, Workload: "{}", Result: "{}"})
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Write(ctx, func(tx *Tx) error {
		if ok, err := tx.SimResultExists("r1"); err != nil || !ok {
			t.Errorf("r1: %v %v after its result", ok, err)
		}
		return nil
	})
}

// A store of version 3 (sim tables, no sim_tasks) reads as having no
// tasks, and migrates to the current version when opened for writing.
func TestSimTasksVersion3(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v3.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0] + migrations[1] + migrations[2] + "PRAGMA user_version = 3;" +
		`INSERT INTO sim_experiments (name, digest, created_ns, definition, runs) VALUES ('e', 'd', 1, '{}', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := ro.SimTasks(1)
	ro.Close()
	if err != nil || tasks != nil {
		t.Fatalf("read-only version 3: %+v %v", tasks, err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(); v != SchemaVersion || v < 4 {
		t.Fatalf("version %d after migration", v)
	}
	if tasks, err := s.SimTasks(1); err != nil || len(tasks) != 0 {
		t.Errorf("after migration: %+v %v", tasks, err)
	}
}
