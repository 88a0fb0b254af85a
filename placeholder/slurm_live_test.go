package placeholder

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/placeholder/metaqueue"
	"github.com/gmark/gmark/placeholder/site"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// On two loopback Slurm clusters plus one zero-infrastructure site, a
// 200-job workload completes through classic placeholders: each job runs
// exactly once, and the store holds the Slurm job id of every placeholder
// that ran on a cluster (each one in that cluster's job completion log,
// under the placeholder's job name).
//
// Slow: 57 s at load 33–72 (2 cores, whole package run, its tests one at a
// time): placeholders as Slurm batch jobs on two clusters and processes on a
// host, in real time.
func TestSlurmTwoClustersAndZinf(t *testing.T) {
	t.Parallel() // a live server in a directory of its own, waiting in real time: runs beside the others
	const jobs = 200
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	var groups strings.Builder
	groups.WriteString("[[group]]\nname = \"g\"\n[[group.site]]\nname = \"host\"\nkind = \"zinf\"\n")
	for _, c := range e.Clusters {
		fmt.Fprintf(&groups, "[[group.site]]\nname = %q\nkind = \"slurm\"\nslurm_conf = %q\nwall_time = \"10m\"\n", c.Name, c.Conf)
	}
	l := startLive(t, groups.String())
	l.addJobs("g", jobs, "sleep 0.2; ")
	l.startPH("g", "alpha", 6)
	l.startPH("g", "beta", 6)
	l.startPH("g", "host", 3)
	r := l.waitDone("g", 8*time.Minute)
	if n := l.checkOnce(r, jobs); n != 0 || r.Once != jobs {
		t.Errorf("%d of %d jobs ran once; %d listed as duplicated", r.Once, jobs, n)
	}
	phs, err := l.client.Placeholders(context.Background(), "g", true)
	if err != nil {
		t.Fatal(err)
	}
	perSite := map[string]int{}
	for _, c := range e.Clusters {
		var ids []string
		for _, p := range phs {
			if p.Site == c.Name && p.Jobs > 0 {
				ids = append(ids, p.LocalID)
			}
		}
		names := jobNames(t, c.JobComp, ids)
		for _, p := range phs {
			if p.Site != c.Name || p.Jobs == 0 {
				continue
			}
			perSite[c.Name] += p.Jobs
			if want := "placeholder-g-" + c.Name; names[p.LocalID] != want {
				t.Errorf("placeholder %d ran on %s as Slurm job %s, which the job completion log names %q", p.ID, c.Name, p.LocalID, names[p.LocalID])
			}
		}
	}
	for _, p := range phs {
		if p.Site == "host" {
			perSite["host"] += p.Jobs
		}
	}
	t.Logf("jobs per site: %v; %d placeholder records", perSite, len(phs))
	if perSite["alpha"] == 0 || perSite["beta"] == 0 || perSite["alpha"]+perSite["beta"]+perSite["host"] != jobs {
		t.Errorf("jobs per site %v", perSite)
	}
}

// jobNames reads a cluster's job completion log: job id → job name. Slurm
// writes a job's line when it ends, a moment after a classic placeholder
// has reported its job: the log is read until it has every id of want (or
// a minute has passed).
func jobNames(t *testing.T, path string, want []string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		names := map[string]string{}
		if f, err := os.Open(path); err == nil {
			recs, err := slurmcli.ParseJobComp(f, time.Local)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				names[fmt.Sprint(r.ID)] = r.Name
			}
		}
		missing := 0
		for _, id := range want {
			if _, ok := names[id]; !ok {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			return names
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A Slurm site's free processors, for an automatic start: the idle CPUs
// sinfo counts on a loopback cluster of one 8-CPU node, all of them once
// the node is up and nothing runs.
func TestSlurmFree(t *testing.T) {
	t.Parallel() // a live server in a directory of its own, waiting in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{CPUs: 8}, "gamma")
	c := e.Clusters[0]
	st, err := site.New(site.Spec{Name: c.Name, Kind: site.Slurm, SlurmConf: c.Conf}, "/nonexistent/placeholder.sbatch")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	free := -1
	for free != 8 && time.Now().Before(deadline) {
		if free, err = st.Free(context.Background()); err != nil || free < 0 || free > 8 {
			t.Fatalf("free %d, %v", free, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if free != 8 {
		t.Fatalf("free %d of an idle 8-CPU node", free)
	}
}

// A Slurm site stopped at time T, as Exp. 2's site A (its account's CPU
// quota spent: the batch system killed its jobs and started no more):
// cluster alpha's node is drained and its running jobs cancelled a third
// of the way through, while the first job to run there blocks. The probe
// finds alpha's placeholders gone, their jobs go back and run at beta;
// alpha's queued placeholders never start. Every job ran exactly once or
// is reported maybe duplicated with its reason; no job bound at alpha
// after the drain ran to its end (one whose batch job had just started
// binds, and is cancelled).
//
// Slow: 286 s at load 33–72 (2 cores, whole package run, its tests one at a
// time): two Slurm clusters, the placeholders Slurm batch jobs in real time,
// one cluster drained a third of the way through and its placeholders found
// gone by the probe.
func TestSlurmSiteStopped(t *testing.T) {
	t.Parallel() // a live server in a directory of its own, waiting in real time: runs beside the others
	const jobs = 60
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	var groups strings.Builder
	groups.WriteString("[[group]]\nname = \"g\"\n")
	for _, c := range e.Clusters {
		fmt.Fprintf(&groups, "[[group.site]]\nname = %q\nkind = \"slurm\"\nslurm_conf = %q\nwall_time = \"10m\"\n", c.Name, c.Conf)
	}
	l := startLive(t, groups.String(), "--probe", "--exec-failure", "0")
	gate := l.dir + "/gate"
	l.addJobs("g", jobs, `if [ "$GMARK_PLACEHOLDER_SITE" = alpha ] && mkdir `+gate+` 2>/dev/null; then sleep 3600; fi; sleep 0.2; `)
	l.startPH("g", "alpha", 3)
	l.startPH("g", "beta", 3)
	deadline := time.Now().Add(5 * time.Minute)
	for len(l.runs()) < jobs/3 || len(pidsIn(gate)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("not ready: %d jobs ran", len(l.runs()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	alpha := e.Cluster("alpha")
	for _, node := range alpha.Nodes {
		if out, err := alpha.Cmd("scontrol", "update", "nodename="+node, "state=drain", "reason=site stopped").CombinedOutput(); err != nil {
			t.Fatalf("drain: %v: %s", err, out)
		}
	}
	stoppedAt := time.Now()
	if out, err := alpha.Cmd("scancel", "--state=RUNNING").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v: %s", err, out)
	}
	ranBefore := len(l.runs())
	r := l.waitDone("g", 8*time.Minute)
	listed := l.checkOnce(r, jobs)
	if len(r.Possible) < 1 || !strings.Contains(r.Possible[0].Reason, metaqueue.EndLost) {
		t.Errorf("the jobs cut short at alpha are not reported: %+v", r.Possible)
	}
	js, err := l.client.Jobs(context.Background(), "g", "", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		for _, a := range j.Attempts {
			if a.Site == "alpha" && a.Bound.After(stoppedAt) && a.Outcome == metaqueue.Finished {
				t.Errorf("job %d: attempt %d bound at alpha after it stopped ran to its end", j.ID, a.ID)
			}
		}
	}
	t.Logf("alpha stopped after %d of %d jobs ran: %d once, %d listed (maybe) duplicated", ranBefore, jobs, r.Once, listed)
}
