package store

import (
	"context"
	"maps"
	"testing"
)

// CountRun agrees with counting the rows read one by one, for a run with
// top-level jobs, tasks, accepted, failed and never-tried submissions, and
// is all zero for an unknown run.
func TestCountRun(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	err := s.Write(context.Background(), func(tx *Tx) error {
		subs := []struct {
			key   string
			ok    bool
			tries int
		}{{"r1/2-0/1", false, 3}, {"r1/2-1/1", false, 0}, {"r1/2-2/1", true, 1}}
		for _, x := range subs {
			if err := tx.InsertSubmission(Submission{Key: x.key, RunID: "r1", JobID: x.key[3:6], Attempt: 1}); err != nil {
				return err
			}
			if err := tx.InsertResult(Result{Key: x.key, RunID: "r1", OK: x.ok, Tries: x.tries, Error: "e"}); err != nil {
				return err
			}
		}
		rows := []Job{
			{RunID: "r1", JobID: "2", Kind: "composite", State: Failed},
			{RunID: "r1", JobID: "2-0", ParentID: "2", Kind: "unitary", State: Failed},
			{RunID: "r1", JobID: "2-1", ParentID: "2", Kind: "unitary", State: NeverStarted},
			{RunID: "r1", JobID: "2-2", ParentID: "2", Kind: "unitary", State: Succeeded},
			{RunID: "r1", JobID: "3", Kind: "unitary", State: Cancelled},
		}
		for _, j := range rows {
			if err := tx.InsertJob(j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"r1", "no-such-run", ""} {
		got, err := s.CountRun(run)
		if err != nil {
			t.Fatal(err)
		}
		want := RunCounts{Jobs: map[string]int{}, Tasks: map[string]int{}}
		jobs, _ := s.Jobs(run)
		for _, j := range jobs {
			if j.ParentID == "" {
				want.Jobs[j.State]++
			} else {
				want.Tasks[j.State]++
			}
		}
		results, _ := s.Results(run)
		for _, x := range results {
			if x.OK {
				want.Submitted++
			} else if x.Tries > 0 {
				want.SubmitFailed++
			}
		}
		if !maps.Equal(got.Jobs, want.Jobs) || !maps.Equal(got.Tasks, want.Tasks) || got.Submitted != want.Submitted || got.SubmitFailed != want.SubmitFailed {
			t.Errorf("run %q: CountRun %+v, counted %+v", run, got, want)
		}
		if run == "r1" && (got.Jobs[Succeeded] != 1 || got.Tasks[Failed] != 1 || got.Submitted != 2 || got.SubmitFailed != 1) {
			t.Errorf("run r1: %+v", got)
		}
	}
}
