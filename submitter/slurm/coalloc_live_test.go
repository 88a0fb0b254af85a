package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// gmarkBin is the real gmark, built for the tests that run its
// applications under Slurm (the others use the stub).
var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// smpiJob is an smpi job of the given components ("alpha:2").
func smpiJob(id string, comps ...string) workload.Job {
	j := workload.Job{ID: id, Unit: 1, Kind: workload.Unitary, Type: "smpi", SiteType: workload.Single,
		App: workload.App{Name: "smpi", Params: []workload.Param{{Key: "supersteps", Value: "3"}, {Key: "memory", Value: "1"},
			{Key: "compute", Value: "1"}, {Key: "exchange", Value: "100"}}}}
	for _, c := range comps {
		site, n, _ := strings.Cut(c, ":")
		var count int
		fmt.Sscan(n, &count)
		j.Components = append(j.Components, workload.Component{Site: site, Count: count})
	}
	if len(comps) > 1 {
		j.SiteType = workload.Ordered
	}
	return j
}

// summaries reads every summary line of the Slurm jobs of job id in the
// work directory: one per process (srun's tasks share their job's output).
func summaries(t *testing.T, work, id string) []gridtest.Summary {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(work, id+".*out"))
	var mine []string
	for _, f := range files {
		rest := strings.TrimPrefix(filepath.Base(f), id+".")
		if strings.HasPrefix(rest, "a") || strings.HasPrefix(rest, "c") {
			mine = append(mine, f) // not another job whose id begins with this one
		}
	}
	return gridtest.SummariesOf(t, mine)
}

// finalDetail is the Slurm records the target stored with a job's final
// event.
func finalDetail(t *testing.T, st *store.Store, run, job string) []slurmcli.Record {
	t.Helper()
	ev, err := st.Events(run, job)
	if err != nil {
		t.Fatal(err)
	}
	var recs []slurmcli.Record
	for _, x := range ev {
		var p struct {
			Detail struct {
				Slurm []struct {
					Record *slurmcli.Record  `json:"record"`
					Het    []slurmcli.Record `json:"het"`
				} `json:"slurm"`
			} `json:"detail"`
		}
		if json.Unmarshal([]byte(x.Payload), &p) != nil {
			continue
		}
		for _, d := range p.Detail.Slurm {
			if d.Record != nil {
				recs = append(recs, *d.Record)
			}
			recs = append(recs, d.Het...)
		}
	}
	return recs
}

