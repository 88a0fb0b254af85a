package placeholder

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/placeholder/experiment"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// An experiment on real targets: two loopback Slurm
// clusters and one zero-infrastructure site, 18 jobs both ways at ×100.
// The placeholders of alpha and beta are Slurm batch jobs (sbatch, each
// resubmitting itself with sbatch), those of host plain processes; each
// job sleeps its units at its site's rate over the scale. Every job ran
// once; the static jobs at their split's sites; each execution at least
// its units at its site's rate; every job run at a cluster ran in a
// placeholder that is a batch job of that cluster (its output file,
// Placeholder.oJOBID, names a job the cluster's completion log holds
// under the placeholder's job name, at least one per job run there);
// none is left queued or running after the run.
//
// Slow: 85 s at load 33–72 (2 cores, whole package run, its tests one at a
// time): an experiment both ways on two Slurm clusters and a host, in real
// time at ×100.
func TestExperimentRealTargets(t *testing.T) {
	t.Parallel() // an experiment in a directory of its own, waiting in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	dir := t.TempDir()
	t.Cleanup(func() { // whatever the run left on this host, by pid
		for _, pid := range pidsIn(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	var b strings.Builder
	b.WriteString("name = \"real\"\nunits = [200, 400, 200, 400, 200, 400, 200, 400, 200, 400, 200, 400, 200, 400, 200, 400, 200, 400]\n")
	b.WriteString("split = [6, 6, 6]\ntime_scale = 100\ninterval = 200\n")
	rates := map[string]float64{"alpha": 2, "beta": 1, "host": 0.5}
	for _, c := range e.Clusters {
		fmt.Fprintf(&b, "[[site]]\nname = %q\nrate = %v\nplaceholders = 2\ntarget = \"slurm\"\nslurm_conf = %q\nwall_time = \"10m\"\n", c.Name, rates[c.Name], c.Conf)
	}
	b.WriteString("[[site]]\nname = \"host\"\nrate = 0.5\nplaceholders = 1\ntarget = \"zinf\"\n")
	sp, err := experiment.Parse("real.toml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := experiment.ExperimentWith(sp, experiment.Options{Gmark: gmarkBin.Path(t), Dir: dir, Timeout: 8 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("both ways in %v of wall time", time.Since(start).Round(time.Second))
	// Nothing of the run is left in the clusters' queues: the
	// placeholders refused at the end exit, the server stops the rest.
	for _, c := range e.Clusters {
		deadline := time.Now().Add(time.Minute)
		for {
			out, err := c.Cmd("squeue", "-h", "-t", "PENDING,RUNNING", "-o", "%j").Output()
			if err != nil {
				t.Fatalf("squeue at %s: %v", c.Name, err)
			}
			if !strings.Contains(string(out), "placeholder-experiment") {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("placeholders left at %s a minute after the run:\n%s", c.Name, out)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	split := []string{"alpha", "alpha", "alpha", "alpha", "alpha", "alpha", "beta", "beta", "beta", "beta", "beta", "beta", "host", "host", "host", "host", "host", "host"}
	for _, res := range r.Runs {
		seen := map[int]int{}
		perSite := map[string]int{}
		for _, jr := range res.Runs {
			seen[jr.Job]++
			perSite[jr.Site]++
			if min := jr.Units / rates[jr.Site]; jr.End-jr.Start < min-1e-5*sp.TimeScale || jr.Start < 0 {
				t.Errorf("%s: job %d at %s ran %.3f s from %.3f; its units take %.3f s", res.Mode, jr.Job, jr.Site, jr.End-jr.Start, jr.Start, min)
			}
			if res.Mode == experiment.Static && jr.Site != split[jr.Job] {
				t.Errorf("static: job %d ran at %s, not at %s", jr.Job, jr.Site, split[jr.Job])
			}
		}
		for k := range split {
			if seen[k] != 1 {
				t.Errorf("%s: job %d ran %d times", res.Mode, k, seen[k])
			}
		}
		for _, c := range e.Clusters {
			if perSite[c.Name] == 0 {
				t.Errorf("%s: no job ran at %s", res.Mode, c.Name)
			}
			sdir := filepath.Join(dir, res.Mode, "metaqueue.db.sites", "experiment", c.Name)
			ents, err := os.ReadDir(sdir)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, en := range ents {
				if id, ok := strings.CutPrefix(en.Name(), "Placeholder.o"); ok {
					ids = append(ids, id)
				}
			}
			names := jobNames(t, c.JobComp, ids)
			for _, id := range ids {
				if want := "placeholder-experiment-" + c.Name; names[id] != want {
					t.Errorf("%s at %s: placeholder output of Slurm job %s, which the completion log names %q", res.Mode, c.Name, id, names[id])
				}
			}
			if len(ids) < perSite[c.Name] {
				t.Errorf("%s at %s: %d jobs ran in %d Slurm batch jobs", res.Mode, c.Name, perSite[c.Name], len(ids))
			}
		}
		t.Logf("%s: %s", res.Mode, summary(res))
	}
	t.Logf("ratio static/placeholders %.2f", r.Ratio)
	// The same workload in simulated time (no targets): the real
	// systems' overheads only add to the static makespan.
	sim := *sp
	sim.TimeScale = 0
	sim.Sites = append([]experiment.Site(nil), sp.Sites...)
	for i := range sim.Sites {
		sim.Sites[i].Target = experiment.Target{}
	}
	sr, err := experiment.Experiment(&sim)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range sr.Runs {
		t.Logf("%s simulated: %s", res.Mode, summary(res))
		if res.Mode == experiment.Static && r.Runs[i].Makespan < res.Makespan-1e-5*sp.TimeScale {
			t.Errorf("static: makespan %.0f s on real targets, below the simulated %.0f s", r.Runs[i].Makespan, res.Makespan)
		}
	}
}

// summary is a way's makespan, imbalance and sites (jobs, idle at).
func summary(res *experiment.Result) string {
	var sites []string
	for _, s := range res.Sites {
		sites = append(sites, fmt.Sprintf("%s %d jobs idle at %.0f s", s.Site, s.Jobs, s.IdleAt))
	}
	return fmt.Sprintf("makespan %.0f s, imbalance %.1f%%; %s", res.Makespan, 100*res.Imbalance, strings.Join(sites, ", "))
}

// An experiment with a site on the bundled core (target = "koala"): its
// placeholders are core jobs fixed on the core's cluster c1 (two
// processors, three placeholders: one waits in the core's queue), beside
// an emulated site; 10 jobs both ways at ×100. Every job ran once, the
// static ones at their split's sites, and the core holds at least one
// placeholder job on c1 for each job run at the site.
//
// Slow: 29 s at load 33–72 (2 cores, whole package run, its tests one at a
// time): an experiment through the bundled core in real time.
func TestExperimentKoalaTarget(t *testing.T) {
	t.Parallel() // an experiment in a directory of its own, waiting in real time: runs beside the others
	core := startKoalaCore(t, [][2]any{{"c1", 2}})
	dir := t.TempDir()
	t.Cleanup(func() {
		for _, pid := range pidsIn(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	src := fmt.Sprintf(`name = "core"
units = [100, 200, 100, 200, 100, 200, 100, 200, 100, 200]
split = [5, 5]
time_scale = 100
[[site]]
name = "k"
rate = 1
placeholders = 3
target = "koala"
koala = %q
koala_token_file = %q
cluster = "c1"
wall_time = "10m"
[[site]]
name = "em"
rate = 0.5
`, core.url, core.tokenFile)
	sp, err := experiment.Parse("core.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r, err := experiment.ExperimentWith(sp, experiment.Options{Gmark: gmarkBin.Path(t), Dir: dir, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	atK := 0
	for _, res := range r.Runs {
		seen := map[int]int{}
		for _, jr := range res.Runs {
			seen[jr.Job]++
			if jr.Site == "k" {
				atK++
			}
			if want := []string{"k", "em"}[jr.Job/5]; res.Mode == experiment.Static && jr.Site != want {
				t.Errorf("static: job %d ran at %s, not at %s", jr.Job, jr.Site, want)
			}
		}
		for k := range sp.Units {
			if seen[k] != 1 {
				t.Errorf("%s: job %d ran %d times", res.Mode, k, seen[k])
			}
		}
		t.Logf("%s: makespan %.0f s, imbalance %.1f%%, jobs at k/em %d/%d", res.Mode, res.Makespan, 100*res.Imbalance, res.Sites[0].Jobs, res.Sites[1].Jobs)
	}
	onC1 := 0
	for _, j := range core.jobs(t) {
		if j.Name == "placeholder-k" && len(j.Sites) == 1 && j.Sites[0] == "c1" {
			onC1++
		}
	}
	if atK == 0 || onC1 < atK {
		t.Errorf("%d jobs ran at k in %d placeholder jobs of the core on c1", atK, onC1)
	}
	t.Logf("%d jobs at k, %d placeholder jobs of the core on c1", atK, onC1)
}
