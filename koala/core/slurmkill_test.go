package core

import (
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
)

// Global priority on Slurm clusters, in simulated time with the controller
// double: the core decides the kills from what the controller reported,
// the double records the scancels it was asked for, and the test reports
// back what Slurm would.

// slurmKillGrid: Slurm clusters sa and sb of 8 processors, start_timeout
// 20s, preempt_local as given; pure RPP with L_p = 0.5 (or policy) under
// global priority.
func slurmKillGrid(t *testing.T, preempt bool, policy string) *grid.Grid {
	t.Helper()
	src := "[scheduler]\nscan_interval = \"10s\"\nutilization_sample = \"1h\"\ndeadline_policy = \"" + policy +
		"\"\ndeadline_l = 0.5\ndeadline_priority = \"global\"\n"
	for _, n := range []string{"sa", "sb"} {
		src += "[[cluster]]\nname = \"" + n + "\"\nprocessors = 8\nlrm = \"slurm\"\nslurm_conf = \"/etc/slurm-" + n +
			".conf\"\nstart_timeout = \"20s\"\n"
		if preempt {
			src += "preempt_local = true\n"
		}
	}
	g, err := grid.Parse("test.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// observed is one controller report: idle processors and the other jobs
// running.
type observed struct {
	idle  int
	local []LocalJob
}

// Victim choice on Slurm clusters, by hand. A global job of 5 processors
// has its deadline at 100 s; the lead is start_timeout, 20 s, so the kill
// try is at 80 s (RPP tries at 50 and 75 fail; the next, 87.5, comes after
// 80). There, the job fits no idle processors (the try fails), and the kill plan takes
// the cluster where the fewest processors must be freed (the most idle;
// ties by name), killing newest start first:
//   - sa idle 0 (jobs 101 of 6 from −100 s, 102 of 2 from −10 s), sb idle
//     2 (201 of 6 from −50 s): sb, 201 killed; lost 6·130 = 780
//     processor-s;
//   - both idle 0, sb running 203 of 8 from −50 s: sa by name; 102 (the
//     newer) then 101; lost 2·90 + 6·180 = 1260 processor-s.
//
// Under Wait-10 the job would be ignored until 90 s: the kill try at 80
// s runs anyway, the kill plan only.
func TestSlurmGlobalPriorityKills(t *testing.T) {
	cases := []struct {
		name, policy string
		sa, sb       observed
		site         string
		killed       string // cluster:id …
		lost         float64
		tries        string
	}{
		{"fewest to free", "rpp",
			observed{0, []LocalJob{{"101", 6, sec(-100)}, {"102", 2, sec(-10)}}},
			observed{2, []LocalJob{{"201", 6, sec(-50)}}},
			"sb", "sb:201", 780, "50 75 80"},
		{"tie by name, newest first", "rpp",
			observed{0, []LocalJob{{"101", 6, sec(-100)}, {"102", 2, sec(-10)}}},
			observed{0, []LocalJob{{"203", 8, sec(-50)}}},
			"sa", "sa:102 sa:101", 1260, "50 75 80"},
		{"wait-10: the kill try before its window", "wait-10",
			observed{0, []LocalJob{{"101", 6, sec(-100)}, {"102", 2, sec(-10)}}},
			observed{2, []LocalJob{{"201", 6, sec(-50)}}},
			"sb", "sb:201", 780, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, rec, ds := newRemoteCore(t, slurmKillGrid(t, true, tc.policy))
			_ = c.ObserveCluster("sa", tc.sa.idle, 0, tc.sa.local...)
			_ = c.ObserveCluster("sb", tc.sb.idle, 0, tc.sb.local...)
			j, err := c.Submit(deadlineJob("g", 100*time.Second, 10*time.Second, 5), Options{Runner: KRunner})
			if err != nil {
				t.Fatal(err)
			}
			c.Advance(sec(80))
			if got := times(rec.of(EvPlacementTry, j.ID)); got != tc.tries {
				t.Errorf("failed tries at %q, want %q", got, tc.tries)
			}
			var got []string
			lost := 0.0
			for _, e := range rec.of(EvLocalKilled, j.ID) {
				if ms(e.Time) != 80000 {
					t.Errorf("a kill at %d ms, want 80000", ms(e.Time))
				}
				got = append(got, e.Cluster+":"+e.LRMID)
				lost += e.ProcessorS
			}
			var asked []string
			for _, n := range []string{"sa", "sb"} {
				for _, id := range ds[n].killed {
					asked = append(asked, n+":"+id)
				}
			}
			if strings.Join(got, " ") != tc.killed || lost != tc.lost {
				t.Errorf("killed %v losing %g processor-s, want %s and %g", got, lost, tc.killed, tc.lost)
			}
			if strings.Join(asked, " ") != strings.Join(got, " ") {
				t.Errorf("scancels asked %v, want %v", asked, got)
			}
			if j.State != Claiming || len(ds[tc.site].subs) != 1 || j.Components[0].Site != tc.site {
				t.Fatalf("job %s on %q, %d submissions to %s", j.State, j.Components[0].Site, len(ds[tc.site].subs), tc.site)
			}
			// A report taken before the scancel took effect still lists
			// the killed jobs: they are not load any more.
			o := map[string]observed{"sa": tc.sa, "sb": tc.sb}[tc.site]
			_ = c.ObserveCluster(tc.site, o.idle, 0, o.local...)
			if u := clusterStatus(c, tc.site); u.Background != 8-o.idle-killedSize(o, got, tc.site) {
				t.Errorf("%s background %d after a stale report", tc.site, u.Background)
			}
			c.Advance(sec(85))
			c.LRMStarted(ds[tc.site].last().Ref, "300", sec(85))
			if j.State != Running || !j.Start.Equal(sec(85)) {
				t.Errorf("job %s started %v (%s), want running from 85 s", j.State, j.Start, j.Reason)
			}
			if d := c.Deadlines(); d.LostProcessorS != tc.lost || d.LocalKilled != 0 {
				t.Errorf("summary %+v: want %g processor-s lost, no killed local users' jobs counted", d, tc.lost)
			}
		})
	}
}

func killedSize(o observed, killed []string, site string) int {
	n := 0
	for _, lj := range o.local {
		for _, k := range killed {
			if k == site+":"+lj.ID {
				n += lj.Size
			}
		}
	}
	return n
}

func clusterStatus(c *Core, name string) ClusterStatus {
	for _, u := range c.Clusters() {
		if u.Name == name {
			return u
		}
	}
	return ClusterStatus{}
}

// Without preempt_local, global priority acts as local priority on a Slurm
// cluster: no kill try before the deadline, nothing cancelled, and the job
// fails at its deadline saying so. With preempt_local but nothing a kill
// could free (the processors are the core's), the job fails too, and no
// scancel is asked.
func TestSlurmGlobalPriorityNotAllowed(t *testing.T) {
	cases := []struct {
		name    string
		preempt bool
		local   []LocalJob
		tries   string
		reason  string
		noNote  bool
	}{
		{"not allowed", false, []LocalJob{{"101", 8, sec(-10)}}, "50 75 87.5 93.75 96.875 98.4375 100",
			"preemption of local jobs is not allowed on Slurm cluster sa, sb (preempt_local = false)", false},
		{"allowed, none reported", true, nil, "50 75 80 90 95 97.5 98.75 100",
			"too few processors even with local jobs killed", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, rec, ds := newRemoteCore(t, slurmKillGrid(t, tc.preempt, "rpp"))
			_ = c.ObserveCluster("sa", 0, 0, tc.local...)
			_ = c.ObserveCluster("sb", 0, 0)
			j, err := c.Submit(deadlineJob("g", 100*time.Second, 10*time.Second, 5), Options{Runner: KRunner})
			if err != nil {
				t.Fatal(err)
			}
			c.Advance(sec(200))
			if got := times(rec.of(EvPlacementTry, j.ID)); got != tc.tries {
				t.Errorf("failed tries at %s, want %s", got, tc.tries)
			}
			if j.State != Failed || !j.End.Equal(sec(100)) || !strings.Contains(j.Reason, tc.reason) {
				t.Errorf("job %s at %v (%s), want failed at 100 s: %s", j.State, j.End, j.Reason, tc.reason)
			}
			if tc.noNote && strings.Contains(j.Reason, "not allowed") {
				t.Errorf("reason %q names a cluster that allows preemption", j.Reason)
			}
			if n := len(rec.of(EvLocalKilled, "")); n != 0 || len(ds["sa"].killed)+len(ds["sb"].killed) != 0 {
				t.Errorf("%d kills, scancels %v %v", n, ds["sa"].killed, ds["sb"].killed)
			}
		})
	}
}