// smpi jobs of four processes under Slurm, on two
// single-node clusters and with the shipped defaults (hetjob = true): 2+2
// co-allocated across the clusters, 4 in one Slurm job, and 2+2 bound for
// one cluster, which cannot start a heterogeneous job and so claims the
// components one by one. Every process has its own global rank of the four
// and exchanged data with the three others; the components' start times
// that Slurm recorded are no further apart than the claiming retry
// interval; the single-node clusters were said to be so.
func TestLiveCoallocRanks(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	bin := gmarkBin.Path(t)
	work := t.TempDir()
	cfg := Config{Poll: 300 * time.Millisecond, UnreachableAfter: time.Minute, WorkDir: work, Executable: bin,
		ClaimRetry: 20 * time.Second}
	for _, c := range e.Clusters {
		cfg.Clusters = append(cfg.Clusters, ClusterConfig{Name: c.Name, Conf: c.Conf})
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jobs := []workload.Job{smpiJob("1-0", "alpha:2", "beta:2"), smpiJob("1-1", "alpha:4"), smpiJob("1-2", "*:2", "*:2")}
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg})
	tg.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := st.Jobs(sum.RunID)
	byJob := map[string]store.Job{}
	for _, r := range rows {
		byJob[r.JobID] = r
	}
	for _, j := range jobs {
		r := byJob[j.ID]
		if r.State != store.Succeeded {
			t.Errorf("%s: %s %s", j.ID, r.State, r.Reason)
			continue
		}
		got := summaries(t, work, j.ID)
		var ranks []int
		for _, s := range got {
			ranks = append(ranks, s.Rank)
			if !s.OK || s.JobID != j.ID || s.Size != 4 || s.Peers != 3 || s.Sent <= 0 || s.Received != s.Sent {
				t.Errorf("%s: rank %d: %+v", j.ID, s.Rank, s)
			}
		}
		slices.Sort(ranks)
		if !slices.Equal(ranks, []int{0, 1, 2, 3}) {
			t.Errorf("%s: ranks %v; want 0..3, each once", j.ID, ranks)
		}
		recs := finalDetail(t, st, sum.RunID, j.ID)
		var first, last int64
		for _, rec := range recs {
			if first == 0 || rec.Start < first {
				first = rec.Start
			}
			last = max(last, rec.Start)
		}
		want := len(j.Components) // a Slurm job per component
		if j.ID == "1-1" {
			want = 1
		}
		if len(recs) != want {
			t.Errorf("%s: %d Slurm records, want %d", j.ID, len(recs), want)
		}
		if r.StartNS != last*1e9 || last-first > int64(cfg.ClaimRetry/time.Second) {
			t.Errorf("%s: started at %d in the store; Slurm started its components from %d to %d", j.ID, r.StartNS/1e9, first, last)
		}
		t.Logf("%s: ranks %v on %s, components started %d s apart (Slurm), target id %s", j.ID, ranks, r.Sites, last-first, r.TargetID)
	}
	// The component-start records: one of each component of the jobs of
	// several, Slurm's start times of the final event's records.
	for _, id := range []string{"1-0", "1-2"} {
		gridtest.CheckComponentStarts(t, st, sum.RunID, byJob[id], 2)
	}
	if notes, _ := st.Annotations(sum.RunID, record.AnnotationComponentStart); len(notes) != 4 {
		t.Errorf("%d component-start records, want those of the two co-allocated jobs' components only", len(notes))
	}
	if r := byJob["1-2"]; strings.Count(r.TargetID, ",") != 1 || r.Sites != "alpha" && r.Sites != "beta" {
		t.Errorf("1-2 not claimed component by component on one cluster: %s on %s", r.TargetID, r.Sites)
	}
	warn, _ := st.Annotations(sum.RunID, "target-warning")
	if len(warn) != 2 || !strings.Contains(warn[0].Value, "has 1 node in its partition") {
		t.Errorf("warnings: %+v", warn)
	}
	claims, _ := st.Annotations(sum.RunID, "slurm-claim")
	for _, a := range claims {
		if !strings.Contains(a.Value, "released") {
			t.Errorf("a component was claimed again: %+v", a)
		}
	}
}

// gmarkJobs is what squeue says of the Slurm jobs of run whose names begin
// with prefix, on every cluster, by name.
func gmarkJobs(t *testing.T, e *slurmtest.Env, prefix string) map[string]slurmcli.Record {
	t.Helper()
	out := map[string]slurmcli.Record{}
	for name, r := range slurmJobs(t, e) {
		if strings.HasPrefix(name, prefix) {
			out[name] = r
		}
	}
	return out
}

// settled is gmarkJobs once none of them is still being cancelled (scancel
// returns before slurmd has stopped the job: it is COMPLETING a moment).
func settled(t *testing.T, e *slurmtest.Env, prefix string) map[string]slurmcli.Record {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		jobs := gmarkJobs(t, e, prefix)
		completing := false
		for _, r := range jobs {
			completing = completing || r.State == "COMPLETING"
		}
		if !completing || time.Now().After(deadline) {
			return jobs
		}
	}
}

// held lists the jobs that still hold or wait for processors.
func held(jobs map[string]slurmcli.Record) []string {
	var out []string
	for name, r := range jobs {
		if c := r.Class(); c == "queued" || c == "running" {
			out = append(out, name+" "+r.State)
		}
	}
	slices.Sort(out)
	return out
}

