package record

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
)

// The store is below the run record and cannot name its kinds: its queries
// spell some of them out (the events a resume reads, a simulated job's
// figures, the core's events). A run recorded with the constants is read
// back by those queries, so a kind renamed on one side only fails here.
func TestStoreReadsTheKinds(t *testing.T) {
	dir := testkit.WriteWorkload(t, unitary("1-0", 0), unitary("1-1", 0))
	st := openStore(t)
	rec, err := StartRecording(context.Background(), st, FinishedRun{WorkloadDir: dir, Target: "koala", RunID: "r", CommandLine: []string{"gmark"}})
	if err != nil {
		t.Fatal(err)
	}
	rec.Abort()
	facts := `{"placement_tries":2,"claim_tries":3,"ftt_ns":0,"placement_ns":5,"restarts":0}`
	core := `{"kind":"placed","time":"2000-01-01T00:00:01Z","ftt_ns":7}`
	err = st.Write(context.Background(), func(tx *store.Tx) error {
		for _, e := range []store.Event{
			{RunID: "r", TimeNS: 1, Kind: EventRunStart, Payload: `{"anchor_ns":1}`},
			{RunID: "r", TimeNS: 2, Kind: EventRunResume, Payload: `{"anchor_ns":2}`},
			{RunID: "r", TimeNS: 3, Kind: EventRunEnd, Payload: `{}`}, // not a resume's
			{RunID: "r", JobID: "1-0", Attempt: 1, TimeNS: 4, Kind: EventStarted, Payload: facts},
			{RunID: "r", JobID: "1-1", Attempt: 1, TimeNS: 5, Kind: string(Failed), Payload: facts},
			{RunID: "r", JobID: "1-1", Attempt: 1, TimeNS: 6, Kind: EventSubmitted, Payload: facts}, // not a figure's
		} {
			if err := tx.InsertEvent(e); err != nil {
				return err
			}
		}
		if err := tx.InsertAnnotation(store.Annotation{RunID: "r", TimeNS: 7, Kind: AnnotationKoalaEvent, Key: Key("r", "1-0", 1), Value: core}); err != nil {
			return err
		}
		start := NewComponentStart("1-0", 1, 1, "fs0", time.Unix(100, 0), "a clock")
		return tx.InsertAnnotation(store.Annotation{RunID: "r", TimeNS: 8, Kind: AnnotationComponentStart, Key: Key("r", "1-0", 1), Value: start.Value()})
	})
	if err != nil {
		t.Fatal(err)
	}
	open, err := st.OpenRecords("r")
	if err != nil {
		t.Fatal(err)
	}
	var runEvents []string
	for _, e := range open.Events {
		if e.JobID == "" {
			runEvents = append(runEvents, e.Kind)
		}
	}
	if len(runEvents) != 2 || runEvents[0] != EventRunStart || runEvents[1] != EventRunResume {
		t.Errorf("a resume reads the run's events %q, want %q and %q", runEvents, EventRunStart, EventRunResume)
	}
	var figures []string
	if err := st.ScanSimJobFacts("r", func(f store.SimJobFacts) error {
		if f.ClaimTries != 3 {
			t.Errorf("job %s: %d claim tries", f.JobID, f.ClaimTries)
		}
		figures = append(figures, f.JobID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(figures) != 2 {
		t.Errorf("simulated jobs' figures of %q, want those of the %s and %s events", figures, EventStarted, Failed)
	}
	var placed int
	if err := st.ScanCoreEvents("r", func(e store.CoreEventTime) error {
		if e.Kind == "placed" && e.FTTNS == 7 {
			placed++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if placed != 1 {
		t.Errorf("%d of the core's events read from the %s annotations, want 1", placed, AnnotationKoalaEvent)
	}
	var starts []ComponentStart
	if err := st.ScanComponentStarts("r", func(c store.ComponentStart) error {
		var r ComponentStart
		if c.Source != "record" || json.Unmarshal([]byte(c.Record), &r) != nil || c.Key != Key("r", "1-0", 1) {
			t.Errorf("component start %+v", c)
		}
		starts = append(starts, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(starts) != 1 || starts[0].Job != "1-0" || starts[0].Component != 1 || starts[0].Site != "fs0" || starts[0].Seconds() != 100 {
		t.Errorf("component starts %+v read from the %s annotations, want the one recorded", starts, AnnotationComponentStart)
	}
}

// Only the target's trouble goes to the run's log.
func TestLoggedAnnotation(t *testing.T) {
	for kind, want := range map[string]bool{AnnotationTargetError: true, AnnotationTargetRecovered: true, AnnotationTargetWarning: true,
		AnnotationClusterStatus: false, AnnotationKoala: false, AnnotationKoalaEvent: false, ClaimAnnotation("slurm"): false, "": false} {
		if got := LoggedAnnotation(kind); got != want {
			t.Errorf("LoggedAnnotation(%q) = %v", kind, got)
		}
	}
	if ClaimAnnotation("slurm") != "slurm-claim" {
		t.Errorf("claim annotation %q", ClaimAnnotation("slurm"))
	}
}
