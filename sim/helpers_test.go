package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/topology"
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
