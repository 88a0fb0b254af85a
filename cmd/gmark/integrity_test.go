package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/workload"
)

// Item 7 of issue 11: gmark submit ignored the manifest, and a
// workload.jsonl cut short at a line boundary was submitted as complete. It
// is now refused with exit 2 before anything is submitted; a manifest from
// before the digest was recorded gets a warning.
func TestSubmitChecksWorkloadAgainstManifest(t *testing.T) {
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
			s, err := store.OpenReadOnly(db)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var jobs int
			if err := s.DB().QueryRow(`SELECT count(*) FROM jobs`).Scan(&jobs); err != nil || jobs != c.jobs {
				t.Errorf("%d jobs recorded (%v), want %d", jobs, err, c.jobs)
			}
		})
	}
}
