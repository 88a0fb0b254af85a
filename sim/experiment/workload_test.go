package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
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
	t.Parallel()
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

// Grid-LF at a load, as the thesis's IWG makes it "for a system of known
// size, during a specified period" (Sec. 8.4.3): every cluster's stream
// starts at 0 and ends at the period's end (Span × Scale, within 1%), and
// its work is load × processors × period (within the tolerance, 1 point);
// so each grid's offered load over the run's window (to the last arrival)
// is its target, within the tolerance and the 1% of the spans. (Before the
// streams were tuned to the period, a stream whose next job was a long
// parallel one stopped short: Grid'5000's largest cluster had 30% of a
// day's work at 70%, and the system 60% where 70% was asked.)
func TestGridLFLoads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		src   string
		scale float64
		g5k   float64 // Grid'5000's load, times the level
	}{
		{"loads = [70]\n[workload]\nspan = \"1d\"\n[workload.load_scale]\ng5k = 2\n", 1, 2},
		{"loads = [70]\n[workload]\nspan = \"1d\"\n", 0.25, 1},
		{"loads = [10, 90]\n[workload]\nspan = \"1d\"\n", 1, 1},
		{"seed = 7\nloads = [80]\n[workload]\nspan = \"12h\"\n", 1, 1},
	} {
		src := "name = \"g\"\ntopology = \"das2-g5k\"\narchitectures = [\"dmm\"]\n" + tc.src
		e, err := Parse(filepath.Join(dir, "exp.toml"), []byte(src), Options{Scale: tc.scale})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < e.NumRuns(); i++ {
			r, _ := e.Run(i)
			checkGridLF(t, e, i, map[string]float64{"das2": r.Load, "g5k": r.Load * tc.g5k})
		}
	}
}

// checkGridLF checks run i's grid-LF workload against the target load of
// each grid (percent).
func checkGridLF(t *testing.T, e *Experiment, i int, want map[string]float64) {
	t.Helper()
	top := e.Topology()
	period := e.Scenarios[0].Workload.Span.Seconds() * e.Scale
	sum, jobs := drain(t, e, i)
	at := fmt.Sprintf("scale %g, run %d", e.Scale, i)
	if sum.Jobs != len(jobs) || sum.Jobs < 1000 {
		t.Fatalf("%s: %+v", at, sum)
	}
	work, first, last := make([]float64, top.Clusters), make([]float64, top.Clusters), make([]float64, top.Clusters)
	for c := range first {
		first[c] = -1
	}
	for _, j := range jobs {
		c, _ := top.Index(j.Components[0].Site)
		work[c] += float64(j.Processors()) * j.RunTime.Seconds()
		if first[c] < 0 {
			first[c] = j.Submit.Seconds()
		}
		last[c] = j.Submit.Seconds()
	}
	for c := 0; c < top.Clusters; c++ {
		name, target := top.Nodes[c].Name, want[top.Nodes[top.Nodes[c].Grid].Name]
		if first[c] != 0 || math.Abs(last[c]-period) > 0.0101*period {
			t.Errorf("%s: cluster %s: stream from %.0f s to %.0f s, want 0 to %.0f s ± 1%%", at, name, first[c], last[c], period)
		}
		if l := offered(work[c], top.Nodes[c].Processors, period); math.Abs(l-target) > 1+1e-9 {
			t.Errorf("%s: cluster %s: %.2f%% over the period, want %g%% ± 1", at, name, l, target)
		}
	}
	for _, g := range sum.Grids {
		target := want[g.Grid]
		if math.Abs(g.OfferedLoad-target) > 1+0.0101*target || g.Target != target {
			t.Errorf("%s: grid %s: offered %.2f%% (target %g%%), want %g%%", at, g.Grid, g.OfferedLoad, g.Target, target)
		}
	}
	procsOf := func(g string) float64 {
		n, _ := top.Index(g)
		p := 0
		for _, c := range top.Subtree(n) {
			p += top.Nodes[c].Processors
		}
		return float64(p)
	}
	sys := 0.0
	for _, g := range sum.Grids {
		sys += want[g.Grid] * procsOf(g.Grid) / float64(top.Processors())
	}
	if math.Abs(sum.OfferedLoad-sys) > 1+0.0101*sys {
		t.Errorf("%s: system offered %.2f%%, want %.2f%%", at, sum.OfferedLoad, sys)
	}
}

