package experiment

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/workload"
)

// writeTrace writes an SWF trace of n jobs on two sites (partitions 1 and
// 2; site 2 submits twice as often), one job every 60 s, run times 600 to
// 5,400 s, sizes 1 to 4.
func writeTrace(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("; Version: 2.2\n; MaxProcs: 512\n")
	for k := 1; k <= n; k++ {
		part := 1 + min(1, k%3)
		fmt.Fprintf(&b, "%d %d 0 %d %d -1 -1 %d -1 -1 1 %d 1 -1 -1 %d -1 -1\n", k, 60*k, 600+(k*977)%4800, 1+k%4, 1+k%4, 1+k%5, part)
	}
	path := filepath.Join(dir, "t.swf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// drain reads a run's workload to its end.
func drain(t *testing.T, e *Experiment, i int) (WorkloadSummary, []workload.Job) {
	t.Helper()
	r, err := e.Run(i)
	if err != nil {
		t.Fatal(err)
	}
	src, err := r.source(context.Background(), e.Topology())
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var jobs []workload.Job
	var j workload.Job
	for {
		ok, err := src.Next(&j)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		jobs = append(jobs, j)
	}
	return src.acc.summary(gridTargets(e.Topology(), r.Workload.ClusterLoads)), jobs
}

// A trace with imbalance (T5): each grid's jobs are scaled to the grid's
// own load exactly (DAS-2 at 60% whatever the level, Grid'5000 at the
// level), each site's jobs go to the node it is mapped to, in submit
// order; --scale cuts each grid's replay to that fraction of its span.
func TestTraceImbalance(t *testing.T) {
	dir := t.TempDir()
	writeTrace(t, dir, 3000)
	src := `name = "t5"
topology = "das2-g5k"
architectures = ["dmm"]
loads = [150]
[workload]
kind = "trace"
trace = "t.swf"
[workload.sites]
1 = "das2"
2 = "g5k"
[workload.fixed_load]
das2 = 60
`
	e := load(t, dir, src)
	sum, jobs := drain(t, e, 0)
	if sum.Jobs != 3000 || len(sum.Grids) != 2 {
		t.Fatalf("%+v", sum)
	}
	for _, g := range sum.Grids {
		want := map[string]float64{"das2": 60, "g5k": 150}[g.Grid]
		if g.Target != want || math.Abs(g.OfferedLoad-want) > 1e-6*want {
			t.Errorf("grid %s: offered %g%%, target %g%%, want %g%%", g.Grid, g.OfferedLoad, g.Target, want)
		}
	}
	for k := 1; k < len(jobs); k++ {
		if jobs[k].Submit < jobs[k-1].Submit {
			t.Fatalf("job %d submitted before the one before it", k)
		}
	}
	for _, j := range jobs {
		if s := j.Components[0].Site; s != "das2" && s != "g5k" {
			t.Fatalf("job %s goes to %q", j.ID, s)
		}
	}
	half, err := Parse(filepath.Join(dir, "exp.toml"), []byte(src), Options{Scale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := drain(t, half, 0)
	if hs.Jobs < 1400 || hs.Jobs > 1600 {
		t.Errorf("scale 0.5: %d jobs of 3,000", hs.Jobs)
	}
	// The runs simulate: the trace's jobs under DMM.
	r, _ := e.Run(0)
	s, err := r.source(context.Background(), e.Topology())
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(r.Config, e.Topology(), s)
	s.Close()
	if err != nil || res.Jobs != 3000 || res.Finished == 0 {
		t.Fatalf("%+v %v", res, err)
	}
}

// Without a site map a trace goes anywhere, at the load of the whole
// system; a trace whose mapped sites have no jobs is an error of the run.
func TestTraceWhole(t *testing.T) {
	dir := t.TempDir()
	writeTrace(t, dir, 500)
	e := load(t, dir, "name = \"w\"\ntopology = \"das2\"\narchitectures = [\"cern\"]\nloads = [40]\n[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\n")
	sum, jobs := drain(t, e, 0)
	if sum.Jobs != 500 || math.Abs(sum.OfferedLoad-40) > 1e-6*40 || jobs[0].Components[0].Site != workload.AnySite {
		t.Errorf("%+v, site %q", sum, jobs[0].Components[0].Site)
	}
	e = load(t, dir, "name = \"w\"\ntopology = \"das2\"\narchitectures = [\"cern\"]\nloads = [40]\n[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\nsites = { 7 = \"fs0\" }\n")
	r, _ := e.Run(0)
	if _, err := r.source(context.Background(), e.Topology()); err == nil || !strings.Contains(err.Error(), "span no time") {
		t.Errorf("a site with no jobs: %v", err)
	}
}

// Grid-LF at a load: each cluster's stream is brought to its load by IWG
// (within the tolerance, 1 point), and is about Span × Scale long (the job
// count whose work the load asks for over the span); a grid's offered load
// is over its longest stream's span, so at most the target.
func TestGridLFLoads(t *testing.T) {
	dir := t.TempDir()
	src := "name = \"g\"\ntopology = \"das2-g5k\"\narchitectures = [\"dmm\"]\nloads = [70]\n[workload]\nspan = \"1d\"\n[workload.load_scale]\ng5k = 2\n"
	e := load(t, dir, src)
	top := e.Topology()
	check := func(e *Experiment, span float64) int {
		sum, jobs := drain(t, e, 0)
		if sum.Jobs != len(jobs) || sum.Jobs < 1000 {
			t.Fatalf("%+v", sum)
		}
		work, last := make([]float64, top.Clusters), make([]float64, top.Clusters)
		for _, j := range jobs {
			c, _ := top.Index(j.Components[0].Site)
			work[c] += float64(j.Processors()) * j.RunTime.Seconds()
			last[c] = j.Submit.Seconds() // every stream starts at 0
		}
		var spans []float64
		for c := 0; c < top.Clusters; c++ {
			want := 70.0
			if top.Nodes[top.Nodes[c].Grid].Name == "g5k" {
				want = 140
			}
			if l := offered(work[c], top.Nodes[c].Processors, last[c]); math.Abs(l-want) > 1.01 {
				t.Errorf("cluster %s: offered %.2f%%, want %g%% ± 1", top.Nodes[c].Name, l, want)
			}
			spans = append(spans, last[c])
		}
		slices.Sort(spans)
		if med := spans[len(spans)/2]; med < 0.9*span || med > 1.1*span {
			t.Errorf("median span %.0f s, want %.0f ± 10%% (spans %v)", med, span, spans)
		}
		for _, g := range sum.Grids {
			if g.OfferedLoad > g.Target+1 || g.OfferedLoad < g.Target/2 {
				t.Errorf("grid %s: offered %.1f%%, target %g%%", g.Grid, g.OfferedLoad, g.Target)
			}
		}
		return sum.Jobs
	}
	n := check(e, 86400)
	quarter, err := Parse(filepath.Join(dir, "exp.toml"), []byte(src), Options{Scale: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	if q := check(quarter, 86400/4); float64(q) < 0.15*float64(n) || float64(q) > 0.35*float64(n) {
		t.Errorf("scale 0.25: %d jobs against %d", q, n)
	}
}
