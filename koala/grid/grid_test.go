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

func TestParseErrors(t *testing.T) {
	base := "[[cluster]]\nname = \"a\"\nprocessors = 8\n"
	cases := []struct{ src, want string }{
		{"", "no clusters"},
		{"[[cluster]]\nname = \"a\"\n", "processors must be >= 1"},
		{base + "[[cluster]]\nname = \"a\"\nprocessors = 8\n", `cluster "a" is defined twice`},
		{base + "[scheduler]\nclaim_l = 1.5\n", "claim_l must be in [0, 1]"},
		{base + "[scheduler]\nscan_interval = \"soon\"\n", `"soon" is not a duration`},
		{base + "[scheduler]\nexecution = \"magic\"\n", "execution must be emulated or process"},
		{base + "[network]\ndefault_bandwidth = \"fast\"\n", `"fast" is not a bandwidth`},
		{base + "[[file]]\nname = \"f\"\nsize = \"1GB\"\nsites = [\"b\"]\n", `unknown site "b"`},
		{base + "[[event]]\nat = \"1h\"\ncluster = \"a\"\naction = \"explode\"\n", "action must be down or up"},
		{base + "[cluster.background]\nlow = 0.5\nhigh = 0.4\n", "0 <= low <= high <= 1"},
		{base + "bogus = 1\n", "unknown setting(s) cluster.bogus"},
		{"[[cluster]\nname = 1", "g.toml:2: expected end of table array name"},
	}
	for _, c := range cases {
		_, err := Parse("g.toml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "g.toml") {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

func TestBandwidthUnits(t *testing.T) {
	for in, want := range map[string]float64{"1Gbit/s": 1.25e8, "100Mbit/s": 1.25e7, "1MB/s": 1 << 20, "8bit/s": 1} {
		if got, err := ParseBandwidth(in); err != nil || got != want {
			t.Errorf("%s = %g, %v; want %g", in, got, err, want)
		}
	}
}
