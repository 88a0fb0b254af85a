package grid

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestDAS2Example(t *testing.T) {
	g, err := Load("../../examples/das2.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"fs0": 144, "fs1": 56, "fs2": 56, "fs3": 64, "fs4": 64}
	if len(g.Clusters) != 5 || g.TotalProcessors() != 384 {
		t.Fatalf("%d clusters, %d processors", len(g.Clusters), g.TotalProcessors())
	}
	for _, c := range g.Clusters {
		if want[c.Name] != c.Processors || c.Background.Low != 0.30 || c.Background.High != 0.40 {
			t.Errorf("cluster %+v", c)
		}
	}
	s := g.Scheduler
	if s.ScanInterval.Duration != time.Minute || *s.ClaimL != 0.75 || *s.ClaimThreshold != 1 || s.Policy != "CF" {
		t.Errorf("scheduler %+v", s)
	}
	if bw := g.Bandwidth("fs0", "fs1"); bw != 1e9/8 {
		t.Errorf("bandwidth %g, want 1 Gbit/s", bw)
	}
	if !math.IsInf(g.Bandwidth("fs1", "fs1"), 1) {
		t.Error("a site to itself must be infinitely fast")
	}
	if r := g.Replicas("file-4g"); len(r) != 1 || r[0] != "fs3" {
		t.Errorf("replicas %v", r)
	}
	rep, err := Load("../../examples/das2-replicated.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Files {
		if len(f.Sites) != 3 {
			t.Errorf("replicated %s has %d replicas", f.Name, len(f.Sites))
		}
	}
}

// Every number of the grid file is checked against its documented range;
// the error gives the file, the line of the setting and the range.
func TestParseErrors(t *testing.T) {
	base := "[[cluster]]\nname = \"a\"\nprocessors = 8\n"
	cases := []struct{ src, want string }{
		{"", "g.toml: no clusters"},
		{"[[cluster]]\nname = \"a\"\n", "g.toml: cluster 1: processors = 0 is out of range: must be in [1, 1048576]"},
		{"[[cluster]]\nname = \"a\"\nprocessors = -4\n", "g.toml:3: cluster 1: processors = -4 is out of range"},
		{"[[cluster]]\nname = \"a\"\nprocessors = 2000000\n", "g.toml:3: cluster 1: processors = 2000000 is out of range"},
		{base + "[[cluster]]\nname = \"a\"\nprocessors = 8\n", `g.toml:5: cluster 2: name "a": cluster "a" is defined twice`},
		{base + "speed = -1.0\n", "g.toml:4: cluster 1: speed = -1 is out of range: must be in [0.001, 1000]"},
		{base + "speed = nan\n", "g.toml:4: cluster 1: speed = NaN is out of range"},
		{base + "speed = inf\n", "g.toml:4: cluster 1: speed = +Inf is out of range"},
		{base + "failure_rate = 2.0\n", "g.toml:4: cluster 1: failure_rate = 2 is out of range"},
		{base + "[scheduler]\nclaim_l = 1.5\n", "g.toml:5: scheduler.claim_l = 1.5 is out of range: must be in [0, 1]"},
		{base + "[scheduler]\nscan_interval = \"soon\"\n", `g.toml:5: "soon" is not a duration`},
		{base + "[scheduler]\nscan_interval = \"1ms\"\n", `g.toml:5: scheduler.scan_interval = "1ms" is out of range: must be in [1s, 24h0m0s]`},
		{base + "[scheduler]\nutilization_sample = \"1ns\"\n", `g.toml:5: scheduler.utilization_sample = "1ns" is out of range`},
		{base + "[scheduler]\nutilization_sample = \"1000h\"\n", `g.toml:5: scheduler.utilization_sample = "1000h0m0s" is out of range`},
		{base + "[scheduler]\ntime_scale = 100000.0\nscan_interval = \"1h\"\nutilization_sample = \"1s\"\n", "g.toml:7: scheduler.utilization_sample = \"1s\" at time_scale 100000 comes every 10µs"},
		{base + "[scheduler]\ntime_scale = -2.0\n", "g.toml:5: scheduler.time_scale = -2 is out of range: must be in [0.001, 1e+06]"},
		{base + "[scheduler]\ntime_scale = 1e9\n", "g.toml:5: scheduler.time_scale = 1e+09 is out of range"},
		{base + "[scheduler]\nmax_runtime = \"100000h\"\n", "g.toml:5: scheduler.max_runtime = \"100000h0m0s\" is out of range"},
		{base + "[scheduler]\nmax_runtime = \"1ms\"\n", "g.toml:5: scheduler.max_runtime"},
		{base + "[scheduler]\nmax_runtime = \"-1s\"\n", "g.toml:5: duration \"-1s\" must not be negative"},
		{base + "[scheduler]\ndefault_runtime = \"1ns\"\n", "g.toml:5: scheduler.default_runtime"},
		{base + "[scheduler]\ninfo_cache = \"48h\"\n", "g.toml:5: scheduler.info_cache"},
		{base + "[scheduler]\nclaim_epsilon = \"2h\"\n", "g.toml:5: scheduler.claim_epsilon"},
		{base + "[scheduler]\nmax_placement_tries = -1\n", "g.toml:5: scheduler.max_placement_tries = -1 is out of range"},
		{base + "[scheduler]\naging_period = 100000000\n", "g.toml:5: scheduler.aging_period"},
		{base + "[scheduler]\ngroup_weights = [1, 5000]\n", "g.toml:5: scheduler.group_weights = 5000 is out of range"},
		{base + "[scheduler]\nqueue_weights = [1, 1, -1, 1]\n", "g.toml:5: scheduler.queue_weights = -1"},
		{base + "[scheduler]\nerror_threshold = -1\n", "g.toml:5: scheduler.error_threshold"},
		{base + "[scheduler]\nmax_restarts = -1\n", "g.toml:5: scheduler.max_restarts"},
		{base + "[scheduler]\nmax_output = \"2TB\"\n", "g.toml:5: scheduler.max_output"},
		{base + "[scheduler]\nexecution = \"magic\"\n", "g.toml:5: scheduler.execution must be emulated or process"},
		{base + "[scheduler]\nplaceholder_dirs = [\"/srv/mq.sites\"]\n", "g.toml:5: scheduler.placeholder_dirs applies to process execution only"},
		{base + "[scheduler]\nexecution = \"process\"\nplaceholder_dirs = [\"\"]\n", "g.toml:6: scheduler.placeholder_dirs has an empty directory"},
		{base + "[network]\ndefault_bandwidth = \"fast\"\n", `g.toml:5: "fast" is not a bandwidth`},
		{base + "[network]\ndefault_bandwidth = \"8bit/s\"\n", "g.toml:5: network.default_bandwidth = 1 is out of range"},
		{base + "[[network.link]]\nfrom = \"a\"\nto = \"a\"\nbandwidth = \"1bit/s\"\n", "g.toml:7: network.link 1: bandwidth"},
		{base + "[[file]]\nname = \"f\"\nsize = \"1GB\"\nsites = [\"b\"]\n", `g.toml:7: file 1: sites of file f: unknown site "b"`},
		{base + "[[file]]\nname = \"f\"\nsize = \"2000TB\"\nsites = [\"a\"]\n", "g.toml:6: file 1: size"},
		{base + "[[event]]\nat = \"1h\"\ncluster = \"a\"\naction = \"explode\"\n", "g.toml:7: event 1: action at 1h0m0s: action must be down or up"},
		{base + "[[event]]\nat = \"9000h\"\ncluster = \"a\"\naction = \"up\"\n", "g.toml:5: event 1: at"},
		{base + "[cluster.background]\nlow = 0.5\nhigh = 0.4\n", "g.toml:5: cluster 1: background.low must not be above high"},
		{base + "[cluster.background]\nhigh = 0.4\ninterval = \"10ms\"\n", "g.toml:6: cluster 1: background.interval"},
		{base + "[cluster.background]\nhigh = 0.4\njob_size = [1, 9]\n", "g.toml:6: cluster 1: background.job_size = [1 9]"},
		{base + "[cluster.background]\nhigh = 0.4\njob_runtime = \"1ms\"\n", "g.toml:6: cluster 1: background.job_runtime"},
		{base + "[scheduler]\ndeadline_policy = \"wait-soon\"\n", `g.toml:5: scheduler.deadline_policy "wait-soon" is not a deadline policy`},
		{base + "[scheduler]\ndeadline_l = 0.0\n", "g.toml:5: scheduler.deadline_l = 0 is out of range: must be in [0.001, 1]"},
		{base + "[scheduler]\ndeadline_l = 1.5\n", "g.toml:5: scheduler.deadline_l = 1.5 is out of range"},
		{base + "[scheduler]\ndeadline_priority = \"both\"\n", "g.toml:5: scheduler.deadline_priority must be global (GP) or local (LP)"},
		{base + "[scheduler]\ndeadline_max_tries = -1\n", "g.toml:5: scheduler.deadline_max_tries = -1 is out of range"},
		{base + "[scheduler]\ndeadline_epsilon = \"1ns\"\n", "g.toml:5: scheduler.deadline_epsilon"},
		{base + "[scheduler]\nlocal_warmup = \"-1s\"\n", "g.toml:5: duration \"-1s\" must not be negative"},
		{base + "[scheduler]\nlocal_warmup = \"9000h\"\n", "g.toml:5: scheduler.local_warmup"},
		{base + "[cluster.local]\nruntime = \"10s\"\n", "g.toml: cluster 1: local.load or interarrival is needed"},
		{base + "[cluster.local]\nload = 0.3\ninterarrival = \"10s\"\n", "g.toml:5: cluster 1: local.load and interarrival both set the arrival rate"},
		{base + "[cluster.local]\nload = 1.5\n", "g.toml:5: cluster 1: local.load = 1.5 is out of range"},
		{base + "[cluster.local]\nload = 0.3\nsize = [4, 9]\n", "g.toml:6: cluster 1: local.size = [4 9]: must be [min, max]"},
		{base + "[cluster.local]\nload = 0.3\nsize_distribution = \"zipf\"\n", "g.toml:6: cluster 1: local.size_distribution must be rsd or uniform"},
		{base + "[cluster.local]\nload = 0.3\nrsd_q = 1.0\n", "g.toml:6: cluster 1: local.rsd_q = 1 is out of range"},
		{base + "[cluster.local]\nload = 0.3\nruntime = \"9000h\"\n", "g.toml:6: cluster 1: local.runtime"},
		{base + "[cluster.local]\nload = 1e-6\nruntime = \"1ms\"\ninterarrival = \"0s\"\n", ""},
		{base + "[cluster.local]\nload = 1.0\nruntime = \"1ms\"\nsize = [1, 1]\n", "g.toml:5: cluster 1: local.load = 1 gives local jobs more often than one per millisecond"},
		{base + "bogus = 1\n", "g.toml:4: unknown setting(s) cluster.bogus"},
		{base + "[scheduler]\nscan_intervall = \"1m\"\n", "g.toml:5: unknown setting(s) scheduler.scan_intervall"},
		{base + "[clusters]\nname = \"b\"\n", "unknown setting(s) clusters"},
		{"[[cluster]\nname = 1", "g.toml:2: expected end of table array name"},
		// A cluster's name is an id: no bidirectional-text control, emoji,
		// blank or control character reaches a report or a terminal.
		{"[[cluster]]\nname = \"fs\u202e0\"\nprocessors = 8\n", `g.toml:2: cluster 1: name = "fs\u202e0": a cluster's name is 1 to 128 ASCII letters`},
		{"[[cluster]]\nname = \"fs\U0001F600\"\nprocessors = 8\n", `cluster 1: name = "fs\U0001f600"`},
		{"[[cluster]]\nname = \"fs 0\"\nprocessors = 8\n", `cluster 1: name = "fs 0"`},
		{"[[cluster]]\nname = \"fs\\n0\"\nprocessors = 8\n", `cluster 1: name = "fs\n0"`},
		{"[[cluster]]\nname = \"-fs0\"\nprocessors = 8\n", `cluster 1: name = "-fs0"`},
		{"[[cluster]]\nname = \"" + strings.Repeat("f", 129) + "\"\nprocessors = 8\n", `cluster 1: name = "fff`},
		{"[[cluster]]\nname = \"" + strings.Repeat("f", 128) + "\"\nprocessors = 8\n", ""},
		{"[[cluster]]\nname = \"\"\nprocessors = 8\n", `cluster 1: name = ""`},
		{"[[cluster]]\nname = \"DAS-2.vu_fs0\"\nprocessors = 8\n", ""},
	}
	for _, c := range cases {
		_, err := Parse("g.toml", []byte(c.src))
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// The command line's overrides go through the same checks.
func TestCheckAfterOverride(t *testing.T) {
	g, err := Load("../../examples/das2.toml")
	if err != nil {
		t.Fatal(err)
	}
	g.Scheduler.TimeScale = 1e7
	if err := g.Check(); err == nil || !strings.Contains(err.Error(), "time_scale") {
		t.Errorf("time scale 1e7: %v", err)
	}
}

func TestBandwidthUnits(t *testing.T) {
	for in, want := range map[string]float64{"1Gbit/s": 1.25e8, "100Mbit/s": 1.25e7, "1MB/s": 1 << 20, "8bit/s": 1} {
		if got, err := ParseBandwidth(in); err != nil || got != want {
			t.Errorf("%s = %g, %v; want %g", in, got, err, want)
		}
	}
}

// placeholder_dirs are paths: a relative one is from the grid file's
// directory, as slurm_conf is.
func TestPlaceholderDirs(t *testing.T) {
	g, err := Parse("/grids/g.toml", []byte("[scheduler]\nexecution = \"process\"\nplaceholder_dirs = [\"/srv/mq.sites\", \"mq2.sites\"]\n[[cluster]]\nname = \"a\"\nprocessors = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.Scheduler.PlaceholderDirs, " "); got != "/srv/mq.sites /grids/mq2.sites" {
		t.Errorf("placeholder_dirs %s", got)
	}
}
