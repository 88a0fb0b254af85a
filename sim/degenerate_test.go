package sim

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/workload"
)

func finite(r *Result) error {
	for name, v := range map[string]float64{"U": r.Utilization, "AWT": r.AWT, "ART": r.ART, "ASD": r.ASD, "goodput": r.Goodput,
		"JF": r.JF, "deleg/job": r.DelegationsPerJob, "chain": r.ChainPerJob, "end": r.End} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%s = %v", name, v)
		}
	}
	if r.Utilization > 1+1e-9 {
		return fmt.Errorf("utilization %v above 1", r.Utilization)
	}
	return nil
}

func TestDegenerate(t *testing.T) {
	top := flat(t, 4, 2)
	ones := flat(t, 1, 1, 1)
	var serial []workload.Job
	for i := range 30 {
		serial = append(serial, job(fmt.Sprintf("s%d", i), "*", 1, secs(float64(i)*7), time.Duration(50+i)*time.Second))
	}
	cases := []struct {
		name     string
		top      *topology.Topology
		jobs     []workload.Job
		cooldown bool
		finished int
		rejected int
	}{
		{"no jobs", top, nil, false, 0, 0},
		{"no jobs, cool-down", top, nil, true, 0, 0},
		{"one job", top, []workload.Job{job("one", "c1", 2, secs(5), 60*time.Second)}, true, 1, 0},
		{"one job, cut at its arrival", top, []workload.Job{job("one", "c1", 2, secs(5), 60*time.Second)}, false, 0, 0},
		{"larger than every cluster", top, []workload.Job{job("big", "c0", 5, 0, time.Second)}, true, 0, 1},
		{"clusters of size 1", ones, serial, true, 30, 0},
	}
	for _, tc := range cases {
		for _, arch := range ArchNames() {
			cfg := DefaultConfig(arch)
			cfg.CoolDown = tc.cooldown
			res, err := Run(cfg, tc.top, &SliceSource{Jobs: tc.jobs})
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, arch, err)
			}
			if res.Finished != tc.finished || res.Rejected != tc.rejected || res.Jobs != len(tc.jobs) {
				t.Errorf("%s, %s: %d jobs, %d finished, %d rejected; want %d, %d, %d", tc.name, arch, res.Jobs, res.Finished, res.Rejected, len(tc.jobs), tc.finished, tc.rejected)
			}
			if err := finite(res); err != nil {
				t.Errorf("%s, %s: %v", tc.name, arch, err)
			}
			if len(tc.jobs) > 0 && res.JF != 100*float64(tc.finished)/float64(len(tc.jobs)) {
				t.Errorf("%s, %s: JF %v", tc.name, arch, res.JF)
			}
		}
	}
}

// TestHomeOfAnySite: jobs on "*" or on a site get a home cluster below it,
// drawn by size from the run's seed.
func TestHomeOfAnySite(t *testing.T) {
	top, err := topology.Preset("das2-g5k")
	if err != nil {
		t.Fatal(err)
	}
	var jobs []workload.Job
	for i := range 400 {
		site := "*"
		if i%2 == 1 {
			site = "site4"
		}
		jobs = append(jobs, job(fmt.Sprint(i), site, 1, secs(float64(i)), time.Second))
	}
	cfg := DefaultConfig("sep-c")
	cfg.CoolDown = true
	_, tr := run(t, cfg, top, jobs)
	count := map[int]int{}
	for i := range jobs {
		w := tr.where[fmt.Sprint(i)]
		if len(w) != 1 {
			t.Fatalf("job %d ran %d times", i, len(w))
		}
		if i%2 == 1 && w[0] != 11 && w[0] != 12 {
			t.Fatalf("job %d on site4 ran on cluster %d", i, w[0])
		}
		count[w[0]]++
	}
	// site4's two clusters (560 and 252 processors) share the 200 site4
	// jobs about 2.2 to 1, and a few of the others.
	if count[11] < 120 || count[12] < 45 || len(count) < 8 {
		t.Errorf("homes by cluster: %v", count)
	}
}

