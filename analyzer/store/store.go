// Package store is gmark's results store: one SQLite file holding projects,
// scenarios, runs, their jobs and events, append-only annotations, and the
// provenance of every run, linked by run id. docs/store.md documents the
// schema column by column.
//
// The store keeps test data immutable twice over: this API only inserts, and
// SQLite triggers reject any UPDATE or DELETE on every table, so neither a bug
// here nor a hand-written query can rewrite what a run recorded. A job's row
// is written once, when its outcome is final; until then what happens to it
// is a stream of events, and its submission is recorded before the submit
// call (submissions) and after it (submission_results).
//
// The database runs in WAL mode with a busy timeout, written by one
// connection (one writer), and carries its schema version in PRAGMA
// user_version; Open migrates an older file forward and refuses a newer one.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gmark/gmark/internal/filelock"
	"github.com/gmark/gmark/internal/sqlitefile"
	"modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is an open results database.
type Store struct {
	db       *sql.DB
	path     string
	readOnly bool
	version  int // the file's schema version when opened (what its reads may ask for)
	stmts    map[string]*sql.Stmt
}

// BusyTimeoutMS is how long a statement waits for a lock held by another
// process (a report reading while a run writes) before failing.
const BusyTimeoutMS = 10000

// ErrDamaged is returned by Open and OpenReadOnly for a file that is not a
// sound SQLite database: corrupted pages, or not a database at all.
var ErrDamaged = errors.New("damaged store")

// ErrNotFile is returned by Open and OpenReadOnly for a path that is not a
// regular file: a results store must be a SQLite file.
var ErrNotFile = errors.New("a results store must be a SQLite file")

// Open opens or creates the store at path for writing and migrates it to
// SchemaVersion. It refuses a path that is not a regular file (a directory,
// a FIFO, a device) and, before writing anything, a damaged file: SQLite's
// quick check must pass.
func Open(path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	if err := checkRegular(path, true); err != nil {
		return nil, err
	}
	// SQLite keeps its journal beside the name it is given, and a run's lock
	// is the file's: a store of several names is refused (exit 2).
	if err := filelock.CheckLinks(path); err != nil {
		return nil, err
	}
	s, err := open(path, false)
	if err != nil {
		return nil, err
	}
	if err := s.quickCheck(); err != nil {
		s.db.Close()
		return nil, err
	}
	if err := s.migrate(); err != nil {
		s.db.Close()
		return nil, err
	}
	s.version = SchemaVersion
	if err := s.prepare(); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// OpenReadOnly opens an existing store for reading only, as reports do while a
// run may still be writing it. It fails on a missing file or a schema newer
// than this gmark knows.
func OpenReadOnly(path string) (*Store, error) {
	if err := checkRegular(path, false); err != nil {
		return nil, err
	}
	s, err := open(path, true)
	if err != nil {
		return nil, err
	}
	v, foreign, err := schemaState(s.db)
	switch {
	case err == nil && v > SchemaVersion:
		err = fmt.Errorf("store: %s has schema version %d, newer than this gmark's %d; use a newer gmark", path, v, SchemaVersion)
	case err == nil && v == 0: // no gmark schema: nothing to read
		if err = notAStore(path, foreign); err == nil {
			err = fmt.Errorf("store: %s: %w: %w (gmark submit, gmark run, gmark koala simulate --db and gmark sim run make one)", path, ErrNotStore, ErrEmpty)
		}
		s.db.Close()
		return nil, err
	}
	if err != nil {
		s.db.Close()
		return nil, openError(path, err)
	}
	s.version = v
	return s, nil
}

// How a read-only store meets SQLite's WAL, whose readers need the -wal and
// -shm files beside the database: a connection opened read-only creates
// them but, unlike a read-write one, never removes them when it is the last
// to close, and cannot create them in a directory it may not write.
type readAccess int

const (
	// readShared: the file and its directory are writable, so a writer may
	// be at work or may start. The reader opens the file as SQLite's
	// writers do and refuses every write itself (PRAGMA query_only, and
	// Write): it shares the WAL with the writer and, when it is the last
	// connection to close, SQLite removes -wal and -shm as it always does.
	readShared readAccess = iota
	// readImmutable: the file or its directory is not writable and there is
	// no -wal, so no writer is at work and none can start (it could not
	// create the -wal): the file is read as an immutable file, with no
	// locks, no -wal and no -shm.
	readImmutable
	// readWAL: not writable, but a -wal is there (a writer that may write
	// the file is at work, or one was killed): read-only WAL access, which
	// needs the -shm to exist or be creatable.
	readWAL
)

func readMode(path string) readAccess {
	real, err := filepath.EvalSymlinks(path) // SQLite puts -wal beside the link's target
	if err != nil {
		real = path
	}
	if writable(real) && writable(filepath.Dir(real)) {
		return readShared
	}
	if _, err := os.Lstat(real + "-wal"); errors.Is(err, os.ErrNotExist) {
		return readImmutable
	}
	return readWAL
}

// checkRegular refuses a store path that is not a regular file (after its
// symbolic links): SQLite would block on a FIFO, write into a device, or
// fail obscurely on a directory. A missing file is fine when it may be
// created.
func checkRegular(path string, mayCreate bool) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && mayCreate:
		return nil
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("store: %s is a loop of symbolic links (%w); give the path of a results file", path, ErrNotFile)
	case err != nil:
		return fmt.Errorf("store: %w", err)
	case fi.IsDir():
		return fmt.Errorf("store: %s is a directory (%w); give the path of a results file (e.g. %s)", path, ErrNotFile, filepath.Join(path, "results.db"))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("store: %s is not a regular file (%s): %w", path, fi.Mode().Type(), ErrNotFile)
	}
	return nil
}

