package sim

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// gridLF is the thesis's Ch. 8 workload in small: one grid-LF stream per
// cluster (generator's wl:lublin, Variant=grid: 95% serial jobs, sizes up
// to the cluster, Weibull bag-of-tasks arrivals with the daily cycle), each
// brought to its cluster's target load by IWG, about `span` long. Each
// cluster's load is load × scale(cluster) (nil: balanced).
func gridLF(t testing.TB, top *topology.Topology, load float64, span time.Duration, seed uint64, scale func(c int) float64) []workload.Job {
	t.Helper()
	// Jobs per cluster: the offered load L·P·span over grid-LF's mean
	// work per job, measured once per cluster size by a first pass.
	counts := make([]int, top.Clusters)
	for c := range counts {
		counts[c] = 200
	}
	for pass := 0; pass < 2; pass++ {
		jobs, spans := gridLFOnce(t, top, load, counts, seed, scale)
		if pass == 1 {
			return jobs
		}
		for c := range counts {
			counts[c] = max(20, int(float64(counts[c])*span.Seconds()/spans[c]))
		}
	}
	return nil
}

func gridLFOnce(t testing.TB, top *topology.Topology, load float64, counts []int, seed uint64, scale func(c int) float64) ([]workload.Job, []float64) {
	var b strings.Builder
	b.WriteString("# File-type: text/wl-spec\n")
	for c := 0; c < top.Clusters; c++ {
		l := load
		if scale != nil {
			l *= scale(c)
		}
		fmt.Fprintf(&b, "%d\twl:lublin\tsingle\t1\t*:?\t-\tVariant=grid,Processors=%d,TargetLoad=%g,Tolerance=0.05,MaxIterations=100\n", counts[c], top.Nodes[c].Processors, l)
	}
	spec, err := wdl.Parse("gridlf.wdl", []byte(b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := generator.New(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]time.Duration, top.Clusters)
	last := make([]time.Duration, top.Clusters)
	var jobs []workload.Job
	_, err = g.Generate(func(j *workload.Job) error {
		c := j.Unit - 1 // unit ids count from 1 in file order
		if first[c] == 0 {
			first[c] = j.Submit
		}
		last[c] = j.Submit
		cp := *j
		cp.Components = []workload.Component{{Site: top.Nodes[c].Name, Count: j.Processors()}}
		cp.App = workload.App{Name: "swf"}
		jobs = append(jobs, cp)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	spans := make([]float64, top.Clusters)
	for c := range spans {
		spans[c] = max(1, (last[c] - first[c]).Seconds())
	}
	return jobs, spans
}

var gridLFCache sync.Map

// cachedGridLF memoizes gridLF across the tests of one run.
func cachedGridLF(t testing.TB, preset string, load float64, span time.Duration, seed uint64) ([]workload.Job, *topology.Topology) {
	top, err := topology.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("%s/%g/%v/%d", preset, load, span, seed)
	if v, ok := gridLFCache.Load(key); ok {
		return v.([]workload.Job), top
	}
	jobs := gridLF(t, top, load, span, seed, nil)
	gridLFCache.Store(key, jobs)
	return jobs, top
}
