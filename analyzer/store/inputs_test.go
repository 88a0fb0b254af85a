package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// v1File writes a store of schema version 1 by hand, as the gmark before
// version 2 wrote it: a run with its provenance record and digest.
func v1File(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(migrations[0] + "PRAGMA user_version = 1;"); err != nil {
		t.Fatal(err)
	}
	seed := uint64(3)
	p := Provenance{RunID: "old", GmarkVersion: "devel", Host: "h", CommandLine: `["gmark","run","s.wdl"]`, Includes: "[]",
		TargetConfig: "{}", Seed: &seed, SpecPath: "s.wdl", SpecSHA256: "abc", Target: "dryrun"}
	digest := p.ComputeDigest()
	for _, q := range []string{
		`INSERT INTO projects (name, created_ns) VALUES ('default', 1)`,
		`INSERT INTO scenarios (project_id, name, created_ns) VALUES (1, 's', 1)`,
		`INSERT INTO runs VALUES ('old', 1, 2, 'w', '', 0, 0, 'dryrun', '{}', '` + digest + `')`,
		`INSERT INTO provenance (run_id, seq, recorded_ns, gmark_version, go_version, host, os_arch, user, command_line, working_dir,
			workload_dir, workload_sha256, spec_path, spec_sha256, includes, seed, manifest, target, target_config, digest)
			VALUES ('old', 0, 0, 'devel', '', 'h', '', '', '["gmark","run","s.wdl"]', '', '', '', 's.wdl', 'abc', '[]', 3, '', 'dryrun', '{}', '` + digest + `')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return path
}

// A store of schema version 1 reads as it did (read-only, not migrated),
// migrates to version 2 when opened for writing, and its run keeps its
// digest either way.
func TestVersion1StoreSurvives(t *testing.T) {
	path := v1File(t)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ro.Provenance("old")
	if err != nil || len(ps) != 1 || ps[0].Inputs != nil || ps[0].GmarkModified != nil {
		t.Fatalf("read-only: %+v %v", ps, err)
	}
	if err := ro.VerifyProvenance("old"); err != nil {
		t.Errorf("read-only: %v", err)
	}
	if _, err := ro.InputContent("abc"); !errors.Is(err, ErrNotFound) {
		t.Errorf("content from a version 1 store: %v", err)
	}
	ro.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(); v != SchemaVersion || SchemaVersion < 2 {
		t.Fatalf("version %d after migration, SchemaVersion %d", v, SchemaVersion)
	}
	if err := s.VerifyProvenance("old"); err != nil {
		t.Errorf("after migration: %v", err)
	}
	after, err := s.Provenance("old")
	if err != nil || !reflect.DeepEqual(after, ps) {
		t.Errorf("after migration\n%+v\nbefore\n%+v (%v)", after, ps, err)
	}
}

// A record's inputs, revision and scheduler parameters are written and
// read back, under the record's digest; each content is kept once, by
// digest, and read back checked.
func TestProvenanceInputs(t *testing.T) {
	s := openTemp(t)
	spec, ext, empty := []byte("1\tunitary\t1\tsser\n"), []byte("A=1\n"), []byte{}
	modified := true
	inputs := []Input{
		{Role: InputSpec, Path: "s.wdl", SHA256: sha256Hex(spec), Size: int64(len(spec)), Stored: true},
		{Role: InputInclude, Path: "x/e.xin", SHA256: sha256Hex(ext), Size: int64(len(ext)), Stored: true},
		{Role: InputInclude, Path: "empty.xin", SHA256: sha256Hex(empty), Size: 0, Stored: true},
		{Role: InputTrace, Path: "/big.swf", SHA256: strings.Repeat("a", 64), Size: 1 << 40},
		{Role: InputGrid, Path: "again.wdl", SHA256: sha256Hex(spec), Size: int64(len(spec)), Stored: true}, // same content
	}
	contents := map[string][]byte{sha256Hex(spec): spec, sha256Hex(ext): ext, sha256Hex(empty): empty}
	for i, runID := range []string{"r1", "r2"} {
		p := Provenance{RunID: runID, GmarkVersion: "v1", GmarkRevision: "0123", GmarkModified: &modified,
			Scheduler: `{"core":{"policy":"CF"}}`, Inputs: inputs, Contents: contents}
		err := s.Write(context.Background(), func(tx *Tx) error {
			pid, _ := tx.EnsureProject("p", "", 1)
			sid, _ := tx.EnsureScenario(pid, "s", "", 1)
			if err := tx.InsertRun(Run{ID: runID, ScenarioID: sid, CreatedNS: int64(i + 1), Target: "dryrun", ProvenanceSHA256: p.ComputeDigest()}); err != nil {
				return err
			}
			return tx.InsertProvenance(p)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.VerifyProvenance(runID); err != nil {
			t.Error(err)
		}
		ps, err := s.Provenance(runID)
		if err != nil || len(ps) != 1 || !reflect.DeepEqual(ps[0].Inputs, inputs) || ps[0].GmarkRevision != "0123" ||
			ps[0].GmarkModified == nil || !*ps[0].GmarkModified || ps[0].Scheduler != p.Scheduler {
			t.Fatalf("read back %+v, %v", ps, err)
		}
	}
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM input_contents`).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d contents stored (%v), want 3: one per digest", n, err)
	}
	for sha, want := range contents {
		if got, err := s.InputContent(sha); err != nil || string(got) != string(want) {
			t.Errorf("content %s: %q %v", sha, got, err)
		}
	}
	if _, err := s.InputContent(strings.Repeat("a", 64)); !errors.Is(err, ErrNotFound) {
		t.Errorf("content of an input recorded by digest only: %v", err)
	}
	// A content whose bytes no longer have its digest is damaged.
	if _, err := s.DB().Exec(`INSERT INTO input_contents VALUES (?, 3, 'xyz')`, strings.Repeat("b", 64)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.InputContent(strings.Repeat("b", 64)); !errors.Is(err, ErrDamaged) {
		t.Errorf("a content with another digest: %v", err)
	}
	// The input tables are append-only like the others.
	for _, q := range []string{`UPDATE provenance_inputs SET path = 'x'`, `DELETE FROM input_contents`} {
		if _, err := s.DB().Exec(q); err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// An input marked stored needs its content, with its digest and size.
func TestProvenanceInputWithoutContent(t *testing.T) {
	s := openTemp(t)
	b := []byte("x")
	for name, c := range map[string]struct {
		in       Input
		contents map[string][]byte
	}{
		"no content":     {Input{Role: InputSpec, Path: "s", SHA256: sha256Hex(b), Size: 1, Stored: true}, nil},
		"another digest": {Input{Role: InputSpec, Path: "s", SHA256: strings.Repeat("c", 64), Size: 1, Stored: true}, map[string][]byte{strings.Repeat("c", 64): b}},
		"another size":   {Input{Role: InputSpec, Path: "s", SHA256: sha256Hex(b), Size: 2, Stored: true}, map[string][]byte{sha256Hex(b): b}},
	} {
		err := s.Write(context.Background(), func(tx *Tx) error {
			pid, _ := tx.EnsureProject("p", "", 1)
			sid, _ := tx.EnsureScenario(pid, "s", "", 1)
			if err := tx.InsertRun(Run{ID: "r", ScenarioID: sid, Target: "dryrun"}); err != nil {
				return err
			}
			return tx.InsertProvenance(Provenance{RunID: "r", Inputs: []Input{c.in}, Contents: c.contents})
		})
		if err == nil || !strings.Contains(err.Error(), "no content with its digest and size") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