// [workload.lf] reaches the generator: with SerialProb = 0 and UProb = 0
// every grid-LF job is parallel with a size from the upper stage
// (2^UMed = 2^4.5, i.e. 22.6, rounded, up to the cluster), where the
// default draws 95% serial jobs; the parameters are in the run's digest,
// so a run made without them is not reused; and the stream still brings
// each grid to its load.
func TestGridLFParams(t *testing.T) {
	dir := t.TempDir()
	parse := func(lf string) *Experiment {
		src := "name = \"g\"\ntopology = \"das2\"\narchitectures = [\"dmm\"]\nloads = [50]\n[workload]\nspan = \"6h\"\n" + lf
		e, err := Parse(filepath.Join(dir, "exp.toml"), []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	plain, heavy := parse(""), parse("[workload.lf]\nSerialProb = 0\nUProb = 0\n")
	rp, _ := plain.Run(0)
	rh, _ := heavy.Run(0)
	if rp.Digest == rh.Digest {
		t.Errorf("the same digest with and without [workload.lf]: %s", rp.Digest)
	}
	serial := func(jobs []workload.Job) (n int, small int) {
		for _, j := range jobs {
			switch p := j.Processors(); {
			case p == 1:
				n++
			case p < 22:
				small++
			}
		}
		return n, small
	}
	_, pj := drain(t, plain, 0)
	sum, hj := drain(t, heavy, 0)
	if n, _ := serial(pj); float64(n) < 0.9*float64(len(pj)) {
		t.Errorf("default grid-LF: %d of %d jobs serial, want about 95%%", n, len(pj))
	}
	if n, small := serial(hj); n != 0 || small != 0 || len(hj) < 10 {
		t.Errorf("SerialProb = 0, UProb = 0: %d of %d jobs serial, %d under 22 processors", n, len(hj), small)
	}
	for _, g := range sum.Grids {
		if math.Abs(g.OfferedLoad-50) > 2 {
			t.Errorf("grid %s offered %.1f%%, want 50", g.Grid, g.OfferedLoad)
		}
	}
}

// A trace replay is a function of the set of jobs, not of the order of the
// trace's lines: shuffled, the trace gives the same span, offered load and
// jobs (before, the span came from the first and last lines, and a trace
// not in submit order was refused: "span no time or no work"). Its jobs of
// 0 s run for 0 s (before: "job 1-…: no run time").
func TestTraceLineOrderAndZeroRunTimes(t *testing.T) {
	dir := t.TempDir()
	writeTrace(t, dir, 600)
	src, err := os.ReadFile(filepath.Join(dir, "t.swf"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(src), "\n"), "\n")
	head, recs := lines[:2], lines[2:]
	for i := range recs {
		if i%7 == 0 { // a job of 0 s
			f := strings.Fields(recs[i])
			f[3] = "0"
			recs[i] = strings.Join(f, " ") + "\n"
		}
		if !strings.HasSuffix(recs[i], "\n") {
			recs[i] += "\n"
		}
	}
	ordered := strings.Join(head, "") + strings.Join(recs, "")
	rng := rand.New(rand.NewPCG(7, 7))
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	shuffled := strings.Join(head, "") + strings.Join(recs, "")
	exp := "name = \"o\"\ntopology = \"das2\"\narchitectures = [\"sep-c\"]\nloads = [40]\n[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\n"
	var sums []WorkloadSummary
	var all [][]workload.Job
	for _, text := range []string{ordered, shuffled} {
		if err := os.WriteFile(filepath.Join(dir, "t.swf"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		e := load(t, dir, exp)
		sum, jobs := drain(t, e, 0)
		sums, all = append(sums, sum), append(all, jobs)
		if sum.Jobs != 600 || math.Abs(sum.OfferedLoad-40) > 1e-6*40 {
			t.Errorf("%d jobs at %g%%, want all 600 at 40%%", sum.Jobs, sum.OfferedLoad)
		}
		zero := 0
		for _, j := range jobs {
			if rt, ok := j.KnownRunTime(); ok && rt == 0 {
				zero++
			}
		}
		if zero != 86 {
			t.Errorf("%d jobs of 0 s, want 86", zero)
		}
		r, _ := e.Run(0)
		s, err := r.source(context.Background(), e.Topology())
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(r.Config, e.Topology(), s)
		s.Close()
		if err != nil || res.Jobs != len(jobs) {
			t.Fatalf("%+v %v", res, err)
		}
	}
	if !reflect.DeepEqual(sums[0], sums[1]) {
		t.Errorf("summaries differ with the line order:\n%+v\n%+v", sums[0], sums[1])
	}
	if len(all[0]) != len(all[1]) {
		t.Fatalf("%d and %d jobs", len(all[0]), len(all[1]))
	}
	for i := range all[0] {
		a, b := all[0][i], all[1][i]
		if a.Submit != b.Submit || a.RunTime != b.RunTime || a.ZeroRunTime != b.ZeroRunTime || a.Processors() != b.Processors() || a.ID != b.ID {
			t.Fatalf("job %d differs with the line order: %+v\n%+v", i, a, b)
		}
	}
}

// [workload.lf] Users gives each cluster's grid-LF stream a user
// population (wl:lublin's Users: that many users, drawn by Zipf rank), so
// fcondor and DMM have job managers to order by fair share, where without
// it every job of a cluster is the one user's: the jobs of a cluster carry
// more than one user (at most Users), the users' names are the model's,
// and the sizes, run times and submit times are the same jobs' (the users
// have a random stream of their own); the key is in the run's digest.
func TestGridLFUsers(t *testing.T) {
	dir := t.TempDir()
	parse := func(lf string) *Experiment {
		src := "name = \"g\"\ntopology = \"das2\"\narchitectures = [\"fcondor\"]\nloads = [50]\n[workload]\nspan = \"6h\"\n" + lf
		e, err := Parse(filepath.Join(dir, "exp.toml"), []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	plain, users := parse(""), parse("[workload.lf]\nUsers = 40\n")
	rp, _ := plain.Run(0)
	ru, _ := users.Run(0)
	if rp.Digest == ru.Digest {
		t.Errorf("the same digest with and without Users: %s", rp.Digest)
	}
	_, pj := drain(t, plain, 0)
	_, uj := drain(t, users, 0)
	if len(pj) != len(uj) || len(pj) < 100 {
		t.Fatalf("%d jobs without Users, %d with: want the same jobs", len(pj), len(uj))
	}
	perSite := func(jobs []workload.Job) map[string]map[string]bool {
		m := map[string]map[string]bool{}
		for _, j := range jobs {
			site := j.Components[0].Site
			if m[site] == nil {
				m[site] = map[string]bool{}
			}
			m[site][j.User] = true
		}
		return m
	}
	for site, us := range perSite(pj) {
		if len(us) != 1 {
			t.Errorf("without Users: cluster %s has %d users, want one", site, len(us))
		}
	}
	for site, us := range perSite(uj) {
		if len(us) < 5 || len(us) > 40 {
			t.Errorf("Users = 40: cluster %s has %d users, want 5 to 40", site, len(us))
		}
	}
	for k := range pj {
		p, u := pj[k], uj[k]
		if p.Submit != u.Submit || p.RunTime != u.RunTime || p.Processors() != u.Processors() || p.Components[0].Site != u.Components[0].Site {
			t.Fatalf("job %d differs beyond its user: %+v against %+v", k, p, u)
		}
	}
	for _, bad := range []string{"Users = 0", "Users = 2e6", "UserExponent = -1"} {
		src := "name = \"g\"\ntopology = \"das2\"\narchitectures = [\"fcondor\"]\nloads = [50]\n[workload]\nspan = \"6h\"\n[workload.lf]\n" + bad + "\n"
		if _, err := Parse(filepath.Join(dir, "exp.toml"), []byte(src), Options{}); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
