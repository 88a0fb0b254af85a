package coresim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// countingSink counts the events it is passed.
type countingSink struct{ n int }

func (c *countingSink) Event(*core.Event) { c.n++ }

// The summary reports the longest placement queue left after a scan (the
// thesis's W50 "placement queue up to 30"): on one cluster of 10
// processors, n jobs of 10 processors arriving together run one at a time,
// so the first scan leaves n-1 of them queued. The events still reach the
// caller's sink.
func TestSimulateReportsTheLongestQueue(t *testing.T) {
	g, err := grid.Parse("one.toml", []byte("[scheduler]\nscan_interval = \"1m\"\n[[cluster]]\nname = \"A\"\nprocessors = 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var jobs []workload.Job
			for i := 0; i < n; i++ {
				jobs = append(jobs, workload.Job{ID: fmt.Sprintf("1-%d", i), Kind: workload.Unitary, Type: "swf",
					SiteType: workload.Single, RunTime: 10 * time.Minute, App: workload.App{Name: "swf"},
					Components: []workload.Component{{Site: workload.AnySite, Count: 10}}})
			}
			events := &countingSink{}
			sim, err := Simulate(g, testkit.WriteWorkload(t, jobs...), Options{Priority: core.High, Limit: 24 * time.Hour, Events: events})
			if err != nil {
				t.Fatal(err)
			}
			sum := sim.Summary()
			if sum.Finished != n || sum.MaxQueue != n-1 || sim.MaxQueue != n-1 {
				t.Errorf("%d finished, longest queue %d (simulation %d); want %d and %d", sum.Finished, sum.MaxQueue, sim.MaxQueue, n, n-1)
			}
			if events.n == 0 {
				t.Error("no event reached the caller's sink")
			}
			var text bytes.Buffer
			sum.WriteText(&text, "one", "CF")
			if want := fmt.Sprintf("placement queue at most %d jobs", n-1); !strings.Contains(text.String(), want) {
				t.Errorf("summary %q does not say %q", text.String(), want)
			}
		})
	}
}

