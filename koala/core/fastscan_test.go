package core

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"strconv"
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

// The scan's fast way for hopeless jobs, and its tries in bulk, change
// nothing: the busy grid of mixed jobs (files, fixed, flexible,
// co-allocated, aging, background load, soft errors, an outage) gives the
// same events, with their sequence numbers (so the same count of those
// not built), and leaves every job the same tries and reasons (read
// through Jobs at the end, lazy ones woken), the plain way, the fast way
// and the fast way with tries in bulk, with the simulator's sink, with
// jobs dropped as they end (bulk tries need it) and not, with aging (no
// bulk tries in the queues it moves jobs from) and without.
func TestFastScanChangesNothing(t *testing.T) {
	for _, c := range []struct{ forget, noAging, small bool }{{true, false, false}, {false, false, false}, {true, true, false}, {true, true, true}, {true, false, true}} {
		forget := c.forget
		o := mixedOptions{cache: true, takes: simKinds, forget: forget, noTryLimit: true, noAging: c.noAging, small: c.small}
		bulk := mixedRun(t, o)
		o.eager = true
		fast := mixedRun(t, o)
		o.plain = true
		plain := mixedRun(t, o)
		if fast.fastTries < 1000 || fast.bulkTries != 0 || plain.fastTries+plain.bulkTries != 0 {
			t.Fatalf("forget %v: %d and %d tries the fast way (the plain run: %d): the workload does not exercise it", forget, fast.fastTries, fast.bulkTries, plain.fastTries)
		}
		t.Logf("forget %v, no aging %v, small %v: %d tries the fast way, %d in bulk", forget, c.noAging, c.small, fast.fastTries, bulk.bulkTries)
		if forget && bulk.bulkTries < 50 || !forget && bulk.bulkTries != 0 {
			t.Fatalf("forget %v: %d tries in bulk", forget, bulk.bulkTries)
		}
		for _, r := range []struct {
			name string
			res  mixedResult
		}{{"fast", fast}, {"bulk", bulk}} {
			sameLines(t, r.name+": events", r.res.events, plain.events)
			sameLines(t, r.name+": jobs", r.res.jobs, plain.jobs)
		}
	}
	// With a sink that takes every event, or a try limit, there is no
	// fast way.
	if r := mixedRun(t, mixedOptions{cache: true, noTryLimit: true, forget: true}); r.fastTries+r.bulkTries != 0 {
		t.Errorf("%d tries the fast way with a sink that takes placement tries", r.fastTries)
	}
	if r := mixedRun(t, mixedOptions{cache: true, takes: simKinds, forget: true}); r.fastTries+r.bulkTries != 0 {
		t.Errorf("%d tries the fast way with max_placement_tries", r.fastTries)
	}
}

// The same on a slice of the LCG trace (its first 15,000 jobs, their
// arrivals 30 times closer, so that thousands wait), on DAS-2's five
// clusters under CF, as the simulator runs the core (its sink, jobs
// dropped as they end): every job's start, sites, end, tries and reasons,
// and the core's event count, are the same the three ways. It skips when
// the trace is not there.
//
// Stopped half a day in, with thousands of jobs still queued (lazy ones
// among them), a job cancelled from the queue and every job read through
// Jobs show the same tries and reasons the three ways.
func TestFastScanLCGSchedule(t *testing.T) {
	path := testkit.LCG(t)
	for _, until := range []time.Duration{1000 * 24 * time.Hour, 12 * time.Hour} {
		plain := lcgSchedule(t, path, false, false, until)
		for _, lazy := range []bool{false, true} {
			if got := lcgSchedule(t, path, true, lazy, until); got != plain {
				t.Errorf("until %v: the fast way (in bulk: %v) changed the schedule:\n got   %s\n plain %s", until, lazy, got, plain)
			}
		}
	}
}

// lcgSchedule runs the LCG slice and digests its schedule.
func lcgSchedule(t *testing.T, path string, fast, lazy bool, until time.Duration) string {
	fastScan, lazyTries = fast, lazy
	defer func() { fastScan, lazyTries = true, true }()
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
	c.Simulate(arrivals, t0.Add(until))
	queued := 0
	if n := c.QueueLength(); n > 0 {
		last := "k" + strconv.Itoa(c.nextJob) // not asked with Job: that wakes every lazy job
		if err := c.Cancel(last, "test"); err != nil {
			t.Fatal(err)
		}
		for _, j := range c.Jobs() {
			jobLine(h, j)
			if j.State == Queued {
				queued++
			}
		}
		if queued < 1000 {
			t.Errorf("%d jobs queued at the end, want thousands", queued)
		}
	}
	least := uint64(10_000_000) // tries in the whole run
	if until < 24*time.Hour {
		least = 1_000_000
	}
	switch {
	case fast && !lazy && c.fastTries < least:
		t.Errorf("%d tries the fast way: the slice does not saturate the grid", c.fastTries)
	case lazy && c.bulkTries < least:
		t.Errorf("%d tries in bulk: the slice does not saturate the grid", c.bulkTries)
	}
	return fmt.Sprintf("%d jobs ended, %d queued, %d events, %x", ended, queued, c.EventCount(), h.Sum(nil))
}

func jobLine(h hash.Hash, j *Job) {
	fmt.Fprintf(h, "%s %s tries %d placements %d start %d end %d sites %v why %v\n", j.ID, j.State, j.PlacementTries,
		j.Placements, j.Start.UnixNano(), j.End.UnixNano(), j.Sites(), j.Why)
}
