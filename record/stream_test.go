package record

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// A RunRecording refuses what RecordRun refuses, job by job: an outcome
// given for another job, a run finished before every job of its workload
// was given (no end record then), a cancelled context; a run given every
// job ends completed, with one row per job, in the order given.
func TestRunRecordingEdges(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", time.Second), unitary("1-2", 2*time.Second)}
	dir := testkit.WriteWorkload(t, jobs...)
	outcome := func(id string) FinishedJob {
		return FinishedJob{JobID: id, Outcome: Outcome{State: store.Succeeded, ScheduledNS: 1, SubmitNS: 1, StartNS: 2, EndNS: 3}}
	}
	for _, c := range []struct {
		name  string
		give  []int // indexes of jobs given, in order
		other bool  // give job 0's outcome for job 1
		want  string
	}{
		{"every job, out of order", []int{2, 0, 1}, false, ""},
		{"none", nil, false, "0 of the workload's 3 jobs were recorded"},
		{"two of three", []int{0, 1}, false, "2 of the workload's 3 jobs were recorded"},
		{"another job's outcome", []int{1}, true, "the outcome of job 1-0 given for job 1-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := openStore(t)
			r, err := StartRecording(context.Background(), st, FinishedRun{WorkloadDir: dir, Target: "dryrun", RunID: "r", CommandLine: []string{"gmark"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range c.give {
				f := outcome(jobs[i].ID)
				if c.other {
					f = outcome(jobs[0].ID)
				}
				if err = r.Add(&jobs[i], f); err != nil {
					break
				}
			}
			var sum *Summary
			if err == nil {
				sum, err = r.Finish(nil, 10, time.Second)
			} else {
				r.Abort()
			}
			_, ended, _ := st.RunEnd("r")
			rows, _ := st.Jobs("r")
			switch {
			case c.want == "" && (err != nil || !ended || sum.Status != store.RunCompleted || len(rows) != 3 || rows[0].JobID != "1-2"):
				t.Fatalf("error %v, ended %v, summary %+v, %d rows", err, ended, sum, len(rows))
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || ended):
				t.Fatalf("error %v (want %q), ended %v", err, c.want, ended)
			}
		})
	}
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := StartRecording(ctx, st, FinishedRun{WorkloadDir: dir, Target: "dryrun", RunID: "r", CommandLine: []string{"gmark"}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := r.Add(&jobs[0], outcome(jobs[0].ID)); err == nil {
		t.Error("Add after the context was cancelled: no error")
	}
	r.Abort()
	if _, err := StartRecording(context.Background(), st, FinishedRun{WorkloadDir: t.TempDir() + "/none", RunID: "x"}); err == nil {
		t.Error("a missing workload: no error")
	}
}

// A recording cut short (no Finish: a killed process) is continued by
// ResumeRecording given every job again: the jobs already in the store are
// counted, not written twice, and the finished run has the rows and the
// summary of an uninterrupted recording, whatever the point of the cut
// (before any job, mid-way, after the last job), and however many times it
// is cut. A run that is not there, has ended, or was opened from another
// workload, target configuration or input file is refused, and so is a
// new recording under an id already in the store.
func TestResumeRecording(t *testing.T) {
	jobs := []workload.Job{unitary("1-0", 0), unitary("1-1", time.Second), unitary("1-2", 2*time.Second), unitary("1-3", 3*time.Second)}
	dir := testkit.WriteWorkload(t, jobs...)
	outcome := func(i int) FinishedJob {
		state := store.Succeeded
		if i == 2 {
			state = string(Running) // left running at the limit: records, no row
		}
		return FinishedJob{JobID: jobs[i].ID, Outcome: Outcome{State: state, ScheduledNS: int64(i), SubmitNS: int64(i), DelayNS: int64(10 * i), StartNS: 20, EndNS: 30},
			Events: []store.Event{{TimeNS: int64(i), Kind: "sim-start", Payload: fmt.Sprintf(`{"i":%d}`, i)}}}
	}
	run := func(id string) FinishedRun {
		return FinishedRun{WorkloadDir: dir, Target: "koala-sim", TargetConfig: map[string]any{"policy": "WF"}, RunID: id, CommandLine: []string{"gmark"},
			Inputs: Inputs{Files: []store.Input{{Role: store.InputGrid, Path: "g.toml", SHA256: "aa"}}}}
	}
	// give records jobs 0..to-1 of run id, started or resumed, and finishes
	// the run when to is past the last (else it is cut there, unfinished).
	give := func(st *store.Store, id string, resume bool, to int) (*Summary, error) {
		start := StartRecording
		if resume {
			start = ResumeRecording
		}
		r, err := start(context.Background(), st, run(id))
		if err != nil {
			return nil, err
		}
		for i := 0; i < min(to, len(jobs)); i++ {
			if err := r.Add(&jobs[i], outcome(i)); err != nil {
				return nil, err
			}
		}
		if to <= len(jobs) {
			return nil, r.Abort() // cut here
		}
		return r.Finish(nil, 100, time.Second)
	}
	rows := func(st *store.Store, id string) string {
		var b strings.Builder
		js, _ := st.Jobs(id)
		rs, _ := st.Results(id)
		for _, j := range js {
			fmt.Fprintf(&b, "job %s %s %d %d %d|", j.JobID, j.State, j.SubmitNS, j.StartNS, j.EndNS)
		}
		for _, r := range rs {
			fmt.Fprintf(&b, "result %s %v %d|", r.Key[len(id):], r.OK, r.DelayNS)
		}
		for _, j := range jobs {
			es, _ := st.Events(id, j.ID)
			for _, e := range es {
				fmt.Fprintf(&b, "event %s %s %s|", e.JobID, e.Kind, e.Payload)
			}
		}
		return b.String()
	}
	ref := openStore(t)
	want, err := give(ref, "r", false, len(jobs)+1)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := rows(ref, "r")
	for _, cuts := range [][]int{{0}, {1}, {3}, {4}, {1, 1}, {1, 3}, {2, 0, 3}} {
		t.Run(fmt.Sprint(cuts), func(t *testing.T) {
			st := openStore(t)
			resume := false
			for _, to := range cuts {
				if _, err := give(st, "r", resume, to); err != nil {
					t.Fatalf("cut at %d: %v", to, err)
				}
				resume = true
			}
			got, err := give(st, "r", true, len(jobs)+1)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != want.Status || fmt.Sprint(got.Jobs) != fmt.Sprint(want.Jobs) || got.Submitted != want.Submitted || got.Delay != want.Delay {
				t.Errorf("summary %+v, want %+v", got, want)
			}
			if r := rows(st, "r"); r != wantRows {
				t.Errorf("rows\n%s\nwant\n%s", r, wantRows)
			}
			provs, _ := st.Provenance("r")
			if len(provs) != len(cuts)+1 {
				t.Errorf("%d provenance records, want %d", len(provs), len(cuts)+1)
			}
		})
	}
	st := openStore(t)
	if _, err := give(st, "r", false, 1); err != nil {
		t.Fatal(err)
	}
	other := testkit.WriteWorkload(t, jobs[:2]...)
	for _, c := range []struct {
		name   string
		change func(*FinishedRun)
		want   error
	}{
		{"unknown run", func(r *FinishedRun) { r.RunID = "nope" }, ErrUnknownRun},
		{"no run id", func(r *FinishedRun) { r.RunID = "" }, ErrUnknownRun},
		{"another workload", func(r *FinishedRun) { r.WorkloadDir = other }, ErrRunMismatch},
		{"another policy", func(r *FinishedRun) { r.TargetConfig = map[string]any{"policy": "CF"} }, ErrRunMismatch},
		{"another grid file", func(r *FinishedRun) { r.Inputs.Files[0].SHA256 = "bb" }, ErrRunMismatch},
		{"another target", func(r *FinishedRun) { r.Target = "dryrun" }, ErrRunMismatch},
	} {
		r := run("r")
		c.change(&r)
		if _, err := ResumeRecording(context.Background(), st, r); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// The grid named from another directory is the same grid.
	moved := run("r")
	moved.Inputs.Files[0].Path = "../elsewhere/g.toml"
	if rec, err := ResumeRecording(context.Background(), st, moved); err != nil {
		t.Errorf("the same grid by another path: %v", err)
	} else {
		rec.Abort()
	}
	if _, err := StartRecording(context.Background(), st, run("r")); !errors.Is(err, ErrRunExists) {
		t.Errorf("a new recording of run r, which is there: %v", err)
	}
	if _, err := give(st, "r", true, len(jobs)+1); err != nil {
		t.Fatal(err)
	}
	if _, err := ResumeRecording(context.Background(), st, run("r")); !errors.Is(err, ErrRunEnded) {
		t.Errorf("resuming an ended run: %v", err)
	}
}
