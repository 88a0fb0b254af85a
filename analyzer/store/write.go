package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Tx is a write transaction; see Store.Write. Every method inserts.
type Tx struct {
	tx  *sql.Tx
	s   *Store
	ctx context.Context
}

var insertSQL = map[string]string{
	"project":       `INSERT INTO projects (name, description, created_ns) VALUES (?, ?, ?)`,
	"scenario":      `INSERT INTO scenarios (project_id, name, description, created_ns) VALUES (?, ?, ?, ?)`,
	"run":           `INSERT INTO runs (id, scenario_id, created_ns, workload_dir, workload_sha256, jobs, tasks, target, settings, provenance_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"run_end":       `INSERT INTO run_ends (run_id, end_ns, status, summary) VALUES (?, ?, ?, ?)`,
	"provenance":    `INSERT INTO provenance (run_id, seq, recorded_ns, gmark_version, go_version, host, os_arch, user, command_line, working_dir, workload_dir, workload_sha256, spec_path, spec_sha256, includes, seed, manifest, target, target_config, gmark_revision, gmark_modified, scheduler, digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"input":         `INSERT INTO provenance_inputs (run_id, seq, idx, role, path, sha256, size, stored) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	"input_content": `INSERT INTO input_contents (sha256, size, content) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
	"submission":    `INSERT INTO submissions (key, run_id, job_id, parent_id, attempt, scheduled_ns, intent_ns) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	"result":        `INSERT INTO submission_results (key, run_id, ok, submit_ns, delay_ns, done_ns, target_id, output, exit_status, tries, error, recovered) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"job": `INSERT INTO jobs (run_id, job_id, parent_id, unit, idx, kind, type, app, site_type, processors, components, sites,
		walltime_ns, runtime_ns, offset_ns, scheduled_ns, submit_ns, delay_ns, target_submit_ns, target_id, start_ns, end_ns,
		state, reason, exit_status, attempts, submit_output, submit_exit_status, summary, recorded_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"event":      `INSERT INTO events (run_id, job_id, attempt, time_ns, kind, payload) VALUES (?, ?, ?, ?, ?, ?)`,
	"annotation": `INSERT INTO annotations (run_id, project_id, time_ns, kind, key, value, source) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	// the simulator's experiments (sim.go)
	"sim_experiment": `INSERT INTO sim_experiments (name, digest, created_ns, definition, runs) VALUES (?, ?, ?, ?, ?)`,
	"sim_scenario":   `INSERT INTO sim_scenarios (experiment_id, idx, name, definition) VALUES (?, ?, ?, ?)`,
	"sim_run":        `INSERT INTO sim_runs (experiment_id, idx, scenario_id, arch, load, rep, seed, digest, definition) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"sim_invocation": `INSERT INTO sim_invocations (experiment_id, started_ns, gmark_version, gmark_revision, gmark_modified, go_version, host, os_arch, user, command_line, working_dir, parallel) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"sim_input":      `INSERT INTO sim_invocation_inputs (invocation_id, idx, role, path, sha256, size, stored) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	"sim_attempt":    `INSERT INTO sim_attempts (digest, invocation_id, started_ns) VALUES (?, ?, ?)`,
	"sim_result": `INSERT INTO sim_results (digest, invocation_id, finished_ns, wall_ns, jobs, finished, utilization, awt_s, art_s, asd, asd_tau_s,
		goodput_cpu_years, jf_percent, delegations_per_job, events, workload, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"sim_message": `INSERT INTO sim_messages (digest, type, count) VALUES (?, ?, ?)`,
	"sim_series":  `INSERT INTO sim_series (digest, interval_s, bins, arrivals, starts, ends, messages) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	"sim_job_run": `INSERT INTO sim_job_runs (id, digest, jobs) VALUES (?, ?, ?)`,
	"sim_job": `INSERT INTO sim_jobs (run, seq, job_id, state, submit_ns, start_ns, end_ns, procs, estimate_ns, work_ns, cluster, home, restarts)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"sim_task": `INSERT INTO sim_tasks (invocation_id, array_name, task, digest, try, cluster, slurm_job_id, state, reason, started_ns, ended_ns, recorded_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (array_name, task) DO NOTHING`,
}

// prepare compiles the insert statements once; transactions bind them.
func (s *Store) prepare() error {
	s.stmts = make(map[string]*sql.Stmt, len(insertSQL))
	for name, q := range insertSQL {
		st, err := s.db.Prepare(q)
		if err != nil {
			return fmt.Errorf("store: prepare %s: %w", name, err)
		}
		s.stmts[name] = st
	}
	return nil
}

func (t *Tx) exec(name string, args ...any) (sql.Result, error) {
	st := t.s.stmts[name]
	r, err := t.tx.StmtContext(t.ctx, st).ExecContext(t.ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("store: insert %s: %w", name, err)
	}
	return r, nil
}

// EnsureProject returns the id of the named project, creating it if needed.
func (t *Tx) EnsureProject(name, description string, nowNS int64) (int64, error) {
	if name == "" {
		return 0, errors.New("store: a project needs a name")
	}
	var id int64
	err := t.tx.QueryRowContext(t.ctx, `SELECT id FROM projects WHERE name = ?`, name).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: %w", err)
	}
	r, err := t.exec("project", name, description, nowNS)
	if err != nil {
		return 0, err
	}
	return r.LastInsertId()
}

// EnsureScenario returns the id of the named scenario of a project, creating
// it if needed.
func (t *Tx) EnsureScenario(projectID int64, name, description string, nowNS int64) (int64, error) {
	if name == "" {
		return 0, errors.New("store: a scenario needs a name")
	}
	var id int64
	err := t.tx.QueryRowContext(t.ctx, `SELECT id FROM scenarios WHERE project_id = ? AND name = ?`, projectID, name).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: %w", err)
	}
	r, err := t.exec("scenario", projectID, name, description, nowNS)
	if err != nil {
		return 0, err
	}
	return r.LastInsertId()
}

