package store

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Read-only query helpers for reports: they read only the columns a report
// needs, stream the rows to a callback instead of building a slice, and share
// repeated strings (types, states, reasons, sites), so that a run of a million
// jobs is read in a second or two.

// JobFacts is the part of a job row that metrics read (metrics.Job
// embeds it). Times are Unix nanoseconds, 0 when unknown (NULL); HasDelay
// tells whether DelayNS is known.
type JobFacts struct {
	ID         string
	Parent     string // the composite job of a task; "" for a top-level job
	Kind       string // unitary or composite
	Type       string
	Processors int    // a co-allocated job: the sum over its components
	Components int    // components asked for (counted in the stored JSON; at least 1)
	Sites      string // where it ran, comma-separated; "" unknown

	ScheduledNS int64
	SubmitNS    int64
	DelayNS     int64
	HasDelay    bool
	StartNS     int64
	EndNS       int64

	State    string // succeeded, failed, cancelled, never-started
	Reason   string
	Attempts int
}

// Composite tells whether the job is a composite job (its tasks are rows
// of their own, with Parent set).
func (j *JobFacts) Composite() bool { return j.Kind == "composite" }

// interner shares equal strings read from many rows.
type interner map[string]string

func (in interner) get(b []byte) string {
	if s, ok := in[string(b)]; ok { // no allocation for the lookup
		return s
	}
	if len(in) > 1<<16 { // too many distinct values: stop sharing
		return string(b)
	}
	s := string(b)
	in[s] = s
	return s
}

// jobsQuery reads a job row as one text of fields separated by US (0x1f):
// modernc's SQLite costs about as much per column read as per row, so one
// column per row reads a run twice as fast as one per field. NULL times
// become empty fields; the components JSON becomes its number of
// components. The free-text reason comes last, its length in bytes first:
// the reason may hold a US, and any other field holding one (gmark never
// writes one, but a store is a file anyone can edit) is then detected, by a
// count of separators, instead of shifting the fields after it.
const jobsQuery = `SELECT concat(octet_length(reason), char(31), job_id, char(31), parent_id, char(31), kind, char(31), type, char(31),
	processors, char(31), (length(components) - length(replace(lower(components), '"site"', ''))) / 6, char(31), sites, char(31),
	scheduled_ns, char(31), submit_ns, char(31), delay_ns, char(31), start_ns, char(31), end_ns, char(31),
	state, char(31), attempts, char(31), reason) FROM jobs %s WHERE run_id = ?`

const jobFields = 15

// ScanJobs calls fn for every job row of a run (top-level jobs, tasks and
// composite jobs). The JobFacts passed to fn is reused between calls: fn
// copies what it keeps. Rows come in the order of the table when the run is
// most of it, else in the order of job ids.
func (s *Store) ScanJobs(runID string, fn func(*JobFacts) error) error {
	hint, err := s.scanHint(runID)
	if err != nil {
		return err
	}
	rows, err := s.db.Query(fmt.Sprintf(jobsQuery, hint), runID)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	in := interner{}
	var j JobFacts
	var line sql.RawBytes
	var f [jobFields][]byte
	for rows.Next() {
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if err := splitJobRow(line, &f); err != nil {
			return fmt.Errorf("store: run %s: %w", runID, err)
		}
		j.ID = string(f[0])
		var n [jobFields]int64
		for _, i := range intFields {
			v, ok := atoi(f[i])
			if !ok {
				return fmt.Errorf("store: run %s, job %s: %s is %q, not a whole number", runID, j.ID, jobFieldNames[i], f[i])
			}
			n[i] = v
		}
		j.Parent, j.Kind, j.Type = in.get(f[1]), in.get(f[2]), in.get(f[3])
		j.Processors, j.Components = int(n[4]), int(max(1, n[5]))
		j.Sites = in.get(f[6])
		j.ScheduledNS, j.SubmitNS, j.DelayNS = n[7], n[8], n[9]
		j.HasDelay = len(f[9]) > 0
		j.StartNS, j.EndNS = n[10], n[11]
		j.State, j.Attempts, j.Reason = in.get(f[12]), int(n[13]), in.get(f[14])
		if err := fn(&j); err != nil {
			return err
		}
	}
	return rows.Err()
}

// scanHint is "NOT INDEXED" when the run's rows are most of the store's
// (a third of the job rows or more; its events are then as many of the
// events): reading the table through beats an index lookup per row.
func (s *Store) scanHint(runID string) (string, error) {
	var n, total int
	if err := s.db.QueryRow(`SELECT count(*) FROM jobs WHERE run_id = ?`, runID).Scan(&n); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	if err := s.db.QueryRow(`SELECT count(*) FROM jobs`).Scan(&total); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	if 3*n >= total {
		return "NOT INDEXED", nil
	}
	return "", nil
}

