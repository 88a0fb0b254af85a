package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
	_ "modernc.org/sqlite"
)

func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// seed writes a project, scenario, run with provenance, one submission with
// its result, a job, an event and an annotation.
func seed(t testing.TB, s *Store) {
	t.Helper()
	ctx := context.Background()
	err := s.Write(ctx, func(tx *Tx) error {
		pid, err := tx.EnsureProject("p", "a project", 1)
		if err != nil {
			return err
		}
		sid, err := tx.EnsureScenario(pid, "s", "", 2)
		if err != nil {
			return err
		}
		seedVal := uint64(7)
		p := Provenance{RunID: "r1", GmarkVersion: "devel", Host: "h", CommandLine: `["gmark","submit"]`, Seed: &seedVal, Target: "dryrun"}
		if err := tx.InsertRun(Run{ID: "r1", ScenarioID: sid, CreatedNS: 3, WorkloadDir: "w", Target: "dryrun", ProvenanceSHA256: p.ComputeDigest()}); err != nil {
			return err
		}
		if err := tx.InsertProvenance(p); err != nil {
			return err
		}
		if err := tx.InsertSubmission(Submission{Key: "r1/1-0/1", RunID: "r1", JobID: "1-0", Attempt: 1, ScheduledNS: 10, IntentNS: 5}); err != nil {
			return err
		}
		zero := 0
		if err := tx.InsertResult(Result{Key: "r1/1-0/1", RunID: "r1", OK: true, SubmitNS: 11, DelayNS: 1, DoneNS: 12, TargetID: "x", ExitStatus: &zero, Tries: 1}); err != nil {
			return err
		}
		if err := tx.InsertJob(Job{RunID: "r1", JobID: "1-0", Kind: "unitary", State: Succeeded, SubmitNS: 11, StartNS: 20, EndNS: 30, ExitStatus: &zero, Attempts: 1}); err != nil {
			return err
		}
		if err := tx.InsertEvent(Event{RunID: "r1", JobID: "1-0", Attempt: 1, TimeNS: 20, Kind: "started"}); err != nil {
			return err
		}
		return tx.InsertAnnotation(Annotation{RunID: "r1", TimeNS: 21, Kind: "cluster-status", Key: "alpha", Value: "running=1", Source: "test"})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMigrateFromEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.SchemaVersion()
	if err != nil || v != SchemaVersion {
		t.Fatalf("version %d %v, want %d", v, err, SchemaVersion)
	}
	mode, err := s.JournalMode()
	if err != nil || mode != "wal" {
		t.Fatalf("journal mode %q %v, want wal", mode, err)
	}
	seed(t, s)
	s.Close()

	// Reopening migrates nothing and keeps the data.
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	jobs, err := s.Jobs("r1")
	if err != nil || len(jobs) != 1 || jobs[0].EndNS != 30 || *jobs[0].ExitStatus != 0 {
		t.Fatalf("jobs after reopen: %+v %v", jobs, err)
	}
	if err := s.VerifyProvenance("r1"); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(path)
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer store: %v", err)
	}
}

// Every table refuses UPDATE and DELETE, whoever sends them.
func TestImmutable(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	stmts := []string{
		`UPDATE jobs SET state = 'failed'`,
		`DELETE FROM jobs`,
		`UPDATE events SET kind = 'x'`,
		`DELETE FROM events`,
		`UPDATE annotations SET value = 'x'`,
		`DELETE FROM annotations`,
		`UPDATE runs SET target = 'x'`,
		`DELETE FROM provenance`,
		`UPDATE provenance SET host = 'elsewhere'`,
		`UPDATE submissions SET attempt = 2`,
		`DELETE FROM submission_results`,
		`UPDATE projects SET name = 'q'`,
		`DELETE FROM scenarios`,
	}
	for _, q := range stmts {
		_, err := s.DB().Exec(q)
		if err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("%s: err = %v, want an immutability error", q, err)
		}
	}
	jobs, _ := s.Jobs("r1")
	if len(jobs) != 1 || jobs[0].State != Succeeded {
		t.Fatalf("job changed: %+v", jobs)
	}
}

// A key is submitted at most once: a second intent under the same key fails,
// and the whole transaction with it.
func TestSubmissionKeyUnique(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	err := s.Write(context.Background(), func(tx *Tx) error {
		if err := tx.InsertEvent(Event{RunID: "r1", TimeNS: 1, Kind: "x"}); err != nil {
			return err
		}
		return tx.InsertSubmission(Submission{Key: "r1/1-0/1", RunID: "r1", JobID: "1-0", Attempt: 1})
	})
	if err == nil {
		t.Fatal("duplicate key accepted")
	}
	ev, _ := s.Events("r1", "")
	if len(ev) != 1 {
		t.Fatalf("rolled-back event kept: %d events", len(ev))
	}
}

