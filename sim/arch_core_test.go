package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/workload"
)

// coreGrid is a three-cluster grid with background load, a local workload
// and start deadlines under global priority: most of the core's machinery.
const coreGridTOML = `
name = "g"
[scheduler]
policy = "CF"
scan_interval = "30s"
deadline_policy = "wait-10"
[[cluster]]
name = "a"
processors = 32
[cluster.background]
low = 0.1
high = 0.3
[[cluster]]
name = "b"
processors = 16
speed = 2
[cluster.local]
interarrival = "5m"
runtime = "20m"
size = [1, 8]
[[cluster]]
name = "c"
processors = 8
`

func coreTestGrid(t testing.TB) *grid.Grid {
	t.Helper()
	g, err := grid.Parse("grid.toml", []byte(coreGridTOML))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// coreJobs is a seeded mix: single-site and co-allocated jobs, fixed and
// free sites, several jobs at one instant, some with start deadlines (one
// already past when it is submitted), one too large for the grid and one
// naming no cluster of it.
func coreJobs(seed uint64, n int) []workload.Job {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []workload.Job
	at := time.Duration(0)
	sites := []string{"a", "b", "c", workload.AnySite}
	for i := 0; i < n; i++ {
		if r.IntN(3) > 0 { // a third of the jobs arrive with the one before
			at += time.Duration(r.IntN(120)) * time.Second
		}
		j := workload.Job{ID: fmt.Sprintf("j%d", i), Kind: workload.Unitary, Submit: at,
			RunTime: time.Duration(60+r.IntN(1800)) * time.Second, App: workload.App{Name: "sleep"}, SiteType: workload.Single}
		comps := 1 + r.IntN(2)
		if comps > 1 {
			j.SiteType = workload.SemiOrdered
		}
		for c := 0; c < comps; c++ {
			j.Components = append(j.Components, workload.Component{Site: sites[r.IntN(len(sites))], Count: 1 + r.IntN(8)})
		}
		if r.IntN(5) == 0 {
			j.Deadline = time.Duration(60+r.IntN(1800)) * time.Second
		}
		out = append(out, j)
	}
	out[n/2].Components = []workload.Component{{Site: "a", Count: 1000}}
	out[n/3].Components = []workload.Component{{Site: "nowhere", Count: 1}}
	out[n/4].Deadline = time.Nanosecond // long past at its submission: the core fails it as it accepts it
	return out
}

// eventLog keeps the core's events as JSON lines.
type eventLog struct{ b strings.Builder }

func (l *eventLog) Event(e *core.Event) {
	b, _ := json.Marshal(e)
	l.b.Write(b)
	l.b.WriteByte('\n')
}

type tee [2]core.Sink

func (t tee) Event(e *core.Event) { t[0].Event(e); t[1].Event(e) }

// stepCore is the plain loop that drove the core before it was an
// architecture of this engine: submit each arrival at its time, jump from
// event to event, stop when every job has ended or at the limit.
func stepCore(k *core.Core, origin time.Time, jobs []workload.Job, limit time.Time) (refused int) {
	i := 0
	for {
		if i == len(jobs) && k.Active() == 0 {
			return refused
		}
		next, ok := k.NextEvent()
		if i < len(jobs) && (!ok || !origin.Add(jobs[i].Submit).After(next)) {
			next, ok = origin.Add(jobs[i].Submit), true
		}
		if !ok || next.After(limit) {
			k.Advance(limit)
			return refused
		}
		k.Advance(next)
		for i < len(jobs) && !origin.Add(jobs[i].Submit).After(k.Now()) {
			if _, err := k.Submit(jobs[i], core.Options{}); err != nil {
				refused++
			}
			i++
		}
	}
}

// The engine drives the core exactly as the core's own loop did: the same
// event stream, byte for byte, with a warm-up, with and without a limit
// that cuts the run.
func TestCentralCoreDrivesTheCoreAsItsOwnLoop(t *testing.T) {
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name          string
		seed          uint64
		warmup, limit time.Duration
	}{
		{"whole", 1, 30 * time.Minute, 7 * 24 * time.Hour},
		{"no warm-up", 2, 0, 7 * 24 * time.Hour},
		{"cut", 3, 10 * time.Minute, 90 * time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			jobs := coreJobs(c.seed, 300)
			origin := start.Add(c.warmup)

			var want eventLog
			g := coreTestGrid(t)
			k, err := core.New(g, start, &want, nil)
			if err != nil {
				t.Fatal(err)
			}
			k.Advance(origin)
			wantRefused := stepCore(k, origin, jobs, origin.Add(c.limit))
			wantNow := k.Now()

			var got eventLog
			m := &CoreModel{Origin: origin}
			refused := 0
			m.Refused = func(string, error) { refused++ }
			k2, err := core.New(coreTestGrid(t), start, tee{&got, m}, nil)
			if err != nil {
				t.Fatal(err)
			}
			m.Core = k2
			top, err := TopologyOf(g)
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig("central")
			cfg.CentralModel, cfg.Core, cfg.CoolDown, cfg.CoolDownLimit, cfg.Horizon = CentralCore, m, true, MaxHorizon, c.limit
			res, err := Run(cfg, top, &SliceSource{Jobs: jobs})
			if err != nil {
				t.Fatal(err)
			}
			if got.b.String() != want.b.String() {
				t.Fatalf("event streams differ: %d bytes from the engine, %d from the core's loop\nfirst difference at byte %d",
					got.b.Len(), want.b.Len(), firstDiff(got.b.String(), want.b.String()))
			}
			arrived := 0
			for _, j := range jobs {
				if j.Submit <= c.limit {
					arrived++
				}
			}
			if refused != wantRefused || refused < 1 || arrived == len(jobs) && refused < 2 {
				t.Errorf("refused %d, the core's loop %d (want the impossible jobs that arrived)", refused, wantRefused)
			}
			if !k2.Now().Equal(wantNow) {
				t.Errorf("the core stopped at %v, its loop at %v", k2.Now(), wantNow)
			}
			checkCoreResult(t, res, k2, arrived, refused)
		})
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// checkCoreResult: the engine's metrics are the core's jobs', computed
// independently from the core's records.
func checkCoreResult(t *testing.T, res *Result, k *core.Core, arrived, refused int) {
	t.Helper()
	finished, started := 0, 0
	var wait, resp float64
	for _, j := range k.Jobs() {
		if !j.Start.IsZero() {
			started++
		}
		if j.State == core.Finished {
			finished++
			wait += j.Start.Sub(j.Submitted).Seconds()
			resp += j.End.Sub(j.Submitted).Seconds()
		}
	}
	if res.Jobs != arrived || res.Rejected != refused || res.Finished != finished {
		t.Errorf("jobs %d rejected %d finished %d; the core: %d arrived, %d refused, %d finished", res.Jobs, res.Rejected, res.Finished, arrived, refused, finished)
	}
	if finished == 0 {
		t.Fatal("no job finished: the test proves nothing")
	}
	if d := res.AWT - wait/float64(finished); d > 1e-6 || d < -1e-6 {
		t.Errorf("AWT %v, the core's finished jobs %v", res.AWT, wait/float64(finished))
	}
	if d := res.ART - resp/float64(finished); d > 1e-6 || d < -1e-6 {
		t.Errorf("ART %v, the core's finished jobs %v", res.ART, resp/float64(finished))
	}
	if res.Messages[NotifyBroker] != int64(arrived) {
		t.Errorf("NotifyBroker %d, want one per arrival (%d)", res.Messages[NotifyBroker], arrived)
	}
	if !(res.Utilization > 0 && res.Utilization <= 1) {
		t.Errorf("utilization %v", res.Utilization)
	}
}

// A run of the core model the engine builds itself over a topology (what
// 'gmark sim run' does with central_model = "core"): deterministic, and a
// job too large for every cluster is refused, not fatal.
func TestCentralCoreOverATopology(t *testing.T) {
	top := flat(t, 16, 8)
	jobs := append(wave("w", "*", 12, 4, 0, 600*time.Second), job("big", "c0", 64, time.Second, time.Minute))
	cfg := DefaultConfig("central")
	cfg.CentralModel, cfg.CoolDown = CentralCore, true
	a, _ := run(t, cfg, top, jobs)
	b, _ := run(t, cfg, top, jobs)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("two runs differ:\n%+v\n%+v", a, b)
	}
	if a.Jobs != 13 || a.Rejected != 1 || a.Finished != 12 || a.JF > 100*12/13.0+1e-9 {
		t.Errorf("jobs %d rejected %d finished %d JF %v; want 13, 1, 12", a.Jobs, a.Rejected, a.Finished, a.JF)
	}
	// 12 jobs × 4 processors on 24: 6 at once, so two rounds of 600 s at
	// least; the core's scans and claims add to it, never take from it.
	if a.End < 1200 {
		t.Errorf("makespan %v s: under the two rounds of 600 s the processors allow", a.End)
	}
}

