package core

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"testing"
	"time"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// simKinds are the kinds of events the simulator's driver takes (sim's
// CoreModel): with them, and without a try limit, the scans refuse
// hopeless jobs the fast way (tryHopeless).
func simKinds(k EventKind) bool {
	switch k {
	case EvSubmitted, EvClaimTry, EvStarted, EvComponentStart, EvFinished, EvFailed, EvCancelled:
		return true
	}
	return false
}

// The scan's fast way for hopeless jobs changes nothing: the busy grid of
// mixed jobs (files, fixed, flexible, co-allocated, aging, background
// load, soft errors, an outage) gives the same events, with their
// sequence numbers (so the same count of those not built), and leaves
// every job the same tries and reasons, the fast way and the plain way,
// with the simulator's sink, with jobs dropped as they end and not.
func TestFastScanChangesNothing(t *testing.T) {
	for _, forget := range []bool{true, false} {
		fast := mixedRun(t, mixedOptions{cache: true, takes: simKinds, forget: forget, noTryLimit: true})
		plain := mixedRun(t, mixedOptions{cache: true, takes: simKinds, forget: forget, noTryLimit: true, plain: true})
		if fast.fastTries < 1000 || plain.fastTries != 0 {
			t.Fatalf("forget %v: %d tries the fast way (the plain run: %d): the workload does not exercise it", forget, fast.fastTries, plain.fastTries)
		}
		sameLines(t, "events", fast.events, plain.events)
		sameLines(t, "jobs", fast.jobs, plain.jobs)
	}
	// With a sink that takes every event, or a try limit, there is no
	// fast way.
	if r := mixedRun(t, mixedOptions{cache: true, noTryLimit: true}); r.fastTries != 0 {
		t.Errorf("%d tries the fast way with a sink that takes placement tries", r.fastTries)
	}
	if r := mixedRun(t, mixedOptions{cache: true, takes: simKinds}); r.fastTries != 0 {
		t.Errorf("%d tries the fast way with max_placement_tries", r.fastTries)
	}
}

// The same on a slice of the LCG trace (its first 15,000 jobs, their
// arrivals 30 times closer, so that tens of thousands wait), on DAS-2's
// five clusters under CF, as the simulator runs the core (its sink, jobs
// dropped as they end): every job's start, sites, end, tries and the
// core's event count are the same the fast way and the plain way. It
// skips when the trace is not there.
func TestFastScanLCGSchedule(t *testing.T) {
	path := testkit.LCG(t)
	fast := lcgSchedule(t, path, true)
	plain := lcgSchedule(t, path, false)
	t.Logf("fast: %s; plain: %s", fast, plain)
	if fast != plain {
		t.Errorf("the fast way changed the schedule:\n fast  %s\n plain %s", fast, plain)
	}
}

// lcgSchedule runs the LCG slice and digests its schedule.
func lcgSchedule(t *testing.T, path string, fast bool) string {
	fastScan = fast
	defer func() { fastScan = true }()
	r, err := gwa.Open(path, gwa.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var arrivals []Arrival
	var first float64
	for len(arrivals) < 15000 {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(arrivals) == 0 {
			first = rec.SubmitTime
		}
		procs := max(1, min(int(rec.NProcs), 56))
		rt := time.Duration(max(1, rec.RunTime) * float64(time.Second))
		j := workload.Job{ID: rec.JobID, Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered, RunTime: rt,
			App: workload.App{Name: "swf"}, Components: []workload.Component{anySite(procs)}}
		at := t0.Add(time.Duration((rec.SubmitTime - first) / 30 * float64(time.Second)))
		arrivals = append(arrivals, Arrival{At: at, Job: j})
	}
	g, err := grid.Parse("das2.toml", []byte(`[scheduler]
policy = "CF"
[[cluster]]
name = "fs0"
processors = 144
[[cluster]]
name = "fs1"
processors = 64
[[cluster]]
name = "fs2"
processors = 64
[[cluster]]
name = "fs3"
processors = 64
[[cluster]]
name = "fs4"
processors = 64
`))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	var sink Sink = filterSink{sinkFunc(func(e *Event) {
		fmt.Fprintf(h, "%d %d %s %s %s %d %v\n", e.Seq, e.Time.UnixNano(), e.Kind, e.Job, e.Cluster, e.Try, e.Sites)
	}), simKinds}
	c, err := New(g, t0, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	ended := 0
	c.Forget(func(j *Job) {
		ended++
		jobLine(h, j)
	})
	c.Simulate(arrivals, t0.Add(1000*24*time.Hour))
	if fast && c.fastTries < 10_000_000 {
		t.Errorf("%d tries the fast way: the slice does not saturate the grid", c.fastTries)
	}
	return fmt.Sprintf("%d jobs ended, %d events, %x", ended, c.EventCount(), h.Sum(nil))
}

func jobLine(h hash.Hash, j *Job) {
	fmt.Fprintf(h, "%s %s tries %d placements %d start %d end %d sites %v why %v\n", j.ID, j.State, j.PlacementTries,
		j.Placements, j.Start.UnixNano(), j.End.UnixNano(), j.Sites(), j.Why)
}