func TestProvenanceTamperDetected(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	ps, err := s.Provenance("r1")
	if err != nil || len(ps) != 1 || *ps[0].Seed != 7 {
		t.Fatalf("%+v %v", ps, err)
	}
	// A copy whose provenance was edited (triggers dropped first, as a
	// determined editor would) no longer verifies.
	for _, q := range []string{`DROP TRIGGER provenance_no_update`, `UPDATE provenance SET host = 'elsewhere'`} {
		if _, err := s.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.VerifyProvenance("r1"); err == nil {
		t.Fatal("tampered provenance verified")
	}
}

func TestRejectsBadRows(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	cases := map[string]func(tx *Tx) error{
		"bad state":   func(tx *Tx) error { return tx.InsertJob(Job{RunID: "r1", JobID: "z", Kind: "unitary", State: "weird"}) },
		"bad kind":    func(tx *Tx) error { return tx.InsertJob(Job{RunID: "r1", JobID: "z", Kind: "odd", State: Failed}) },
		"unknown run": func(tx *Tx) error { return tx.InsertEvent(Event{RunID: "nope", Kind: "x"}) },
		"run id":      func(tx *Tx) error { return tx.InsertRun(Run{ID: "a/b"}) },
		"attempt 0": func(tx *Tx) error {
			return tx.InsertSubmission(Submission{Key: "k", RunID: "r1", JobID: "z"})
		},
		"orphan annotation": func(tx *Tx) error { return tx.InsertAnnotation(Annotation{Kind: "k"}) },
	}
	for name, fn := range cases {
		if err := s.Write(context.Background(), fn); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	seed(t, w)
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	runs, err := r.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("%v %v", runs, err)
	}
	if err := r.Write(context.Background(), func(*Tx) error { return nil }); err == nil {
		t.Fatal("write through a read-only store")
	}
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "missing.db")); err == nil {
		t.Fatal("opened a missing file")
	}
}

