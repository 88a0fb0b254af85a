package metaqueue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gmark/gmark/internal/filelock"
	"github.com/gmark/gmark/internal/sqlitefile"
	"github.com/gmark/gmark/placeholder/site"
	_ "modernc.org/sqlite"
)

const schemaVersion = 1

// The metaqueue's database. Times are Unix nanoseconds (0: unknown).
const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS groups (
	name    TEXT PRIMARY KEY,
	policy  TEXT NOT NULL,
	sites   TEXT NOT NULL,            -- JSON list of site specs
	created INTEGER NOT NULL,
	stopped INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS jobs (
	id       INTEGER PRIMARY KEY,     -- insertion order (the FCFS key)
	grp      TEXT NOT NULL,
	key      TEXT,
	command  TEXT NOT NULL,
	priority INTEGER NOT NULL,
	prereqs  TEXT NOT NULL,           -- JSON list of prerequisite ids
	state    TEXT NOT NULL,
	retries  INTEGER NOT NULL,
	added    INTEGER NOT NULL,
	attempt  INTEGER NOT NULL,
	exit     INTEGER,
	reason   TEXT NOT NULL,
	site     TEXT NOT NULL            -- the site it is pinned to ('' for any)
);
CREATE TABLE IF NOT EXISTS placeholders (
	id        INTEGER PRIMARY KEY,    -- the metaqueue id
	grp       TEXT NOT NULL,
	site      TEXT NOT NULL,
	mode      TEXT NOT NULL,
	host      TEXT NOT NULL,
	local_id  TEXT NOT NULL,          -- Slurm job id, or pid on a zinf site
	state     TEXT NOT NULL,
	end_why   TEXT NOT NULL,
	submitted INTEGER NOT NULL,
	started   INTEGER NOT NULL,
	ended     INTEGER NOT NULL,
	attempt   INTEGER NOT NULL,
	pred      INTEGER NOT NULL,
	seq       INTEGER NOT NULL,
	jobs      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS attempts (
	id          INTEGER PRIMARY KEY,
	job         INTEGER NOT NULL,
	placeholder INTEGER NOT NULL,
	grp         TEXT NOT NULL,
	site        TEXT NOT NULL,
	host        TEXT NOT NULL,
	local_id    TEXT NOT NULL,
	mode        TEXT NOT NULL,
	bound       INTEGER NOT NULL,
	started     INTEGER NOT NULL,
	ended       INTEGER NOT NULL,
	exit        INTEGER,
	outcome     TEXT NOT NULL,
	reason      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_job ON attempts(job);
CREATE TABLE IF NOT EXISTS actions (
	seq         INTEGER PRIMARY KEY,
	time        INTEGER NOT NULL,
	grp         TEXT NOT NULL,
	site        TEXT NOT NULL,
	placeholder INTEGER NOT NULL,
	local_id    TEXT NOT NULL,
	host        TEXT NOT NULL,
	action      TEXT NOT NULL,
	job         INTEGER NOT NULL,
	attempt     INTEGER NOT NULL,
	detail      TEXT NOT NULL
);
`

// ownTables are the tables of the schema: a state file holding others is
// not the metaqueue's (sqlitefile.Open).
var ownTables = []string{"meta", "groups", "jobs", "placeholders", "attempts", "actions"}

// ErrInUse is Open's error for a state another server has open.
var ErrInUse = errors.New("the metaqueue state is in use by another server")

// store is the SQLite file: WAL, synchronous=NORMAL (a commit survives the
// process being killed), one connection, and PATH.lock held while open.
type store struct {
	db     *sql.DB
	unlock func()
	ins    map[string]*sql.Stmt
}

// stateWhat names the state in errors.
const stateWhat = "the metaqueue's state"

// CheckState refuses, writing nothing, a state the server would refuse
// for its kind or its first bytes (sqlitefile.Check): gmark placeholder
// serve checks it before it writes the token beside it.
func CheckState(path string) error { return sqlitefile.Check(path, stateWhat) }

func openStore(path string) (st *store, err error) {
	// The file's lock, whatever name it is given; a state with more than
	// one hard link is refused (filelock.ErrLinked).
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
	db, err := sqlitefile.Open(path, stateWhat, ownTables,
		"synchronous(NORMAL)", "busy_timeout(10000)", "wal_autocheckpoint(10000)")
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
		_, err = db.Exec(`INSERT INTO meta(key,value) VALUES('schema_version',?)`, fmt.Sprint(schemaVersion))
	case err == nil && v != fmt.Sprint(schemaVersion):
		err = fmt.Errorf("schema version %s; this gmark reads version %d", v, schemaVersion)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	st = &store{db: db, unlock: release, ins: map[string]*sql.Stmt{}}
	for name, q := range map[string]string{
		"group":  `INSERT OR REPLACE INTO groups VALUES(?,?,?,?,?)`,
		"job":    `INSERT OR REPLACE INTO jobs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		"ph":     `INSERT OR REPLACE INTO placeholders VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		"att":    `INSERT OR REPLACE INTO attempts VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		"action": `INSERT INTO actions VALUES(?,?,?,?,?,?,?,?,?,?,?)`,
	} {
		if st.ins[name], err = db.Prepare(q); err != nil {
			st.close()
			return nil, err
		}
	}
	return st, nil
}

func (st *store) close() error {
	for _, s := range st.ins {
		s.Close()
	}
	err := st.db.Close()
	st.unlock()
	return err
}

func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNS(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

func exitVal(e *int) any {
	if e == nil {
		return nil
	}
	return *e
}

// commit writes what changed since the last commit, in one transaction.
func (st *store) commit(s *state) error {
	if len(s.dirtyGroups)+len(s.dirtyJobs)+len(s.dirtyAtts)+len(s.dirtyPHs)+len(s.actions) == 0 {
		return nil
	}
	tx, err := st.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins := func(name string, args ...any) error {
		_, err := tx.Stmt(st.ins[name]).Exec(args...)
		return err
	}
	for name := range s.dirtyGroups {
		g := s.groups[name]
		sites, _ := json.Marshal(g.Sites)
		if err := ins("group", g.Name, g.Policy, string(sites), ns(g.Created), g.Stopped); err != nil {
			return err
		}
	}
	for id := range s.dirtyJobs {
		j := s.jobs[id]
		after, _ := json.Marshal(j.After)
		var key any
		if j.Key != "" {
			key = j.Key
		}
		if err := ins("job", j.ID, j.Group, key, j.Command, j.Priority, string(after), j.State, j.Retries, ns(j.Added), j.Attempt, exitVal(j.Exit), j.Reason, j.Site); err != nil {
			return err
		}
	}
	for id := range s.dirtyPHs {
		p := s.phs[id]
		if err := ins("ph", p.ID, p.Group, p.Site, p.Mode, p.Host, p.LocalID, p.State, p.End, ns(p.Submitted), ns(p.Started), ns(p.Ended), p.Attempt, p.Pred, p.Seq, p.Jobs); err != nil {
			return err
		}
	}
	for id := range s.dirtyAtts {
		a := s.atts[id]
		if err := ins("att", a.ID, a.Job, a.Placeholder, a.Group, a.Site, a.Host, a.LocalID, a.Mode, ns(a.Bound), ns(a.Started), ns(a.Ended), exitVal(a.Exit), a.Outcome, a.Reason); err != nil {
			return err
		}
	}
	for _, a := range s.actions {
		if err := ins("action", a.Seq, ns(a.Time), a.Group, a.Site, a.Placeholder, a.LocalID, a.Host, a.Action, a.Job, a.Attempt, a.Detail); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// load reads the state back, and rebuilds what is kept only in memory:
// the eligible queues, prerequisite counts, the counts per state and the
// placeholders' indexes.
func (st *store) load() (*state, error) {
	s := newState()
	if err := st.loadGroups(s); err != nil {
		return nil, err
	}
	if err := st.loadJobs(s); err != nil {
		return nil, err
	}
	if err := st.loadPlaceholders(s); err != nil {
		return nil, err
	}
	if err := st.loadAttempts(s); err != nil {
		return nil, err
	}
	var last sql.NullInt64
	if err := st.db.QueryRow(`SELECT max(seq) FROM actions`).Scan(&last); err != nil {
		return nil, err
	}
	s.nextAct = last.Int64 + 1
	s.clean()
	return s, nil
}

func (st *store) loadGroups(s *state) error {
	rows, err := st.db.Query(`SELECT name, policy, sites, created, stopped FROM groups ORDER BY name`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, policy, sites string
		var created int64
		var stopped bool
		if err := rows.Scan(&name, &policy, &sites, &created, &stopped); err != nil {
			return err
		}
		var specs []site.Spec
		if err := json.Unmarshal([]byte(sites), &specs); err != nil {
			return fmt.Errorf("group %s: sites: %v", name, err)
		}
		// What PutGroup would refuse is refused here too: the state was
		// damaged or edited.
		gs := GroupSpec{Name: name, Policy: policy, Sites: specs}
		if err := gs.check(); err != nil || gs.Policy != policy {
			return fmt.Errorf("stored group %q: %v (policy %q)", name, err, policy)
		}
		s.newGroup(name, policy, gs.Sites, fromNS(created)).Stopped = stopped
	}
	return rows.Err()
}

func (st *store) loadJobs(s *state) error {
	rows, err := st.db.Query(`SELECT id, grp, coalesce(key,''), command, priority, prereqs, state, retries, added, attempt, exit, reason, site FROM jobs ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		j := &Job{}
		var after string
		var added int64
		var exit sql.NullInt64
		if err := rows.Scan(&j.ID, &j.Group, &j.Key, &j.Command, &j.Priority, &after, &j.State, &j.Retries, &added, &j.Attempt, &exit, &j.Reason, &j.Site); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(after), &j.After); err != nil {
			return fmt.Errorf("job %d: after: %v", j.ID, err)
		}
		j.Added = fromNS(added)
		if exit.Valid {
			e := int(exit.Int64)
			j.Exit = &e
		}
		g := s.groups[j.Group]
		if g == nil {
			return fmt.Errorf("job %d: no group %q", j.ID, j.Group)
		}
		switch j.State {
		case Waiting, Bound, Done, Failed, Removed:
		default:
			return fmt.Errorf("job %d: state %q is not one of waiting, bound, done, failed, removed", j.ID, j.State)
		}
		s.jobs[j.ID] = j
		g.jobs = append(g.jobs, j.ID)
		g.counts[j.State]++
		if j.Key != "" {
			g.keys[j.Key] = j.ID
		}
		s.link(j)
		g.push(j)
		s.nextJob = j.ID + 1
	}
	return rows.Err()
}

func (st *store) loadPlaceholders(s *state) error {
	rows, err := st.db.Query(`SELECT id, grp, site, mode, host, local_id, state, end_why, submitted, started, ended, attempt, pred, seq, jobs FROM placeholders ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		p := &Placeholder{}
		var sub, start, end int64
		if err := rows.Scan(&p.ID, &p.Group, &p.Site, &p.Mode, &p.Host, &p.LocalID, &p.State, &p.End, &sub, &start, &end, &p.Attempt, &p.Pred, &p.Seq, &p.Jobs); err != nil {
			return err
		}
		p.Submitted, p.Started, p.Ended = fromNS(sub), fromNS(start), fromNS(end)
		switch p.State {
		case Queued, Executing, Idle, Ended:
		default:
			return fmt.Errorf("placeholder %d: state %q is not one of queued, executing, idle, ended", p.ID, p.State)
		}
		if s.groups[p.Group] == nil {
			return fmt.Errorf("placeholder %d: no group %q", p.ID, p.Group)
		}
		s.phs[p.ID] = p
		s.latest[phKey{p.Group, p.Site, p.LocalID}] = p.ID
		if p.State != Ended {
			s.active[p.ID] = p
		}
		s.nextPH = p.ID + 1
	}
	return rows.Err()
}

func (st *store) loadAttempts(s *state) error {
	rows, err := st.db.Query(`SELECT id, job, placeholder, grp, site, host, local_id, mode, bound, started, ended, exit, outcome, reason FROM attempts ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		a := &Attempt{}
		var bound, start, end int64
		var exit sql.NullInt64
		if err := rows.Scan(&a.ID, &a.Job, &a.Placeholder, &a.Group, &a.Site, &a.Host, &a.LocalID, &a.Mode, &bound, &start, &end, &exit, &a.Outcome, &a.Reason); err != nil {
			return err
		}
		a.Bound, a.Started, a.Ended = fromNS(bound), fromNS(start), fromNS(end)
		if exit.Valid {
			e := int(exit.Int64)
			a.Exit = &e
		}
		switch a.Outcome {
		case Running, Finished, Abandoned, Duplicate:
		default:
			return fmt.Errorf("attempt %d: outcome %q is not one of running, done, abandoned, duplicate", a.ID, a.Outcome)
		}
		if s.jobs[a.Job] == nil || s.phs[a.Placeholder] == nil {
			return fmt.Errorf("attempt %d: job %d or placeholder %d is not in the state", a.ID, a.Job, a.Placeholder)
		}
		s.atts[a.ID] = a
		if j := s.jobs[a.Job]; j != nil {
			j.attempts = append(j.attempts, a.ID)
		}
		s.nextAtt = a.ID + 1
	}
	return rows.Err()
}

// actionsAfter reads the recorded actions of a group after seq (at most n).
func (st *store) actionsAfter(group string, seq int64, n int) ([]Action, error) {
	rows, err := st.db.Query(`SELECT seq, time, grp, site, placeholder, local_id, host, action, job, attempt, detail FROM actions WHERE grp=? AND seq>? ORDER BY seq LIMIT ?`, group, seq, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		var a Action
		var t int64
		if err := rows.Scan(&a.Seq, &t, &a.Group, &a.Site, &a.Placeholder, &a.LocalID, &a.Host, &a.Action, &a.Job, &a.Attempt, &a.Detail); err != nil {
			return nil, err
		}
		a.Time = fromNS(t)
		out = append(out, a)
	}
	return out, rows.Err()
}