// A component that can never start (it asks more processors than its
// cluster has; Slurm 22.05 takes it and leaves it pending, reason
// PartitionConfig) while the other holds its processors: it is claimed
// again after the retry interval, and after the last try the job fails
// with a reason that names it, and nothing is left holding processors.
func TestLiveCoallocNeverStarts(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	work := t.TempDir()
	tg := newTarget(t, e, work)
	tg.cfg.ClaimRetry, tg.cfg.ClaimTries = 2*time.Second, 2
	j := mkjob("1-0", 0, "1", "alpha", "beta")
	j.Components[1].Count = 65
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, j), Store: st, Target: tg})
	tg.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := st.Jobs(sum.RunID)
	if len(rows) != 1 || rows[0].State != store.Failed {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	t.Logf("reason: %s", r.Reason)
	for _, want := range []string{"component 1 (beta:", "try 2 of 2", "(Slurm: PENDING, PartitionConfig)", "gave up after 2 claiming tries"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("reason %q lacks %q", r.Reason, want)
		}
	}
	jobs := settled(t, e, "gmark-1-0.")
	if h := held(jobs); len(h) != 0 {
		t.Errorf("still holding or waiting: %v", h)
	}
	// Component 0 held once; component 1 was claimed twice.
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range jobs {
			if !yield(strings.TrimSuffix(n, "-"+sum.RunID)) {
				return
			}
		}
	})
	if want := []string{"gmark-1-0.c0.a1", "gmark-1-0.c1.a1", "gmark-1-0.c1.t2.a1"}; !slices.Equal(names, want) {
		t.Errorf("Slurm jobs %v, want %v", names, want)
	}
	if jobs["gmark-1-0.c0.a1-"+sum.RunID].Start == 0 {
		t.Errorf("component 0 never held its processors: %+v", jobs)
	}
	if _, err := os.Stat(tg.releasePath(&submitter.Submission{Job: &j, Attempt: 1, RunID: sum.RunID})); err == nil {
		t.Error("the job was released")
	}
	claims, _ := st.Annotations(sum.RunID, "slurm-claim")
	if len(claims) != 1 || !strings.Contains(claims[0].Value, "component 1") {
		t.Errorf("claim annotations: %+v", claims)
	}
}

// killRun is one `gmark submit` of a co-allocated job, killed (kill -9)
// once its component on alpha holds its processors while the one on beta
// waits, and then resumed.
type killRun struct {
	e             *slurmtest.Env
	bin, dir, run string
	db, targets   string
}