// seededFile writes a store with seed's rows, closes it and returns its
// path and the root page of its jobs table.
func seededFile(t testing.TB) (path string, jobsRoot int64) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "results.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, s)
	if err := s.DB().QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 'jobs'`).Scan(&jobsRoot); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, jobsRoot
}

// A store with corrupted pages was written to (exit 0)
// and only the report noticed. Open runs SQLite's quick check and refuses
// the file with ErrDamaged, leaving it byte for byte as it was.
func TestOpenRefusesDamagedFile(t *testing.T) {
	const pageSize = 4096
	cases := []struct {
		name    string
		corrupt func(b []byte, jobsRoot int64) []byte
		want    string
	}{
		{"jobs table page", func(b []byte, root int64) []byte {
			copy(b[(root-1)*pageSize:], bytes.Repeat([]byte{0xa5}, 16))
			return b
		}, "quick check"},
		{"last page", func(b []byte, _ int64) []byte {
			copy(b[len(b)-pageSize:], bytes.Repeat([]byte{0xa5}, 16))
			return b
		}, "damaged"},
		{"header", func(b []byte, _ int64) []byte {
			copy(b, "not a database, just text......")
			return b
		}, "not a SQLite database"},
		{"text file", func([]byte, int64) []byte { return []byte("job_id,state\n1-0,succeeded\n") }, "not a SQLite database"},
		{"cut short", func(b []byte, _ int64) []byte { return b[:len(b)/2] }, "damaged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, root := seededFile(t)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			damaged := c.corrupt(b, root)
			if err := os.WriteFile(path, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path)
			if err == nil {
				s.Close()
				t.Fatal("a damaged store was opened for writing")
			}
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q, want ErrDamaged naming %s and saying %q", err, path, c.want)
			}
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(after, damaged) {
				t.Errorf("the damaged file was changed (%v)", err)
			}
		})
	}
}

// A store path that is not a regular file is refused with a clear error,
// before SQLite blocks on a FIFO or writes into a device; a link to a store
// is followed and stays a link.
func TestOpenRefusesNonRegularPaths(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want string }{
		{dir, "is a directory"},
		{fifo, "not a regular file"},
		{"/dev/null", "not a regular file"},
	}
	for _, c := range cases {
		for name, open := range map[string]func(string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
			s, err := open(c.path)
			if err == nil {
				s.Close()
				t.Errorf("%s(%s) succeeded", name, c.path)
			} else if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s(%s): %v, want %q", name, c.path, err, c.want)
			}
		}
	}
	target, _ := seededFile(t)
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	s, err := Open(link)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs()
	s.Close()
	if err != nil || len(runs) != 1 {
		t.Errorf("through a link: runs %v, %v", runs, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v %v", fi, err)
	}
}

// ScanJobs reads SQLite's text of each row: a value no gmark writes (a unit
// separator in an id, text or a real in an integer column, as an edited
// store may hold) is an error, not a row read with shifted or garbled
// fields, which it was before FuzzScanJobs found it.
func TestScanJobsRefusesEditedRows(t *testing.T) {
	cases := []struct{ set, want string }{
		{`job_id = 'a' || char(31) || 'b'`, "unit separator (0x1f)"},
		{`sites = 'x' || char(31)`, "unit separator (0x1f)"},
		{`processors = 'many'`, `processors is "many", not a whole number`},
		{`processors = 1.5`, `processors is "1.5", not a whole number`},
		{`start_ns = '12abc'`, `start_ns is "12abc", not a whole number`},
		{`attempts = '-'`, `attempts is "-", not a whole number`},
		{`reason = 'a' || char(31) || 'b'`, ""}, // the last field: free text
	}
	for _, c := range cases {
		s := openTemp(t)
		seed(t, s)
		for _, q := range []string{`DROP TRIGGER jobs_no_update`, `UPDATE jobs SET ` + c.set} {
			if _, err := s.DB().Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		var got []JobFacts
		err := s.ScanJobs("r1", func(f *JobFacts) error { got = append(got, *f); return nil })
		switch {
		case c.want == "" && (err != nil || len(got) != 1 || got[0].Reason != "a\x1fb" || got[0].EndNS != 30):
			t.Errorf("%s: %+v, %v", c.set, got, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q (read %+v)", c.set, err, c.want, got)
		}
	}
}

func TestAtoi(t *testing.T) {
	cases := []struct {
		text string
		v    int64
		ok   bool
	}{
		{"", 0, true}, {"0", 0, true}, {"42", 42, true}, {"-7", -7, true},
		{"9223372036854775807", 9223372036854775807, true}, {"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false}, {"99999999999999999999", 0, false},
		{"-", 0, false}, {"1.5", 0, false}, {"1e3", 0, false}, {" 1", 0, false}, {"+1", 0, false}, {"x", 0, false},
	}
	for _, c := range cases {
		if v, ok := atoi([]byte(c.text)); v != c.v || ok != c.ok {
			t.Errorf("atoi(%q) = %d, %v; want %d, %v", c.text, v, ok, c.v, c.ok)
		}
	}
}

// A SQLite database gmark did not make is not taken for a store: one with
// tables of its own is refused for reading and for writing (gmark would
// add its tables to another program's database), and left as it was; an
// empty one (zero bytes, or SQLite's header and nothing else) has nothing
// to read, and becomes a store when written.
func TestOpenRefusesForeignDatabases(t *testing.T) {
	for _, c := range []struct {
		name      string
		make      string // SQL run on a fresh SQLite file; "-" for a zero-length file
		wantRead  string
		writeable bool
	}{
		{"zero bytes", "-", "an empty database", true},
		{"SQLite, no tables", "PRAGMA user_version = 0", "an empty database", true},
		{"another program's", "CREATE TABLE accounts (id INTEGER); CREATE VIEW v AS SELECT 1", "tables of its own (accounts, v)", false},
		{"another program's, a runs table", "CREATE TABLE runs (x TEXT)", "tables of its own (runs)", false},
		{"many tables", "CREATE TABLE a(x); CREATE TABLE b(x); CREATE TABLE c(x); CREATE TABLE d(x); CREATE TABLE e(x); CREATE TABLE f(x); CREATE TABLE g(x)", "(a, b, c, d, e, …)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			if c.make == "-" {
				if err := os.WriteFile(path, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				testkit.SQLiteFile(t, path, c.make)
			}
			before, _ := os.ReadFile(path)
			if s, err := OpenReadOnly(path); err == nil {
				s.Close()
				t.Fatal("opened for reading")
			} else if !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), c.wantRead) || !strings.Contains(err.Error(), path) {
				t.Errorf("read: %v; want ErrNotStore naming %s, saying %q", err, path, c.wantRead)
			}
			s, err := Open(path)
			switch {
			case c.writeable && err != nil:
				t.Fatalf("write: %v", err)
			case c.writeable:
				v, _ := s.SchemaVersion()
				s.Close()
				if v != SchemaVersion {
					t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
				}
			case err == nil:
				s.Close()
				t.Fatal("another program's database opened for writing")
			case !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), c.wantRead):
				t.Errorf("write: %v; want ErrNotStore saying %q", err, c.wantRead)
			default:
				if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
					t.Error("another program's database was changed")
				}
			}
		})
	}
}