// The core drops its jobs as they end (core.Forget): the simulation keeps
// what it needs of every job it accepted, in submission order, those that
// ended and those the limit cut alike, and the core holds only the latter.
// One cluster of 10 processors, n jobs of 10 arriving a minute apart, each
// running 10 minutes: by the limit, those that ended are the first ones.
func TestSimulateKeepsEveryJob(t *testing.T) {
	g, err := grid.Parse("one.toml", []byte("[scheduler]\nscan_interval = \"1m\"\n[[cluster]]\nname = \"A\"\nprocessors = 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n     int
		limit time.Duration
	}{{1, 24 * time.Hour}, {6, 24 * time.Hour}, {6, 25 * time.Minute}, {6, time.Second}} {
		t.Run(fmt.Sprintf("%d jobs, limit %v", c.n, c.limit), func(t *testing.T) {
			var jobs []workload.Job
			for i := 0; i < c.n; i++ {
				jobs = append(jobs, workload.Job{ID: fmt.Sprintf("1-%d", i), Kind: workload.Unitary, Type: "swf", Submit: time.Duration(i) * time.Minute,
					SiteType: workload.Single, RunTime: 10 * time.Minute, App: workload.App{Name: "swf"},
					Components: []workload.Component{{Site: workload.AnySite, Count: 10}}})
			}
			dir := testkit.WriteWorkload(t, jobs...)
			sim, err := Simulate(g, dir, Options{Priority: core.High, Limit: c.limit, Records: true})
			if err != nil {
				t.Fatal(err)
			}
			// Without records, the summary is counted as the jobs end: the same.
			bare, err := Simulate(g, dir, Options{Priority: core.High, Limit: c.limit})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := fmt.Sprintf("%+v", sim.Summary()), fmt.Sprintf("%+v", bare.Summary()); a != b || len(bare.Jobs) != 0 || len(bare.Arrivals) != 0 {
				t.Errorf("summary with records %s\nwithout %s (%d jobs, %d arrivals kept)", a, b, len(bare.Jobs), len(bare.Arrivals))
			}
			if _, err := bare.Record(context.Background(), nil, RunInfo{}); err == nil {
				t.Error("a simulation without records recorded")
			}
			ended := 0
			for i, j := range sim.Jobs {
				if j.ID != fmt.Sprintf("k%d", i+1) || j.Name != jobs[i].ID {
					t.Errorf("job %d is %s (%s), want k%d (%s)", i, j.ID, j.Name, i+1, jobs[i].ID)
				}
				if j.State.Terminal() {
					ended++
					if i > 0 && !sim.Jobs[i-1].State.Terminal() {
						t.Errorf("job %s ended after %s, which did not", j.ID, sim.Jobs[i-1].ID)
					}
				}
			}
			submitted := min(c.n, int(c.limit/time.Minute)+1)
			if len(sim.Jobs) != submitted || sim.Core.Active() != submitted-ended || len(sim.Core.Jobs()) != submitted-ended {
				t.Errorf("%d jobs kept, %d submitted; %d ended; the core holds %d (%d active)", len(sim.Jobs), submitted, ended,
					len(sim.Core.Jobs()), sim.Core.Active())
			}
			if sum := sim.Summary(); sum.Finished != ended || c.limit == 24*time.Hour && ended != c.n {
				t.Errorf("%d finished, %d ended, of %d", sum.Finished, ended, c.n)
			}
			if _, ok := sim.Core.Job("k1"); ok == (ended > 0) {
				t.Errorf("the core knows k1: %v; %d jobs ended", ok, ended)
			}
		})
	}
}

// Simulate reads the workload as the simulator asks for its jobs: the
// workload's errors still stop it, naming the file (and the line), wherever
// they are, after the limit included; an empty workload simulates nothing.
func TestSimulateWorkloadErrors(t *testing.T) {
	g, err := grid.Parse("one.toml", []byte("[[cluster]]\nname = \"A\"\nprocessors = 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	unitary := func(id string, submit int) string {
		return fmt.Sprintf(`{"id":%q,"kind":"unitary","type":"swf","submit":%d,"site_type":"single","runtime":60,"app":{"name":"swf"},"components":[{"site":"*","count":1}]}`+"\n", id, submit)
	}
	task := `{"id":"c.0","kind":"unitary","type":"hello","submit":7200,"site_type":"single","walltime":600,"app":{"name":"hello","params":{}},"components":[{"site":"*","count":1}]}`
	composite := `{"id":"c","kind":"composite","type":"chain","submit":7200,"tasks":[` + task + `]}` + "\n"
	for _, c := range []struct {
		name, jobs string
		want       string // in the error; "" for none
		jobsKept   int
	}{
		{"empty", "", "", 0},
		{"blank lines", "\n\n", "", 0},
		{"one", unitary("a", 0), "", 1},
		{"not a job", unitary("a", 0) + "{nope\n", "workload.jsonl:2:", 0},
		{"composite after the limit", unitary("a", 0) + composite, "job c is composite; simulate takes unitary jobs", 0},
		{"out of order", unitary("a", 60) + unitary("b", 0), "workload.jsonl: ", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, workload.JobsFile), []byte(c.jobs), 0o644); err != nil {
				t.Fatal(err)
			}
			sim, err := Simulate(g, dir, Options{Priority: core.High, Limit: time.Hour, Records: true})
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), workload.JobsFile)):
				t.Fatalf("error %v, want one naming %s and saying %q", err, workload.JobsFile, c.want)
			case c.want == "" && (len(sim.Arrivals) != c.jobsKept || len(sim.Jobs) != c.jobsKept || sim.Summary().Finished != c.jobsKept):
				t.Errorf("%d arrivals, %d jobs, %d finished; want %d", len(sim.Arrivals), len(sim.Jobs), sim.Summary().Finished, c.jobsKept)
			}
		})
	}
	if _, err := Simulate(g, filepath.Join(t.TempDir(), "none"), Options{Limit: time.Hour}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing workload: %v", err)
	}
}

// koala simulate starts its clock early enough for the background band
// (--warmup) and the grid's local_warmup, whichever is longer: the local
// workloads start local_warmup before the first job, as a live core's do
// when the run names no warm-up, and a local_warmup longer than --warmup
// is no error.
func TestSimulateTakesTheGridsLocalWarmup(t *testing.T) {
	jobs := testkit.DeadlineJobs(3)
	dir := testkit.WriteWorkload(t, jobs...)
	for _, c := range []struct{ flag, grid time.Duration }{{30 * time.Minute, 0}, {30 * time.Minute, 2 * time.Hour}, {0, 10 * time.Minute}, {3 * time.Hour, time.Hour}} {
		g, err := grid.Load("../../examples/deadlines/grid.toml")
		if err != nil {
			t.Fatal(err)
		}
		g.Scheduler.LocalWarmup.Duration = c.grid
		sim, err := Simulate(g, dir, Options{Limit: 24 * time.Hour, Warmup: c.flag})
		if err != nil {
			t.Fatalf("--warmup %v, local_warmup %v: %v", c.flag, c.grid, err)
		}
		if !sim.First.Equal(Start.Add(max(c.flag, c.grid))) || !sim.Core.LocalFrom().Equal(sim.First.Add(-c.grid)) || !sim.Core.Origin().Equal(sim.First) {
			t.Errorf("--warmup %v, local_warmup %v: first job at %v, local workloads from %v, origin %v",
				c.flag, c.grid, sim.First.Sub(Start), sim.Core.LocalFrom().Sub(Start), sim.Core.Origin().Sub(Start))
		}
	}
}