// quickCheck runs SQLite's quick check (the structure of every page, not
// the consistency of indexes with their tables, which the full
// integrity_check would add at several times the cost) and refuses a
// damaged file before anything is written to it.
func (s *Store) quickCheck() error {
	rows, err := s.db.Query("PRAGMA quick_check(10)")
	if err != nil {
		return openError(s.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return openError(s.path, err)
		}
		if line != "ok" {
			problems = append(problems, strings.ReplaceAll(line, "\n", " "))
		}
	}
	if err := rows.Err(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("store: %s: %w (SQLite's quick check: %s); nothing was written to it: restore it from a copy, or give --db a new file", s.path, ErrDamaged, strings.Join(problems, "; "))
	}
	return nil
}

// openError explains SQLite's errors about a damaged or foreign file.
// ErrNotStore is the error of opening a SQLite database that gmark did not
// make: one without gmark's schema (PRAGMA user_version 0), read, or one
// with tables of its own, read or written (gmark would add its tables to
// another program's database).
var ErrNotStore = errors.New("not a gmark results store")

// ErrEmpty is OpenReadOnly's error (beside ErrNotStore) for a database
// with no table at all: a file made empty, or a store whose making was cut
// short (its process killed before the schema's first commit), which
// holds no run.
var ErrEmpty = errors.New("an empty database")

// schemaState is the file's schema version and, when it is 0 (no gmark
// schema), its tables, for notAStore. Both are read in one transaction:
// read one after the other, a store another process is creating could show
// version 0, then the tables that process just made, and pass for another
// program's database.
func schemaState(db *sql.DB) (version int, tables string, err error) {
	tx, err := db.Begin()
	if err != nil {
		return 0, "", err
	}
	defer tx.Rollback()
	if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != 0 {
		return version, "", err
	}
	tables, err = sqlitefile.ForeignTables(tx, nil)
	return version, tables, err
}

// notAStore refuses a database without gmark's schema that has tables of
// its own; an empty one (a new or zero-length file) it leaves to the
// caller.
func notAStore(path, names string) error {
	if names == "" {
		return nil
	}
	return fmt.Errorf("store: %s: %w: a SQLite database with tables of its own (%s); give --db another file", path, ErrNotStore, names)
}

func openError(path string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("store: %s: %w (%v): restore it from a copy, or give --db a new file", path, ErrDamaged, err)
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("store: %s: %w: it is not a SQLite database (%v)", path, ErrDamaged, err)
		}
	}
	return fmt.Errorf("store: %s: %w", path, err)
}

