package grid

import (
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzParse: any input is either a valid grid or an error naming the file;
// never a panic. A valid grid has every number within its documented range
// (what the scheduler relies on to bound its work), and checking it again
// changes nothing.
func FuzzParse(f *testing.F) {
	for _, path := range []string{"../../examples/das2.toml", "../../examples/das2-replicated.toml"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	base := "[[cluster]]\nname = \"a\"\nprocessors = 8\n"
	for _, extra := range []string{
		"[cluster.background]\nlow = 0.1\nhigh = 0.2\n",
		"[scheduler]\nutilization_sample = \"1ns\"\n",
		"[scheduler]\ntime_scale = 100000.0\nscan_interval = \"1h\"\n",
		"[scheduler]\nmax_runtime = \"15m\"\nmax_output = \"1GB\"\ngroup_weights = [2, 1]\n",
		"speed = nan\nfailure_rate = 0.5\n",
		"[[network.link]]\nfrom = \"a\"\nto = \"a\"\nbandwidth = \"1kbit/s\"\n",
		"[[file]]\nname = \"f\"\nsize = \"1TB\"\nsites = [\"a\"]\n[[event]]\nat = \"1h\"\ncluster = \"a\"\naction = \"down\"\n",
		"bogus = 1\n",
		"[cluster.local]\nload = 0.3\nsize = [1, 8]\nrsd_q = 0.9\nruntime = \"100s\"\n[scheduler]\ndeadline_policy = \"wait-10\"\ndeadline_l = 0.7\ndeadline_priority = \"local\"\n",
		"[[cluster]]\nname = \"s\"\nlrm = \"slurm\"\nslurm_conf = \"s.conf\"\npoll = \"500ms\"\n",
	} {
		f.Add([]byte(base + extra))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		g, err := Parse("g.toml", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "g.toml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		s := g.Scheduler
		if len(g.Clusters) == 0 || len(g.Clusters) > MaxClusters {
			t.Fatalf("accepted %d clusters", len(g.Clusters))
		}
		if !(s.TimeScale >= MinTimeScale && s.TimeScale <= MaxTimeScale) {
			t.Fatalf("accepted time_scale %g", s.TimeScale)
		}
		for _, d := range []time.Duration{s.ScanInterval.Duration, s.UtilizationSample.Duration} {
			if d < time.Second || time.Duration(float64(d)/s.TimeScale) < MinWallPeriod {
				t.Fatalf("accepted a period of %v at time scale %g", d, s.TimeScale)
			}
		}
		if s.MaxRuntime.Duration < 0 || s.MaxRuntime.Duration > LongestRun || s.DefaultRuntime.Duration < time.Second {
			t.Fatalf("accepted run times %+v", s)
		}
		if s.MaxOutput < MinOutputLimit || s.MaxOutput > MaxOutputLimit || *s.MaxRestarts < 0 || s.ErrorThreshold < 1 {
			t.Fatalf("accepted limits %+v", s)
		}
		for _, c := range g.Clusters {
			if c.Processors < 1 && !c.Slurm() || c.Processors < 0 || c.Processors > MaxProcessors || !(c.Speed >= MinSpeed && c.Speed <= MaxSpeed) {
				t.Fatalf("accepted cluster %+v", c)
			}
			if c.Slurm() && (c.SlurmConf == "" || c.Poll.Duration < 100*time.Millisecond || c.StartTimeout.Duration < time.Second || s.TimeScale != 1) {
				t.Fatalf("accepted Slurm cluster %+v at time scale %g", c, s.TimeScale)
			}
			if b := c.Background; b.Enabled() && (b.Interval.Duration < time.Second || b.JobSize[1] > c.Processors) {
				t.Fatalf("accepted background %+v", b)
			}
		}
		for _, l := range g.Network.Links {
			if !(float64(l.Bandwidth) >= MinBandwidth && float64(l.Bandwidth) <= MaxBandwidth) {
				t.Fatalf("accepted link %+v", l)
			}
		}
		for _, fl := range g.Files {
			if fl.Size < 0 || fl.Size > MaxFileBytes {
				t.Fatalf("accepted file %+v", fl)
			}
		}
		if err := g.Check(); err != nil {
			t.Fatalf("a parsed grid fails its own check: %v", err)
		}
	})
}
