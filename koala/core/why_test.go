package core

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/workload"
)

// A queued job says why it waits: its reasons are kept on it and emitted
// once per change, not once per scan; they go when it is placed.
func TestPlacementReasonsAreEmittedWhenTheyChange(t *testing.T) {
	c, rec := newCore(t, testGrid(t, 2, `policy = "WF"`))
	// A local job holds 8 of A's 10 processors for 10 minutes; B is taken down.
	if err := c.SubmitLocalJob("A", 8, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := c.SetClusterDown("B", "maintenance"); err != nil {
		t.Fatal(err)
	}
	j := submit(t, c, job("j", time.Minute, false, anySite(4)), Options{Priority: High})
	want := "A: busy: 2 idle; component 0 needs 4. B: out of service: maintenance"
	if j.State != Queued || placement.Summary(j.Why) != want {
		t.Fatalf("%s, why %q; want %q", j.State, placement.Summary(j.Why), want)
	}
	c.Advance(sec(5 * 60)) // five scans, the same reasons
	if n := len(rec.of(EvPlacementTry, j.ID)); n != 6 {
		t.Errorf("%d placement tries, want 6", n)
	}
	failed := rec.of(EvPlacementFailed, j.ID)
	if len(failed) != 1 || placement.Summary(failed[0].Reasons) != want || failed[0].Try != 1 {
		t.Fatalf("placement_failed events %+v", failed)
	}
	// B comes back with a local job on 7 of its processors: a new reason.
	if err := c.SetClusterUp("B"); err != nil {
		t.Fatal(err)
	}
	if err := c.SubmitLocalJob("B", 7, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	c.Advance(sec(6 * 60))
	failed = rec.of(EvPlacementFailed, j.ID)
	if len(failed) != 2 || placement.Summary(failed[1].Reasons) != "A: busy: 2 idle; component 0 needs 4. B: busy: 3 idle; component 0 needs 4" {
		t.Fatalf("placement_failed events %+v", failed)
	}
	// The event's reasons are its own: the job's are updated in place.
	j.Why[0].Have = 99
	if failed[1].Reasons[0].Have != 2 {
		t.Error("the event shares the job's reasons")
	}
	// The local jobs end at 10 min: the job is placed and its reasons go.
	c.Advance(sec(11 * 60))
	if j.State == Queued || len(j.Why) != 0 || len(rec.of(EvPlacementFailed, j.ID)) != 2 {
		t.Errorf("after the local jobs: %s, why %v", j.State, j.Why)
	}
}

// Every way a placement try fails gives its reason, from the core's cheap
// checks and from the policies alike, on a grid of A (10 processors) and B
// (20, holding file f).
func TestPlacementReasonsOfTheCore(t *testing.T) {
	local := func(site string, n int) func(*testing.T, *Core) {
		return func(t *testing.T, c *Core) {
			if err := c.SubmitLocalJob(site, n, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	down := func(t *testing.T, c *Core) {
		if err := c.SetClusterDown("B", "maintenance"); err != nil {
			t.Fatal(err)
		}
	}
	reserveA := func(t *testing.T, c *Core) { // placed on all of A, its file 400 s away
		if k := submit(t, c, job("a", time.Minute, true, on("A", 10)), Options{Priority: High}); k.State != Claiming {
			t.Fatalf("job a: %s", k.State)
		}
	}
	cases := []struct {
		name    string
		setup   []func(*testing.T, *Core)
		comps   []int  // component sizes, on any site
		file    string // an input file
		advance time.Duration
		want    string
	}{
		{"no site big enough", []func(*testing.T, *Core){down}, []int{12}, "", 0,
			"A: too small: 10 processors; component 0 needs 12. B: out of service: maintenance"},
		{"busy", []func(*testing.T, *Core){local("A", 8), local("B", 18)}, []int{4}, "", 0,
			"A: busy: 2 idle; component 0 needs 4. B: busy: 2 idle; component 0 needs 4"},
		{"soft reservation", []func(*testing.T, *Core){reserveA, local("B", 18)}, []int{4}, "", 0,
			"A: soft-reserved: 0 idle not promised to placed jobs; component 0 needs 4. B: busy: 2 idle; component 0 needs 4"},
		{"the job's total", []func(*testing.T, *Core){local("A", 5), local("B", 20)}, []int{3, 3}, "", 0,
			"A: busy: 5 idle; the job needs 6. B: busy: 0 idle; the job needs 6"},
		{"taken by the job's larger components", []func(*testing.T, *Core){local("A", 4), local("B", 18)}, []int{4, 3}, "", 0,
			"A: taken by the job's larger components: 2 left; component 1 needs 3. B: busy: 2 idle; component 1 needs 3"},
		{"no replica", nil, []int{4}, "nowhere", 0,
			`A: no replica of input file "nowhere" reachable. B: no replica of input file "nowhere" reachable`},
		{"excluded after a soft error", []func(*testing.T, *Core){local("B", 18)}, []int{4}, "", 90 * time.Second,
			"A: excluded: the job met an error here (a soft error, or the site went down under it). B: busy: 2 idle; component 0 needs 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := grid.Parse("why.toml", []byte(`[scheduler]
policy = "WF"
[network]
default_bandwidth = "1MB/s"
[[cluster]]
name = "A"
processors = 10
[[cluster]]
name = "B"
processors = 20
[[file]]
name = "f"
size = "400MB"
sites = ["B"]
`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.advance > 0 {
				g.Clusters[0].FailureRate = 1 // every start on A fails
			}
			c, rec := newCore(t, g)
			for _, f := range tc.setup {
				f(t, c)
			}
			var comps []workload.Component
			for _, n := range tc.comps {
				comps = append(comps, anySite(n))
			}
			spec := job("j", time.Minute, false, comps...)
			if tc.file != "" {
				spec.Files = []workload.File{{Name: tc.file, Size: 1}}
			}
			k := submit(t, c, spec, Options{Priority: High})
			c.Advance(t0.Add(tc.advance))
			if k.State != Queued {
				t.Fatalf("%s", k.State)
			}
			if got := placement.Summary(k.Why); got != tc.want {
				t.Errorf("why\n got %s\nwant %s", got, tc.want)
			}
			if evs := rec.of(EvPlacementFailed, k.ID); len(evs) == 0 || placement.Summary(evs[len(evs)-1].Reasons) != tc.want {
				t.Errorf("placement_failed events %+v", evs)
			}
		})
	}
}

// The core does not find a hopeless job's reasons again while the grid
// does not change (hopeless), and finds them once for the jobs that ask
// alike (sharedWhy): a busy grid of mixed jobs (files, fixed, flexible,
// co-allocated; background load, soft errors, an outage) gives the same
// events, every placement_failed and its reasons included, and leaves
// every job the same reasons (with their counts), with those shortcuts and
// without them.
func TestReasonsShortcutChangesNothing(t *testing.T) {
	with := mixedRun(t, mixedOptions{cache: true})
	without := mixedRun(t, mixedOptions{cache: false})
	if n := strings.Count(with.events, `"kind":"placement_failed"`); n < 100 {
		t.Errorf("only %d placement_failed events: the workload does not exercise the reasons", n)
	}
	sameLines(t, "events", with.events, without.events)
	sameLines(t, "jobs", with.jobs, without.jobs)
}

// sameLines fails at the first line where two outputs differ.
func sameLines(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	a, b := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			t.Fatalf("%s: line %d differs:\ngot  %s\nwant %s", what, i, a[i], b[i])
		}
	}
	t.Fatalf("%s: %d lines, want %d", what, len(a), len(b))
}

// mixedOptions: how mixedRun runs its core. takes, when not nil, is the
// kinds of events its sink takes (a KindFilter); forget drops the jobs as
// they end (Forget).
type mixedOptions struct {
	cache  bool
	takes  func(EventKind) bool
	forget bool
	// plain turns off the scan's fast way for hopeless jobs (fastScan),
	// eager its tries in bulk (lazyTries); noTryLimit runs without
	// max_placement_tries (the fast way needs it), noAging without
	// aging_period (then every queue's jobs may be tried in bulk).
	plain, eager, noTryLimit, noAging bool
	// small: jobs of one or two processors a component (they fill the
	// grid to its last processor, where the tries in bulk begin).
	small bool
}

// mixedResult: the events as JSON lines, and every job at the end (as it
// ended, or as it is at the end) with its reasons, one a line.
type mixedResult struct {
	events, jobs string
	ended        int    // jobs given to Forget's function
	fastTries    uint64 // placement tries made the scan's fast way (tryHopeless)
	bulkTries    uint64 // and in bulk (lazy.go)
}

// mixedRun runs 400 mixed jobs through a busy three-site grid for 6 hours.
func mixedRun(t *testing.T, o mixedOptions) mixedResult {
	reasonsCache, fastScan, lazyTries = o.cache, !o.plain, !o.eager
	defer func() { reasonsCache, fastScan, lazyTries = true, true, true }()
	limit, aging := "max_placement_tries = 200", "aging_period = 3"
	if o.noTryLimit {
		limit = ""
	}
	if o.noAging {
		aging = ""
	}
	g, err := grid.Parse("mixed.toml", []byte(`[scheduler]
policy = "CF"
scan_interval = "30s"
`+aging+`
`+limit+`
seed = 7
[network]
default_bandwidth = "10MB/s"
[[cluster]]
name = "A"
processors = 32
failure_rate = 0.05
[cluster.background]
low = 0.3
high = 0.6
job_size = [1, 8]
[[cluster]]
name = "B"
processors = 24
[cluster.background]
low = 0.2
high = 0.5
job_size = [1, 8]
[[cluster]]
name = "C"
processors = 16
[[file]]
name = "f"
size = "2GB"
sites = ["C"]
[[event]]
at = "40m"
cluster = "B"
action = "down"
[[event]]
at = "70m"
cluster = "B"
action = "up"
`))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	var sink Sink = sinkFunc(func(e *Event) { _ = enc.Encode(e) })
	if o.takes != nil {
		sink = filterSink{sink, o.takes}
	}
	c, err := New(g, t0, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	var res mixedResult
	jobs := map[int]string{}
	line := func(j *Job) {
		n, _ := strconv.Atoi(strings.TrimPrefix(j.ID, "k"))
		jobs[n] = fmt.Sprintf("%s %s %q tries %d claims %d start %v end %v why %v", j.ID, j.State, j.Reason,
			j.PlacementTries, j.ClaimTries, j.Start, j.End, j.Why)
	}
	if o.forget {
		c.Forget(func(j *Job) { res.ended++; line(j) })
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var arrivals []Arrival
	at := t0
	for i := 0; i < 400; i++ {
		at = at.Add(time.Duration(rng.IntN(40)) * time.Second)
		var comps []workload.Component
		for k := 0; k <= rng.IntN(3); k++ {
			n := 1 + rng.IntN(16)
			if o.small {
				n = 1 + n%2
			}
			comps = append(comps, anySite(n))
		}
		j := job(fmt.Sprint(i), time.Duration(1+rng.IntN(20))*time.Minute, rng.IntN(3) == 0, comps...)
		switch rng.IntN(8) {
		case 0:
			j.Components[0].Site = []string{"A", "B", "C"}[rng.IntN(3)]
			j.Components[0].Count = min(j.Components[0].Count, 16)
		case 1:
			j.SiteType = workload.Flexible
		case 2:
			j.Files = append(j.Files, workload.File{Name: "nowhere", Size: 1})
		}
		policy := []string{"WF", "CF", "CM", "FCM"}[rng.IntN(4)]
		arrivals = append(arrivals, Arrival{At: at, Job: j, Opts: Options{Policy: policy, Priority: Priority(rng.IntN(4))}})
	}
	c.Simulate(arrivals, t0.Add(6*time.Hour))
	for _, j := range c.Jobs() {
		line(j)
	}
	for n := 1; n <= len(jobs); n++ {
		res.jobs += jobs[n] + "\n"
	}
	res.events, res.fastTries, res.bulkTries = out.String(), c.fastTries, c.bulkTries
	return res
}

// filterSink is a sink that takes only some kinds of events.
type filterSink struct {
	Sink
	takes func(EventKind) bool
}

func (f filterSink) Takes(k EventKind) bool { return f.takes(k) }

type sinkFunc func(*Event)

func (f sinkFunc) Event(e *Event) { f(e) }