// errEditedRow is the error of a job row that gmark cannot have written.
var errEditedRow = errors.New("a job row holds a unit separator (0x1f) outside its reason; gmark never writes one there: the store was edited")

// splitJobRow splits a row of jobsQuery into its fields.
func splitJobRow(line []byte, f *[jobFields][]byte) error {
	k := bytes.IndexByte(line, 0x1f)
	if k < 0 {
		return errEditedRow
	}
	n, ok := atoi(line[:k])
	rest := line[k+1:]
	if !ok || n < 0 || n >= int64(len(rest)) || rest[len(rest)-int(n)-1] != 0x1f {
		return errEditedRow
	}
	f[jobFields-1] = rest[len(rest)-int(n):]
	rest = rest[:len(rest)-int(n)-1]
	for i := range jobFields - 2 {
		k := bytes.IndexByte(rest, 0x1f)
		if k < 0 {
			return errEditedRow
		}
		f[i], rest = rest[:k], rest[k+1:]
	}
	if bytes.IndexByte(rest, 0x1f) >= 0 {
		return errEditedRow
	}
	f[jobFields-2] = rest
	return nil
}

// intFields are the positions of jobsQuery's whole-number fields, and
// jobFieldNames name every field for errors.
var (
	intFields     = []int{4, 5, 7, 8, 9, 10, 11, 13}
	jobFieldNames = [jobFields]string{"job_id", "parent_id", "kind", "type", "processors", "components", "sites",
		"scheduled_ns", "submit_ns", "delay_ns", "start_ns", "end_ns", "state", "attempts", "reason"}
)

// atoi reads a decimal int64 as SQLite prints one; empty (NULL) is 0. It
// fails on anything else (a real, text, a value beyond 64 bits), which a
// column declared INTEGER can still hold.
func atoi(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' || v > (1<<63)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	switch {
	case neg && v <= 1<<63:
		return int64(-v), true // -(1<<63) wraps to itself: the least int64
	case !neg && v < 1<<63:
		return int64(v), true
	}
	return 0, false
}

// CountJobs is the number of job rows of a run.
func (s *Store) CountJobs(runID string) (int, error) {
	var n int
	err := s.db.QueryRow(`SELECT count(*) FROM jobs WHERE run_id = ?`, runID).Scan(&n)
	return n, err
}

// SimJobFacts is what a simulated run of the bundled core ('gmark koala
// simulate --db') records of each job in its events' payloads.
type SimJobFacts struct {
	JobID          string
	PlacementNS    int64 // total placement time
	FTTNS          int64 // estimated file transfer time of the last placement
	PlacementTries int
	ClaimTries     int
	Restarts       int
}

// ScanSimJobFacts calls fn with the core's per-job figures of a simulated
// run: the payload of each job's "started" event (or, for a job that never
// started, of its last event), in the order of the events.
//
// The payloads are parsed here (parseSimPayload), not by SQLite's
// json_extract, which cost 15 µs a job. A payload the parser does not take
// (not RFC 8259 JSON, say JSON5, which SQLite reads, or a figure that is
// not a whole number) is left to json_extract, from that event on, so the
// figures are json_extract's whatever the store holds.
func (s *Store) ScanSimJobFacts(runID string, fn func(SimJobFacts) error) error {
	hint, err := s.scanHint(runID)
	if err != nil {
		return err
	}
	where := fmt.Sprintf(simEventsWhere, hint)
	from, err := s.scanSimPayloads(runID, where, fn)
	if err != nil || from == 0 {
		return err
	}
	return s.scanSimJobFactsSQL(runID, where, from, fn)
}

// simEventsWhere are the events that can hold a job's figures: instr, a
// byte search, leaves out the payloads that cannot have the key, before
// any JSON is parsed.
const simEventsWhere = `FROM events %s WHERE run_id = ? AND job_id <> '' AND kind IN ('started', 'failed', 'cancelled')
	AND instr(payload, 'claim_tries') > 0`

// scanSimPayloads is ScanSimJobFacts's fast path. It stops at the first
// payload it cannot parse and returns that event's id (0 when none).
func (s *Store) scanSimPayloads(runID, where string, fn func(SimJobFacts) error) (int64, error) {
	rows, err := s.db.Query(`SELECT id, job_id, payload `+where+` ORDER BY id`, runID)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var id int64
	var job, payload sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &job, &payload); err != nil {
			return 0, fmt.Errorf("store: %w", err)
		}
		v, err := parseSimPayload(payload)
		if err != nil {
			return id, nil
		}
		if !v.set[3] { // json_extract(payload, '$.claim_tries') IS NULL
			continue
		}
		f := SimJobFacts{JobID: string(job), PlacementNS: v.v[0], FTTNS: v.v[1], PlacementTries: int(v.v[2]), ClaimTries: int(v.v[3]), Restarts: int(v.v[4])}
		if err := fn(f); err != nil {
			return 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return 0, nil
}