// InsertRun records a new run.
func (t *Tx) InsertRun(r Run) error {
	if r.ID == "" || strings.ContainsAny(r.ID, "/ \t\n") {
		return fmt.Errorf("store: bad run id %q (no slashes or blanks)", r.ID)
	}
	_, err := t.exec("run", r.ID, r.ScenarioID, r.CreatedNS, r.WorkloadDir, r.WorkloadSHA256, r.Jobs, r.Tasks,
		r.Target, orJSON(r.Settings), r.ProvenanceSHA256)
	return err
}

// InsertRunEnd closes a run.
func (t *Tx) InsertRunEnd(e RunEnd) error {
	if e.Status != RunCompleted && e.Status != RunAborted {
		return fmt.Errorf("store: bad run status %q", e.Status)
	}
	_, err := t.exec("run_end", e.RunID, e.EndNS, e.Status, orJSON(e.Summary))
	return err
}

// InsertProvenance records a provenance record, its inputs, and the
// contents of those marked Stored (from p.Contents, each checked against
// its digest; a content already in the store is kept once). Its Digest is
// computed here.
func (t *Tx) InsertProvenance(p Provenance) error {
	p.normalize()
	p.Digest = p.ComputeDigest()
	var seed, modified any
	if p.Seed != nil {
		seed = int64(*p.Seed)
	}
	if p.GmarkModified != nil {
		modified = 0
		if *p.GmarkModified {
			modified = 1
		}
	}
	_, err := t.exec("provenance", p.RunID, p.Seq, p.RecordedNS, p.GmarkVersion, p.GoVersion, p.Host, p.OSArch, p.User,
		orJSONArray(p.CommandLine), p.WorkingDir, p.WorkloadDir, p.WorkloadSHA256, p.SpecPath, p.SpecSHA256,
		orJSONArray(p.Includes), seed, p.Manifest, p.Target, orJSON(p.TargetConfig), p.GmarkRevision, modified, p.Scheduler, p.Digest)
	if err != nil {
		return err
	}
	for i, in := range p.Inputs {
		if in.Stored {
			if err := t.insertContent(in, p.Contents[in.SHA256]); err != nil {
				return err
			}
		}
		if _, err := t.exec("input", p.RunID, p.Seq, i, in.Role, in.Path, in.SHA256, in.Size, boolInt(in.Stored)); err != nil {
			return err
		}
	}
	return nil
}

