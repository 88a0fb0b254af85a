package grid

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Slurm cluster: its controller's slurm.conf (relative paths from the
// grid file's directory), processors optional, its own defaults.
func TestSlurmCluster(t *testing.T) {
	src := "[[cluster]]\nname = \"s\"\nlrm = \"slurm\"\nslurm_conf = \"conf/slurm.conf\"\npartition = \"main\"\n" +
		"[[cluster]]\nname = \"e\"\nprocessors = 4\n"
	g, err := Parse(filepath.Join("/grids", "g.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := g.Cluster("s")
	e, _ := g.Cluster("e")
	if !s.Slurm() || e.Slurm() || !g.HasSlurm() || e.LRM != LRMEmulated {
		t.Fatalf("kinds %q %q", s.LRM, e.LRM)
	}
	if s.SlurmConf != "/grids/conf/slurm.conf" || s.Partition != "main" || s.Poll.Duration != time.Second ||
		s.StartTimeout.Duration != 30*time.Second || s.Processors != 0 || s.LocalScheduler != "" || s.PreemptLocal {
		t.Errorf("slurm cluster %+v", s)
	}
	// The processors come from the controller.
	if err := g.ResolveProcessors(func(*Cluster) (int, error) { return 64, nil }); err != nil || s.Processors != 64 || g.TotalProcessors() != 68 {
		t.Errorf("resolved: %v, %d processors", err, s.Processors)
	}
	if err := g.Check(); err != nil {
		t.Errorf("checked again: %v", err)
	}
	if g2, err := Parse("g.toml", []byte(strings.Replace(src, "partition", "preempt_local = true\npartition", 1))); err != nil {
		t.Errorf("preempt_local = true: %v", err)
	} else if s2, _ := g2.Cluster("s"); !s2.PreemptLocal {
		t.Errorf("preempt_local = true not read")
	}
	cases := []struct {
		given, total int
		err          error
		want         string
	}{
		{0, 0, nil, "reports no processors"},
		{8, 4, nil, "processors = 8, but its controller has 4"},
		{0, 4, errors.New("sinfo: Unable to contact slurm controller"), "cluster s: reading its processors from the controller"},
		{2, 4, nil, ""},
	}
	for _, c := range cases {
		g, _ := Parse("g.toml", []byte(src))
		g.Clusters[1].Processors = c.given // sorted: s is second
		err := g.ResolveProcessors(func(*Cluster) (int, error) { return c.total, c.err })
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("given %d, total %d: %v, want %q", c.given, c.total, err, c.want)
		}
	}
}

// What a Slurm cluster cannot have, and what an emulated one cannot: each
// error names the cluster and says what to do.
func TestSlurmErrors(t *testing.T) {
	slurm := "[[cluster]]\nname = \"s\"\nlrm = \"slurm\"\nslurm_conf = \"/s.conf\"\n"
	cases := []struct{ src, want string }{
		{"[[cluster]]\nname = \"s\"\nlrm = \"pbs\"\nprocessors = 4\n", `g.toml:3: cluster 1: lrm must be emulated, slurm, arc or gram, got "pbs"`},
		{"[[cluster]]\nname = \"s\"\nlrm = \"slurm\"\n", `cluster 1: slurm_conf is required with lrm = "slurm": give the path of cluster s's slurm.conf`},
		{slurm + "local_scheduler = \"easy\"\n", "g.toml:5: cluster 1: local_scheduler does not apply to cluster s: Slurm schedules its own queue"},
		{slurm + "failure_rate = 0.1\n", "g.toml:5: cluster 1: failure_rate does not apply to cluster s"},
		{slurm + "[cluster.background]\nlow = 0.3\nhigh = 0.4\n", `g.toml:3: cluster 1: lrm = "slurm": cluster s cannot have a [cluster.background]`},
		{slurm + "[scheduler]\ntime_scale = 10.0\n", "cluster s runs in real time, so scheduler.time_scale must be 1, not 10"},
		{slurm + "[scheduler]\nexecution = \"process\"\n", `scheduler.execution = "process" cannot be mixed with it`},
		{slurm + "poll = \"1ms\"\n", `g.toml:5: cluster 1: poll = "1ms" is out of range`},
		{slurm + "start_timeout = \"2h\"\n", "g.toml:5: cluster 1: start_timeout"},
		{slurm + "processors = -1\n", "cluster 1: processors = -1 is out of range"},
		{"[[cluster]]\nname = \"e\"\nprocessors = 4\nslurm_conf = \"/x\"\n", `g.toml:4: cluster 1: slurm_conf is for lrm = "slurm" clusters: cluster e is emulated`},
		{"[[cluster]]\nname = \"e\"\nprocessors = 4\npoll = \"1s\"\n", `cluster 1: poll and start_timeout are for lrm = "slurm" clusters`},
		{"[[cluster]]\nname = \"e\"\nprocessors = 4\npreempt_local = true\n", `g.toml:4: cluster 1: preempt_local is for lrm = "slurm" clusters: cluster e is emulated`},
		{slurm + "preempt_local = \"yes\"\n", "line 5"},
	}
	for _, c := range cases {
		_, err := Parse("g.toml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	// A time scale set on the command line meets the same check.
	g, err := Parse("g.toml", []byte(slurm))
	if err != nil {
		t.Fatal(err)
	}
	scale := 100.0
	if err := g.Apply(Overrides{TimeScale: &scale}); err == nil || !strings.Contains(err.Error(), "time_scale must be 1") {
		t.Errorf("--time-scale 100: %v", err)
	}
}

// What a cluster behind a CE must have and cannot have; its defaults.
func TestCEErrors(t *testing.T) {
	arc := "[[cluster]]\nname = \"a\"\nlrm = \"arc\"\nprocessors = 8\n"
	cases := []struct{ src, want string }{
		{arc, `cluster 1: ce is required with lrm = "arc": cluster a: give its A-REX endpoint`},
		{"[[cluster]]\nname = \"g\"\nlrm = \"gram\"\nprocessors = 8\n", `ce is required with lrm = "gram": cluster g: give its job manager's contact`},
		{arc + "ce = \"http://ce:443/arex\"\n", `ce = "http://ce:443/arex": lrm = "arc": cluster a needs an https://host:port/arex endpoint`},
		{"[[cluster]]\nname = \"g\"\nlrm = \"gram\"\nprocessors = 8\nce = \"ce:2119\"\n", `needs a host:port/jobmanager-LRM contact`},
		{arc + "ce = \"https://ce/arex\"\nslurm_conf = \"/x\"\n", `slurm_conf does not apply to lrm = "arc": cluster a`},
		{arc + "ce = \"https://ce/arex\"\npreempt_local = true\n", `preempt_local does not apply to lrm = "arc"`},
		{arc + "ce = \"https://ce/arex\"\n[cluster.background]\nlow = 0.3\nhigh = 0.4\n", `cluster a cannot have a [cluster.background]`},
		{arc + "ce = \"https://ce/arex\"\n[scheduler]\ntime_scale = 10.0\n", "cluster a runs in real time"},
		{"[[cluster]]\nname = \"a\"\nlrm = \"arc\"\nce = \"https://ce/arex\"\n", "processors = 0 is out of range"},
		{"[[cluster]]\nname = \"e\"\nprocessors = 4\nce = \"https://ce/arex\"\n", `ce is for lrm = "arc" and "gram" clusters: cluster e is emulated`},
		{arc + "ce = \"https://ce/arex\"\n[cluster.local]\nload = 0.2\n", "does not apply to cluster a: a real cluster's local jobs"},
	}
	for _, c := range cases {
		_, err := Parse("g.toml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	g, err := Parse("g.toml", []byte(arc+"ce = \"https://ce:443/arex\"\npartition = \"main\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	cl := g.Clusters[0]
	if !cl.ThroughCE() || !cl.Real() || cl.Slurm() || !g.HasCE() || g.HasSlurm() || cl.Poll.Duration != 2*time.Second || cl.StartTimeout.Duration != 2*time.Minute {
		t.Errorf("%+v", cl)
	}
}
