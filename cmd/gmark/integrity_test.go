package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// gmark submit ignored the manifest, and a
// workload.jsonl cut short at a line boundary was submitted as complete. It
// is now refused with exit 2 before anything is submitted; a manifest from
// before the digest was recorded gets a warning.
func TestSubmitChecksWorkloadAgainstManifest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		edit   func(t *testing.T, wl string)
		code   int
		stderr string // "" = nothing on stderr
		jobs   int    // jobs recorded in the store
	}{
		{"intact", func(*testing.T, string) {}, 0, "", 5},
		{"cut at a line boundary", func(t *testing.T, wl string) {
			p := filepath.Join(wl, workload.JobsFile)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(b, []byte("\n"))
			if err := os.WriteFile(p, bytes.Join(lines[:3], nil), 0o644); err != nil {
				t.Fatal(err)
			}
		}, 2, "workload.jsonl was cut short since it was generated: it has 3 jobs", 0},
		{"manifest without digest", func(t *testing.T, wl string) {
			m, err := workload.ReadManifest(wl)
			if err != nil {
				t.Fatal(err)
			}
			m.JobsFile = nil
			var b bytes.Buffer
			if err := workload.WriteManifest(&b, m); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(wl, workload.ManifestFile), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}, 0, "records no digest of workload.jsonl", 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			wl := genWorkload(t, dir, "1\tunitary\t5\thello\tsingle\t1\t*:1\tC(1s)\n")
			c.edit(t, wl)
			db := filepath.Join(dir, "results.db")
			_, stderr, code := run(t, dir, "submit", wl, "--target", "dryrun", "--db", db, "--speedup", "100", "--quiet")
			if code != c.code || !strings.Contains(stderr, c.stderr) || (c.stderr == "" && stderr != "") {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.stderr)
			}
			if c.code != 0 { // bad input: nothing written, not even the store
				if _, err := os.Stat(db); !os.IsNotExist(err) {
					t.Errorf("exit %d left the store: %v", code, err)
				}
			} else {
				s, err := store.OpenReadOnly(db)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				var jobs int
				if err := s.DB().QueryRow(`SELECT count(*) FROM jobs`).Scan(&jobs); err != nil || jobs != c.jobs {
					t.Errorf("%d jobs recorded (%v), want %d", jobs, err, c.jobs)
				}
			}
			// koala simulate checks the workload the same way.
			_, stderr, code = run(t, dir, "koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), wl)
			if code != c.code || !strings.Contains(stderr, c.stderr) {
				t.Errorf("koala simulate: exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.stderr)
			}
		})
	}
}

// Two gmark submit creating the same new store at once
// raced in the schema migration and one failed ("table projects already
// exists", "database is locked"). Both must run and be recorded.
func TestConcurrentSubmitsCreateOneStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t3\thello\tsingle\t1\t*:1\tC(1s)\n")
	for trial := range 3 {
		db := filepath.Join(dir, fmt.Sprintf("results-%d.db", trial))
		for i, r := range runTogether(t, dir, 2, "submit", wl, "--target", "dryrun", "--db", db, "--speedup", "100", "--quiet") {
			if r.code != 0 {
				t.Errorf("trial %d, submit %d: exit %d: %s", trial, i, r.code, r.stderr)
			}
		}
		s, err := store.OpenReadOnly(db)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := s.Runs()
		s.Close()
		if err != nil || len(runs) != 2 {
			t.Errorf("trial %d: %d runs recorded (%v), want 2", trial, len(runs), err)
		}
	}
}

