package record

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// ReadWorkload's one pass: the digest of the whole file, the counts, and
// the refusals (a line that is not a job, an id twice, no file).
func TestReadWorkload(t *testing.T) {
	line := func(j workload.Job) string { return string(j.AppendJSON(nil)) + "\n" }
	u0, u1 := line(unitary("1-0", 0)), line(unitary("1-1", time.Second))
	c := line(composite("2-0", 0, []string{"a", "b", "c"}, "a>b"))
	cases := []struct {
		name                string
		content             string
		count, units, tasks int
		err                 string
	}{
		{"empty", "", 0, 0, 0, ""},
		{"blank lines only", "\n  \n", 0, 0, 0, ""},
		{"one", u0, 1, 1, 0, ""},
		{"unitary and composite", u0 + c + u1, 3, 5, 3, ""},
		{"no final newline", u0 + strings.TrimSuffix(u1, "\n"), 2, 2, 0, ""},
		{"id twice", u0 + u1 + u0, 0, 0, 0, "job id 1-0 appears twice"},
		{"id twice, apart", u0 + c + u1 + c, 0, 0, 0, "job id 2-0 appears twice"},
		{"not a job", u0 + "{\"id\":\n", 0, 0, 0, "workload.jsonl:2:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, workload.JobsFile), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := ReadWorkload(dir)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			sum := sha256.Sum256([]byte(tc.content))
			if w.SHA256 != hex.EncodeToString(sum[:]) || w.Count != tc.count || w.Units != tc.units || w.Tasks != tc.tasks {
				t.Fatalf("sha256 %s count %d units %d tasks %d, want %x %d %d %d", w.SHA256, w.Count, w.Units, w.Tasks, sum, tc.count, tc.units, tc.tasks)
			}
			// Streamed twice, the same jobs in the same order with their
			// indexes.
			for pass := 0; pass < 2; pass++ {
				src, err := w.Stream()
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; ; i++ {
					j, idx, err := src.Next()
					if err == io.EOF {
						if i != tc.count {
							t.Fatalf("pass %d: %d jobs streamed", pass, i)
						}
						break
					}
					if err != nil || idx != i || j.ID == "" {
						t.Fatalf("pass %d job %d: %v %d %v", pass, i, j, idx, err)
					}
				}
			}
		})
	}
	if _, err := ReadWorkload(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no directory: %v", err)
	}
}

// A workload.jsonl edited in place after the run read it (a job more, a
// job fewer) is an error of the stream, not jobs silently skipped or added.
func TestStreamSeesEditedWorkload(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", time.Second), unitary("1-2", 2*time.Second)}
	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
	}{
		{"a job more", func(b []byte) []byte { return append(b, jobs[0].AppendJSON(nil)...) }},
		{"a job fewer", func(b []byte) []byte { return b[:strings.LastIndex(strings.TrimSuffix(string(b), "\n"), "\n")+1] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testkit.WriteWorkload(t, jobs...)
			w, err := ReadWorkload(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			b, _ := os.ReadFile(w.Path)
			f, err := os.OpenFile(w.Path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(tc.edit(b))
			f.Close()
			src, err := w.Stream()
			if err != nil {
				t.Fatal(err)
			}
			for {
				_, _, err = src.Next()
				if err != nil {
					break
				}
			}
			if !errors.Is(err, ErrWorkloadChanged) {
				t.Fatalf("stream error %v, want %v", err, ErrWorkloadChanged)
			}
		})
	}
}