func TestRunErrors(t *testing.T) {
	top := flat(t, 4)
	good := job("g", "c0", 1, 0, time.Second)
	cycle := workload.Job{ID: "w", Kind: workload.Composite, Tasks: []workload.Job{job("w.a", "c0", 1, 0, time.Second), job("w.b", "c0", 1, 0, time.Second)},
		Deps: []workload.Dependency{{From: "w.a", To: "w.b"}, {From: "w.b", To: "w.a"}}}
	noTasks := workload.Job{ID: "v", Kind: workload.Composite}
	taskNoRun := workload.Job{ID: "u", Kind: workload.Composite, Tasks: []workload.Job{good, job("u.n", "c0", 1, 0, 0)}}
	noRun := job("n", "c0", 1, 0, 0)
	late := job("l", "c0", 1, secs(10), time.Second)
	early := job("e", "c0", 1, secs(5), time.Second)
	bad := DefaultConfig("dmm")
	bad.Threshold = math.NaN()
	tests := []struct {
		name string
		cfg  Config
		jobs []workload.Job
		want string
	}{
		{"unknown arch", DefaultConfig("koala"), nil, "unknown architecture \"koala\""},
		{"zero config", Config{Arch: "dmm"}, nil, "keep_alive_period = 0s is out of range"},
		{"bad threshold", bad, nil, "threshold = NaN"},
		{"unknown site", DefaultConfig("dmm"), []workload.Job{job("x", "mars", 1, 0, time.Second)}, "job x: site \"mars\" is not in the topology"},
		{"composite with a cycle", DefaultConfig("dmm"), []workload.Job{cycle}, "job w: dependency cycle: w.a -> w.b -> w.a"},
		{"composite without tasks", DefaultConfig("dmm"), []workload.Job{noTasks}, "job v: composite job without tasks"},
		{"task without run time", DefaultConfig("dmm"), []workload.Job{taskNoRun}, "job u.n: no run time"},
		{"no run time", DefaultConfig("dmm"), []workload.Job{noRun}, "job n: no run time"},
		{"out of order", DefaultConfig("dmm"), []workload.Job{late, early}, "job e: submitted at 5s, before the job before it (10s)"},
		{"negative submit", DefaultConfig("dmm"), []workload.Job{job("m", "c0", 1, -time.Second, time.Second)}, "job m: submitted before the start"},
		{"no processors", DefaultConfig("dmm"), []workload.Job{{ID: "p", Kind: workload.Unitary, RunTime: time.Second}}, "job p: no processors"},
	}
	for _, tc := range tests {
		_, err := Run(tc.cfg, top, &SliceSource{Jobs: tc.jobs})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	cfg := DefaultConfig("sep-c")
	cfg.Outages = []Outage{{Cluster: "nowhere", At: 0}}
	if _, err := Run(cfg, top, &SliceSource{}); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("unknown outage cluster: %v", err)
	}
	cfg = DefaultConfig("sep-c")
	cfg.Outages = []Outage{{Cluster: "c0", At: -1}}
	if _, err := Run(cfg, top, &SliceSource{}); err == nil {
		t.Error("accepted an outage before the start")
	}
	boom := errors.New("boom")
	if _, err := Run(DefaultConfig("cern"), top, failing{boom}); !errors.Is(err, boom) {
		t.Errorf("source error: %v", err)
	}
	for _, name := range []string{"window:0", "window:x", "some"} {
		if _, err := NewSelection(name); err == nil {
			t.Errorf("selection %q accepted", name)
		}
	}
	for _, c := range []func(*Config){
		func(c *Config) { c.Dispatch = "sjf" },
		func(c *Config) { c.DelegationOrder = "random" },
		func(c *Config) { c.TargetOrder = "nearest" },
		func(c *Config) { c.LocalScheduler = "sjf" },
		func(c *Config) { c.LeaseTerm = time.Second },
		func(c *Config) { c.DTTL = -1 },
		func(c *Config) { c.InfoDelay = -time.Second },
	} {
		cfg := DefaultConfig("dmm")
		c(&cfg)
		if err := cfg.Check(); err == nil {
			t.Errorf("accepted %+v", cfg)
		}
	}
}