func open(path string, readOnly bool) (*Store, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeoutMS))
	q.Add("_pragma", "foreign_keys(1)")
	if readOnly {
		switch readMode(path) {
		case readShared:
			q.Set("mode", "rw")
			q.Add("_pragma", "query_only(1)")
		case readImmutable:
			q.Set("mode", "ro")
			q.Set("immutable", "1")
		default:
			q.Set("mode", "ro")
		}
	} else {
		// NORMAL is durable against a crash of the writing process (kill -9):
		// a committed transaction is in the WAL file. Only an operating
		// system crash or power loss can take the last commits.
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Set("_txlock", "immediate")
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	// One connection: one writer, and statements see each other's writes.
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	if !readOnly {
		// Before anything writes (WAL mode changes the file's header):
		// another program's database is left as it is.
		v, foreign, err := schemaState(db)
		if err != nil {
			err = openError(path, err)
		} else if v == 0 {
			err = notAStore(path, foreign)
		}
		if err != nil {
			db.Close()
			return nil, err
		}
		if err := setWAL(db); err != nil {
			db.Close()
			return nil, openError(path, err)
		}
	}
	return &Store{db: db, path: path, readOnly: readOnly}, nil
}

// setWAL puts the file in WAL mode, which the file then keeps. Of several
// processes creating the same store, all but one find the change already
// made, or race it: SQLite answers the loser with SQLITE_BUSY at once,
// without waiting on the busy timeout (its read lock cannot wait for the
// write lock the change needs, as that could deadlock), so the change is
// retried here for as long as the busy timeout.
func setWAL(db *sql.DB) error {
	deadline := time.Now().Add(BusyTimeoutMS * time.Millisecond)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var mode string
		err := db.QueryRow("PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil && mode != "wal" {
			return fmt.Errorf("journal mode is %q, not wal (is the file on a file system without shared memory?)", mode)
		}
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}

// isBusy tells whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Path is the file the store was opened from.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	for _, st := range s.stmts {
		st.Close()
	}
	return s.db.Close()
}

// DB gives read access to the database for ad-hoc SQL (reports, tests).
// Writes through it are refused by the triggers, except inserts, which
// bypass this package's checks: use Write.
func (s *Store) DB() *sql.DB { return s.db }

// SchemaVersion reads the file's schema version.
func (s *Store) SchemaVersion() (int, error) {
	var v int
	err := s.db.QueryRow("PRAGMA user_version").Scan(&v)
	return v, err
}

// JournalMode reads the journal mode ("wal").
func (s *Store) JournalMode() (string, error) {
	var m string
	err := s.db.QueryRow("PRAGMA journal_mode").Scan(&m)
	return m, err
}

// migrate applies the migrations the file lacks, each in its own transaction
// together with the version bump, so a crash leaves the file at a version.
func (s *Store) migrate() error {
	for {
		done, err := s.migrateStep()
		if done || err != nil {
			return err
		}
	}
}

// migrateStep applies the next migration the file lacks, if any. The version
// is read inside the write transaction (BEGIN IMMEDIATE, see open), not
// before it: of two processes creating the same store, the second then
// waits for the first's migration and finds it done instead of repeating it.
func (s *Store) migrateStep() (done bool, err error) {
	tx, err := s.db.Begin()
	if err != nil {
		return false, fmt.Errorf("store: migrate %s: %w", s.path, err)
	}
	defer func() {
		if err != nil || done {
			tx.Rollback()
		}
	}()
	var v int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return false, fmt.Errorf("store: %s: %w", s.path, err)
	}
	switch {
	case v > SchemaVersion:
		return false, fmt.Errorf("store: %s has schema version %d, newer than this gmark's %d; use a newer gmark", s.path, v, SchemaVersion)
	case v == SchemaVersion:
		return true, nil
	}
	if _, err := tx.Exec(migrations[v]); err != nil {
		return false, fmt.Errorf("store: migrate %s to version %d: %w", s.path, v+1, err)
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, fmt.Errorf("store: migrate %s to version %d: %w", s.path, v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: migrate %s to version %d: %w", s.path, v+1, err)
	}
	return false, nil
}

// Write runs fn in one write transaction: everything fn inserts is committed
// together or not at all.
func (s *Store) Write(ctx context.Context, fn func(*Tx) error) error {
	if s.readOnly {
		return errors.New("store: opened read-only")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	t := &Tx{tx: tx, s: s, ctx: ctx}
	if err := fn(t); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// nullInt maps 0 to NULL, for times (Unix nanoseconds; 0 is "unknown") and
// optional counts.
func nullInt(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

// nullIntPtr maps nil to NULL, for values where 0 is meaningful (exit status).
func nullIntPtr(v *int) any {
	if v == nil {
		return nil
	}
	return int64(*v)
}

func fromNull(n sql.NullInt64) int64 {
	if !n.Valid {
		return 0
	}
	return n.Int64
}

func ptrFromNull(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
