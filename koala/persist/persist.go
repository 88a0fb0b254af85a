// Package persist keeps the scheduler core's state in SQLite: every accepted
// job (its description, options and latest state) and every event. Writes
// are buffered and committed in one transaction per step of the server's
// loop (group commit), before the step's replies go out: a submission the API
// acknowledged is on disk, and after a crash (kill -9) the core restarts from
// what is there.
package persist

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/filelock"
	"github.com/gmark/gmark/internal/sqlitefile"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/workload"
	_ "modernc.org/sqlite"
)

const schemaVersion = 2

const schema = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
	id                 TEXT PRIMARY KEY,   -- the core's id (k1, k2, ...)
	seq                INTEGER NOT NULL,   -- submission order
	key                TEXT UNIQUE,        -- the client's idempotency key
	spec               TEXT NOT NULL,      -- the job, as a workload.jsonl line
	policy             TEXT NOT NULL,
	priority           TEXT NOT NULL,
	runner             TEXT NOT NULL,
	submitted          INTEGER NOT NULL,   -- Unix ns
	state              TEXT NOT NULL,
	reason             TEXT NOT NULL DEFAULT '',
	placement_tries    INTEGER NOT NULL DEFAULT 0,
	claim_tries        INTEGER NOT NULL DEFAULT 0,
	restarts           INTEGER NOT NULL DEFAULT 0,
	placements         INTEGER NOT NULL DEFAULT 0,
	total_placement_ns INTEGER NOT NULL DEFAULT 0,
	l                  REAL NOT NULL,
	jpt                INTEGER, jct INTEGER, jst INTEGER, orig_jst INTEGER,
	ftt_ns             INTEGER NOT NULL DEFAULT 0,
	start              INTEGER, "end" INTEGER,
	sites              TEXT NOT NULL DEFAULT '', -- comma-separated, last placement
	deadline_opts      TEXT NOT NULL DEFAULT ''  -- the job's own deadline policy and L_p: "POLICY;L" (version 2)
);
CREATE TABLE IF NOT EXISTS events (
	seq  INTEGER PRIMARY KEY,  -- the core's event sequence number
	time INTEGER NOT NULL,     -- Unix ns, core time
	kind TEXT NOT NULL,
	job  TEXT,
	data TEXT NOT NULL         -- the event as JSON
);
`

// Store is the core's database.
type Store struct {
	db      *sql.DB
	pending []core.Event
	dirty   map[string]bool
	jobs    func(id string) (*core.Job, bool)
	stmts   *statements
	unlock  func() // gives up PATH.lock
}

// statements are prepared once: preparing them in every commit costs as much
// as the commit's writes.
type statements struct {
	insEvent, upsertJob, setMeta *sql.Stmt
}

// ErrInUse is Open's error for a state another process has open: two
// schedulers on one state would both restore and run its jobs.
var ErrInUse = errors.New("the state is in use by another scheduler")

// what names the state in errors.
const what = "the scheduler's state"

// Check refuses, writing nothing, a state Open would refuse for its kind
// or its first bytes (sqlitefile.Check): gmark koala serve checks it before
// it writes the token beside it.
func Check(path string) error { return sqlitefile.Check(path, what) }

// Open opens (creating if needed) the database at path, for this process
// alone: it holds the file's lock (filelock.ForFile: REAL_PATH.lock, under
// whatever name the file is given) until Close (the kernel drops it on
// kill -9). A state with more than one hard link is refused
// (filelock.ErrLinked).
func Open(path string) (st *Store, err error) {
	release, err := filelock.ForFile(path, ".lock")
	var busy *filelock.BusyError
	if errors.As(err, &busy) {
		return nil, fmt.Errorf("%s: %w (pid %s): stop it first, or give another state", path, ErrInUse, busy.Pid)
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	// WAL with synchronous=NORMAL: a commit survives the process dying (kill -9)
	// without an fsync per commit. Checkpoints (which do fsync) run every
	// 10,000 pages rather than SQLite's default 1,000, so a stream of small
	// commits is not dominated by them.
	// One connection: one writer; reads share it (the core is
	// single-threaded). Another program's database is refused untouched.
	db, err := sqlitefile.Open(path, what, ownTables,
		"synchronous(NORMAL)", "busy_timeout(5000)", "foreign_keys(ON)", "wal_autocheckpoint(10000)")
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var v string
	err = db.QueryRow(`SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := db.Exec(`INSERT INTO meta(key,value) VALUES('schema_version',?)`, fmt.Sprint(schemaVersion)); err != nil {
			db.Close()
			return nil, err
		}
	case err != nil:
		db.Close()
		return nil, err
	case v == "1":
		// Version 2 adds the jobs' own deadline settings.
		if _, err := db.Exec(`ALTER TABLE jobs ADD COLUMN deadline_opts TEXT NOT NULL DEFAULT '';
			UPDATE meta SET value = '2' WHERE key = 'schema_version'`); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: upgrading the state from version 1: %v", path, err)
		}
	case v != fmt.Sprint(schemaVersion):
		db.Close()
		return nil, fmt.Errorf("%s: schema version %s; this gmark reads version %d", path, v, schemaVersion)
	}
	return &Store{db: db, dirty: map[string]bool{}, unlock: release}, nil
}