func newKillRun(t *testing.T, e *slurmtest.Env, run, settings string, j workload.Job) *killRun {
	k := &killRun{e: e, bin: gmarkBin.Path(t), dir: t.TempDir(), run: run}
	k.db = filepath.Join(k.dir, "results.db")
	k.targets = filepath.Join(k.dir, "targets.toml")
	toml := strings.Replace(e.TargetsTOML(), "[slurm]\n", "[slurm]\npoll = \"300ms\"\n"+settings, 1)
	if err := os.WriteFile(k.targets, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	wl := testkit.WriteWorkload(t, j)
	cmd := exec.Command(k.bin, "submit", wl, "--target", "slurm", "--targets", k.targets, "--db", k.db, "--gmark", stub(t),
		"--run-id", run, "-q")
	cmd.Dir = k.dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	// Kill it once squeue shows component 0 holding and component 1 waiting.
	c0, c1 := "gmark-"+j.ID+".c0.a1-"+run, "gmark-"+j.ID+".c1.a1-"+run
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		jobs := gmarkJobs(t, e, "gmark-"+j.ID+".")
		if jobs[c0].State == "RUNNING" && jobs[c1].State == "PENDING" {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the components never held and waited: %+v", jobs)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	return k
}

// resume runs `gmark submit --resume` to its end.
func (k *killRun) resume(t *testing.T) {
	out, err := exec.Command(k.bin, "submit", "--resume", k.run, "--db", k.db, "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
}

func (k *killRun) row(t *testing.T) store.Job {
	st, err := store.OpenReadOnly(k.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, _ := st.Jobs(k.run)
	if len(rows) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	return rows[0]
}

// The submitter is killed (kill -9) while a co-allocated job's component
// holds its processors and the other waits; the resumed submitter finds
// them by name and releases them once both have started (the cluster of
// the waiting one frees its processors meanwhile), or, when the waiting
// one can never start, claims it again and then cancels everything.
func TestLiveCoallocResumeAfterKill(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	beta := e.Cluster("beta")
	// Someone else's job takes every processor of beta.
	out, err := beta.Cmd("sbatch", "--parsable", "--ntasks=64", "--job-name=blocker", "--output=/dev/null", "--wrap=sleep 600").Output()
	if err != nil {
		t.Fatal(err)
	}
	blocker := strings.TrimSpace(string(out))

	// 1. Released after the resume.
	j := mkjob("1-0", 0, "0.5", "alpha", "beta")
	k := newKillRun(t, e, "k1", "claim_retry = \"1h\"\n", j)
	if h := held(gmarkJobs(t, e, "gmark-1-0.")); len(h) != 2 {
		t.Fatalf("after the kill: %v", h)
	}
	if err := beta.Cmd("scancel", blocker).Run(); err != nil {
		t.Fatal(err)
	}
	k.resume(t)
	if r := k.row(t); r.State != store.Succeeded || strings.Count(r.TargetID, ",") != 1 {
		t.Errorf("resumed job: %s %s (%s)", r.State, r.Reason, r.TargetID)
	}
	for name, r := range gmarkJobs(t, e, "gmark-1-0.") {
		if r.State != "COMPLETED" {
			t.Errorf("%s: %s", name, r.State)
		}
	}
	releases, _ := filepath.Glob(filepath.Join(k.dir, "runs", "k1", "slurm", releaseDir, "1-0.a1-k1"))
	if len(releases) != 1 {
		t.Errorf("no release file in %s", filepath.Join(k.dir, "runs", "k1", "slurm", releaseDir))
	}

	// 2. Claimed again, then given up, after the resume.
	j = mkjob("2-0", 0, "0.5", "alpha", "beta")
	j.Components[1].Count = 65
	k = newKillRun(t, e, "k2", "claim_retry = \"2s\"\nclaim_tries = 2\n", j)
	k.resume(t)
	r := k.row(t)
	if r.State != store.Failed || !strings.Contains(r.Reason, "component 1 (beta:") || !strings.Contains(r.Reason, "gave up after 2 claiming tries") {
		t.Errorf("resumed job: %s %s", r.State, r.Reason)
	}
	if h := held(settled(t, e, "gmark-2-0.")); len(h) != 0 {
		t.Errorf("still holding or waiting: %v", h)
	}
}

// A cluster of two nodes can start a heterogeneous job of two components
// (Slurm's backfill gives each a node), so with the defaults a 2+2 smpi
// job bound for it is one: srun --het-group gives the four processes
// global ranks without any base. A job of three components is more than
// its nodes: it is claimed component by component, and that is said once.
func TestLiveHetJobRanks(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	// Heterogeneous jobs are started by the backfill scheduler only: run
	// it every second rather than every 30.
	e := slurmtest.Start(t, slurmtest.Options{Nodes: 2, Extra: "SchedulerParameters=bf_interval=1\n"}, "gamma")
	work := t.TempDir()
	cfg := Config{Poll: 300 * time.Millisecond, UnreachableAfter: time.Minute, WorkDir: work, Executable: gmarkBin.Path(t),
		Clusters: []ClusterConfig{{Name: "gamma", Conf: e.Clusters[0].Conf}}}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jobs := []workload.Job{smpiJob("1-0", "*:2", "*:2"), smpiJob("1-1", "*:1", "*:2", "*:1")}
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg})
	tg.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := st.Jobs(sum.RunID)
	for _, r := range rows {
		if r.State != store.Succeeded {
			t.Errorf("%s: %s %s", r.JobID, r.State, r.Reason)
			continue
		}
		var ranks []int
		for _, s := range summaries(t, work, r.JobID) {
			ranks = append(ranks, s.Rank)
			if !s.OK || s.Size != 4 || s.Peers != 3 || s.Sent <= 0 || s.Received != s.Sent {
				t.Errorf("%s: %+v", r.JobID, s)
			}
		}
		slices.Sort(ranks)
		if !slices.Equal(ranks, []int{0, 1, 2, 3}) {
			t.Errorf("%s: ranks %v; want 0..3, each once", r.JobID, ranks)
		}
		recs := finalDetail(t, st, sum.RunID, r.JobID)
		parts := strings.Count(r.TargetID, ",") + 1
		switch r.JobID {
		case "1-0": // one heterogeneous job: its leader and its other component
			if parts != 1 || len(recs) != 2 || recs[0].HetJobID == 0 || recs[1].HetJobID != recs[0].HetJobID || recs[0].Start != recs[1].Start {
				t.Errorf("1-0: target id %s, Slurm records %+v", r.TargetID, recs)
			}
		case "1-1": // three Slurm jobs
			if parts != 3 || len(recs) != 3 || recs[0].HetJobID != 0 {
				t.Errorf("1-1: target id %s, Slurm records %+v", r.TargetID, recs)
			}
		}
		t.Logf("%s: ranks %v, target id %s", r.JobID, ranks, r.TargetID)
	}
	warn, _ := st.Annotations(sum.RunID, "target-warning")
	if len(warn) != 1 || !strings.Contains(warn[0].Value, "has 2 nodes in its partition") {
		t.Errorf("warnings: %+v", warn)
	}
}
