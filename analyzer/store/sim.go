package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// The tables of the multi-grid simulator's experiments (schema version 3):
// experiment → scenario → run, the invocations of gmark that worked on an
// experiment, every run started, and the result of every run finished.
// docs/store.md describes every column.

// SimExperiment is one definition of an experiment: the same name with
// another definition (an edited file, another --scale) is another row.
type SimExperiment struct {
	ID         int64
	Name       string
	Digest     string // SHA-256 of Definition
	CreatedNS  int64
	Definition string // JSON: the experiment as resolved
	Runs       int    // planned
}

// SimScenario is a scenario of an experiment.
type SimScenario struct {
	ID           int64
	ExperimentID int64
	Index        int
	Name         string
	Definition   string // JSON: the scenario as resolved
}

// SimRun is a planned run of an experiment, at its place in the expansion.
type SimRun struct {
	ExperimentID int64
	Index        int
	ScenarioID   int64
	Arch         string
	Load         float64 // percent
	Rep          int     // 1, 2, …
	Seed         uint64
	Digest       string // SHA-256 of Definition: the key of its result
	Definition   string // JSON: everything that determines the run's result
}

// SimInvocation is one gmark process that worked on an experiment: the
// provenance of the results it wrote.
type SimInvocation struct {
	ID            int64
	ExperimentID  int64
	StartedNS     int64
	GmarkVersion  string
	GmarkRevision string
	GmarkModified *bool
	GoVersion     string
	Host          string
	OSArch        string
	User          string
	CommandLine   string // JSON array
	WorkingDir    string
	Parallel      int
	Inputs        []Input           // the experiment file, the topology file, the traces
	Contents      map[string][]byte `json:"-"` // the contents of the inputs marked Stored, by SHA-256
}

// SimResult is the result of a finished run, written once, in one
// transaction with its messages.
type SimResult struct {
	Digest            string
	InvocationID      int64
	FinishedNS        int64
	WallNS            int64 // how long the run took, workload generation included
	Jobs              int
	Finished          int
	Utilization       float64
	AWT, ART          float64 // seconds
	ASD, ASDTau       float64 // τ in seconds
	Goodput           float64 // CPU-years
	JF                float64 // percent
	DelegationsPerJob float64
	Events            int64
	Workload          string       // JSON: what the run's workload was (jobs, span, offered loads)
	Result            string       // JSON: the simulator's whole result
	Messages          []SimMessage // by type, in the simulator's order
	Series            *SimSeries   // nil: none (a run recorded before schema version 5)
}

// SimMessage is a message count of a run.
type SimMessage struct {
	Type  string
	Count int64
}

// ErrSimUnsupported is returned by the readers of the experiment tables
// for a store of a schema version before 3, which has none.
var ErrSimUnsupported = errors.New("the store holds no simulation experiments (schema version before 3)")

// EnsureSimExperiment returns the id of the experiment of this name and
// digest, recording it with its scenarios and its n planned runs when it is
// new (created). run(i) gives the run at index i (called in order, so that
// the expansion is never held whole); a run names its scenario by its
// index in scenarios (SimRun.ScenarioID is that index on the way in).
func (t *Tx) EnsureSimExperiment(e SimExperiment, scenarios []SimScenario, n int, run func(i int) SimRun) (id int64, created bool, err error) {
	if e.Name == "" || e.Digest == "" {
		return 0, false, errors.New("store: an experiment needs a name and a digest")
	}
	err = t.tx.QueryRowContext(t.ctx, `SELECT id FROM sim_experiments WHERE name = ? AND digest = ?`, e.Name, e.Digest).Scan(&id)
	if err == nil {
		return id, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, false, fmt.Errorf("store: %w", err)
	}
	r, err := t.exec("sim_experiment", e.Name, e.Digest, e.CreatedNS, orJSON(e.Definition), n)
	if err != nil {
		return 0, false, err
	}
	if id, err = r.LastInsertId(); err != nil {
		return 0, false, err
	}
	scIDs := make([]int64, len(scenarios))
	for i, sc := range scenarios {
		r, err := t.exec("sim_scenario", id, sc.Index, sc.Name, orJSON(sc.Definition))
		if err != nil {
			return 0, false, err
		}
		if scIDs[i], err = r.LastInsertId(); err != nil {
			return 0, false, err
		}
	}
	for i := 0; i < n; i++ {
		run := run(i)
		if run.ScenarioID < 0 || run.ScenarioID >= int64(len(scIDs)) {
			return 0, false, fmt.Errorf("store: run %d names scenario %d of %d", run.Index, run.ScenarioID, len(scIDs))
		}
		if _, err := t.exec("sim_run", id, run.Index, scIDs[run.ScenarioID], run.Arch, run.Load, run.Rep, int64(run.Seed),
			run.Digest, orJSON(run.Definition)); err != nil {
			return 0, false, err
		}
	}
	return id, true, nil
}

