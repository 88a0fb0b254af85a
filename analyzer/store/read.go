package store

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNotFound is returned when a run (or other row asked for by key) does not exist.
var ErrNotFound = errors.New("not found")

// ComputeDigest is the SHA-256 (hex) of the record's canonical JSON: every
// field but Digest, in declaration order. The run row keeps the digest of
// its first record, so a copy of the results that lost the provenance table
// still says which provenance it had, and a tampered record no longer
// matches.
func (p Provenance) ComputeDigest() string {
	p.Digest = ""
	p.normalize()
	b, _ := json.Marshal(p) // a struct of strings and integers: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// normalize gives empty JSON fields the value the database stores for them,
// so that a record hashes the same before it is written and after it is read.
func (p *Provenance) normalize() {
	p.CommandLine = orJSONArray(p.CommandLine)
	p.Includes = orJSONArray(p.Includes)
	p.TargetConfig = orJSON(p.TargetConfig)
}

// Run reads one run.
func (s *Store) Run(id string) (Run, error) {
	var r Run
	err := s.db.QueryRow(`SELECT id, scenario_id, created_ns, workload_dir, workload_sha256, jobs, tasks, target, settings, provenance_sha256
		FROM runs WHERE id = ?`, id).Scan(&r.ID, &r.ScenarioID, &r.CreatedNS, &r.WorkloadDir, &r.WorkloadSHA256, &r.Jobs, &r.Tasks,
		&r.Target, &r.Settings, &r.ProvenanceSHA256)
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	return r, err
}

// Runs lists every run, oldest first.
func (s *Store) Runs() ([]Run, error) {
	rows, err := s.db.Query(`SELECT id, scenario_id, created_ns, workload_dir, workload_sha256, jobs, tasks, target, settings, provenance_sha256
		FROM runs ORDER BY created_ns, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.ID, &r.ScenarioID, &r.CreatedNS, &r.WorkloadDir, &r.WorkloadSHA256, &r.Jobs, &r.Tasks,
			&r.Target, &r.Settings, &r.ProvenanceSHA256); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Scenario reads a scenario and its project.
func (s *Store) Scenario(id int64) (Scenario, Project, error) {
	var sc Scenario
	var p Project
	err := s.db.QueryRow(`SELECT s.id, s.project_id, s.name, s.description, s.created_ns, p.id, p.name, p.description, p.created_ns
		FROM scenarios s JOIN projects p ON p.id = s.project_id WHERE s.id = ?`, id).Scan(
		&sc.ID, &sc.ProjectID, &sc.Name, &sc.Description, &sc.CreatedNS, &p.ID, &p.Name, &p.Description, &p.CreatedNS)
	if errors.Is(err, sql.ErrNoRows) {
		return sc, p, fmt.Errorf("scenario %d: %w", id, ErrNotFound)
	}
	return sc, p, err
}

// RunEnd reads how a run ended; ok is false while it has not.
func (s *Store) RunEnd(runID string) (e RunEnd, ok bool, err error) {
	err = s.db.QueryRow(`SELECT run_id, end_ns, status, summary FROM run_ends WHERE run_id = ?`, runID).Scan(
		&e.RunID, &e.EndNS, &e.Status, &e.Summary)
	if errors.Is(err, sql.ErrNoRows) {
		return RunEnd{}, false, nil
	}
	return e, err == nil, err
}

// Provenance lists a run's provenance records by seq, with their inputs
// (not their contents: see InputContent).
func (s *Store) Provenance(runID string) ([]Provenance, error) {
	// A file of schema version 1, read without migrating it, has none of
	// the version 2 columns: they read as empty.
	v2 := `gmark_revision, gmark_modified, scheduler`
	if s.version < 2 {
		v2 = `'', NULL, ''`
	}
	rows, err := s.db.Query(`SELECT run_id, seq, recorded_ns, gmark_version, go_version, host, os_arch, user, command_line,
		working_dir, workload_dir, workload_sha256, spec_path, spec_sha256, includes, seed, manifest, target, target_config, `+v2+`, digest
		FROM provenance WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Provenance
	for rows.Next() {
		var p Provenance
		var seed, modified sql.NullInt64
		if err := rows.Scan(&p.RunID, &p.Seq, &p.RecordedNS, &p.GmarkVersion, &p.GoVersion, &p.Host, &p.OSArch, &p.User,
			&p.CommandLine, &p.WorkingDir, &p.WorkloadDir, &p.WorkloadSHA256, &p.SpecPath, &p.SpecSHA256, &p.Includes, &seed,
			&p.Manifest, &p.Target, &p.TargetConfig, &p.GmarkRevision, &modified, &p.Scheduler, &p.Digest); err != nil {
			return nil, err
		}
		if seed.Valid {
			v := uint64(seed.Int64)
			p.Seed = &v
		}
		p.GmarkModified = optionalBool(modified)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	for i := range out {
		if out[i].Inputs, err = s.inputs(runID, out[i].Seq); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inputs reads the inputs of one provenance record, in order.
func (s *Store) inputs(runID string, seq int) ([]Input, error) {
	if s.version < 2 {
		return nil, nil
	}
	return s.queryInputs(`SELECT role, path, sha256, size, stored FROM provenance_inputs WHERE run_id = ? AND seq = ? ORDER BY idx`, runID, seq)
}

// queryInputs reads input rows (role, path, sha256, size, stored): a
// run's provenance inputs or a sim invocation's.
func (s *Store) queryInputs(query string, args ...any) ([]Input, error) {
	rows, err := s.db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Input
	for rows.Next() {
		var in Input
		var stored int
		if err := rows.Scan(&in.Role, &in.Path, &in.SHA256, &in.Size, &stored); err != nil {
			return nil, err
		}
		in.Stored = stored == 1
		out = append(out, in)
	}
	return out, rows.Err()
}

// InputContent reads the content of an input by its SHA-256, checked
// against it: ErrNotFound when the store does not hold it, ErrDamaged
// when what it holds no longer has that digest.
func (s *Store) InputContent(sha string) ([]byte, error) {
	if s.version < 2 {
		return nil, fmt.Errorf("input %s: %w (the store's schema version %d keeps no input contents)", sha, ErrNotFound, s.version)
	}
	var b []byte
	err := s.db.QueryRow(`SELECT content FROM input_contents WHERE sha256 = ?`, sha).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("input %s: %w", sha, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	if sha256Hex(b) != sha {
		return nil, fmt.Errorf("input %s: %w: its stored content has another digest", sha, ErrDamaged)
	}
	return b, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// VerifyProvenance checks that every provenance record of a run still has
// the digest it was written with, and that the first one is the digest the
// run row carries.
func (s *Store) VerifyProvenance(runID string) error {
	r, err := s.Run(runID)
	if err != nil {
		return err
	}
	ps, err := s.Provenance(runID)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		return fmt.Errorf("run %s: no provenance record", runID)
	}
	for _, p := range ps {
		if d := p.ComputeDigest(); d != p.Digest {
			return fmt.Errorf("run %s: provenance record %d does not match its digest", runID, p.Seq)
		}
	}
	if ps[0].Digest != r.ProvenanceSHA256 {
		return fmt.Errorf("run %s: the run's provenance digest %s is not its first record's %s", runID, r.ProvenanceSHA256, ps[0].Digest)
	}
	return nil
}

// Submissions lists the submissions recorded for a run, in the order made.
func (s *Store) Submissions(runID string) ([]Submission, error) {
	rows, err := s.db.Query(`SELECT key, run_id, job_id, parent_id, attempt, scheduled_ns, intent_ns
		FROM submissions WHERE run_id = ? ORDER BY rowid`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Submission
	for rows.Next() {
		var x Submission
		if err := rows.Scan(&x.Key, &x.RunID, &x.JobID, &x.ParentID, &x.Attempt, &x.ScheduledNS, &x.IntentNS); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// Results lists the submission results of a run, in the order recorded.
func (s *Store) Results(runID string) ([]Result, error) {
	rows, err := s.db.Query(`SELECT key, run_id, ok, submit_ns, delay_ns, done_ns, target_id, output, exit_status, tries, error, recovered
		FROM submission_results WHERE run_id = ? ORDER BY rowid`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		x, err := scanResult(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

const jobColumns = `run_id, job_id, parent_id, unit, idx, kind, type, app, site_type, processors, components, sites,
	walltime_ns, runtime_ns, offset_ns, scheduled_ns, submit_ns, delay_ns, target_submit_ns, target_id, start_ns, end_ns, state, reason,
	exit_status, attempts, submit_output, submit_exit_status, summary, recorded_ns`

func scanJob(sc interface{ Scan(...any) error }) (Job, error) {
	var j Job
	var sched, submit, delay, tsubmit, start, end, exit, sexit sql.NullInt64
	err := sc.Scan(&j.RunID, &j.JobID, &j.ParentID, &j.Unit, &j.Index, &j.Kind, &j.Type, &j.App, &j.SiteType, &j.Processors,
		&j.Components, &j.Sites, &j.WallTimeNS, &j.RunTimeNS, &j.OffsetNS, &sched, &submit, &delay, &tsubmit, &j.TargetID, &start, &end,
		&j.State, &j.Reason, &exit, &j.Attempts, &j.SubmitOutput, &sexit, &j.Summary, &j.RecordedNS)
	j.ScheduledNS, j.SubmitNS, j.DelayNS, j.TargetSubmitNS = fromNull(sched), fromNull(submit), fromNull(delay), fromNull(tsubmit)
	j.StartNS, j.EndNS = fromNull(start), fromNull(end)
	j.ExitStatus, j.SubmitExitStatus = ptrFromNull(exit), ptrFromNull(sexit)
	return j, err
}

// Jobs lists the final job records of a run (top-level jobs, tasks and
// composite jobs), in the order recorded.
func (s *Store) Jobs(runID string) ([]Job, error) {
	rows, err := s.db.Query(`SELECT `+jobColumns+` FROM jobs WHERE run_id = ? ORDER BY rowid`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// Job reads the final record of one job.
func (s *Store) Job(runID, jobID string) (Job, error) {
	j, err := scanJob(s.db.QueryRow(`SELECT `+jobColumns+` FROM jobs WHERE run_id = ? AND job_id = ?`, runID, jobID))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("job %s of run %s: %w", jobID, runID, ErrNotFound)
	}
	return j, err
}

// Events lists a run's events in the order recorded; with jobID != "" only
// that job's.
func (s *Store) Events(runID, jobID string) ([]Event, error) {
	q := `SELECT id, run_id, job_id, attempt, time_ns, kind, payload FROM events WHERE run_id = ?`
	args := []any{runID}
	if jobID != "" {
		q += ` AND job_id = ?`
		args = append(args, jobID)
	}
	rows, err := s.db.Query(q+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.ID, &e.RunID, &e.JobID, &e.Attempt, &e.TimeNS, &e.Kind, &e.Payload); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Annotations lists a run's annotations of a kind ("" for all), in order.
func (s *Store) Annotations(runID, kind string) ([]Annotation, error) {
	q := `SELECT id, COALESCE(run_id, ''), COALESCE(project_id, 0), time_ns, kind, key, value, source FROM annotations WHERE run_id = ?`
	args := []any{runID}
	if kind != "" {
		q += ` AND kind = ?`
		args = append(args, kind)
	}
	rows, err := s.db.Query(q+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Annotation
	for rows.Next() {
		var a Annotation
		if err := rows.Scan(&a.ID, &a.RunID, &a.ProjectID, &a.TimeNS, &a.Kind, &a.Key, &a.Value, &a.Source); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// optionalBool is a nullable 0/1 column: nil when NULL.
func optionalBool(v sql.NullInt64) *bool {
	if !v.Valid {
		return nil
	}
	b := v.Int64 == 1
	return &b
}
