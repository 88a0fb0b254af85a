package submitter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
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

// readWorkload's one pass: the digest of the whole file, the counts, and
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
			w, err := readWorkload(dir)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer w.close()
			sum := sha256.Sum256([]byte(tc.content))
			if w.sha256 != hex.EncodeToString(sum[:]) || w.count != tc.count || w.units != tc.units || w.tasks != tc.tasks {
				t.Fatalf("sha256 %s count %d units %d tasks %d, want %x %d %d %d", w.sha256, w.count, w.units, w.tasks, sum, tc.count, tc.units, tc.tasks)
			}
			// Streamed twice, the same jobs in the same order with their
			// indexes.
			for pass := 0; pass < 2; pass++ {
				src, err := w.stream()
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
	if _, err := readWorkload(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
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
			w, err := readWorkload(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer w.close()
			b, _ := os.ReadFile(w.path)
			f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(tc.edit(b))
			f.Close()
			src, err := w.stream()
			if err != nil {
				t.Fatal(err)
			}
			for {
				_, _, err = src.Next()
				if err != nil {
					break
				}
			}
			if !errors.Is(err, errWorkloadChanged) {
				t.Fatalf("stream error %v, want %v", err, errWorkloadChanged)
			}
		})
	}
}

// A run holds no job once it is final: after a run of unitary and
// composite jobs, nothing is left in progress, and an empty workload
// completes at once.
func TestRunKeepsNoFinishedJob(t *testing.T) {
	for _, n := range []int{0, 1, 50} {
		var jobs []workload.Job
		for i := 0; i < n; i++ {
			jobs = append(jobs, unitary("1-"+string(rune('a'+i%26))+string(rune('a'+i/26)), time.Duration(i)*time.Millisecond))
			if i%10 == 0 {
				jobs = append(jobs, composite("2-"+string(rune('a'+i/10)), time.Duration(i)*time.Millisecond, []string{"a", "b"}, "a>b"))
			}
		}
		var dir string
		if n == 0 {
			dir = t.TempDir()
			os.WriteFile(filepath.Join(dir, workload.JobsFile), nil, 0o644)
		} else {
			dir = testkit.WriteWorkload(t, jobs...)
		}
		st := openStore(t)
		w, err := readWorkload(dir)
		if err != nil {
			t.Fatal(err)
		}
		r := &Runner{cfg: Config{WorkloadDir: dir, Store: st, Target: NewDryRun(), Log: io.Discard, CommandLine: []string{"test"}},
			st: st, target: NewDryRun(), w: w, live: map[int]*top{}}
		r.caps = r.target.Caps()
		if err := r.prepareNew(); err != nil {
			t.Fatal(err)
		}
		sum, err := r.run(context.Background())
		w.close()
		if err != nil || sum.Status != store.RunCompleted || sum.Jobs[store.Succeeded] != len(jobs) {
			t.Fatalf("%d jobs: %v %+v", len(jobs), err, sum)
		}
		if len(r.live) != 0 || len(r.reg) != 0 {
			t.Fatalf("%d jobs: %d jobs and %d submissions left in progress", len(jobs), len(r.live), len(r.reg))
		}
	}
}

// finalTops answers the same by hashes and by ids: present, absent, the
// empty set, and an empty id.
func TestFinalTops(t *testing.T) {
	present := []string{"1-0", "1-2", "x", ""}
	absent := []string{"1-1", "1-00", "X", "1-2 "}
	for _, byIDs := range []bool{false, true} {
		for _, n := range []int{0, 1, len(present)} {
			var f finalTops
			if byIDs {
				f.ids = map[string]bool{}
			}
			for _, id := range present[:n] {
				f.add(id)
			}
			f.done()
			for i, id := range present {
				if got := f.has(id); got != (i < n) {
					t.Errorf("by ids %v, %d added: has(%q) = %v", byIDs, n, id, got)
				}
			}
			for _, id := range absent {
				if f.has(id) {
					t.Errorf("by ids %v, %d added: has(%q) = true", byIDs, n, id)
				}
			}
		}
	}
}

// A workload.jsonl that gains a job after the run read it stops the run
// with an error (no job is added to the run), and the run resumes and
// completes once the file is as it was.
func TestRunStopsOnEditedWorkload(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", time.Millisecond), unitary("1-2", 2*time.Millisecond)}
	dir := testkit.WriteWorkload(t, jobs...)
	path := filepath.Join(dir, workload.JobsFile)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	var runID string
	edit := func(id string) {
		runID = id
		extra := unitary("1-3", 3*time.Millisecond)
		if err := os.WriteFile(path, extra.AppendJSON(slices.Clone(orig)), 0o644); err != nil {
			t.Error(err)
		}
	}
	_, err = Run(context.Background(), Config{WorkloadDir: dir, Store: st, Target: NewDryRun(), OnStart: edit})
	if !errors.Is(err, errWorkloadChanged) {
		t.Fatalf("run over an edited workload: %v", err)
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Config{WorkloadDir: dir, Store: st, Target: NewDryRun(), Resume: runID})
	if err != nil || sum.Status != store.RunCompleted || sum.Jobs[store.Succeeded] != 3 {
		t.Fatalf("resumed: %v %+v", err, sum)
	}
	if _, err := st.Job(runID, "1-3"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the added job has a row: %v", err)
	}
}