// ownTables are the tables of the schema: a state file holding others is
// not the scheduler's (sqlitefile.Open).
var ownTables = []string{"meta", "jobs", "events"}

// Close closes the database.
func (s *Store) Close() error {
	if s.stmts != nil {
		for _, st := range []*sql.Stmt{s.stmts.insEvent, s.stmts.upsertJob, s.stmts.setMeta} {
			st.Close()
		}
	}
	err := s.db.Close()
	s.unlock()
	return err
}

// Attach tells the store how to read the current state of a job when it
// flushes (the core itself, called on the core's goroutine).
func (s *Store) Attach(jobs func(id string) (*core.Job, bool)) { s.jobs = jobs }

// Event buffers an event (core.Sink).
func (s *Store) Event(e *core.Event) {
	s.pending = append(s.pending, *e)
	if e.Job != "" {
		s.dirty[e.Job] = true
	}
}

// Meta reads a value of the meta table.
func (s *Store) Meta(key string) (string, bool, error) {
	var v string
	err := s.db.QueryRow(`SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// SetMeta writes a value of the meta table.
func (s *Store) SetMeta(key, value string) error {
	_, err := s.db.Exec(`INSERT INTO meta(key,value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

func ns(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// Batch is one step's writes, taken from the core's state on the core's
// goroutine (Snapshot) and written on another (Write), so the core goes on
// while SQLite commits.
type Batch struct {
	events   []eventRow
	jobs     []jobRow
	lastTime int64
}

type eventRow struct {
	seq  uint64
	time int64
	kind string
	job  any
	data string
}

type jobRow struct {
	id, spec, policy, priority, runner, state, reason, sites string
	deadlineOpts                                             string
	key                                                      any
	seq                                                      uint64
	submitted                                                int64
	placementTries, claimTries, restarts, placements         int
	totalPlacement, ftt                                      int64
	l                                                        float64
	jpt, jct, jst, origJST, start, end                       any
}

// EachEvent calls fn for every event of the batch, in order, with the JSON
// the database stores (the event stream sends the same bytes).
func (b *Batch) EachEvent(fn func(seq uint64, kind string, data string)) {
	if b == nil {
		return
	}
	for _, e := range b.events {
		fn(e.seq, e.kind, e.data)
	}
}

// Empty tells whether the batch writes nothing.
func (b *Batch) Empty() bool { return b == nil || len(b.events) == 0 }

// Snapshot takes the buffered events and the current state of every job
// they touched. It must run on the core's goroutine.
func (s *Store) Snapshot() (*Batch, error) {
	if len(s.pending) == 0 {
		return nil, nil
	}
	b := &Batch{lastTime: s.pending[len(s.pending)-1].Time.UnixNano()}
	submittedSeq := map[string]uint64{}
	for i := range s.pending {
		e := &s.pending[i]
		data, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		var job any
		if e.Job != "" {
			job = e.Job
		}
		b.events = append(b.events, eventRow{e.Seq, e.Time.UnixNano(), string(e.Kind), job, string(data)})
		if e.Kind == core.EvSubmitted {
			submittedSeq[e.Job] = e.Seq
		}
	}
	for id := range s.dirty {
		j, ok := s.jobs(id)
		if !ok {
			continue
		}
		var key any
		if j.Opts.Key != "" {
			key = j.Opts.Key
		}
		policy := j.Opts.Policy
		r := jobRow{id: j.ID, key: key, spec: string(j.Spec.AppendJSON(nil)), policy: policy,
			priority: j.Opts.Priority.String(), runner: string(j.Opts.Runner), submitted: j.Submitted.UnixNano(),
			seq: submittedSeq[j.ID], state: string(j.State), reason: j.Reason, placementTries: j.PlacementTries,
			claimTries: j.ClaimTries, restarts: j.Restarts, placements: j.Placements,
			totalPlacement: int64(j.TotalPlacementTime), l: j.L, jpt: ns(j.JPT), jct: ns(j.JCT), jst: ns(j.JST),
			origJST: ns(j.OrigJST), ftt: int64(j.FTT), start: ns(j.Start), end: ns(j.End), sites: strings.Join(j.Sites(), ","),
			deadlineOpts: deadlineOpts(j.Opts)}
		b.jobs = append(b.jobs, r)
	}
	s.pending = s.pending[:0]
	clear(s.dirty)
	return b, nil
}

func (s *Store) prepare() error {
	if s.stmts != nil {
		return nil
	}
	st := &statements{}
	var err error
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&st.insEvent, `INSERT INTO events(seq,time,kind,job,data) VALUES(?,?,?,?,?)`},
		// A job's row is written whole: inserted with its first event,
		// replaced (all but seq and spec) as it changes.
		{&st.upsertJob, `INSERT INTO jobs(id,seq,key,spec,policy,priority,runner,submitted,state,reason,placement_tries,
			claim_tries,restarts,placements,total_placement_ns,l,jpt,jct,jst,orig_jst,ftt_ns,start,"end",sites,deadline_opts)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT(id) DO UPDATE SET state=excluded.state, reason=excluded.reason,
			placement_tries=excluded.placement_tries, claim_tries=excluded.claim_tries, restarts=excluded.restarts,
			placements=excluded.placements, total_placement_ns=excluded.total_placement_ns, l=excluded.l,
			jpt=excluded.jpt, jct=excluded.jct, jst=excluded.jst, orig_jst=excluded.orig_jst, ftt_ns=excluded.ftt_ns,
			start=excluded.start, "end"=excluded."end", sites=excluded.sites`},
		{&st.setMeta, `INSERT INTO meta(key,value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`},
	} {
		if *p.stmt, err = s.db.Prepare(p.sql); err != nil {
			return err
		}
	}
	s.stmts = st
	return nil
}

// Write commits a batch in one transaction. Batches must be written in the
// order they were taken.
func (s *Store) Write(b *Batch) error {
	if b.Empty() {
		return nil
	}
	if err := s.prepare(); err != nil {
		return err
	}
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	insEvent, upsert := tx.Stmt(s.stmts.insEvent), tx.Stmt(s.stmts.upsertJob)
	for _, e := range b.events {
		if _, err := insEvent.Exec(e.seq, e.time, e.kind, e.job, e.data); err != nil {
			return fmt.Errorf("event %d: %v", e.seq, err)
		}
	}
	for _, r := range b.jobs {
		if _, err := upsert.Exec(r.id, r.seq, r.key, r.spec, r.policy, r.priority, r.runner, r.submitted, r.state, r.reason,
			r.placementTries, r.claimTries, r.restarts, r.placements, r.totalPlacement, r.l, r.jpt, r.jct, r.jst,
			r.origJST, r.ftt, r.start, r.end, r.sites, r.deadlineOpts); err != nil {
			return fmt.Errorf("job %s: %v", r.id, err)
		}
	}
	if _, err := tx.Stmt(s.stmts.setMeta).Exec("last_time", fmt.Sprint(b.lastTime)); err != nil {
		return err
	}
	return tx.Commit()
}

// Flush snapshots and writes at once (for a single goroutine).
func (s *Store) Flush() error {
	b, err := s.Snapshot()
	if err != nil {
		return err
	}
	return s.Write(b)
}

// LastSeq is the highest event sequence number stored.
func (s *Store) LastSeq() (uint64, error) {
	var seq sql.NullInt64
	err := s.db.QueryRow(`SELECT MAX(seq) FROM events`).Scan(&seq)
	return uint64(seq.Int64), err
}

// Stored is an event as the database holds it.
type Stored struct {
	Seq  uint64
	Data json.RawMessage
}

// Events returns stored events with seq > after, at most limit, in order.
func (s *Store) Events(after uint64, limit int) ([]Stored, error) {
	rows, err := s.db.Query(`SELECT seq, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Stored
	for rows.Next() {
		var e Stored
		var data string
		if err := rows.Scan(&e.Seq, &data); err != nil {
			return nil, err
		}
		e.Data = json.RawMessage(data)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Load reads every stored job, in submission order, for core.Restore.
func (s *Store) Load() ([]core.Saved, error) {
	rows, err := s.db.Query(`SELECT id, key, spec, policy, priority, runner, submitted, state, reason, placement_tries,
		claim_tries, restarts, placements, total_placement_ns, l, jpt, jst, orig_jst, ftt_ns, start, "end", deadline_opts, sites FROM jobs ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []core.Saved
	for rows.Next() {
		var sv core.Saved
		var key sql.NullString
		var spec, policy, priority, runner, state, dopts, sites string
		var submitted, tpl, ftt int64
		var jpt, jst, orig, start, end sql.NullInt64
		if err := rows.Scan(&sv.ID, &key, &spec, &policy, &priority, &runner, &submitted, &state, &sv.Reason,
			&sv.PlacementTries, &sv.ClaimTries, &sv.Restarts, &sv.Placements, &tpl, &sv.L, &jpt, &jst, &orig, &ftt, &start, &end, &dopts, &sites); err != nil {
			return nil, fmt.Errorf("stored job %d (in submission order): %v", len(out)+1, err)
		}
		if sv.Opts.DeadlinePolicy, sv.Opts.DeadlineL, err = parseDeadlineOpts(dopts); err != nil {
			return nil, fmt.Errorf("stored job %s: %v", sv.ID, err)
		}
		j, err := workload.ParseJob([]byte(spec))
		if err != nil {
			return nil, fmt.Errorf("stored job %s: %v", sv.ID, err)
		}
		sv.Spec = j
		sv.Opts.Key = key.String
		sv.Opts.Policy = policy
		if sv.Opts.Priority, err = core.ParsePriority(priority); err != nil {
			return nil, fmt.Errorf("stored job %s: %v", sv.ID, err)
		}
		if sv.Opts.Runner, err = core.ParseRunner(runner); err != nil {
			return nil, fmt.Errorf("stored job %s: %v", sv.ID, err)
		}
		sv.State = core.State(state)
		sv.Submitted = time.Unix(0, submitted)
		sv.TotalPlacementTime, sv.FTT = time.Duration(tpl), time.Duration(ftt)
		sv.JPT, sv.JST, sv.OrigJST = fromNS(jpt), fromNS(jst), fromNS(orig)
		sv.Start, sv.End = fromNS(start), fromNS(end)
		if sites != "" {
			sv.Sites = strings.Split(sites, ",")
		}
		out = append(out, sv)
	}
	return out, rows.Err()
}

func fromNS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.Unix(0, v.Int64)
}

// deadlineOpts is how the jobs table keeps a job's own deadline settings:
// "POLICY;L", or "" when it has none.
func deadlineOpts(o core.Options) string {
	if o.DeadlinePolicy == "" && o.DeadlineL == 0 {
		return ""
	}
	return o.DeadlinePolicy + ";" + strconv.FormatFloat(o.DeadlineL, 'g', -1, 64)
}

func parseDeadlineOpts(s string) (string, float64, error) {
	if s == "" {
		return "", 0, nil
	}
	policy, l, ok := strings.Cut(s, ";")
	v, err := strconv.ParseFloat(l, 64)
	if !ok || err != nil {
		return "", 0, fmt.Errorf("deadline settings %q are not POLICY;L", s)
	}
	return policy, v, nil
}
