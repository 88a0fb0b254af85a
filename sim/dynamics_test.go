package sim

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/dynamics"
	"github.com/gmark/gmark/sim/topology"
)

// TestThesisFailures: every architecture on DAS-2 + Grid'5000 at 50% load
// for six hours, under the thesis's failure model at its own rate: runs
// are killed and restarted, and with cool-down every job still ends
// (TestMain checks the processor accounting, failed processors included).
func TestThesisFailures(t *testing.T) {
	top, err := topology.Preset("das2-g5k")
	if err != nil {
		t.Fatal(err)
	}
	jobs := synth(top, 0.5, 6*time.Hour, 1, nil)
	for _, arch := range ArchNames() {
		cfg := DefaultConfig(arch)
		cfg.CoolDown, cfg.Failures = true, FailuresThesis
		res, err := Run(cfg, top, &SliceSource{Jobs: jobs})
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		t.Logf("%s: %d jobs, %d restarts, %.4f CPU-years wasted, U %.3f, AWT %.0f s", arch, res.Jobs, res.Restarts, res.Wasted, res.Utilization, res.AWT)
		if res.Restarts == 0 || !(res.Wasted > 0) {
			t.Errorf("%s: %d restarts, %v wasted under the thesis's failures", arch, res.Restarts, res.Wasted)
		}
		if res.Finished+res.Rejected != res.Jobs || res.Finished == 0 {
			t.Errorf("%s: %d finished + %d rejected of %d", arch, res.Finished, res.Rejected, res.Jobs)
		}
		if err := finite(res); err != nil || res.Utilization > 1 {
			t.Errorf("%s: %v, U %v", arch, err, res.Utilization)
		}
		cfg.Failures = ""
		calm, err := Run(cfg, top, &SliceSource{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s without failures: U %.3f, end %.0f s; with: end %.0f s, finished %d", arch, calm.Utilization, calm.End, res.End, res.Finished)
		if calm.Restarts != 0 || calm.Jobs != res.Jobs {
			t.Errorf("%s without failures: %d restarts", arch, calm.Restarts)
		}
	}
}

// TestDynamicsDeterministic: the same seed, the same run, failures and
// growth included; another seed, other failures.
func TestDynamicsDeterministic(t *testing.T) {
	top := flat(t, 32, 16, 64)
	jobs := synth(top, 0.7, 12*time.Hour, 2, nil)
	for _, arch := range []string{"dmm", "central", "sep-c"} {
		cfg := DefaultConfig(arch)
		cfg.CoolDown, cfg.Failures, cfg.FailureScale, cfg.Seed = true, FailuresThesis, 5, 3
		cfg.GrowthPerYear, cfg.GrowthSpan = 50, 30*24*time.Hour
		a, _ := run(t, cfg, top, jobs)
		b, _ := run(t, cfg, top, jobs)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs of seed 3 differ:\n%+v\n%+v", arch, a, b)
		}
		cfg.Seed = 4
		c, _ := run(t, cfg, top, jobs)
		if c.Restarts == a.Restarts && c.Wasted == a.Wasted {
			t.Errorf("%s: seeds 3 and 4 gave the same failures (%d restarts)", arch, a.Restarts)
		}
	}
}

// TestGrowthJoin: one cluster of 4 processors and 60 jobs of 4 processors
// × 10 days at 0; at 10,000% a year two clusters join, at
// year·ln(2)/ln(101) ≈ 54.8 days and year·ln(3)/ln(101) ≈ 86.9 days. The architectures that share load start jobs on them, never
// before they join; sep-c keeps every job at home.
func TestGrowthJoin(t *testing.T) {
	top := flat(t, 4)
	jobs := wave("j", "c0", 60, 4, 0, 10*24*time.Hour)
	day := 24 * time.Hour
	year := 365 * day
	joins := []time.Duration{time.Duration(float64(year) * math.Log(2) / math.Log(101)), time.Duration(float64(year) * math.Log(3) / math.Log(101))}
	for _, arch := range ArchNames() {
		cfg := DefaultConfig(arch)
		cfg.CoolDown, cfg.GrowthPerYear, cfg.GrowthSpan, cfg.CoolDownLimit = true, dynamics.MaxPerYear, 100*day, 2*year
		alone := arch == "sep-c" || arch == "condor"
		res, tr := run(t, cfg, top, jobs)
		if res.Finished != 60 || res.Processors != 12 {
			t.Fatalf("%s: %d finished, %d processors at the end", arch, res.Finished, res.Processors)
		}
		on := map[int]int{}
		for id, where := range tr.where {
			for k, c := range where {
				on[c]++
				if c > 0 && tr.started[id][k] < joins[c-1] {
					t.Fatalf("%s: job %s started on cluster %d at %v, before it joined (%v)", arch, id, c, tr.started[id][k], joins[c-1])
				}
			}
		}
		t.Logf("%s: starts per cluster %v, makespan %.1f days, U %.3f", arch, on, res.End/86400, res.Utilization)
		switch {
		case alone && (on[1] != 0 || on[2] != 0):
			t.Errorf("%s started jobs away from home: %v", arch, on)
		case !alone && (on[1] == 0 || on[2] == 0):
			t.Errorf("%s: no job started on a joined cluster: %v", arch, on)
		}
		if !(res.Utilization > 0 && res.Utilization <= 1) {
			t.Errorf("%s: U %v", arch, res.Utilization)
		}
	}
}

// TestGrowthThesis: Growth "thesis" is 20% a year: over three years 10
// clusters become 17 (10·1.2³ = 17.28), the first joining at
// year·ln(1.1)/ln(1.2) ≈ 191.6 days; GrowthPerYear overrides the rate.
func TestGrowthThesis(t *testing.T) {
	top := flat(t, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8)
	year := 365 * 24 * time.Hour
	for _, tc := range []struct {
		perYear float64
		want    int
		first   time.Duration
	}{
		{0, 17, time.Duration(float64(year) * math.Log(1.1) / math.Log(1.2))},
		{1, 80, time.Duration(float64(year) * math.Log(1.1) / math.Log(2))},
	} {
		cfg := DefaultConfig("cern")
		cfg.Growth, cfg.GrowthPerYear, cfg.GrowthSpan = GrowthThesis, tc.perYear, 3*year
		j, err := growthOf(&cfg, top)
		if err != nil {
			t.Fatal(err)
		}
		if d := j.At[10] - tc.first; j.Topology.Clusters != tc.want || d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("rate %g: %d clusters, the first new at %v; want %d at %v", tc.perYear, j.Topology.Clusters, j.At[10], tc.want, tc.first)
		}
	}
}

