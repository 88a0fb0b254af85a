package sim

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// dagJob is a composite job: tasks "<id>.<name>" of 1 processor at site,
// with run times in seconds, and edges "from>to" by name (the engine
// takes the tasks in any order the edges allow).
func dagJob(id, site string, submit time.Duration, runs []float64, names string, edges ...string) workload.Job {
	j := workload.Job{ID: id, Kind: workload.Composite, Type: "test", Submit: submit}
	for k, name := range strings.Fields(names) {
		j.Tasks = append(j.Tasks, job(id+"."+name, site, 1, submit, secs(runs[k])))
	}
	for _, e := range edges {
		from, to, _ := strings.Cut(e, ">")
		j.Deps = append(j.Deps, workload.Dependency{From: id + "." + from, To: id + "." + to})
	}
	return j
}

// Hand-worked DAGs on one cluster under sep-c (FCFS, no backfilling, no
// cycles: a job starts the instant the processors allow), each with the
// start of every task.
func TestWorkflowHandComputed(t *testing.T) {
	diamond := dagJob("d", "c0", 0, []float64{10, 20, 5, 10}, "a b c x", "a>b", "a>c", "b>x", "c>x")
	cases := []struct {
		name  string
		procs int
		jobs  []workload.Job
		start map[string]float64
		// per workflow: response and critical path, s
		resp, cp []float64
	}{
		// a 0-10; b and c arrive at 10 and start; c ends at 15, b at 30;
		// x arrives at 30 (its last parent's end), runs to 40.
		{"diamond", 2, []workload.Job{diamond},
			map[string]float64{"d.a": 0, "d.b": 10, "d.c": 10, "d.x": 30}, []float64{40}, []float64{40}},
		// The diamond with its tasks listed in another order the
		// dependencies allow: the same runs.
		{"diamond reordered", 2, []workload.Job{dagJob("d", "c0", 0, []float64{20, 10, 5, 10}, "b a c x", "a>b", "a>c", "b>x", "c>x")},
			map[string]float64{"d.a": 0, "d.b": 10, "d.c": 10, "d.x": 30}, []float64{40}, []float64{40}},
		// A chain waits for each link, on an idle cluster of 4.
		{"chain", 4, []workload.Job{dagJob("ch", "c0", secs(5), []float64{3, 4, 5}, "p q r", "p>q", "q>r")},
			map[string]float64{"ch.p": 5, "ch.q": 8, "ch.r": 12}, []float64{12}, []float64{12}},
		// Fork-join of four 10 s branches on 2 processors: f 0-5; w1 w2
		// 5-15; w3 w4 15-25 (FCFS, in task order); j arrives at 25,
		// 25-30. Critical path f w j = 20 s, response 30 s.
		{"fork-join", 2, []workload.Job{dagJob("fj", "c0", 0, []float64{5, 10, 10, 10, 10, 5}, "f w1 w2 w3 w4 j",
			"f>w1", "f>w2", "f>w3", "f>w4", "w1>j", "w2>j", "w3>j", "w4>j")},
			map[string]float64{"fj.f": 0, "fj.w1": 5, "fj.w2": 5, "fj.w3": 15, "fj.w4": 15, "fj.j": 25}, []float64{30}, []float64{20}},
		// The diamond with a 2-processor job U arriving at 7: when a ends
		// at 10, U has waited since 7 and b and c arrive only then, so
		// FCFS runs U 10-20, then b 20-40 and c 20-25, x 40-50.
		{"diamond behind a job", 2, []workload.Job{diamond, job("U", "c0", 2, secs(7), 10*time.Second)},
			map[string]float64{"d.a": 0, "U": 10, "d.b": 20, "d.c": 20, "d.x": 40}, []float64{50}, []float64{40}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig("sep-c")
			cfg.CoolDown = true
			res, tr := run(t, cfg, flat(t, c.procs), c.jobs)
			for id, want := range c.start {
				if got := tr.started[id]; len(got) != 1 || got[0] != secs(want) {
					t.Errorf("%s starts at %v; want %v s", id, got, want)
				}
			}
			w := res.Workflows
			if w == nil || w.Arrived != 1 || w.Finished != 1 || len(w.PerWorkflow) != 1 {
				t.Fatalf("workflows %+v: want one, finished", w)
			}
			got := w.PerWorkflow[0]
			if got.Response != c.resp[0] || got.CriticalPath != c.cp[0] || got.Slowdown != c.resp[0]/c.cp[0] {
				t.Errorf("response %v, critical path %v, slowdown %v; want %v, %v, %v", got.Response, got.CriticalPath, got.Slowdown, c.resp[0], c.cp[0], c.resp[0]/c.cp[0])
			}
			tasks := 0
			for _, j := range c.jobs {
				tasks += max(1, len(j.Tasks))
			}
			if res.Jobs != tasks || res.Finished != tasks {
				t.Errorf("jobs %d, finished %d: want every one of the %d tasks and jobs", res.Jobs, res.Finished, tasks)
			}
		})
	}
}

