package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// SimJob is one job of a simulated run, as the run left it (schema version
// 6, gmark sim run --jobs): times in nanoseconds of virtual time from the
// run's start.
type SimJob struct {
	Seq      int    // place in the arrival order, from 0
	ID       string // the workload's job id
	State    string // SimJobStates
	SubmitNS int64
	StartNS  *int64 // the start of its last run; nil: never started
	EndNS    *int64 // nil: not ended (waiting, running, rejected, or failed before it started)
	Procs    int
	// EstimateNS is the run time the local schedulers' backfilling took
	// for it (its wall time, or its run time when it gives none); nil:
	// none (the core model's jobs without a wall time).
	EstimateNS *int64
	WorkNS     int64  // its run time on a processor of speed 1
	Cluster    string // where its last run ran; "": never started
	Home       string // its arrival cluster; "": none (the core model's jobs that name none)
	Restarts   int    // runs lost to failures before the last one
}

// SimJobStates are the states of a SimJob: finished, failed (ended
// without success: the core model's failed and cancelled jobs), rejected
// (no cluster can hold it, or the architecture refused it), and, for the
// jobs still in the system when the run stopped, waiting and running.
var SimJobStates = []string{"finished", "failed", "rejected", "waiting", "running"}

// ErrNoSimJobs is returned for a run whose jobs the store does not hold:
// one recorded without --jobs, or a store before schema version 6.
var ErrNoSimJobs = errors.New("the store holds no per-job rows of this run")

func (j *SimJob) check() error {
	ok := false
	for _, s := range SimJobStates {
		ok = ok || s == j.State
	}
	switch {
	case !ok:
		return fmt.Errorf("job %s: state %q", j.ID, j.State)
	case j.Seq < 0 || j.Procs < 0 || j.Restarts < 0:
		return fmt.Errorf("job %s: seq %d, %d processors, %d restarts", j.ID, j.Seq, j.Procs, j.Restarts)
	case j.StartNS != nil && *j.StartNS < j.SubmitNS, j.EndNS != nil && j.StartNS != nil && *j.EndNS < *j.StartNS:
		return fmt.Errorf("job %s: starts before its submission or ends before its start", j.ID)
	}
	return nil
}

// InsertSimJobs records the jobs of a run whose result is recorded (in
// this transaction or before): next gives them one at a time, false at the
// end, so a run's jobs are never held whole. A run's jobs are written once:
// a second call for its digest fails.
func (t *Tx) InsertSimJobs(digest string, next func(j *SimJob) (bool, error)) (int, error) {
	var run int64
	var have int
	if err := t.tx.QueryRowContext(t.ctx, `SELECT count(*) FROM sim_job_runs WHERE digest = ?`, digest).Scan(&have); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	if have > 0 {
		return 0, fmt.Errorf("store: the jobs of run %s are already recorded", digest)
	}
	if err := t.tx.QueryRowContext(t.ctx, `SELECT coalesce(max(id), 0) + 1 FROM sim_job_runs`).Scan(&run); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	n := 0
	var j SimJob
	for {
		j = SimJob{}
		ok, err := next(&j)
		if err != nil {
			return n, err
		}
		if !ok {
			break
		}
		if err := j.check(); err != nil {
			return n, fmt.Errorf("store: %w", err)
		}
		if _, err := t.exec("sim_job", run, j.Seq, j.ID, j.State, j.SubmitNS, j.StartNS, j.EndNS, j.Procs, j.EstimateNS, j.WorkNS,
			nullString(j.Cluster), nullString(j.Home), j.Restarts); err != nil {
			return n, err
		}
		n++
	}
	_, err := t.exec("sim_job_run", run, digest, n)
	return n, err
}

// HasSimJobs tells which of the digests have their jobs recorded.
func (s *Store) HasSimJobs(digests []string) (map[string]bool, error) {
	out := map[string]bool{}
	if s.version < 6 || len(digests) == 0 {
		return out, nil
	}
	args := make([]any, len(digests))
	for i, d := range digests {
		args[i] = d
	}
	rows, err := s.db.Query(`SELECT digest FROM sim_job_runs WHERE digest IN (?`+strings.Repeat(", ?", len(digests)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out[d] = true
	}
	return out, rows.Err()
}

// SimJobs calls fn with the jobs of a run, in arrival order (ErrNoSimJobs
// when they are not recorded), one at a time: a run's jobs are never held
// whole. The job given to fn is reused: copy what is kept.
func (s *Store) SimJobs(digest string, fn func(j *SimJob) error) error {
	return s.simJobs(digest, "seq", fn)
}

// SimJobsByStart is SimJobs in the order of the jobs' starts (then of
// arrival), those that never started last.
func (s *Store) SimJobsByStart(digest string, fn func(j *SimJob) error) error {
	return s.simJobs(digest, "start_ns IS NULL, start_ns, seq", fn)
}

func (s *Store) simJobs(digest, order string, fn func(j *SimJob) error) error {
	var run int64
	var n int
	if s.version < 6 {
		return ErrNoSimJobs
	}
	err := s.db.QueryRow(`SELECT id, jobs FROM sim_job_runs WHERE digest = ?`, digest).Scan(&run, &n)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNoSimJobs
	}
	if err != nil {
		return err
	}
	rows, err := s.db.Query(`SELECT seq, job_id, state, submit_ns, start_ns, end_ns, procs, estimate_ns, work_ns, cluster, home, restarts
		FROM sim_jobs WHERE run = ? ORDER BY `+order, run)
	if err != nil {
		return err
	}
	defer rows.Close()
	var j SimJob
	var start, end, est sql.NullInt64
	var cluster, home sql.NullString
	got := 0
	for rows.Next() {
		if err := rows.Scan(&j.Seq, &j.ID, &j.State, &j.SubmitNS, &start, &end, &j.Procs, &est, &j.WorkNS, &cluster, &home, &j.Restarts); err != nil {
			return err
		}
		j.StartNS, j.EndNS, j.EstimateNS = int64Ptr(start), int64Ptr(end), int64Ptr(est)
		j.Cluster, j.Home = cluster.String, home.String
		if err := j.check(); err != nil {
			return fmt.Errorf("%w: %v", ErrDamaged, err)
		}
		got++
		if err := fn(&j); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if got != n {
		return fmt.Errorf("%w: run %s has %d job rows, its header says %d", ErrDamaged, digest, got, n)
	}
	return nil
}

func int64Ptr(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	x := v.Int64
	return &x
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// SimResultOf reads the result of one run (its messages and series left
// out); false when it has none.
func (s *Store) SimResultOf(digest string) (SimResult, bool, error) {
	if err := s.checkSim(); err != nil {
		return SimResult{}, false, err
	}
	var r SimResult
	err := s.db.QueryRow(`SELECT digest, invocation_id, finished_ns, wall_ns, jobs, finished, utilization, awt_s, art_s,
		asd, asd_tau_s, goodput_cpu_years, jf_percent, delegations_per_job, events, workload, result FROM sim_results WHERE digest = ?`, digest).Scan(
		&r.Digest, &r.InvocationID, &r.FinishedNS, &r.WallNS, &r.Jobs, &r.Finished, &r.Utilization, &r.AWT, &r.ART,
		&r.ASD, &r.ASDTau, &r.Goodput, &r.JF, &r.DelegationsPerJob, &r.Events, &r.Workload, &r.Result)
	if errors.Is(err, sql.ErrNoRows) {
		return SimResult{}, false, nil
	}
	return r, err == nil, err
}
