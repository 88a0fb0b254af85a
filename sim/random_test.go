package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/workload"
)

func TestMain(m *testing.M) {
	checkInvariants = true
	m.Run()
}

// TestRandomScenarios runs every architecture on random small systems and
// workloads with random outages (all of which end), checking what must
// hold whatever the scheduling: the processor accounting of every cluster
// (TestMain), every job finished or rejected after the cool-down, no
// killed run without an outage, finite metrics.
func TestRandomScenarios(t *testing.T) {
	var restarts, leases, delegations int
	defer func() {
		// the scenarios must reach the paths they are here for
		if restarts == 0 || leases == 0 || delegations == 0 {
			t.Errorf("over all scenarios: %d restarts, %d expired leases, %d delegations", restarts, leases, delegations)
		}
	}()
	for seed := uint64(1); seed <= 40; seed++ {
		r := stats.NewStream(seed, 0, "scenario")
		spec := topology.Spec{Sites: []topology.SiteSpec{{Name: "root"}, {Name: "s1", Parent: "root"}, {Name: "s2", Parent: "root"}}}
		n := 2 + r.IntN(5)
		var names []string
		for i := range n {
			parent := []string{"root", "s1", "s2"}[r.IntN(3)]
			name := fmt.Sprintf("c%d", i)
			spec.Clusters = append(spec.Clusters, topology.ClusterSpec{Name: name, Parent: parent, Processors: 1 + r.IntN(16), Scheduler: []string{"fcfs", "easy", "conservative"}[r.IntN(3)]})
			names = append(names, name)
		}
		spec.Siblings = []topology.SiblingSpec{{Sites: []string{"s1", "s2"}}}
		top := topo(t, spec)
		var jobs []workload.Job
		at := 0.0
		for i := range 20 + r.IntN(200) {
			at += r.ExpFloat64() * 200
			jobs = append(jobs, job(fmt.Sprint(i), names[r.IntN(n)], 1+r.IntN(12), secs(at), secs(1+r.ExpFloat64()*2000)))
		}
		var outages []Outage
		for range r.IntN(9) {
			outages = append(outages, Outage{Cluster: names[r.IntN(n)], At: secs(r.Float64() * at), For: secs(1 + r.Float64()*20000)})
		}
		for _, arch := range ArchNames() {
			cfg := DefaultConfig(arch)
			cfg.Seed, cfg.CoolDown, cfg.Outages = seed, true, outages
			cfg.InfoDelay = time.Duration(r.IntN(3)) * 30 * time.Second
			res, err := Run(cfg, top, &SliceSource{Jobs: jobs})
			if err != nil {
				t.Fatalf("seed %d, %s: %v", seed, arch, err)
			}
			restarts += res.Restarts
			leases += res.LeasesExpired
			delegations += int(res.Delegations)
			if res.Finished+res.Rejected != res.Jobs {
				t.Errorf("seed %d, %s: %d finished + %d rejected of %d jobs", seed, arch, res.Finished, res.Rejected, res.Jobs)
			}
			if len(outages) == 0 && (res.Restarts != 0 || res.LeasesExpired != 0) {
				t.Errorf("seed %d, %s: %d restarts, %d leases expired without failures", seed, arch, res.Restarts, res.LeasesExpired)
			}
			if err := finite(res); err != nil {
				t.Errorf("seed %d, %s: %v", seed, arch, err)
			}
			// Cut at the last arrival: the accounting holds mid-run too.
			cfg.CoolDown = false
			cut, err := Run(cfg, top, &SliceSource{Jobs: jobs})
			if err != nil {
				t.Fatalf("seed %d, %s, cut: %v", seed, arch, err)
			}
			if cut.Finished > res.Finished || cut.Jobs != res.Jobs {
				t.Errorf("seed %d, %s: cut run finished %d of %d, cool-down %d of %d", seed, arch, cut.Finished, cut.Jobs, res.Finished, res.Jobs)
			}
		}
	}
}