// workflowSpec is composite units of every DAG shape of the quick start's
// kind (chains, fork-joins), and wider ones, on any cluster.
const workflowSpec = `# File-type: text/wl-spec
1	composite	30	chain	single	1	*:?	Poisson(40s)	N=3-6,AppsWithWeights=swf,RunTime=U(20s,200s),RunTimeInMinutes=10
2	composite	30	forkjoin	single	2	*:?	Poisson(40s)	N=6-12,L=5,AppsWithWeights=swf,RunTime=U(20s,300s),RunTimeInMinutes=10
3	composite	20	hybrid	single	4	*:?	Poisson(60s)	N=8-16,L=4,AppsWithWeights=swf,RunTime=U(20s,300s),RunTimeInMinutes=10
4	unitary	60	swf	single	?	*:?	Poisson(20s)	TotalCPUsWithWeights=1;2;4;8,RunTime=U(60s,600s),RunTimeInMinutes=20
`

func generated(t *testing.T, src string) []workload.Job {
	t.Helper()
	spec, err := wdl.Parse("wf.wdl", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := generator.New(spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []workload.Job
	if _, err := g.Generate(func(j *workload.Job) error {
		c := *j
		c.Tasks = slices.Clone(j.Tasks)
		c.Deps = slices.Clone(j.Deps)
		jobs = append(jobs, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// Over many generated workflows mixed with unitary jobs, under every
// architecture (and the core model of central): every task arrives at its
// last parent's end (its workflow's submission when it has none) and
// starts no earlier; every workflow finishes, with a response of at least
// its critical path; and a second run is the same, field for field.
func TestWorkflowDependenciesEveryArchitecture(t *testing.T) {
	jobs := generated(t, workflowSpec)
	composites := 0
	for _, j := range jobs {
		if j.Kind == workload.Composite {
			composites++
		}
	}
	if composites != 80 {
		t.Fatalf("%d composite jobs; want 80", composites)
	}
	top := flat(t, 16, 8, 8)
	type variant struct{ arch, model string }
	var variants []variant
	for _, a := range ArchNames() {
		variants = append(variants, variant{a, ""})
	}
	variants = append(variants, variant{"central", CentralCore})
	for _, v := range variants {
		t.Run(v.arch+v.model, func(t *testing.T) {
			cfg := DefaultConfig(v.arch)
			cfg.CoolDown, cfg.CentralModel = true, v.model
			if v.model == "" { // the core runs its own clusters: no outages there
				// Killed runs start again: their children wait for the run that ends.
				cfg.Outages = []Outage{{Cluster: "c0", At: 20 * time.Minute, For: 10 * time.Minute}}
			}
			res, tr := run(t, cfg, top, jobs)
			again, _ := run(t, cfg, top, jobs)
			if !reflect.DeepEqual(res, again) {
				t.Errorf("two runs differ:\n%+v\n%+v", res, again)
			}
			w := res.Workflows
			if w == nil || w.Arrived != 80 || w.Finished != 80 || w.Failed != 0 {
				t.Fatalf("workflows %+v: want 80 arrived and finished", w)
			}
			checkDependencies(t, jobs, tr)
			for _, p := range w.PerWorkflow {
				if p.Response < p.CriticalPath-1e-9 || p.CriticalPath <= 0 {
					t.Errorf("workflow %s: response %v under its critical path %v", p.ID, p.Response, p.CriticalPath)
				}
			}
			if v.model == "" && res.Restarts == 0 {
				t.Errorf("no run was killed by the outage")
			}
			if w.Slowdown.N != 80 || w.Slowdown.Mean < 1 {
				t.Errorf("slowdown %+v: want 80 values of at least 1", w.Slowdown)
			}
		})
	}
}

// checkDependencies checks from the observed runs that each task arrived
// when its last parent ended (its workflow's submission for a root), and
// started then or later.
func checkDependencies(t *testing.T, jobs []workload.Job, tr *trace) {
	t.Helper()
	for _, j := range jobs {
		if j.Kind != workload.Composite {
			continue
		}
		parents := map[string][]string{}
		for _, d := range j.Deps {
			parents[d.To] = append(parents[d.To], d.From)
		}
		for _, task := range j.Tasks {
			arr, st := tr.arrived[task.ID], tr.started[task.ID]
			if len(arr) != 1 || len(st) == 0 {
				t.Fatalf("task %s: arrivals %v, starts %v", task.ID, arr, st)
			}
			ready := j.Submit
			for _, p := range parents[task.ID] {
				e := tr.ended[p]
				if len(e) != 1 {
					t.Fatalf("parent %s of %s ended %v", p, task.ID, e)
				}
				ready = max(ready, e[0])
			}
			// A killed run is not an end: the task's last start is of the
			// run that ended, at or after the release.
			if arr[0] != ready {
				t.Errorf("task %s arrived at %v; its parents' last end (or its workflow's submission) is %v", task.ID, arr[0], ready)
			}
			if st[0] < ready {
				t.Errorf("task %s started at %v, before its parents' last end %v", task.ID, st[0], ready)
			}
		}
	}
}

// A task no cluster can hold makes the workflow one that can never end:
// the run is refused, naming the task (on every architecture).
func TestWorkflowLargerThanEveryCluster(t *testing.T) {
	wf := dagJob("big", "*", 0, []float64{1, 1}, "a b", "a>b")
	wf.Tasks[1].Components[0].Count = 9
	for _, arch := range ArchNames() {
		cfg := DefaultConfig(arch)
		_, err := Run(cfg, flat(t, 8, 4), &SliceSource{Jobs: []workload.Job{wf}})
		want := `job big: task big.b asks for 9 processors, more than the largest cluster of topology "flat" has (8)`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", arch, err, want)
		}
	}
	cfg := DefaultConfig("central")
	cfg.CentralModel = CentralCore
	wf.Tasks[1].Components[0].Count = 13
	_, err := Run(cfg, flat(t, 8, 4), &SliceSource{Jobs: []workload.Job{wf}})
	if want := "asks for 13 processors, more than the clusters of topology \"flat\" have in all (12)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("core model: %v; want %q", err, want)
	}
}

// A task that cannot run (here larger than its home cluster under sep-c,
// which never moves a job) takes its descendants with it, as gmark's
// live executor does: they never arrive, they count as jobs that did not
// finish, and the workflow fails; its other branch runs on.
func TestWorkflowFailedTaskSkipsDescendants(t *testing.T) {
	// a -> b -> d, a -> c: b asks for 3 processors of c1's 2.
	wf := dagJob("w", "c1", 0, []float64{10, 10, 10, 10}, "a b c d", "a>b", "a>c", "b>d")
	wf.Tasks[1].Components[0].Count = 3
	cfg := DefaultConfig("sep-c")
	cfg.CoolDown = true
	tr := &dropTrace{trace: newTrace()}
	res, err := RunObserved(cfg, flat(t, 4, 2), &SliceSource{Jobs: []workload.Job{wf}}, tr)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.arrived["w.d"]; ok {
		t.Errorf("w.d arrived: its parent was rejected")
	}
	// Every job is told of once: b rejected, d dropped (never started,
	// at b's rejection), a and c ended.
	if !slices.Equal(tr.dropped, []string{"w.b@10s", "w.d@10s"}) || len(tr.ended) != 2 {
		t.Errorf("dropped %v, ended %v", tr.dropped, tr.ended)
	}
	if got := tr.started["w.c"]; len(got) != 1 || got[0] != secs(10) {
		t.Errorf("w.c starts at %v; want 10 s", got)
	}
	w := res.Workflows
	if w == nil || w.Failed != 1 || w.Finished != 0 || w.TasksSkipped != 1 || len(w.PerWorkflow) != 0 {
		t.Errorf("workflows %+v: want one failed with one task skipped", w)
	}
	if res.Jobs != 4 || res.Rejected != 1 || res.Finished != 2 || res.JF != 50 {
		t.Errorf("jobs %d, rejected %d, finished %d, JF %v; want 4, 1, 2, 50", res.Jobs, res.Rejected, res.Finished, res.JF)
	}
}

// Without the cool-down the run ends at the last submission: the tasks a
// workflow would release later never arrive, and the workflow has not
// finished.
func TestWorkflowWindowWithoutCoolDown(t *testing.T) {
	jobs := []workload.Job{
		dagJob("w", "c0", 0, []float64{10, 10}, "a b", "a>b"),
		job("late", "c0", 1, secs(15), time.Second),
	}
	res, tr := run(t, DefaultConfig("sep-c"), flat(t, 2), jobs)
	if got := tr.arrived["w.b"]; len(got) != 1 || got[0] != secs(10) {
		t.Errorf("w.b arrived at %v; want 10 s", got)
	}
	if res.End != 15 || res.Workflows.Finished != 0 || res.Workflows.Arrived != 1 {
		t.Errorf("end %v, workflows %+v; want 15 and one arrived, unfinished", res.End, res.Workflows)
	}
}

// A workload without composite jobs has no workflow figures (its Result
// and digest are what they were).
func TestWorkflowNoneWithoutComposites(t *testing.T) {
	res, _ := run(t, DefaultConfig("sep-c"), flat(t, 2), []workload.Job{job("a", "c0", 1, 0, time.Second)})
	if res.Workflows != nil {
		t.Errorf("workflows %+v for a workload without composite jobs", res.Workflows)
	}
	if b := fmt.Sprint(res); strings.Contains(b, "PerWorkflow") {
		t.Error(b)
	}
}

// The same in central's core model, on the engine's hosted path: the core
// refuses a task naming a cluster it does not have; the task after it
// never arrives.
func TestWorkflowRefusedByTheCore(t *testing.T) {
	wf := dagJob("w", "c0", 0, []float64{10, 10, 10}, "a b c", "a>b", "b>c")
	wf.Tasks[1].Components[0].Site = "mars"
	cfg := DefaultConfig("central")
	cfg.CentralModel, cfg.CoolDown = CentralCore, true
	res, tr := run(t, cfg, flat(t, 4), []workload.Job{wf})
	if _, ok := tr.arrived["w.c"]; ok {
		t.Errorf("w.c arrived: its parent was refused")
	}
	if got := tr.arrived["w.b"]; len(got) != 1 || got[0] < tr.ended["w.a"][0] {
		t.Errorf("w.b arrived at %v, w.a ended at %v", got, tr.ended["w.a"])
	}
	w := res.Workflows
	if w == nil || w.Failed != 1 || w.TasksSkipped != 1 || res.Jobs != 3 || res.Rejected != 1 || res.Finished != 1 {
		t.Errorf("workflows %+v, jobs %d, rejected %d, finished %d; want one failed, 3 jobs, 1 rejected, 1 finished", w, res.Jobs, res.Rejected, res.Finished)
	}
}

// Degenerate workflows: one task; a chain of tasks that run for no time
// (each arrives and ends at its submission: a response and critical path
// of 0, so no slowdown); a fork of 5,000 one-second tasks on 4
// processors (1,250 rounds); two workflows submitted at the same time.
func TestWorkflowDegenerate(t *testing.T) {
	zero := dagJob("z", "c0", secs(3), []float64{0, 0, 0}, "a b c", "a>b", "b>c")
	for k := range zero.Tasks {
		zero.Tasks[k].ZeroRunTime = true
	}
	wide := workload.Job{ID: "f", Kind: workload.Composite, Submit: secs(3)}
	wide.Tasks = append(wide.Tasks, job("f.root", "c0", 1, 0, time.Second))
	for k := range 5000 {
		id := fmt.Sprintf("f.%d", k)
		wide.Tasks = append(wide.Tasks, job(id, "c0", 1, 0, time.Second))
		wide.Deps = append(wide.Deps, workload.Dependency{From: "f.root", To: id})
	}
	jobs := []workload.Job{dagJob("one", "c0", 0, []float64{2}, "a"), zero, wide}
	cfg := DefaultConfig("sep-c")
	cfg.CoolDown = true
	res, tr := run(t, cfg, flat(t, 4), jobs)
	checkDependencies(t, jobs, tr)
	w := res.Workflows
	if w == nil || w.Arrived != 3 || w.Finished != 3 || res.Jobs != 5005 || res.Finished != 5005 {
		t.Fatalf("workflows %+v, jobs %d, finished %d", w, res.Jobs, res.Finished)
	}
	byID := map[string]Workflow{}
	for _, p := range w.PerWorkflow {
		byID[p.ID] = p
	}
	if z := byID["z"]; z.Response != 0 || z.CriticalPath != 0 || z.Slowdown != 0 {
		t.Errorf("zero chain: %+v", z)
	}
	// f.root 3-4 (z's tasks take no processor time); then 5,000 tasks 4 at a time: the last round 1,253-1,254.
	if f := byID["f"]; f.Response != 1251 || f.CriticalPath != 2 {
		t.Errorf("fork: %+v; want response 1,251 s, critical path 2 s", f)
	}
	if w.Slowdown.N != 2 {
		t.Errorf("slowdown over %d workflows; want 2 (the zero chain has none)", w.Slowdown.N)
	}
}

// dropTrace is a trace that listens for the jobs that leave without
// finishing (sim.Dropper), with the time they were submitted.
type dropTrace struct {
	*trace
	dropped []string
}

func (d *dropTrace) Dropped(j *Job) {
	d.dropped = append(d.dropped, fmt.Sprintf("%s@%v", j.ID, j.Submit))
}

// The per-workflow list stops at MaxWorkflowsListed; the summaries are
// over every workflow.
func TestWorkflowListBounded(t *testing.T) {
	var jobs []workload.Job
	for i := range MaxWorkflowsListed + 1 {
		jobs = append(jobs, dagJob(fmt.Sprintf("w%d", i), "c0", 0, []float64{1}, "a"))
	}
	cfg := DefaultConfig("sep-c")
	cfg.CoolDown = true
	res, _ := run(t, cfg, flat(t, 8), jobs)
	w := res.Workflows
	if len(w.PerWorkflow) != MaxWorkflowsListed || w.Finished != MaxWorkflowsListed+1 || w.Response.N != MaxWorkflowsListed+1 {
		t.Errorf("%d listed, %d finished, response over %d", len(w.PerWorkflow), w.Finished, w.Response.N)
	}
	// 1,001 one-second tasks, 8 at a time: the last round is the 126th.
	if w.Response.Max != 126 || w.PerWorkflow[0].Response != 1 {
		t.Errorf("greatest response %v, first listed %+v", w.Response.Max, w.PerWorkflow[0])
	}
}
