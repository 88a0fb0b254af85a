package coresim

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// A simulated run records in its events' payloads where each job's
// emulated run time came from, as a live run on the core does
// (submitter/koalatarget's TestStartedDetailSaysWhereTheRunTimeCameFrom).
func TestSimulatedEventsSayWhereTheRunTimeCameFrom(t *testing.T) {
	g, err := grid.Parse("g.toml", []byte("name = \"one\"\n[[cluster]]\nname = \"A\"\nprocessors = 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "wl")
	if err := workload.WriteDir(dir, testkit.RunTimeJobs(), &workload.Manifest{}, false); err != nil {
		t.Fatal(err)
	}
	s, err := Simulate(g, dir, Options{Limit: time.Hour, Records: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.finishedJobs()); n != len(testkit.RunTimeJobs()) {
		t.Fatalf("%d jobs recorded, want %d", n, len(testkit.RunTimeJobs()))
	}
	runTimeWant := testkit.RunTimeWant(t)
	for _, f := range s.finishedJobs() {
		want := runTimeWant[f.JobID]
		if got := time.Duration(f.EndNS - f.StartNS); got != want.RunTime {
			t.Errorf("%s: ran %v, want %v", f.JobID, got, want.RunTime)
		}
		if len(f.Events) < 2 {
			t.Fatalf("%s: events %+v", f.JobID, f.Events)
		}
		for _, ev := range f.Events {
			var p struct {
				Source string `json:"runtime_source"`
			}
			if err := json.Unmarshal([]byte(ev.Payload), &p); err != nil || p.Source != want.Source {
				t.Errorf("%s %s: payload %s, want runtime_source %q", f.JobID, ev.Kind, ev.Payload, want.Source)
			}
		}
	}
}
