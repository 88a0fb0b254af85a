package generator

import (
	"bytes"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
	"gonum.org/v1/gonum/stat/distuv"
)

const fig54 = "../examples/thesis/fig5_4.wdl"

func parse(t testing.TB, name, src string) *wdl.Spec {
	t.Helper()
	spec, err := wdl.Parse(name, []byte(src), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func parseSpecFile(t testing.TB, path string) *wdl.Spec {
	t.Helper()
	spec, err := wdl.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// generate returns copies of all jobs.
func generate(t testing.TB, spec *wdl.Spec, seed uint64) []workload.Job {
	t.Helper()
	g, err := New(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []workload.Job
	_, err = g.Generate(func(j *workload.Job) error {
		jobs = append(jobs, cloneJob(j))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func cloneJob(j *workload.Job) workload.Job {
	c := *j
	c.App.Params = append([]workload.Param(nil), j.App.Params...)
	c.Components = append([]workload.Component(nil), j.Components...)
	c.Files = append([]workload.File(nil), j.Files...)
	c.Deps = append([]workload.Dependency(nil), j.Deps...)
	c.Tasks = nil
	for i := range j.Tasks {
		c.Tasks = append(c.Tasks, cloneJob(&j.Tasks[i]))
	}
	return c
}

// jsonl is the workload.jsonl bytes of a generation.
func jsonl(t testing.TB, spec *wdl.Spec, seed uint64) []byte {
	t.Helper()
	g, err := New(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := workload.NewWriter(&buf)
	if _, err := g.Generate(func(j *workload.Job) error { return w.Write(j) }); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Fig. 5.4: 100 jobs, 25 per unit, the first of each unit at its StartAt,
// and Poisson(120s) inter-arrival times, over many seeds.
func TestFig54(t *testing.T) {
	spec := parseSpecFile(t, fig54)
	startAt := []time.Duration{0, 60 * time.Second, 30 * time.Second, 90 * time.Second}
	const seeds = 200
	var gaps []float64
	perRunMeans := 0
	outside := 0
	// central 95% interval of the mean of 24 exponential(120) gaps: Gamma(24, scale 5)
	meanDist := distuv.Gamma{Alpha: 24, Beta: 24.0 / 120}
	lo, hi := meanDist.Quantile(0.025), meanDist.Quantile(0.975)
	for seed := uint64(1); seed <= seeds; seed++ {
		jobs := generate(t, spec, seed)
		if len(jobs) != 100 {
			t.Fatalf("seed %d: %d jobs, want 100", seed, len(jobs))
		}
		byUnit := map[int][]workload.Job{}
		for i, j := range jobs {
			if i > 0 && j.Submit < jobs[i-1].Submit {
				t.Fatalf("seed %d: jobs not in submit order at %s", seed, j.ID)
			}
			if err := j.Validate(); err != nil {
				t.Fatal(err)
			}
			byUnit[j.Unit] = append(byUnit[j.Unit], j)
		}
		for u := 1; u <= 4; u++ {
			js := byUnit[u]
			if len(js) != 25 {
				t.Fatalf("seed %d unit %d: %d jobs, want 25", seed, u, len(js))
			}
			if js[0].Submit != startAt[u-1] || js[0].Index != 0 {
				t.Fatalf("seed %d unit %d: first job at %v, want StartAt %v", seed, u, js[0].Submit, startAt[u-1])
			}
			sum := 0.0
			for k := 1; k < len(js); k++ {
				g := (js[k].Submit - js[k-1].Submit).Seconds()
				gaps = append(gaps, g)
				sum += g
			}
			m := sum / 24
			perRunMeans++
			if m < lo || m > hi {
				outside++
			}
		}
	}
	// Grand mean of all gaps: within 4 standard errors of 120 s.
	mean := 0.0
	for _, g := range gaps {
		mean += g
	}
	mean /= float64(len(gaps))
	se := 120 / math.Sqrt(float64(len(gaps)))
	if math.Abs(mean-120) > 4*se {
		t.Errorf("mean inter-arrival %.2f s, want 120 ± %.2f", mean, 4*se)
	}
	// Per-run means: about 5% fall outside their 95% interval (binomial, 4 sd).
	expect := 0.05 * float64(perRunMeans)
	if sd := math.Sqrt(float64(perRunMeans) * 0.05 * 0.95); math.Abs(float64(outside)-expect) > 4*sd {
		t.Errorf("%d of %d per-run means outside [%.1f, %.1f]; expected about %.0f", outside, perRunMeans, lo, hi, expect)
	}
	// The gaps are exponential: KS test against Exp(mean 120).
	exp := stats.Exponential{Rate: 1.0 / 120}
	sort.Float64s(gaps)
	n := float64(len(gaps))
	d := 0.0
	for i, x := range gaps {
		f := exp.CDF(x)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	if crit := 1.95 / math.Sqrt(n); d > crit {
		t.Errorf("inter-arrival KS D = %.4f > %.4f", d, crit)
	}
}

// Fig. 5.5's weighted lists are drawn with the probabilities their weights
// imply: chi-square over 10^5 draws, for each list.
func TestFig55WeightedLists(t *testing.T) {
	spec := parseSpecFile(t, fig54)
	u := spec.Units[2] // the smpi1 unit with ExternalFile=smpi1.xin
	p, errs := preparePlacement(u)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r := stats.NewStream(7, u.ID, "fig55")
	const n = 100000
	st := map[string]int{}
	nc := map[string]int{}
	tot := map[string]int{}
	for i := 0; i < n; i++ {
		s := p.drawShape(r)
		st[string(s.st)]++
		nc[strconv.Itoa(s.n)]++
		tot[strconv.Itoa(s.total)]++
	}
	chiTest(t, "SiteTypesWithWeights", st, map[string]float64{"ordered": 50, "unordered": 30}, n)
	chiTest(t, "NComponentsWithWeights", nc, map[string]float64{"1": 50, "2": 10, "3": 16.2, "4": 10, "5": 5, "8": 1, "10": 1, "15": 1}, n)
	chiTest(t, "TotalCPUsWithWeights", tot, map[string]float64{"2": 20, "4": 30, "5": 1, "8": 1, "10": 1, "16": 1, "20": 1, "32": 1}, n)
	// The thesis's headline probabilities.
	if f := float64(nc["1"]) / n; math.Abs(f-50/94.2) > 0.01 {
		t.Errorf("P(NComponents=1) = %.3f, want 0.531", f)
	}
	if f := float64(tot["4"]) / n; math.Abs(f-30.0/56) > 0.01 {
		t.Errorf("P(TotalCPUs=4) = %.3f, want 0.536", f)
	}
	if f := float64(st["ordered"]) / n; math.Abs(f-0.625) > 0.01 {
		t.Errorf("P(fixed) = %.3f, want 0.625", f)
	}
	// Sites of fixed components, from generated jobs: 0.25 each.
	sites := map[string]int{}
	jobs := 0
	for i := 0; jobs < n; i++ {
		j := workload.Job{}
		p.fill(r, &j)
		if j.SiteType != workload.Ordered {
			continue
		}
		jobs++
		sites[j.Components[0].Site]++
		total := 0
		for _, c := range j.Components {
			total += c.Count
		}
		if len(j.Components) > total {
			t.Fatalf("job with %d components but %d processors", len(j.Components), total)
		}
	}
	chiTest(t, "SitesWithWeights", sites, map[string]float64{"fs1": 1, "fs2": 1, "fs3": 1, "fs4": 1}, n)
}

func chiTest(t *testing.T, name string, got map[string]int, weights map[string]float64, n int) {
	t.Helper()
	total := 0.0
	for _, w := range weights {
		total += w
	}
	chi := 0.0
	for v, w := range weights {
		exp := w / total * float64(n)
		d := float64(got[v]) - exp
		chi += d * d / exp
	}
	for v := range got {
		if _, ok := weights[v]; !ok {
			t.Errorf("%s: drew %q, which is not in the list", name, v)
		}
	}
	df := float64(len(weights) - 1)
	if crit := (distuv.ChiSquared{K: df}).Quantile(0.999); chi > crit {
		t.Errorf("%s: chi-square %.1f > %.1f (df %.0f): counts %v", name, chi, crit, df, got)
	}
}

// The same spec and seed give byte-identical output; another seed does not.
func TestDeterministic(t *testing.T) {
	for _, path := range []string{fig54, "../examples/composite.wdl", "../examples/koala-w30.wdl"} {
		spec := parseSpecFile(t, path)
		a, b := jsonl(t, spec, 42), jsonl(t, parseSpecFile(t, path), 42)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two generations with seed 42 differ", path)
		}
		if c := jsonl(t, spec, 43); bytes.Equal(a, c) {
			t.Errorf("%s: seeds 42 and 43 gave the same workload", path)
		}
	}
}

// Appending a unit leaves every other unit's jobs as they were.
func TestAddingUnitKeepsOthers(t *testing.T) {
	src, err := os.ReadFile(fig54)
	if err != nil {
		t.Fatal(err)
	}
	base := parse(t, "../examples/thesis/fig5_4.wdl", string(src))
	more := parse(t, "../examples/thesis/fig5_4.wdl", string(src)+"40\thello\tsingle\t1\t*:?\tPoisson(30s)\tStartAt=10s\n")
	linesByUnit := func(spec *wdl.Spec) map[int][]string {
		out := map[int][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(jsonl(t, spec, 5))), "\n") {
			j, err := workload.ParseJob([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			out[j.Unit] = append(out[j.Unit], line)
		}
		return out
	}
	a, b := linesByUnit(base), linesByUnit(more)
	if len(b[5]) != 40 {
		t.Fatalf("new unit made %d jobs", len(b[5]))
	}
	for u := 1; u <= 4; u++ {
		if strings.Join(a[u], "\n") != strings.Join(b[u], "\n") {
			t.Errorf("unit %d changed when a unit was added", u)
		}
	}
}

func TestRandomWorkloadFalseUsesDefaults(t *testing.T) {
	spec := parse(t, "d.wdl", "3\tsserio\tsingle\t1\t*:?\tC(10s)\tRandomWorkload=false,Supersteps=7\n")
	for _, j := range generate(t, spec, 1) {
		got := map[string]string{}
		for _, p := range j.App.Params {
			got[p.Key] = p.Value
		}
		want := map[string]string{"supersteps": "7", "memory": "100", "elements": "10", "compute": "10",
			"input1": "64", "input2": "64", "output1": "64", "output2": "64", "output3": "64"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", j.ID, k, got[k], v)
			}
		}
		if j.WallTime != 15*time.Minute {
			t.Errorf("%s: walltime %v, want the 15 min default", j.ID, j.WallTime)
		}
	}
}

func TestRandomParamsComeFromTheValueSets(t *testing.T) {
	spec := parse(t, "r.wdl", "2000\tsmpi\tsingle\t4\t*:?\tZero\t-\n")
	app, _ := LookupApp("smpi")
	sets := map[string]map[string]bool{}
	for _, p := range app.Params {
		sets[p.Flag] = map[string]bool{}
		for _, v := range p.Values {
			sets[p.Flag][v] = true
		}
	}
	seen := map[string]map[string]bool{}
	for _, j := range generate(t, spec, 1) {
		for _, p := range j.App.Params {
			if !sets[p.Key][p.Value] {
				t.Fatalf("%s: %s=%s is not in GrenchMark's value set", j.ID, p.Key, p.Value)
			}
			if seen[p.Key] == nil {
				seen[p.Key] = map[string]bool{}
			}
			seen[p.Key][p.Value] = true
		}
		if w := j.WallTime; w != 2*time.Minute && w != 5*time.Minute && w != 10*time.Minute && w != 15*time.Minute {
			t.Fatalf("%s: walltime %v not in {2,5,10,15} min", j.ID, w)
		}
	}
	for flag, set := range sets {
		if len(seen[flag]) != len(set) {
			t.Errorf("%s: 2000 jobs drew only %d of %d values", flag, len(seen[flag]), len(set))
		}
	}
}

// Every DAG shape gives the requested N and traversal height L.
func TestDAGShapesHaveRequestedNAndL(t *testing.T) {
	for _, shape := range dagShapes {
		r := stats.NewStream(3, 0, shape.Name)
		tried := 0
		for n := 1; n <= 60; n++ {
			for l := 1; l <= n; l++ {
				if !shape.feasible(n, l) {
					continue
				}
				for rep := 0; rep < 3; rep++ {
					d, err := shape.make(r, n, l, dagParams{edgeProb: 0.2, meanPred: 2})
					if err != nil {
						t.Fatalf("%s N=%d L=%d: %v", shape.Name, n, l, err)
					}
					tried++
					checkDAG(t, shape.Name, d, n, l)
				}
			}
		}
		if tried == 0 {
			t.Errorf("%s: no feasible (N, L) up to 60", shape.Name)
		}
	}
}

func checkDAG(t *testing.T, name string, d DAG, n, l int) {
	t.Helper()
	if d.N != n {
		t.Fatalf("%s: N = %d, want %d", name, d.N, n)
	}
	if h := d.Height(); h != l {
		t.Fatalf("%s N=%d: L = %d, want %d (edges %v)", name, n, h, l, d.Edges)
	}
	seen := map[[2]int]bool{}
	for _, e := range d.Edges {
		if e[0] >= e[1] || e[0] < 0 || e[1] >= n {
			t.Fatalf("%s: edge %v is not forward", name, e)
		}
		if seen[e] {
			t.Fatalf("%s: duplicate edge %v", name, e)
		}
		seen[e] = true
	}
}

// Through the WDL: the Table 7.3 workloads, every job within its N and L.
func TestCompositeUnitsTable73(t *testing.T) {
	spec := parseSpecFile(t, "../examples/composite.wdl")
	want := map[string][2]wdl.Range{
		"chain":    {{Min: 30, Max: 50}, {Min: 30, Max: 50}},
		"forkjoin": {{Min: 30, Max: 50}, {Min: 5, Max: 15}},
		"hybrid":   {{Min: 30, Max: 50}, {Min: 3, Max: 3}},
		"bot":      {{Min: 30, Max: 50}, {Min: 1, Max: 1}},
		"sameprob": {{Min: 30, Max: 50}, {Min: 5, Max: 15}},
		"samepred": {{Min: 30, Max: 50}, {Min: 5, Max: 15}},
		"layrprob": {{Min: 30, Max: 50}, {Min: 5, Max: 10}},
		"layrpred": {{Min: 30, Max: 50}, {Min: 5, Max: 10}},
	}
	seenShapes := map[string]int{}
	for _, j := range generate(t, spec, 9) {
		if j.Kind != workload.Composite {
			t.Fatalf("%s is not composite", j.ID)
		}
		if err := j.Validate(); err != nil {
			t.Fatal(err)
		}
		rng, ok := want[j.Type]
		if !ok {
			t.Fatalf("unexpected type %s", j.Type)
		}
		seenShapes[j.Type]++
		d := DAG{N: len(j.Tasks)}
		index := map[string]int{}
		for i, task := range j.Tasks {
			index[task.ID] = i
		}
		for _, dep := range j.Deps {
			d.Edges = append(d.Edges, [2]int{index[dep.From], index[dep.To]})
		}
		if d.N < rng[0].Min || d.N > rng[0].Max {
			t.Errorf("%s (%s): N = %d, want %v", j.ID, j.Type, d.N, rng[0])
		}
		if h := d.Height(); h < rng[1].Min || h > rng[1].Max {
			t.Errorf("%s (%s): L = %d, want %v", j.ID, j.Type, h, rng[1])
		}
	}
	for shape := range want {
		if seenShapes[shape] == 0 {
			t.Errorf("the composite example has no %s jobs", shape)
		}
	}
}

func TestCompositeAppMixAndPerAppKeys(t *testing.T) {
	spec := parse(t, "c.wdl", "# File-version: 1.1\n"+
		"1\tcomposite\t200\tbot\tsingle\t1\t*:?\tZero\tN=20,AppsWithWeights=sser/3;hello/1,sser.Supersteps=7,User=alice\n")
	counts := map[string]int{}
	for _, j := range generate(t, spec, 1) {
		if j.User != "alice" {
			t.Fatalf("%s: user %q", j.ID, j.User)
		}
		for _, task := range j.Tasks {
			counts[task.App.Name]++
			if task.User != "alice" {
				t.Fatalf("task %s: user %q, want the composite job's", task.ID, task.User)
			}
			if task.App.Name == "sser" {
				if v, _ := task.App.Param("supersteps"); v != "7" {
					t.Fatalf("task %s: supersteps %q, want 7 from sser.Supersteps", task.ID, v)
				}
			}
			if task.App.Name == "hello" && len(task.App.Params) != 0 {
				t.Fatalf("hello task with params %v", task.App.Params)
			}
		}
	}
	chiTest(t, "AppsWithWeights", counts, map[string]float64{"sser": 3, "hello": 1}, 4000)
}

func TestGeneratorErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown type", "5\tfoo\tsingle\t1\t*:?\tZero\t-", "e.wdl:1:3: unknown unit type \"foo\""},
		{"unknown wl", "5\twl:nope\tsingle\t1\t*:?\tZero\t-", "e.wdl:1:3: unknown workload generator \"wl:nope\""},
		{"unknown structure", "# File-version: 1.1\n1\tcomposite\t2\tstar\tsingle\t1\t*:?\tZero\t-", "e.wdl:2:15: unknown composite structure \"star\""},
		{"bad param", "5\tsser\tsingle\t1\t*:?\tZero\tSupersteps=-2", "e.wdl:1:37: Supersteps: \"-2\" must be a whole number from 1 to 2147483647"},
		{"bad param in list", "5\tlunar\tsingle\t1\t*:?\tZero\tFlavourWithWeights=normal;huge/2", "e.wdl:1:53: FlavourWithWeights: \"huge\" is not one of normal, large"},
		{"fixed without sites", "5\tsmpi\tsingle\t1\t*:?\tZero\tSiteTypesWithWeights=fixed,TotalCPUsWithWeights=2;4", "e.wdl:1:47: fixed and semi-fixed jobs need sites"},
		{"infeasible chain", "5\tchain\tsingle\t1\t*:?\tZero\tN=10,L=5", "e.wdl:1:27: no chain DAG has N in 10 and L in 5"},
		{"unknown node app", "5\tbot\tsingle\t1\t*:?\tZero\tAppsWithWeights=sser;foo/2", "e.wdl:1:46: AppsWithWeights: unknown application \"foo\""},
		{"bad runtime", "5\tswf\tsingle\t1\t*:?\tZero\tRunTime=fast", "e.wdl:1:33: RunTime: \"fast\" is not a duration"},
		{"bad file", "5\tsser\tsingle\t1\t*:?\tZero\tInputFile=data", "e.wdl:1:36: InputFile: input file \"data\" must be name:size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := parse(t, "e.wdl", c.src)
			_, err := New(spec, 1)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v\nwant prefix %s", err, c.want)
			}
		})
	}
}

func TestUnusedKeyWarning(t *testing.T) {
	spec := parse(t, "w.wdl", "5\tsser\tsingle\t1\t*:?\tZero\tStartAT=5s,Supersteps=2")
	g, err := New(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0].Error(), "w.wdl:1:26: StartAT is not used by unit type sser") {
		t.Errorf("warnings %v", g.Warnings)
	}
}

func TestCoAllocationColumns(t *testing.T) {
	spec := parse(t, "c.wdl", "4\tsmpi\tsemi-ordered\t12\tfs1:4\tZero\tNSites=3,InputFilesWithWeights=big:2GB;small:64MB/3,RunTime=LogNorm(4,0.5)\n")
	for _, j := range generate(t, spec, 1) {
		want := []workload.Component{{Site: "*", Count: 4}, {Site: "*", Count: 4}, {Site: "fs1", Count: 4}}
		if j.SiteType != workload.SemiOrdered || len(j.Components) != 3 {
			t.Fatalf("%s: %s %v", j.ID, j.SiteType, j.Components)
		}
		for i, c := range j.Components {
			if c != want[i] {
				t.Fatalf("%s: components %v, want %v", j.ID, j.Components, want)
			}
		}
		if len(j.Files) != 1 || (j.Files[0] != workload.File{Name: "big", Size: 2 << 30} && j.Files[0] != workload.File{Name: "small", Size: 64 << 20}) {
			t.Fatalf("%s: files %v", j.ID, j.Files)
		}
		if j.RunTime <= 0 || j.WallTime < j.RunTime {
			t.Fatalf("%s: runtime %v walltime %v", j.ID, j.RunTime, j.WallTime)
		}
	}
}

// A wl: workload generator plugs into the merge like any unit.
func TestWorkloadGeneratorPlugin(t *testing.T) {
	RegisterWorkloadGenerator(&WorkloadGenerator{Name: "testseq", Doc: "three jobs, 10 s apart",
		Prepare: func(u *wdl.Unit, seed uint64) (func() (WorkloadSource, error), wdl.ErrorList) {
			return func() (WorkloadSource, error) { return &seqSource{unit: u.ID}, nil }, nil
		}})
	defer delete(workloadGenerators, "testseq")
	spec := parse(t, "p.wdl", "1\twl:testseq\tsingle\t1\t*:?\t-\tStartAt=5s\n2\thello\tsingle\t1\t*:?\tC(10s)\tStartAt=12s\n")
	var got []string
	for _, j := range generate(t, spec, 1) {
		got = append(got, j.ID+"@"+j.Submit.String())
	}
	if s := strings.Join(got, " "); s != "1-0@5s 2-0@12s 1-1@15s 2-1@22s 1-2@25s" {
		t.Errorf("merged order %s", s)
	}
}

type seqSource struct{ unit, k int }

func (s *seqSource) Next(j *workload.Job) (bool, error) {
	if s.k == 3 {
		return false, nil
	}
	*j = workload.Job{ID: strconv.Itoa(s.unit) + "-" + strconv.Itoa(s.k), Unit: s.unit, Index: s.k, Kind: workload.Unitary,
		Type: "hello", Submit: time.Duration(s.k) * 10 * time.Second, SiteType: workload.Single,
		App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: "*", Count: 1}}}
	s.k++
	return true, nil
}