// insertContent stores the content of an input, once per digest.
func (t *Tx) insertContent(in Input, content []byte) error {
	if content == nil || int64(len(content)) != in.Size || sha256Hex(content) != in.SHA256 {
		return fmt.Errorf("store: input %s (%s) is marked stored, but no content with its digest and size was given", in.Path, in.Role)
	}
	_, err := t.exec("input_content", in.SHA256, in.Size, content)
	return err
}

// InsertSubmission records a submission before it is made. Inserting the
// same key twice fails: a key is submitted at most once.
func (t *Tx) InsertSubmission(s Submission) error {
	if s.Attempt < 1 {
		return fmt.Errorf("store: submission %s: attempt %d < 1", s.Key, s.Attempt)
	}
	_, err := t.exec("submission", s.Key, s.RunID, s.JobID, s.ParentID, s.Attempt, s.ScheduledNS, s.IntentNS)
	return err
}

// InsertResult records the outcome of a submission.
func (t *Tx) InsertResult(r Result) error {
	_, err := t.exec("result", r.Key, r.RunID, boolInt(r.OK), nullInt(r.SubmitNS), nullIntIf(r.DelayNS, r.SubmitNS != 0),
		r.DoneNS, r.TargetID, r.Output, nullIntPtr(r.ExitStatus), r.Tries, r.Error, boolInt(r.Recovered))
	return err
}

// InsertJob records the final outcome of a job.
func (t *Tx) InsertJob(j Job) error {
	switch j.State {
	case Succeeded, Failed, Cancelled, NeverStarted:
	default:
		return fmt.Errorf("store: job %s: bad state %q", j.JobID, j.State)
	}
	_, err := t.exec("job", j.RunID, j.JobID, j.ParentID, j.Unit, j.Index, j.Kind, j.Type, j.App, j.SiteType, j.Processors,
		orJSONArray(j.Components), j.Sites, j.WallTimeNS, j.RunTimeNS, j.OffsetNS, nullInt(j.ScheduledNS), nullInt(j.SubmitNS),
		nullIntIf(j.DelayNS, j.SubmitNS != 0), nullInt(j.TargetSubmitNS), j.TargetID, nullInt(j.StartNS), nullInt(j.EndNS), j.State, j.Reason,
		nullIntPtr(j.ExitStatus), j.Attempts, j.SubmitOutput, nullIntPtr(j.SubmitExitStatus), j.Summary, j.RecordedNS)
	return err
}

// InsertEvent appends an event.
func (t *Tx) InsertEvent(e Event) error {
	_, err := t.exec("event", e.RunID, e.JobID, e.Attempt, e.TimeNS, e.Kind, orJSON(e.Payload))
	return err
}

// InsertAnnotation appends an annotation.
func (t *Tx) InsertAnnotation(a Annotation) error {
	var run, project any
	if a.RunID != "" {
		run = a.RunID
	}
	if a.ProjectID != 0 {
		project = a.ProjectID
	}
	_, err := t.exec("annotation", run, project, a.TimeNS, a.Kind, a.Key, a.Value, a.Source)
	return err
}

func nullIntIf(v int64, valid bool) any {
	if !valid {
		return nil
	}
	return v
}

func orJSON(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

func orJSONArray(s string) string {
	if s == "" {
		return "[]"
	}
	return s
}
