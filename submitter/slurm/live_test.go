package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// stubGmark stands in for "gmark app NAME" in this package's tests (the
// real applications run end to end in cmd/gmark's tests): it sleeps
// --runtime seconds and exits with --exit.
const stubGmark = `#!/bin/sh
shift; name=$1; shift
rt=0; code=0
while [ $# -gt 0 ]; do case $1 in --runtime) rt=$2; shift;; --exit) code=$2; shift;; esac; shift; done
echo "gmark-hello v1 job=$GMARK_JOB_ID component=$GMARK_COMPONENT"
sleep $rt
echo "{\"v\":1,\"app\":\"$name\",\"ok\":true}"
exit $code
`

func stub(t *testing.T) string {
	dir, err := os.MkdirTemp("", "gmark-stub-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := filepath.Join(dir, "gmark")
	if err := os.WriteFile(p, []byte(stubGmark), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func mkjob(id string, offset time.Duration, runtime string, sites ...string) workload.Job {
	j := workload.Job{ID: id, Unit: 1, Kind: workload.Unitary, Type: "swf", Submit: offset, SiteType: workload.Single,
		App: workload.App{Name: "swf", Params: []workload.Param{{Key: "runtime", Value: runtime}}}}
	for _, s := range sites {
		j.Components = append(j.Components, workload.Component{Site: s, Count: 1})
	}
	if len(sites) > 1 {
		j.SiteType = workload.Ordered
	}
	return j
}

func newTarget(t *testing.T, e *slurmtest.Env, work string) *Target {
	no := false
	cfg := Config{Poll: 300 * time.Millisecond, UnreachableAfter: 4 * time.Second, HetJob: &no,
		WorkDir: work, Executable: stub(t)}
	for _, c := range e.Clusters {
		cfg.Clusters = append(cfg.Clusters, ClusterConfig{Name: c.Name, Conf: c.Conf})
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// slurmJobs is what squeue says about every job of both clusters, by name.
func slurmJobs(t *testing.T, e *slurmtest.Env) map[string]slurmcli.Record {
	out := map[string]slurmcli.Record{}
	for _, c := range e.Clusters {
		b, err := c.Cmd("squeue", "--json").Output()
		if err != nil {
			t.Fatal(err)
		}
		recs, err := slurmcli.ParseSqueue(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			r.Cluster = c.Name
			out[r.Name] = r
		}
	}
	return out
}

// Jobs go to the clusters they name (round robin for "*"), co-allocated
// jobs spanning clusters become one Slurm job per component, composite
// tasks follow their dependencies, and what the store records for each job
// is what Slurm reports.
func TestLiveTwoClusters(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	jobs := []workload.Job{
		mkjob("1-0", 0, "0.2", "alpha"), mkjob("1-1", 0, "0.2", "beta"),
		mkjob("1-2", 100*time.Millisecond, "0.2", "*"), mkjob("1-3", 100*time.Millisecond, "0.2", "*"),
		mkjob("2-0", 200*time.Millisecond, "0.5", "alpha", "beta"),
	}
	bad := mkjob("3-0", 0, "0", "beta")
	bad.App.Params = append(bad.App.Params, workload.Param{Key: "exit", Value: "3"})
	jobs = append(jobs, bad)
	chain := workload.Job{ID: "4-0", Unit: 4, Kind: workload.Composite, Type: "chain", Submit: 0}
	for i := 0; i < 3; i++ {
		task := mkjob(fmt.Sprintf("4-0.%d", i), 0, "0.1", "*")
		task.Unit, task.Index = 4, i
		chain.Tasks = append(chain.Tasks, task)
		if i > 0 {
			chain.Deps = append(chain.Deps, workload.Dependency{From: fmt.Sprintf("4-0.%d", i-1), To: task.ID})
		}
	}
	jobs = append(jobs, chain)
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tg := newTarget(t, e, t.TempDir())
	defer tg.Close()
	sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Jobs[store.Succeeded] != 6 || sum.Jobs[store.Failed] != 1 || sum.Tasks[store.Succeeded] != 3 {
		t.Fatalf("summary %+v", sum)
	}
	rows, _ := st.Jobs(sum.RunID)
	slurm := slurmJobs(t, e)
	checked := 0
	for _, r := range rows {
		if r.Kind == "composite" {
			continue
		}
		var parts []slurmcli.Record
		for _, id := range strings.Split(r.TargetID, ",") {
			cl, _, _ := strings.Cut(id, ":")
			var found bool
			for name, rec := range slurm {
				if rec.Cluster == cl && id == fmt.Sprintf("%s:%d", cl, rec.ID) && strings.HasPrefix(name, "gmark-"+r.JobID+".") {
					parts = append(parts, rec)
					found = true
				}
			}
			if !found {
				t.Fatalf("%s: Slurm has no job %s", r.JobID, id)
			}
		}
		var start, end int64
		submit := int64(1) << 62
		for _, p := range parts {
			start, end, submit = max(start, p.Start), max(end, p.End), min(submit, p.Submit)
		}
		// (A job Slurm requeued has a later submit time now than the one
		// gmark saw.)
		if ts := r.TargetSubmitNS / 1e9; ts > submit || ts < r.SubmitNS/1e9 || r.TargetSubmitNS%1e9 != 0 {
			t.Errorf("%s: submitted at %d (Slurm's clock, store) and %d (gmark's), %d in Slurm", r.JobID, r.TargetSubmitNS/1e9, r.SubmitNS/1e9, submit)
		}
		if r.StartNS != start*1e9 || r.EndNS != end*1e9 {
			t.Errorf("%s: start/end %d/%d in the store, %d/%d in Slurm", r.JobID, r.StartNS, r.EndNS, start*1e9, end*1e9)
		}
		checked++
	}
	if checked != 9 {
		t.Fatalf("checked %d jobs", checked)
	}
	byJob := map[string]store.Job{}
	for _, r := range rows {
		byJob[r.JobID] = r
	}
	if r := byJob["2-0"]; r.Sites != "alpha,beta" || strings.Count(r.TargetID, ",") != 1 {
		t.Fatalf("co-allocated job: %+v", r)
	}
	if r := byJob["1-0"]; r.Sites != "alpha" || !strings.HasPrefix(r.TargetID, "alpha:") {
		t.Fatalf("1-0 not on alpha: %+v", r)
	}
	if r := byJob["3-0"]; r.State != store.Failed || r.ExitStatus == nil || *r.ExitStatus != 3 || !strings.Contains(r.Reason, "FAILED") {
		t.Fatalf("failing job: %+v", r)
	}
	if byJob["4-0.1"].SubmitNS < byJob["4-0.0"].EndNS || byJob["4-0.2"].SubmitNS < byJob["4-0.1"].EndNS {
		t.Fatalf("chain out of order: %+v", byJob)
	}
	// The failure's payload carries Slurm's own record.
	ev, _ := st.Events(sum.RunID, "3-0")
	var payload struct {
		Detail struct {
			Slurm []struct {
				Record slurmcli.Record `json:"record"`
			} `json:"slurm"`
		} `json:"detail"`
	}
	for _, x := range ev {
		if x.Kind == "failed" {
			json.Unmarshal([]byte(x.Payload), &payload)
		}
	}
	if len(payload.Detail.Slurm) != 1 || payload.Detail.Slurm[0].Record.State != "FAILED" {
		t.Fatalf("failed event payload: %+v", ev)
	}
}

// A controller that dies mid-run: submissions to it are retried with
// backoff and then recorded failed with the reason; its jobs already
// submitted are given up as lost after UnreachableAfter; the other cluster
// carries on; the run finishes and says what happened.
func TestLiveControllerDown(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	// A short message timeout, so calls to the stopped controller fail in
	// two seconds rather than nine.
	e := slurmtest.Start(t, slurmtest.Options{MessageTimeout: 3}, "alpha", "beta")
	var jobs []workload.Job
	for i := 0; i < 24; i++ {
		site := "alpha"
		if i%2 == 1 {
			site = "beta"
		}
		jobs = append(jobs, mkjob(fmt.Sprintf("1-%d", i), time.Duration(i)*100*time.Millisecond, "3", site))
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tg := newTarget(t, e, t.TempDir())
	defer tg.Close()
	beta := e.Cluster("beta")
	cfg := submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg,
		OnStart: func(string) { time.AfterFunc(1200*time.Millisecond, beta.StopController) }}
	// The controller stays down: the retries are counted, with no time
	// budget (--retry-for 0), so some submissions fail for good.
	cfg.SubmitRetries, cfg.Backoff, cfg.RetryFor = 2, 200*time.Millisecond, -1
	var log strings.Builder
	cfg.Log = &log
	sum, err := submitter.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := st.Jobs(sum.RunID)
	submitFailed, lost := 0, 0
	for _, r := range rows {
		var i int
		fmt.Sscanf(r.JobID, "1-%d", &i)
		if i%2 == 0 {
			if r.State != store.Succeeded {
				t.Errorf("alpha job %s: %s %s", r.JobID, r.State, r.Reason)
			}
			continue
		}
		if r.State != store.Failed {
			t.Errorf("beta job %s: %s %s", r.JobID, r.State, r.Reason)
		}
		switch {
		case strings.Contains(r.Reason, "after 3 tries") && strings.Contains(r.Reason, "Unable to contact slurm controller"):
			submitFailed++
		case strings.Contains(r.Reason, "lost: cluster beta unreachable"):
			lost++
		default:
			t.Errorf("beta job %s: reason %q", r.JobID, r.Reason)
		}
	}
	if submitFailed == 0 || lost == 0 {
		t.Errorf("%d submissions failed, %d jobs lost; want some of both", submitFailed, lost)
	}
	notes := strings.Join(sum.Notes, "\n")
	if !strings.Contains(notes, "retried") || !strings.Contains(notes, "Unable to contact") {
		t.Errorf("notes do not say what happened:\n%s", notes)
	}
	ann, _ := st.Annotations(sum.RunID, "target-error")
	if len(ann) == 0 || ann[0].Key != "beta" {
		t.Errorf("no target-error annotation for beta: %+v", ann)
	}
	ev, _ := st.Events(sum.RunID, "")
	retries := 0
	for _, x := range ev {
		if x.Kind == "retry" {
			retries++
		}
	}
	if retries < 2*submitFailed {
		t.Errorf("%d retry events for %d failed submissions", retries, submitFailed)
	}
	if !strings.Contains(log.String(), "retrying in") {
		t.Errorf("log: %s", log.String())
	}
}

// An sbatch that times out (a loaded controller) while the controller still
// takes the job, a moment later: the target must find that job rather than
// submit it again. The sbatch here is the real one, run a second late in
// the background, behind a wrapper that reports the timeout at once.
func TestLiveSbatchTimeoutStillSubmits(t *testing.T) {
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha")
	real, err := exec.LookPath("sbatch")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// The late submission runs in a process whose arguments do not name
	// the job (as the controller's late work is no process of this
	// machine): only the job, once in Slurm, can tell it was submitted.
	wrapper := "#!/bin/sh\nargs=$(mktemp)\nprintf '%s\\n' \"$@\" > $args\n" +
		"sh -c \"sleep 1; xargs -d '\\n' -a $args " + real + "\" >/dev/null 2>&1 &\n" +
		"echo 'sbatch: error: Batch job submission failed: Socket timed out on send/recv operation' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	jobs := []workload.Job{mkjob("1-0", 0, "0.1", "alpha"), mkjob("1-1", 0, "0.1", "alpha"), mkjob("1-2", 0, "0.1", "alpha")}
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tg := newTarget(t, e, t.TempDir())
	defer tg.Close()
	cfg := submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg}
	cfg.Backoff = 200 * time.Millisecond
	sum, err := submitter.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := st.Jobs(sum.RunID)
	for _, r := range rows {
		if r.State != store.Succeeded {
			t.Errorf("job %s: %s %s", r.JobID, r.State, r.Reason)
		}
	}
	// Slurm has each job once, by name.
	b, err := e.Clusters[0].Cmd("squeue", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := slurmcli.ParseSqueue(b)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, r := range recs {
		names[r.Name]++
	}
	if len(rows) != 3 || len(names) != 3 {
		t.Fatalf("%d rows; Slurm jobs by name: %v", len(rows), names)
	}
	for name, n := range names {
		if n != 1 {
			t.Errorf("Slurm has %d jobs named %s", n, name)
		}
	}
}