// TestDynamicsDegenerate: empty workloads, one cluster, huge and tiny
// rates, failures with whole-cluster outages, bad settings.
func TestDynamicsDegenerate(t *testing.T) {
	one := flat(t, 8)
	jobs := wave("j", "c0", 30, 3, 0, time.Hour)
	for _, arch := range ArchNames() {
		cfg := DefaultConfig(arch)
		cfg.CoolDown, cfg.Failures = true, FailuresThesis
		res, err := Run(cfg, one, &SliceSource{})
		if err != nil || res.Jobs != 0 || res.Events > 1 {
			t.Errorf("%s, no jobs: %v, %+v", arch, err, res)
		}
		// A huge rate: the cluster is failed nearly all the time; the
		// cool-down limit ends the run, with finite metrics and no
		// negative time.
		cfg.FailureScale, cfg.CoolDownLimit = dynamics.MaxScale, 2*24*time.Hour
		res, err = Run(cfg, one, &SliceSource{Jobs: jobs})
		if err != nil || finite(res) != nil || res.Finished == 30 || res.End != 2*86400 {
			t.Errorf("%s, 1000× the rate: %v, %d finished, end %v, %v", arch, err, res.Finished, res.End, finite(res))
		}
		// A tiny rate: no failure within the run.
		cfg.FailureScale = 1e-9
		res, err = Run(cfg, one, &SliceSource{Jobs: jobs})
		if err != nil || res.Restarts != 0 || res.Finished != 30 {
			t.Errorf("%s, 1e-9× the rate: %v, %d restarts, %d finished", arch, err, res.Restarts, res.Finished)
		}
		// Partial failures under whole-cluster outages: the accounting holds.
		cfg.FailureScale, cfg.CoolDownLimit = 1, 30*24*time.Hour
		cfg.Outages = []Outage{{Cluster: "c0", At: time.Hour, For: 3 * time.Hour}, {Cluster: "c0", At: 2 * time.Hour, For: time.Hour}}
		res, err = Run(cfg, one, &SliceSource{Jobs: jobs})
		if err != nil || res.Finished != 30 {
			t.Errorf("%s, failures and outages: %v, %d finished", arch, err, res.Finished)
		}
	}
	bad := []struct {
		set  func(c *Config)
		want string
		arch string
	}{
		{func(c *Config) { c.Failures = "weibull" }, "failures", ""},
		{func(c *Config) { c.FailureScale = -1 }, "failure_scale", ""},
		{func(c *Config) { c.FailureScale = 1e6 }, "failure_scale", ""},
		{func(c *Config) { c.GrowthPerYear = -0.1 }, "growth_per_year", ""},
		{func(c *Config) { c.GrowthPerYear = 1e9 }, "growth_per_year", ""},
		{func(c *Config) { v := -1.0; c.GrowthSizePerYear = &v }, "growth_size_per_year", ""},
		{func(c *Config) { c.GrowthSpan = -time.Hour }, "growth_span", ""},
		{func(c *Config) { c.GrowthPerYear, c.GrowthSpan = dynamics.MaxPerYear, MaxHorizon }, "growth_per_year", ""},
		{func(c *Config) { c.Failures, c.CentralModel = FailuresThesis, CentralCore }, "core model", "central"},
		{func(c *Config) { c.GrowthPerYear, c.CentralModel = 0.2, CentralCore }, "core model", "central"},
		{func(c *Config) { c.Growth, c.CentralModel = GrowthThesis, CentralCore }, "core model", "central"},
		{func(c *Config) { c.Growth = "linear" }, "growth \"linear\"", ""},
	}
	for _, tc := range bad {
		cfg := DefaultConfig("dmm")
		if tc.arch != "" {
			cfg = DefaultConfig(tc.arch)
		}
		tc.set(&cfg)
		_, err := Run(cfg, one, &SliceSource{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error naming %s, got %v", tc.want, err)
		}
	}
}

// TestFailureHits: failures kill only the jobs whose processors they hit:
// 100 single-processor jobs of an hour on a cluster of 100 processors at
// 10× the thesis's failure rate; every restart is one more start, and
// every job ends.
func TestFailureHits(t *testing.T) {
	top := flat(t, 100)
	jobs := wave("j", "c0", 100, 1, 0, time.Hour)
	cfg := DefaultConfig("sep-c")
	cfg.CoolDown, cfg.Failures, cfg.FailureScale = true, FailuresThesis, 10
	res, tr := run(t, cfg, top, jobs)
	starts := 0
	for _, s := range tr.started {
		starts += len(s)
	}
	if res.Restarts == 0 || starts != 100+res.Restarts || res.Finished != 100 {
		t.Errorf("%d restarts, %d starts, %d finished", res.Restarts, starts, res.Finished)
	}
	if len(tr.started) != 100 {
		t.Errorf("%d jobs started", len(tr.started))
	}
}

// TestDynamicsMemoryFlat: the engine holds one pending dynamics event
// plus the repairs in force, and a repair holds at least one processor:
// a million events at 1,000× the failure rate on DAS-2 (ten days of
// virtual time), and the event heap never holds more than the processors
// plus the architecture's own few events, and no more at 1,000,000 events
// than at 100,000.
func TestDynamicsMemoryFlat(t *testing.T) {
	top, err := topology.Preset("das2")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig("central")
	cfg.Failures, cfg.FailureScale = FailuresThesis, dynamics.MaxScale
	grown, err := growthOf(&cfg, top)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSim(cfg, grown.Topology, &SliceSource{})
	if err != nil {
		t.Fatal(err)
	}
	if s.arch, err = archs[cfg.Arch].new(&s.cfg); err != nil {
		t.Fatal(err)
	}
	s.startDynamics(grown)
	if err := s.arch.Init(s); err != nil {
		t.Fatal(err)
	}
	most := map[int]int{}
	peak := 0
	for i := 1; i <= 1_000_000 && len(s.heap) > 0; i++ {
		ev := s.heap.pop()
		if ev.at < s.now {
			t.Fatalf("event %d at %v, after %v", i, ev.at, s.now)
		}
		s.now = ev.at
		s.handle(&ev)
		peak = max(peak, len(s.heap))
		if i == 100_000 || i == 1_000_000 {
			most[i] = peak
		}
	}
	if err := s.invariants(); err != nil {
		t.Fatal(err)
	}
	t.Logf("heap peak: %v over %v of virtual time; %d processors", most, s.now, top.Processors())
	if most[1_000_000] == 0 || most[1_000_000] > top.Processors()+10 || most[1_000_000] > most[100_000] {
		t.Errorf("heap peak %v: more than the %d processors + 10", most, top.Processors())
	}
}
