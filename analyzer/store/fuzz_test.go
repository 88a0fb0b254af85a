package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// FuzzScanJobs: a store is outside bytes (stores are shared, and SQLite
// takes any value in any column). Whatever a job row holds, the fast
// reader the reports use (ScanJobs) agrees with the column-by-column one
// (Jobs) or fails; it never returns different values.
func FuzzScanJobs(f *testing.F) {
	f.Add("1-0", "", "sser", "*", "", "succeeded", "4", int64(10), int64(20), int64(30))
	f.Add("1-0.1", "1-0", "hello", "fs0,fs1", "exit status 3\x1fmore", "failed", "", int64(0), int64(-5), int64(9223372036854775807))
	f.Add("a\x1fb", "", "x", "*", "", "cancelled", "12", int64(1), int64(2), int64(3))
	f.Add("1-1", "", "x", "*", "r", "never-started", "1.5", int64(-9223372036854775808), int64(0), int64(0))
	f.Add("1-2", "", "x", "s\x1f", "r", "succeeded", "9999999999999999999999", int64(1), int64(0), int64(0))
	// One store for every input, a new run for each: opening a store per
	// input would spend the fuzzing time in schema migrations.
	s := openTemp(f)
	seed(f, s)
	var runs atomic.Int64
	f.Fuzz(func(t *testing.T, jobID, parentID, typ, sites, reason, state, processors string, submit, start, end int64) {
		runID := fmt.Sprintf("f%d", runs.Add(1))
		if _, err := s.DB().Exec(`INSERT INTO runs SELECT ?, scenario_id, created_ns, workload_dir, workload_sha256, jobs, tasks,
			target, settings, provenance_sha256 FROM runs WHERE id = 'r1'`, runID); err != nil {
			t.Fatal(err)
		}
		// Raw SQL, as a hand-made or damaged file could hold: processors as
		// text when given, the constraints of the schema still apply.
		var procs any = int64(len(processors))
		if processors != "" {
			procs = processors
		}
		if _, err := s.DB().Exec(`INSERT INTO jobs (run_id, job_id, parent_id, unit, idx, kind, type, app, site_type,
			processors, components, sites, walltime_ns, runtime_ns, offset_ns, submit_ns, target_id, start_ns, end_ns,
			state, reason, attempts, submit_output, summary, recorded_ns)
			VALUES (?, ?, ?, 1, 0, 'unitary', ?, '', '', ?, '[]', ?, 0, 0, 0, ?, '', ?, ?, ?, ?, 1, '', '{}', 1)`,
			runID, jobID, parentID, typ, procs, sites, nullInt(submit), nullInt(start), nullInt(end), state, reason); err != nil {
			return // refused by the schema
		}
		jobs, err := s.Jobs(runID)
		if err != nil {
			return // the plain reader refuses it too
		}
		byID := map[string]Job{}
		for _, j := range jobs {
			byID[j.JobID] = j
		}
		err = s.ScanJobs(runID, func(f *JobFacts) error {
			j, ok := byID[f.ID]
			if !ok {
				t.Fatalf("ScanJobs read a job %q that Jobs did not", f.ID)
			}
			delete(byID, f.ID)
			if f.Parent != j.ParentID || f.Type != j.Type || f.Processors != j.Processors || f.Sites != j.Sites ||
				f.SubmitNS != j.SubmitNS || f.StartNS != j.StartNS || f.EndNS != j.EndNS || string(f.State) != string(j.State) ||
				f.Reason != j.Reason || f.Attempts != j.Attempts || f.Kind != j.Kind {
				t.Fatalf("ScanJobs and Jobs disagree:\n%+v\n%+v", *f, j)
			}
			return nil
		})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "store: ") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		if len(byID) > 0 {
			t.Fatalf("ScanJobs missed %d jobs", len(byID))
		}
	})
}

// FuzzOpen: any bytes as a store file are opened (for writing and for
// reading) or refused with an error; reading what opens never panics.
func FuzzOpen(f *testing.F) {
	path, _ := seededFile(f)
	// The smallest pages SQLite allows make the seed 8 times smaller, and
	// the fuzzer's mutations and minimizations as much faster.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		f.Fatal(err)
	}
	for _, q := range []string{"PRAGMA journal_mode = DELETE", "PRAGMA page_size = 512", "VACUUM", "PRAGMA journal_mode = WAL"} {
		if _, err := db.Exec(q); err != nil {
			f.Fatal(q, err)
		}
	}
	db.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("SQLite format 3\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeTemp(t, data)
		if s, err := Open(path); err == nil {
			readEverything(s)
			err = s.Write(context.Background(), func(tx *Tx) error {
				_, err := tx.EnsureProject("fuzz", "", 1)
				return err
			})
			s.Close()
		}
		if s, err := OpenReadOnly(path); err == nil {
			readEverything(s)
			s.Close()
		}
	})
}

// readEverything runs every reader of the store over every run; errors are
// fine, panics are not.
func readEverything(s *Store) {
	runs, _ := s.Runs()
	for _, r := range runs {
		s.Run(r.ID)
		s.Scenario(r.ScenarioID)
		s.RunEnd(r.ID)
		s.Provenance(r.ID)
		s.VerifyProvenance(r.ID)
		s.Submissions(r.ID)
		s.Results(r.ID)
		s.Jobs(r.ID)
		s.Events(r.ID, "")
		s.Annotations(r.ID, "")
		s.ScanJobs(r.ID, func(*JobFacts) error { return nil })
		s.ScanSimJobFacts(r.ID, func(SimJobFacts) error { return nil })
		s.ScanCoreEvents(r.ID, func(CoreEventTime) error { return nil })
		s.CountJobs(r.ID)
	}
}

// writeTemp writes data as a store file in a new directory.
func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.db")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