// InsertSimInvocation records a gmark process working on an experiment,
// with its inputs (and the contents of those marked Stored, kept once per
// digest in input_contents), and returns its id.
func (t *Tx) InsertSimInvocation(inv SimInvocation) (int64, error) {
	var modified any
	if inv.GmarkModified != nil {
		modified = boolInt(*inv.GmarkModified)
	}
	r, err := t.exec("sim_invocation", inv.ExperimentID, inv.StartedNS, inv.GmarkVersion, inv.GmarkRevision, modified, inv.GoVersion,
		inv.Host, inv.OSArch, inv.User, orJSONArray(inv.CommandLine), inv.WorkingDir, inv.Parallel)
	if err != nil {
		return 0, err
	}
	id, err := r.LastInsertId()
	if err != nil {
		return 0, err
	}
	for i, in := range inv.Inputs {
		if in.Stored {
			if err := t.insertContent(in, inv.Contents[in.SHA256]); err != nil {
				return 0, err
			}
		}
		if _, err := t.exec("sim_input", id, i, in.Role, in.Path, in.SHA256, in.Size, boolInt(in.Stored)); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// InsertSimAttempt records that a run (by digest) was started.
func (t *Tx) InsertSimAttempt(digest string, invocationID, startedNS int64) error {
	_, err := t.exec("sim_attempt", digest, invocationID, startedNS)
	return err
}

// InsertSimResult records a finished run, its message counts and its
// series, if any. A digest has one result: a second one fails.
func (t *Tx) InsertSimResult(r SimResult) error {
	if _, err := t.exec("sim_result", r.Digest, r.InvocationID, r.FinishedNS, r.WallNS, r.Jobs, r.Finished, r.Utilization,
		r.AWT, r.ART, r.ASD, r.ASDTau, r.Goodput, r.JF, r.DelegationsPerJob, r.Events, orJSON(r.Workload), orJSON(r.Result)); err != nil {
		return err
	}
	for _, m := range r.Messages {
		if _, err := t.exec("sim_message", r.Digest, m.Type, m.Count); err != nil {
			return err
		}
	}
	if r.Series != nil {
		return t.insertSimSeries(r.Digest, r.Series)
	}
	return nil
}

func (s *Store) checkSim() error {
	if s.version < 3 {
		return ErrSimUnsupported
	}
	return nil
}

// SimExperiments lists the experiments (every definition), oldest first.
func (s *Store) SimExperiments() ([]SimExperiment, error) {
	if err := s.checkSim(); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(`SELECT id, name, digest, created_ns, definition, runs FROM sim_experiments ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SimExperiment
	for rows.Next() {
		var e SimExperiment
		if err := rows.Scan(&e.ID, &e.Name, &e.Digest, &e.CreatedNS, &e.Definition, &e.Runs); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// SimScenarios lists an experiment's scenarios in order.
func (s *Store) SimScenarios(experimentID int64) ([]SimScenario, error) {
	if err := s.checkSim(); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(`SELECT id, experiment_id, idx, name, definition FROM sim_scenarios WHERE experiment_id = ? ORDER BY idx`, experimentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SimScenario
	for rows.Next() {
		var sc SimScenario
		if err := rows.Scan(&sc.ID, &sc.ExperimentID, &sc.Index, &sc.Name, &sc.Definition); err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

// SimRuns lists an experiment's planned runs in order.
func (s *Store) SimRuns(experimentID int64) ([]SimRun, error) {
	if err := s.checkSim(); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(`SELECT experiment_id, idx, scenario_id, arch, load, rep, seed, digest, definition
		FROM sim_runs WHERE experiment_id = ? ORDER BY idx`, experimentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SimRun
	for rows.Next() {
		var r SimRun
		var seed int64
		if err := rows.Scan(&r.ExperimentID, &r.Index, &r.ScenarioID, &r.Arch, &r.Load, &r.Rep, &seed, &r.Digest, &r.Definition); err != nil {
			return nil, err
		}
		r.Seed = uint64(seed)
		out = append(out, r)
	}
	return out, rows.Err()
}

// SimResults reads the results of an experiment's runs that have one, by
// digest, with their messages and series.
func (s *Store) SimResults(experimentID int64) (map[string]SimResult, error) {
	if err := s.checkSim(); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(`SELECT r.digest, r.invocation_id, r.finished_ns, r.wall_ns, r.jobs, r.finished, r.utilization, r.awt_s, r.art_s,
		r.asd, r.asd_tau_s, r.goodput_cpu_years, r.jf_percent, r.delegations_per_job, r.events, r.workload, r.result
		FROM sim_results r WHERE r.digest IN (SELECT digest FROM sim_runs WHERE experiment_id = ?)`, experimentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]SimResult{}
	for rows.Next() {
		var r SimResult
		if err := rows.Scan(&r.Digest, &r.InvocationID, &r.FinishedNS, &r.WallNS, &r.Jobs, &r.Finished, &r.Utilization, &r.AWT, &r.ART,
			&r.ASD, &r.ASDTau, &r.Goodput, &r.JF, &r.DelegationsPerJob, &r.Events, &r.Workload, &r.Result); err != nil {
			return nil, err
		}
		out[r.Digest] = r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	mrows, err := s.db.Query(`SELECT m.digest, m.type, m.count FROM sim_messages m
		WHERE m.digest IN (SELECT digest FROM sim_runs WHERE experiment_id = ?) ORDER BY m.digest, m.rowid`, experimentID)
	if err != nil {
		return nil, err
	}
	defer mrows.Close()
	for mrows.Next() {
		var d string
		var m SimMessage
		if err := mrows.Scan(&d, &m.Type, &m.Count); err != nil {
			return nil, err
		}
		if r, ok := out[d]; ok {
			r.Messages = append(r.Messages, m)
			out[d] = r
		}
	}
	if err := mrows.Err(); err != nil {
		return nil, err
	}
	mrows.Close()
	series, err := s.simSeries(experimentID)
	if err != nil {
		return nil, err
	}
	for d, ser := range series {
		if r, ok := out[d]; ok {
			r.Series = ser
			out[d] = r
		}
	}
	return out, nil
}

// SimDone tells which of the digests have a result.
func (s *Store) SimDone(digests []string) (map[string]bool, error) {
	if err := s.checkSim(); err != nil {
		return nil, err
	}
	done := map[string]bool{}
	const batch = 500
	for i := 0; i < len(digests); i += batch {
		part := digests[i:min(i+batch, len(digests))]
		args := make([]any, len(part))
		for j, d := range part {
			args[j] = d
		}
		rows, err := s.db.Query(`SELECT digest FROM sim_results WHERE digest IN (?`+strings.Repeat(", ?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var d string
			if err := rows.Scan(&d); err != nil {
				rows.Close()
				return nil, err
			}
			done[d] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return done, nil
}

// SimAttempts counts the starts of an experiment's runs, by digest.
func (s *Store) SimAttempts(experimentID int64) (map[string]int, error) {
	if err := s.checkSim(); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(`SELECT digest, count(*) FROM sim_attempts
		WHERE digest IN (SELECT digest FROM sim_runs WHERE experiment_id = ?) GROUP BY digest`, experimentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var d string
		var n int
		if err := rows.Scan(&d, &n); err != nil {
			return nil, err
		}
		out[d] = n
	}
	return out, rows.Err()
}

// SimInvocations lists the invocations whose results an experiment
// reads (those that wrote one of its results, whatever experiment they
// ran for) and those that ran for it, oldest first, with their inputs.
func (s *Store) SimInvocations(experimentID int64) ([]SimInvocation, error) {
	if err := s.checkSim(); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(`SELECT id, experiment_id, started_ns, gmark_version, gmark_revision, gmark_modified, go_version, host, os_arch,
		user, command_line, working_dir, parallel FROM sim_invocations
		WHERE experiment_id = ? OR id IN (SELECT invocation_id FROM sim_results WHERE digest IN (SELECT digest FROM sim_runs WHERE experiment_id = ?))
		ORDER BY id`, experimentID, experimentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SimInvocation
	for rows.Next() {
		var v SimInvocation
		var modified sql.NullInt64
		if err := rows.Scan(&v.ID, &v.ExperimentID, &v.StartedNS, &v.GmarkVersion, &v.GmarkRevision, &modified, &v.GoVersion, &v.Host,
			&v.OSArch, &v.User, &v.CommandLine, &v.WorkingDir, &v.Parallel); err != nil {
			return nil, err
		}
		v.GmarkModified = optionalBool(modified)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	for i := range out {
		if out[i].Inputs, err = s.simInputs(out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Store) simInputs(invocationID int64) ([]Input, error) {
	return s.queryInputs(`SELECT role, path, sha256, size, stored FROM sim_invocation_inputs WHERE invocation_id = ? ORDER BY idx`, invocationID)
}

// SimTask is a Slurm array task of `gmark sim run --on slurm` that ended:
// which run it computed, on which try, and how it ended (schema version 4).
type SimTask struct {
	ID           int64
	InvocationID int64  // the gmark sim run that saw it end
	ArrayName    string // the array's Slurm job name
	Task         int    // its index in the array
	Digest       string // the run it computed
	Try          int    // 1 for the run's first task, 2 for its first retry, …
	Cluster      string
	SlurmJobID   string // "<array job id>_<task>"
	State        string // SimTaskCompleted, SimTaskFailed, SimTaskCancelled or SimTaskLost
	Reason       string // why it ended without a result; "" when completed
	StartedNS    int64  // 0: unknown, or never started
	EndedNS      int64
	RecordedNS   int64
}

// The states of a SimTask.
const (
	SimTaskCompleted = "completed" // its result was merged
	SimTaskFailed    = "failed"
	SimTaskCancelled = "cancelled"
	SimTaskLost      = "lost" // neither squeue nor the job completion log knows it
)

// InsertSimTask records an array task that ended, unless the task (its
// array name and index) is recorded already: inserted says which.
func (t *Tx) InsertSimTask(k SimTask) (inserted bool, err error) {
	if err := checkSimTask(k); err != nil {
		return false, err
	}
	r, err := t.exec("sim_task", k.InvocationID, k.ArrayName, k.Task, k.Digest, k.Try, k.Cluster, k.SlurmJobID, k.State, k.Reason,
		nullInt(k.StartedNS), nullInt(k.EndedNS), k.RecordedNS)
	if err != nil {
		return false, err
	}
	n, err := r.RowsAffected()
	return n == 1, err
}

func checkSimTask(k SimTask) error {
	switch {
	case k.ArrayName == "" || k.Digest == "":
		return errors.New("store: a sim task needs an array name and a digest")
	case k.State != SimTaskCompleted && k.State != SimTaskFailed && k.State != SimTaskCancelled && k.State != SimTaskLost:
		return fmt.Errorf("store: bad sim task state %q", k.State)
	}
	return nil
}

// SimResultExists reports whether the run of this digest has a result,
// inside the transaction.
func (t *Tx) SimResultExists(digest string) (bool, error) {
	var n int
	err := t.tx.QueryRowContext(t.ctx, `SELECT count(*) FROM sim_results WHERE digest = ?`, digest).Scan(&n)
	return n > 0, err
}

// SimTasks lists the array tasks recorded for an experiment's runs, in
// the order they were recorded; none for a store before version 4.
func (s *Store) SimTasks(experimentID int64) ([]SimTask, error) {
	if err := s.checkSim(); err != nil {
		return nil, err
	}
	if s.version < 4 {
		return nil, nil
	}
	rows, err := s.db.Query(`SELECT id, invocation_id, array_name, task, digest, try, cluster, slurm_job_id, state, reason,
		started_ns, ended_ns, recorded_ns FROM sim_tasks
		WHERE digest IN (SELECT digest FROM sim_runs WHERE experiment_id = ?) ORDER BY id`, experimentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SimTask
	for rows.Next() {
		var k SimTask
		var start, end sql.NullInt64
		if err := rows.Scan(&k.ID, &k.InvocationID, &k.ArrayName, &k.Task, &k.Digest, &k.Try, &k.Cluster, &k.SlurmJobID, &k.State,
			&k.Reason, &start, &end, &k.RecordedNS); err != nil {
			return nil, err
		}
		k.StartedNS, k.EndedNS = start.Int64, end.Int64
		out = append(out, k)
	}
	return out, rows.Err()
}