// In a grid with a preempt_local Slurm cluster, a kill plan that would
// kill only an emulated cluster's local jobs is not carried out at the
// kill try: under gp_kill = "at-deadline" those kills wait for the try at
// the deadline, as the paper has them; under "every-try" (the default)
// the first failed try, at 50 s, kills em's local job and places the job
// there (nothing cancelled on the Slurm cluster either way).
func TestSlurmKillTryLeavesEmulatedKillsToTheDeadline(t *testing.T) {
	for _, tc := range []struct {
		gpKill, tries string
		killMS        int64
	}{
		{"at-deadline", "50 75 80 90 95 97.5 98.75 100", 100000},
		{"every-try", "50", 50000},
	} {
		src := "[scheduler]\nscan_interval = \"10s\"\nutilization_sample = \"1h\"\ndeadline_policy = \"rpp\"\ndeadline_l = 0.5\ngp_kill = \"" + tc.gpKill + "\"\n" +
			"[[cluster]]\nname = \"em\"\nprocessors = 8\n" +
			"[[cluster]]\nname = \"sa\"\nprocessors = 8\nlrm = \"slurm\"\nslurm_conf = \"/etc/slurm-sa.conf\"\nstart_timeout = \"20s\"\npreempt_local = true\n"
		g, err := grid.Parse("test.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		sa := &ctlDouble{}
		c, err := NewWith(g, t0, rec, nil, map[string]Controller{"sa": sa})
		if err != nil {
			t.Fatal(err)
		}
		_ = c.ObserveCluster("sa", 0, 0) // full, nothing it may kill reported
		if err := c.SubmitLocalJob("em", 8, 1000*time.Second); err != nil {
			t.Fatal(err)
		}
		j, err := c.Submit(deadlineJob("g", 100*time.Second, 10*time.Second, 5), Options{Runner: KRunner})
		if err != nil {
			t.Fatal(err)
		}
		c.Advance(sec(200))
		if got := times(rec.of(EvPlacementTry, j.ID)); got != tc.tries {
			t.Errorf("%s: failed tries at %s, want %s", tc.gpKill, got, tc.tries)
		}
		kills := rec.of(EvLocalKilled, j.ID)
		if len(kills) != 1 || ms(kills[0].Time) != tc.killMS || kills[0].Cluster != "em" || len(sa.killed) != 0 {
			t.Fatalf("%s: kills %+v, scancels %v; want em's local job killed at %d ms, nothing cancelled", tc.gpKill, kills, sa.killed, tc.killMS)
		}
		if j.State != Finished || !j.Start.Equal(sec(100)) {
			t.Errorf("%s: job %s started %v (%s), want finished, started at 100 s", tc.gpKill, j.State, j.Start, j.Reason)
		}
	}
}
