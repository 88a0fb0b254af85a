package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/workload"
)

// job is a rigid single-site job for the tests.
func job(id string, site string, procs int, submit, run time.Duration) workload.Job {
	return workload.Job{
		ID: id, Kind: workload.Unitary, Submit: submit, RunTime: run,
		SiteType: workload.Single, App: workload.App{Name: "sleep"},
		Components: []workload.Component{{Site: site, Count: procs}},
	}
}

// wave is n identical jobs submitted at one time.
func wave(prefix, site string, n, procs int, submit, run time.Duration) []workload.Job {
	out := make([]workload.Job, n)
	for i := range out {
		out[i] = job(fmt.Sprintf("%s%d", prefix, i), site, procs, submit, run)
	}
	return out
}

// topo builds a topology from a spec, failing the test on error.
func topo(t testing.TB, spec topology.Spec) *topology.Topology {
	t.Helper()
	top, err := topology.Build(&spec)
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// flat is clusters of the given sizes named c0, c1, … under one root
// "grid", all siblings of each other.
func flat(t testing.TB, sizes ...int) *topology.Topology {
	spec := topology.Spec{Name: "flat", Sites: []topology.SiteSpec{{Name: "grid"}}}
	var names []string
	for i, n := range sizes {
		name := fmt.Sprintf("c%d", i)
		spec.Clusters = append(spec.Clusters, topology.ClusterSpec{Name: name, Parent: "grid", Processors: n})
		names = append(names, name)
	}
	if len(names) > 1 {
		spec.Siblings = []topology.SiblingSpec{{Sites: names}}
	}
	return topo(t, spec)
}

// trace records what happened to every job.
type trace struct {
	arrived, started, ended map[string][]time.Duration
	where                   map[string][]int
}

func newTrace() *trace {
	return &trace{arrived: map[string][]time.Duration{}, started: map[string][]time.Duration{},
		ended: map[string][]time.Duration{}, where: map[string][]int{}}
}

func (tr *trace) Arrived(j *Job) { tr.arrived[j.ID] = append(tr.arrived[j.ID], j.Submit) }
func (tr *trace) Started(j *Job) {
	tr.started[j.ID] = append(tr.started[j.ID], j.Start)
	tr.where[j.ID] = append(tr.where[j.ID], j.Cluster)
}
func (tr *trace) Ended(j *Job) { tr.ended[j.ID] = append(tr.ended[j.ID], j.End) }

// startTimes is the sorted first start of every job.
func (tr *trace) startTimes() []time.Duration {
	var out []time.Duration
	for _, s := range tr.started {
		out = append(out, s[0])
	}
	slices.Sort(out)
	return out
}

// run simulates, failing the test on error.
func run(t testing.TB, cfg Config, top *topology.Topology, jobs []workload.Job) (*Result, *trace) {
	t.Helper()
	tr := newTrace()
	res, err := RunObserved(cfg, top, &SliceSource{Jobs: jobs}, tr)
	if err != nil {
		t.Fatal(err)
	}
	return res, tr
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// synth is a Grid-LF-like workload for the ordering tests and the
// benchmarks (not the thesis's model: IWG comes with the experiment
// manager): one Poisson stream per cluster, offered load `load` on that
// cluster (imbalance scales one grid's streams), 95% single-processor jobs
// and 5% parallel ones of 2^k processors up to half the cluster, log-normal
// run times with a median of 30 minutes.
func synth(top *topology.Topology, load float64, span time.Duration, seed uint64, scale func(cluster int) float64) []workload.Job {
	var jobs []workload.Job
	for c := 0; c < top.Clusters; c++ {
		r := stats.NewStream(seed, c, "synth")
		n := &top.Nodes[c]
		l := load
		if scale != nil {
			l *= scale(c)
		}
		maxK := 0
		for 1<<(maxK+1) <= n.Processors/2 {
			maxK++
		}
		// mean processors × mean run time: E[run] = 1800·e^(1.5²/2)
		meanRun := 1800 * math.Exp(1.5*1.5/2)
		meanProcs := 0.95
		if maxK >= 1 {
			for k := 1; k <= maxK; k++ {
				meanProcs += 0.05 * float64(int(1)<<k) / float64(maxK)
			}
		} else {
			meanProcs = 1
		}
		rate := l * float64(n.Processors) / (meanProcs * meanRun) // jobs per second
		t := 0.0
		for i := 0; ; i++ {
			t += r.ExpFloat64() / rate
			if t >= span.Seconds() {
				break
			}
			procs := 1
			if maxK >= 1 && r.Float64() < 0.05 {
				procs = 1 << (1 + r.IntN(maxK))
			}
			run := math.Min(1800*math.Exp(1.5*r.NormFloat64()), 36*3600)
			jobs = append(jobs, job(fmt.Sprintf("%s-%d", n.Name, i), n.Name, procs, secs(t), secs(math.Max(run, 1))))
		}
	}
	slices.SortStableFunc(jobs, func(a, b workload.Job) int { return cmp.Compare(a.Submit, b.Submit) })
	return jobs
}

func f3(x float64) string { return fmt.Sprintf("%.4f", x) }
func f0(x float64) string { return fmt.Sprintf("%.0f", x) }