// A read-only gmark report left results.db-wal and
// results.db-shm behind.
func TestReportLeavesNoWALFiles(t *testing.T) {
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t3\thello\tsingle\t1\t*:1\tC(1s)\n")
	db := filepath.Join(dir, "store", "results.db")
	if _, stderr, code := run(t, dir, "submit", wl, "--target", "dryrun", "--db", db, "--speedup", "100", "--quiet"); code != 0 {
		t.Fatalf("submit: %d %s", code, stderr)
	}
	// The run directory beside the store is the submitter's; only the
	// store's own files count.
	storeFiles := func() []string {
		m, err := filepath.Glob(db + "*")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := storeFiles()
	// Not html: its figures of a run like this one are tested apart.
	for _, format := range []string{"text", "json", "csv"} {
		if _, stderr, code := run(t, dir, "report", "--db", db, "-f", format, "-o", filepath.Join(dir, "report-"+format)); code != 0 {
			t.Fatalf("report -f %s: %d %s", format, code, stderr)
		}
		if after := storeFiles(); !slices.Equal(after, before) {
			t.Errorf("report -f %s: store files %v, were %v", format, after, before)
		}
	}
}

// A store with corrupted pages was written to with exit
// 0, and only the report noticed. gmark submit now refuses it before
// writing, and leaves it as it was.
func TestSubmitRefusesDamagedStore(t *testing.T) {
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t3\thello\tsingle\t1\t*:1\tC(1s)\n")
	db := filepath.Join(dir, "results.db")
	if _, stderr, code := run(t, dir, "submit", wl, "--target", "dryrun", "--db", db, "--speedup", "100", "--quiet"); code != 0 {
		t.Fatalf("submit: %d %s", code, stderr)
	}
	s, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	var root int64
	err = s.DB().QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 'jobs'`).Scan(&root)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[(root-1)*4096:], bytes.Repeat([]byte{0xa5}, 16)) // the jobs table's page header
	must(t, os.WriteFile(db, b, 0o644))
	_, stderr, code := run(t, dir, "submit", wl, "--target", "dryrun", "--db", db, "--speedup", "100", "--quiet")
	if code != 2 || !strings.Contains(stderr, db+": damaged store (SQLite's quick check") || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("exit %d, stderr %q; want 2 (bad input) and a damaged-store error", code, stderr)
	}
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, b) {
		t.Errorf("the damaged store was written to (%v)", err)
	}
	// A store path that is not a file is bad input too.
	_, stderr, code = run(t, dir, "submit", wl, "--target", "dryrun", "--db", dir, "--speedup", "100", "--quiet")
	if code != 2 || !strings.Contains(stderr, "is a directory") {
		t.Errorf("--db DIR: exit %d, stderr %q; want 2", code, stderr)
	}
}

// Another program's SQLite database is never taken for gmark's: each
// command that opens a store or a server's state refuses it with exit 2
// (the servers too, at start-up), names its tables, and
// leaves it byte for byte as it was; before, submit and the servers added
// their tables to it and the report said "no such table: runs". An empty
// file is no store to report on.
func TestCommandsRefuseAnotherProgramsDatabase(t *testing.T) {
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t3\thello\tsingle\t1\t*:1\tC(1s)\n")
	other := testkit.SQLiteFile(t, filepath.Join(dir, "other.db"), "CREATE TABLE accounts (id INTEGER, owner TEXT)", "INSERT INTO accounts VALUES (1, 'x')")
	before, err := os.ReadFile(other)
	must(t, err)
	empty := filepath.Join(dir, "empty.db")
	must(t, os.WriteFile(empty, nil, 0o644))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"submit", wl, "--target", "dryrun", "--db", other, "--speedup", "100", "-q"}, 2, "not a gmark results store: a SQLite database with tables of its own (accounts)"},
		{[]string{"report", "--db", other, "-f", "text"}, 2, "not a gmark results store"},
		{[]string{"report", "sql", "--db", other, "SELECT 1"}, 2, "not a gmark results store"},
		{[]string{"koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--db", other, wl}, 2, "not a gmark results store"},
		{[]string{"sim", "report", "--db", other}, 2, "not a gmark results store"},
		{[]string{"sim", "run", abs(t, "../../examples/sim/t1-selftest.toml"), "--db", other}, 2, "not a gmark results store"},
		{[]string{"koala", "serve", "--state", other, "--listen", "127.0.0.1:0"}, 2, "not the scheduler's state: a SQLite database with tables of its own (accounts)"},
		{[]string{"placeholder", "serve", "--state", other, "--listen", "127.0.0.1:0"}, 2, "not the metaqueue's state: a SQLite database with tables of its own (accounts)"},
		{[]string{"report", "--db", empty, "-f", "text"}, 2, "not a gmark results store: an empty database"},
	} {
		_, stderr, code := runBounded(t, time.Minute, dir, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
		if after, err := os.ReadFile(other); err != nil || !bytes.Equal(after, before) {
			t.Fatalf("%v changed the other program's database (%v)", c.args, err)
		}
	}
}
