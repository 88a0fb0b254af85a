package coresim

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// storeRows are the records of a run, in an order that does not depend on
// the order they were written, with the wall-clock recording times (and
// the digests over them) and the row ids cleared.
type storeRows struct {
	Run         store.Run
	End         store.RunEnd
	Provenance  []store.Provenance
	Jobs        []store.Job
	Events      []store.Event // by job, in each job's order
	Submissions []store.Submission
	Results     []store.Result
	Annotations []store.Annotation
}

func readRows(t *testing.T, st *store.Store, runID string) storeRows {
	t.Helper()
	var r storeRows
	var err error
	check := func(e error) {
		t.Helper()
		if e != nil {
			t.Fatal(e)
		}
	}
	r.Run, err = st.Run(runID)
	check(err)
	r.Run.CreatedNS, r.Run.ProvenanceSHA256 = 0, ""
	r.End, _, err = st.RunEnd(runID)
	check(err)
	r.Provenance, err = st.Provenance(runID)
	check(err)
	for i := range r.Provenance {
		r.Provenance[i].RecordedNS, r.Provenance[i].Digest = 0, ""
	}
	r.Jobs, err = st.Jobs(runID)
	check(err)
	slices.SortFunc(r.Jobs, func(a, b store.Job) int { return strings.Compare(a.JobID, b.JobID) })
	for i := range r.Jobs {
		r.Jobs[i].RecordedNS = 0
	}
	for _, j := range r.Jobs {
		evs, err := st.Events(runID, j.JobID)
		check(err)
		for _, e := range evs {
			e.ID = 0
			r.Events = append(r.Events, e)
		}
	}
	r.Submissions, err = st.Submissions(runID)
	check(err)
	slices.SortFunc(r.Submissions, func(a, b store.Submission) int { return strings.Compare(a.Key, b.Key) })
	r.Results, err = st.Results(runID)
	check(err)
	slices.SortFunc(r.Results, func(a, b store.Result) int { return strings.Compare(a.Key, b.Key) })
	r.Annotations, err = st.Annotations(runID, "")
	check(err)
	for i := range r.Annotations {
		r.Annotations[i].ID = 0
	}
	return r
}

// A simulation recorded as it runs (Options.DB) writes the rows a
// simulation recorded at its end (Record) writes: every job's row, events,
// submission and result, the annotations and the run's end, whether the
// jobs all end, the limit cuts some running and leaves some never
// submitted, or the core refuses one (more processors than the grid has).
func TestSimulateRecordsAsItRuns(t *testing.T) {
	g, err := grid.Parse("one.toml", []byte("[scheduler]\nscan_interval = \"1m\"\n[[cluster]]\nname = \"A\"\nprocessors = 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n       int
		limit   time.Duration
		refused int    // index of a job asking for 20 processors; -1 none
		states  string // of the job rows, in the order of their ids
	}{
		{0, 24 * time.Hour, -1, ""},
		{1, 24 * time.Hour, -1, "succeeded"},
		{6, 24 * time.Hour, -1, "succeeded succeeded succeeded succeeded succeeded succeeded"},
		{6, 25 * time.Minute, -1, "succeeded cancelled succeeded never-started succeeded never-started"},
		{6, time.Second, -1, "cancelled never-started never-started never-started never-started never-started"},
		{5, 24 * time.Hour, 2, "succeeded succeeded failed succeeded succeeded"},
	} {
		t.Run(fmt.Sprintf("%d jobs, limit %v, refused %d", c.n, c.limit, c.refused), func(t *testing.T) {
			var jobs []workload.Job
			for i := 0; i < c.n; i++ {
				count := 5 + i%2*5
				if i == c.refused {
					count = 20
				}
				jobs = append(jobs, workload.Job{ID: fmt.Sprintf("1-%d", i), Kind: workload.Unitary, Type: "swf", Submit: time.Duration(i) * time.Minute,
					SiteType: workload.Single, RunTime: time.Duration(10+i) * time.Minute, App: workload.App{Name: "swf"},
					Components: []workload.Component{{Site: workload.AnySite, Count: count}}})
			}
			dir := testkit.WriteWorkload(t, jobs...)
			rec := RunInfo{RunID: "r", GridPath: "one.toml", CommandLine: []string{"gmark", "koala", "simulate"}}
			whole, err := store.Open(filepath.Join(t.TempDir(), "whole.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer whole.Close()
			sim, err := Simulate(g, dir, Options{Priority: core.High, Limit: c.limit, Records: true})
			if err != nil {
				t.Fatal(err)
			}
			wantSum, err := sim.Record(context.Background(), whole, rec)
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := store.Open(filepath.Join(t.TempDir(), "streamed.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer streamed.Close()
			s2, err := Simulate(g, dir, Options{Priority: core.High, Limit: c.limit, DB: &DB{Store: streamed, RunInfo: rec}})
			if err != nil {
				t.Fatal(err)
			}
			if len(s2.Jobs) != 0 || len(s2.Arrivals) != 0 {
				t.Errorf("a simulation recorded as it ran kept %d jobs and %d arrivals", len(s2.Jobs), len(s2.Arrivals))
			}
			sum, err := s2.FinishRecord()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sum, wantSum) {
				t.Errorf("summary %+v, recorded at the end %+v", sum, wantSum)
			}
			want, got := readRows(t, whole, "r"), readRows(t, streamed, "r")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("rows recorded as it ran\n%+v\nrecorded at the end\n%+v", got, want)
			}
			var states []string
			for _, j := range got.Jobs {
				states = append(states, j.State)
			}
			if strings.Join(states, " ") != c.states || got.End.Status != store.RunCompleted {
				t.Errorf("job states %q, want %q; run %s", states, c.states, got.End.Status)
			}
			if _, err := sim.FinishRecord(); err == nil {
				t.Error("FinishRecord of a simulation not recorded as it ran: no error")
			}
		})
	}
}

// A workload with a composite job is refused before the simulation
// records anything.
func TestSimulateRecordsNoComposite(t *testing.T) {
	g, err := grid.Parse("one.toml", []byte("[[cluster]]\nname = \"A\"\nprocessors = 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	task := workload.Job{ID: "c.0", Kind: workload.Unitary, Type: "hello", SiteType: workload.Single, App: workload.App{Name: "hello"},
		Components: []workload.Component{{Site: workload.AnySite, Count: 1}}}
	dir := testkit.WriteWorkload(t, workload.Job{ID: "c", Kind: workload.Composite, Type: "chain", Tasks: []workload.Job{task}})
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = Simulate(g, dir, Options{Limit: time.Hour, DB: &DB{Store: st, RunInfo: RunInfo{RunID: "r"}}})
	if err == nil || !strings.Contains(err.Error(), "composite") {
		t.Fatalf("error %v, want one about the composite job", err)
	}
	if ok, err := st.RunExists("r"); ok || err != nil {
		t.Errorf("the run was recorded (%v, %v)", ok, err)
	}
}