type failing struct{ err error }

func (f failing) Next(*workload.Job) (bool, error) { return false, f.err }

// TestDeterminism: the same inputs and seed give the same result, field
// by field; another seed moves the cycles' phases, and with them the
// results of the matchmaking architectures.
func TestDeterminism(t *testing.T) {
	jobs, top := cachedGridLF(t, "das2", 0.7, 12*time.Hour, 5)
	cfg := func(arch string, seed uint64) Config {
		c := DefaultConfig(arch)
		c.Seed = seed
		c.Outages = []Outage{{Cluster: "fs1", At: 3 * time.Hour, For: time.Hour}}
		return c
	}
	for _, arch := range ArchNames() {
		a, _ := run(t, cfg(arch, 7), top, jobs)
		b, _ := run(t, cfg(arch, 7), top, jobs)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs with seed 7 differ:\n%+v\n%+v", arch, a, b)
		}
		if a.Events == 0 || a.Finished == 0 {
			t.Errorf("%s: %+v", arch, a)
		}
		if arch == "condor" || arch == "fcondor" || arch == "dmm" {
			c, _ := run(t, cfg(arch, 8), top, jobs)
			if c.AWT == a.AWT && c.Messages == a.Messages {
				t.Errorf("%s: seeds 7 and 8 gave the same AWT and messages", arch)
			}
		}
	}
}

// A run time of 0 s is a run time, not a missing one: a job known to run
// for no time runs for 0 s, on any cluster speed, whatever it requests;
// only an unknown run time is stood in for by the requested time, and a
// job with neither is refused. Before, a 0 s job was refused ("no run
// time") or run for its requested time.
func TestZeroRunTime(t *testing.T) {
	top := flat(t, 4, 2)
	zero := job("zero", "c0", 1, secs(5), 0)
	zero.ZeroRunTime, zero.WallTime = true, time.Hour
	zeroNoWall := job("zero-nowall", "c1", 2, secs(6), 0)
	zeroNoWall.ZeroRunTime = true
	unknown := job("unknown", "c0", 1, secs(7), 0)
	unknown.WallTime = 10 * time.Minute
	for _, arch := range ArchNames() {
		cfg := DefaultConfig(arch)
		cfg.CoolDown = true
		cfg.SlowdownBound = 0
		res, tr := run(t, cfg, top, []workload.Job{zero, zeroNoWall, unknown})
		if res.Finished != 3 {
			t.Fatalf("%s: %d of 3 finished", arch, res.Finished)
		}
		for _, id := range []string{"zero", "zero-nowall"} {
			if d := tr.ended[id][0] - tr.started[id][0]; d != 0 {
				t.Errorf("%s: job %s known to run 0 s ran %v", arch, id, d)
			}
		}
		if d := tr.ended["unknown"][0] - tr.started["unknown"][0]; d != 10*time.Minute {
			t.Errorf("%s: the job of unknown run time ran %v, want its requested 10m", arch, d)
		}
		if err := finite(res); err != nil {
			t.Errorf("%s: %v", arch, err)
		}
	}
	// On a slower cluster a job of no work still takes no time.
	if got := (&Job{Work: 0}).RunTime(0.5); got != 0 {
		t.Errorf("no work at speed 0.5: %v", got)
	}
	_, err := Run(DefaultConfig("dmm"), top, &SliceSource{Jobs: []workload.Job{job("n", "c0", 1, 0, 0)}})
	if err == nil || !strings.Contains(err.Error(), "job n: no run time to simulate: its run time is unknown") {
		t.Errorf("unknown run time, no wall time: %v", err)
	}
}
