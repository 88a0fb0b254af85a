package submitter

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

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
		w, err := record.ReadWorkload(dir)
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
		w.Close()
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
	if !errors.Is(err, record.ErrWorkloadChanged) {
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