func TestCentralCoreSettings(t *testing.T) {
	top := flat(t, 16, 8)
	g := coreTestGrid(t)
	for _, c := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown model", func(c *Config) { c.CentralModel = "koala" }, `central_model "koala"`},
		{"grid for another architecture", func(c *Config) { c.Arch, c.CoreGrid = "dmm", g }, "core model"},
		{"grid without the core model", func(c *Config) { c.CoreGrid = g }, "core model"},
		{"grid of other clusters", func(c *Config) { c.CentralModel, c.CoreGrid = CentralCore, g }, "clusters"},
		{"negative horizon", func(c *Config) { c.Horizon = -1 }, "Horizon"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig("central")
			c.edit(&cfg)
			_, err := Run(cfg, top, &SliceSource{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}

// A core the architecture makes itself takes only the events it follows
// (CoreModel.Takes) and drops its jobs as they end (core.Forget): the run
// is the same, figure for figure, as with a core made by the caller that
// keeps every job and passes every event on, deadline figures included.
func TestCentralCoreOfItsOwnKeepsNothingItNeeds(t *testing.T) {
	for _, c := range []struct {
		name  string
		seed  uint64
		limit time.Duration
	}{{"whole", 1, 7 * 24 * time.Hour}, {"cut", 3, 90 * time.Minute}} {
		t.Run(c.name, func(t *testing.T) {
			jobs := coreJobs(c.seed, 300)
			g := coreTestGrid(t)
			top, err := TopologyOf(g)
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig("central")
			cfg.CentralModel, cfg.CoolDown, cfg.CoolDownLimit, cfg.Horizon, cfg.Seed = CentralCore, true, MaxHorizon, c.limit, c.seed
			own := cfg
			own.CoreGrid = g
			got, err := Run(own, top, &SliceSource{Jobs: jobs})
			if err != nil {
				t.Fatal(err)
			}
			mine := *g
			mine.Scheduler.Seed = c.seed // as the architecture gives its own core the run's seed
			var log eventLog
			want, a, b := runGivenCore(t, cfg, &mine, 0, &log, top, jobs, got)
			if string(a) != string(b) {
				t.Errorf("a core of the architecture's own:\n%s\na core that keeps everything:\n%s", a, b)
			}
			if !strings.Contains(log.b.String(), `"kind":"placement_failed"`) || want.Deadlines == nil || want.Deadlines.GlobalJobs == 0 {
				t.Errorf("the run does not exercise what the core skips: %d bytes of events; result %s", log.b.Len(), b)
			}
		})
	}
}

// The core's local warm-up (CoreLocalWarmup, the grid's local_warmup): the
// core the architecture makes starts that long before time 0 and measures
// from time 0, as a core the caller makes so does, figure for figure; and
// the warm-up changes what the jobs meet.
func TestCentralCoreLocalWarmup(t *testing.T) {
	jobs := coreJobs(2, 150)
	g := coreTestGrid(t)
	top, err := TopologyOf(g)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig("central")
	cfg.CentralModel, cfg.CoolDown, cfg.CoolDownLimit, cfg.Horizon, cfg.Seed = CentralCore, true, MaxHorizon, 7*24*time.Hour, 2
	warm := cfg
	warm.CoreGrid, warm.CoreLocalWarmup = g, time.Hour
	got, err := Run(warm, top, &SliceSource{Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	mine := *g
	mine.Scheduler.Seed, mine.Scheduler.LocalWarmup.Duration = 2, time.Hour
	_, a, b := runGivenCore(t, cfg, &mine, time.Hour, nil, top, jobs, got)
	if string(a) != string(b) {
		t.Errorf("CoreLocalWarmup 1h:\n%s\na core started an hour early, measured from 0:\n%s", a, b)
	}
	cold := cfg
	cold.CoreGrid = g
	c, err := Run(cold, top, &SliceSource{Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	if got.Deadlines == nil || got.Deadlines.LocalJobs == 0 || c.Deadlines == nil {
		t.Fatalf("deadline figures %+v, without the warm-up %+v: want local jobs", got.Deadlines, c.Deadlines)
	}
	if cj, _ := json.Marshal(c); string(cj) == string(a) {
		t.Error("the warm-up changes nothing")
	}
	if got.Deadlines.LocalJobs > c.Deadlines.LocalJobs*3/2 || c.Deadlines.LocalJobs > got.Deadlines.LocalJobs*3/2 {
		t.Errorf("local jobs measured: %d with the warm-up, %d without: the warm-up's are counted", got.Deadlines.LocalJobs, c.Deadlines.LocalJobs)
	}
}

// runGivenCore runs jobs on a core of g made by the caller (events also
// to log, when not nil), started warmup before time 0 and measured from 0
// when warmup > 0, and returns the result and it and got in JSON.
func runGivenCore(t *testing.T, cfg Config, g *grid.Grid, warmup time.Duration, log core.Sink, top *topology.Topology, jobs []workload.Job, got *Result) (*Result, []byte, []byte) {
	t.Helper()
	m := &CoreModel{Origin: CoreOrigin}
	var sink core.Sink = m
	if log != nil {
		sink = tee{log, m}
	}
	k, err := core.New(g, CoreOrigin.Add(-warmup), sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if warmup > 0 {
		k.MeasureFrom(CoreOrigin)
	}
	m.Core = k
	given := cfg
	given.Core = m
	want, err := Run(given, top, &SliceSource{Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	return want, a, b
}
