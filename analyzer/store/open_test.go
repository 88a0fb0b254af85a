package store

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// OpenRecords reads exactly the full records filtered to the jobs without
// a row (the oracle below, from Submissions, Results, Jobs and Events), for
// a run with finished, in-flight and never-answered jobs and composite jobs
// finished and in progress; ScanFinalTops lists the finished top-level
// jobs; an unknown run has none of either.
func TestOpenRecords(t *testing.T) {
	s := openTemp(t)
	seed(t, s) // run r1: job 1-0 finished (a row), its submission, result and event
	err := s.Write(context.Background(), func(tx *Tx) error {
		subs := []Submission{
			{Key: "r1/1-1/1", RunID: "r1", JobID: "1-1", Attempt: 1},                // in flight
			{Key: "r1/1-2/1", RunID: "r1", JobID: "1-2", Attempt: 1},                // intent, no result
			{Key: "r1/2.a/1", RunID: "r1", JobID: "2.a", ParentID: "2", Attempt: 1}, // task done, composite 2 open
			{Key: "r1/2.b/1", RunID: "r1", JobID: "2.b", ParentID: "2", Attempt: 1}, // task in flight
			{Key: "r1/3.a/1", RunID: "r1", JobID: "3.a", ParentID: "3", Attempt: 1}, // composite 3 finished
			{Key: "r1/1-3/1", RunID: "r1", JobID: "1-3", Attempt: 1},                // failed attempt...
			{Key: "r1/1-3/2", RunID: "r1", JobID: "1-3", Attempt: 2},                // ...and its retry, finished
		}
		for _, x := range subs {
			if err := tx.InsertSubmission(x); err != nil {
				return err
			}
			if x.JobID == "1-2" {
				continue
			}
			if err := tx.InsertResult(Result{Key: x.Key, RunID: "r1", OK: x.Attempt == 2 || x.JobID != "1-3", Tries: 1, TargetID: x.JobID}); err != nil {
				return err
			}
			for _, k := range []string{"queued", "started"} {
				if err := tx.InsertEvent(Event{RunID: "r1", JobID: x.JobID, Attempt: x.Attempt, TimeNS: 40, Kind: k}); err != nil {
					return err
				}
			}
		}
		for _, e := range []Event{{RunID: "r1", TimeNS: 1, Kind: "run-start"}, {RunID: "r1", TimeNS: 2, Kind: "tail-start"},
			{RunID: "r1", TimeNS: 3, Kind: "run-resume"}} {
			if err := tx.InsertEvent(e); err != nil {
				return err
			}
		}
		for _, j := range []Job{
			{RunID: "r1", JobID: "2.a", ParentID: "2", Kind: "unitary", State: Succeeded, Attempts: 1},
			{RunID: "r1", JobID: "3.a", ParentID: "3", Kind: "unitary", State: Failed, Attempts: 1},
			{RunID: "r1", JobID: "3", Kind: "composite", State: Failed},
			{RunID: "r1", JobID: "1-3", Kind: "unitary", State: Succeeded, Attempts: 2},
		} {
			if err := tx.InsertJob(j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"r1", "no-such-run"} {
		got, err := s.OpenRecords(run)
		if err != nil {
			t.Fatal(err)
		}
		var want OpenRecords
		rows, _ := s.Jobs(run)
		hasRow := map[string]bool{}
		var tops []string
		for _, j := range rows {
			hasRow[j.JobID] = true
			if j.ParentID == "" {
				tops = append(tops, j.JobID)
			}
		}
		for _, j := range rows {
			if j.ParentID != "" && !hasRow[j.ParentID] {
				want.TaskRows = append(want.TaskRows, j)
			}
		}
		subs, _ := s.Submissions(run)
		open := map[string]bool{}
		for _, x := range subs {
			if !hasRow[x.JobID] {
				want.Submissions = append(want.Submissions, x)
				open[x.Key] = true
			}
		}
		results, _ := s.Results(run)
		for _, x := range results {
			if open[x.Key] {
				want.Results = append(want.Results, x)
			}
		}
		events, _ := s.Events(run, "")
		for _, e := range events {
			if e.JobID == "" && (e.Kind == "run-start" || e.Kind == "run-resume") || e.JobID != "" && !hasRow[e.JobID] {
				want.Events = append(want.Events, e)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("run %s:\ngot  %+v\nwant %+v", run, got, want)
		}
		if run == "r1" && (len(got.Submissions) != 3 || len(got.Results) != 2 || len(got.TaskRows) != 1 || len(got.Events) != 2+2*2) {
			t.Errorf("run r1: %d submissions, %d results, %d task rows, %d events", len(got.Submissions), len(got.Results), len(got.TaskRows), len(got.Events))
		}
		var final []string
		if err := s.ScanFinalTops(run, func(id string) error { final = append(final, id); return nil }); err != nil {
			t.Fatal(err)
		}
		slices.Sort(final)
		slices.Sort(tops)
		if !slices.Equal(final, tops) || run == "r1" && len(final) != 3 {
			t.Errorf("run %s: final tops %v, want %v", run, final, tops)
		}
	}
}