// scanSimJobFactsSQL reads the figures of the events from id from on
// with json_extract.
func (s *Store) scanSimJobFactsSQL(runID, where string, from int64, fn func(SimJobFacts) error) error {
	rows, err := s.db.Query(`SELECT job_id,
		COALESCE(json_extract(payload, '$.placement_ns'), 0), COALESCE(json_extract(payload, '$.ftt_ns'), 0),
		COALESCE(json_extract(payload, '$.placement_tries'), 0), COALESCE(json_extract(payload, '$.claim_tries'), 0),
		COALESCE(json_extract(payload, '$.restarts'), 0) `+where+`
		AND id >= ? AND json_extract(payload, '$.claim_tries') IS NOT NULL ORDER BY id`, runID, from)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var f SimJobFacts
		if err := rows.Scan(&f.JobID, &f.PlacementNS, &f.FTTNS, &f.PlacementTries, &f.ClaimTries, &f.Restarts); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CoreEventTime is one event of the bundled core about a job, on the core's
// clock, as the koala target recorded it: the "queued" and "started" events
// carry the core's "submitted" and "started" events in their detail, and the
// other core events (placed, claim_try, claimed, replaced, …) are annotations
// of kind "koala-event" keyed by the submission key.
type CoreEventTime struct {
	JobID   string // "" when only the key is known
	Key     string // submission key, for annotations
	Kind    string // the core's kind: submitted, placed, claim_try, claimed, started, finished, replaced, …
	CoreRFC string // the core's time, RFC 3339
	FTTNS   int64  // placed: the estimated file transfer time
	OK      bool   // claim_try: every component claimed
}

// ScanCoreEvents calls fn for the bundled core's events of a live koala run:
// the job events whose payload has the core's event as detail, then the
// koala-event annotations.
func (s *Store) ScanCoreEvents(runID string, fn func(CoreEventTime) error) error {
	hint, err := s.scanHint(runID)
	if err != nil {
		return err
	}
	rows, err := s.db.Query(`SELECT job_id, '', COALESCE(json_extract(payload, '$.detail.kind'), ''),
		COALESCE(json_extract(payload, '$.detail.time'), ''), 0, 0
		FROM events `+hint+` WHERE run_id = ? AND job_id <> '' AND instr(payload, 'detail') > 0 AND json_extract(payload, '$.detail.time') IS NOT NULL
		UNION ALL
		SELECT '', key, COALESCE(json_extract(value, '$.kind'), ''), COALESCE(json_extract(value, '$.time'), ''),
		COALESCE(json_extract(value, '$.ftt_ns'), 0), COALESCE(json_extract(value, '$.ok'), 0)
		FROM annotations WHERE run_id = ? AND kind = 'koala-event' AND json_valid(value)`, runID, runID)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e CoreEventTime
		var ok int
		if err := rows.Scan(&e.JobID, &e.Key, &e.Kind, &e.CoreRFC, &e.FTTNS, &ok); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		e.OK = ok != 0
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// RunExists tells whether a run is in the store.
func (s *Store) RunExists(id string) (bool, error) {
	var n int
	err := s.db.QueryRow(`SELECT count(*) FROM runs WHERE id = ?`, id).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	return n > 0, nil
}

// ComponentStart is when one component of a job started, as its target
// recorded it: a component-start annotation (record.ComponentStart, what
// every co-allocating target writes), or, in a run recorded before those,
// the Slurm target's parts (the Slurm records in a job's final event,
// detail.slurm, with the other components of a heterogeneous job in het)
// or the bundled core's component_start events (koala-event annotations).
type ComponentStart struct {
	JobID     string // "" when only the key is known (the core's events)
	Key       string // the submission key (the core's events, the records)
	Attempt   int    // the Slurm target's events
	Component int    // the core's component index; the Slurm target's order
	Source    string // "record", or in older runs "slurm" or "koala"
	UnixS     int64  // slurm: Slurm's start_time, Unix seconds (0: did not start)
	CoreRFC   string // koala: the core's time, RFC 3339
	Record    string // record: the annotation's value (record.ComponentStart as JSON)
}

// ScanComponentStarts calls fn for every component start the run recorded:
// its component-start annotations first, then those of the Slurm target's
// final events and the core's component_start events (what a run recorded
// before the annotations has; a run begun by such a gmark and resumed by
// this one has both, job by job). The reader prefers a job's records.
func (s *Store) ScanComponentStarts(runID string, fn func(ComponentStart) error) error {
	if _, err := s.scanComponentRecords(runID, fn); err != nil {
		return err
	}
	if err := s.scanSlurmParts(runID, fn); err != nil {
		return err
	}
	rows, err := s.db.Query(`SELECT key, COALESCE(json_extract(value, '$.component'), 0), COALESCE(json_extract(value, '$.time'), '')
		FROM annotations WHERE run_id = ? AND kind = 'koala-event' AND json_valid(value) AND json_extract(value, '$.kind') = 'component_start'`, runID)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		c := ComponentStart{Source: "koala"}
		if err := rows.Scan(&c.Key, &c.Component, &c.CoreRFC); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return rows.Err()
}

// scanComponentRecords calls fn for each of the run's component-start
// annotations (record.AnnotationComponentStart: the store is below the
// record and spells the kind out) and counts them.
func (s *Store) scanComponentRecords(runID string, fn func(ComponentStart) error) (int, error) {
	rows, err := s.db.Query(`SELECT key, value FROM annotations WHERE run_id = ? AND kind = 'component-start' ORDER BY id`, runID)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		c := ComponentStart{Source: "record"}
		if err := rows.Scan(&c.Key, &c.Record); err != nil {
			return n, fmt.Errorf("store: %w", err)
		}
		n++
		if err := fn(c); err != nil {
			return n, err
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("store: %w", err)
	}
	return n, nil
}

// scanSlurmParts calls fn for the component starts of the Slurm target's
// final events (runs recorded before the component-start annotations).
func (s *Store) scanSlurmParts(runID string, fn func(ComponentStart) error) error {
	hint, err := s.scanHint(runID)
	if err != nil {
		return err
	}
	rows, err := s.db.Query(`SELECT job_id, attempt, json_extract(payload, '$.detail.slurm') FROM events `+hint+`
		WHERE run_id = ? AND job_id <> '' AND instr(payload, 'slurm') > 0 AND json_valid(payload)
		AND json_type(payload, '$.detail.slurm') = 'array'`, runID)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	type part struct {
		Record *struct {
			Start int64 `json:"start_time"`
		} `json:"record"`
		Het []struct {
			Start int64 `json:"start_time"`
		} `json:"het"`
	}
	var starts []ComponentStart
	for rows.Next() {
		var job, detail string
		var attempt int
		if err := rows.Scan(&job, &attempt, &detail); err != nil {
			rows.Close()
			return fmt.Errorf("store: %w", err)
		}
		var parts []part
		if json.Unmarshal([]byte(detail), &parts) != nil {
			continue
		}
		n := 0
		add := func(start int64) {
			starts = append(starts, ComponentStart{JobID: job, Attempt: attempt, Component: n, Source: "slurm", UnixS: start})
			n++
		}
		for _, p := range parts {
			if p.Record == nil {
				add(0)
				continue
			}
			add(p.Record.Start)
			for _, h := range p.Het {
				add(h.Start)
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	for _, c := range starts {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// RunCounts is what a run's records count: the final states of its
// top-level jobs and of its tasks, and the outcomes of its submit calls.
type RunCounts struct {
	Jobs         map[string]int // top-level job rows by state
	Tasks        map[string]int // task rows by state
	Submitted    int            // submission results that are accepted submissions
	SubmitFailed int            // failed submission results after at least one try
}

// CountRun counts a run's job rows by state and its submission results, in
// SQL: the counts of a run of any length without reading its rows.
func (s *Store) CountRun(runID string) (RunCounts, error) {
	c := RunCounts{Jobs: map[string]int{}, Tasks: map[string]int{}}
	rows, err := s.db.Query(`SELECT parent_id = '', state, count(*) FROM jobs WHERE run_id = ? GROUP BY 1, 2`, runID)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var top bool
		var state string
		var n int
		if err := rows.Scan(&top, &state, &n); err != nil {
			return c, err
		}
		if top {
			c.Jobs[state] += n
		} else {
			c.Tasks[state] += n
		}
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	err = s.db.QueryRow(`SELECT coalesce(sum(ok = 1), 0), coalesce(sum(ok = 0 AND tries > 0), 0)
		FROM submission_results WHERE run_id = ?`, runID).Scan(&c.Submitted, &c.SubmitFailed)
	return c, err
}

// HasTasks tells whether some job row of a run is a task of a composite
// job (a lookup in the parent index, not a scan).
func (s *Store) HasTasks(runID string) (bool, error) {
	var has bool
	if err := s.db.QueryRow(`SELECT EXISTS(SELECT 1 FROM jobs WHERE run_id = ? AND parent_id > '')`, runID).Scan(&has); err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	return has, nil
}
