package arc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/arcrest"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/workload"
)

// faultJobs are eight swf jobs of 6 s, two seconds apart, and a job
// co-allocated over two components of the one CE: each a CE job of its
// own, ten in all.
func faultJobs() []workload.Job {
	var jobs []workload.Job
	for i := range 8 {
		j := job(fmt.Sprintf("1-%d", i), "swf", map[string]string{"runtime": "6"}, "*:1")
		j.Submit = time.Duration(i) * 2 * time.Second
		jobs = append(jobs, j)
	}
	co := job("2-0", "swf", map[string]string{"runtime": "6"}, "a:1", "a:1")
	co.Submit = 3 * time.Second
	return append(jobs, co)
}

// ceJobs is every job the CE has, by name (its record's), counted.
func ceJobs(t *testing.T, c *arctest.CE) map[string]int {
	t.Helper()
	client, err := arcrest.New(arcrest.Options{Endpoint: c.URL, Proxy: c.Proxy, CADir: c.Creds.CADir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ids, err := client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	if len(ids) == 0 {
		return out
	}
	infos, err := client.Info(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range infos {
		if j.Info != nil {
			out[j.Info.Name]++
		}
	}
	return out
}

// checkOnce wants every job succeeded and each of its parts a CE job
// once, with one summary in its output: nothing lost, nothing run twice.
func checkOnce(t *testing.T, c *arctest.CE, st *store.Store, work, run string, rows map[string]store.Job, jobs []workload.Job) {
	t.Helper()
	names := ceJobs(t, c)
	parts := 0
	for _, j := range jobs {
		r := rows[j.ID]
		if r.State != store.Succeeded {
			t.Errorf("%s: %s %s", j.ID, r.State, r.Reason)
		}
		if n := len(summaries(t, work, j.ID, run)); n != len(j.Components) {
			t.Errorf("%s: %d summaries, want %d (one per component)\n%s", j.ID, n, len(j.Components), jobDiag(c, st, work, j.ID, run))
		}
		parts += len(j.Components)
	}
	total := 0
	for name, n := range names {
		total += n
		if n != 1 {
			t.Errorf("the CE has %d jobs named %s", n, name)
		}
	}
	if total != parts {
		t.Errorf("the CE has %d jobs, want %d: %v", total, parts, names)
	}
}

// The CE is killed (kill -9) while jobs run and others are still to be
// submitted, and started again 10 s later on the same directories: the
// submissions made meanwhile are retried, the jobs that ran through keep
// their state, and every job succeeds, each part a CE job once. About 90 s
// on an idle machine.
func TestLiveARCKilledCE(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	g := newGrid(t, arctest.Options{Name: "a"})
	cfg := g.config()
	cfg.Keep = true // the check below lists the CE's jobs
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jobs := faultJobs()
	ce := g.ces[0]
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if len(ceJobsQuiet(ce)) >= 3 {
				ce.Kill()
				time.Sleep(10 * time.Second)
				if err := ce.Restart(); err != nil {
					t.Error(err)
				}
				return
			}
		}
		t.Error("the CE never had three jobs")
	}()
	rows, st, run := runIn(t, tg, jobs...)
	<-killed
	checkOnce(t, ce, st, g.work, run, rows, jobs)
	errs, _ := st.Annotations(run, "target-error")
	rec, _ := st.Annotations(run, "target-recovered")
	if len(errs) == 0 || len(rec) == 0 {
		t.Errorf("the CE's outage was not noted: errors %+v, recovered %+v", errs, rec)
	}

	// A submitter that lost what it knew (a new target) finds every part
	// by its name, as the same CE jobs; another attempt is not found.
	again, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	for _, j := range jobs {
		s := &submitter.Submission{Key: run + "/" + j.ID + "/1", RunID: run, Job: &j, Attempt: 1}
		rc, found, err := again.Find(context.Background(), s)
		if err != nil || !found || rc.TargetID != rows[j.ID].TargetID {
			t.Errorf("%s: Find gave %q, %v, %v; the run recorded %q", j.ID, rc.TargetID, found, err, rows[j.ID].TargetID)
		}
		s.Attempt = 2
		if _, found, err := again.Find(context.Background(), s); found || err != nil {
			t.Errorf("%s: attempt 2 found (%v)", j.ID, err)
		}
	}
}

// ceJobsQuiet is ceJobs for a poller that may meet the CE down.
func ceJobsQuiet(c *arctest.CE) []string {
	client, err := arcrest.New(arcrest.Options{Endpoint: c.URL, Proxy: c.Proxy, CADir: c.Creds.CADir, Timeout: 5 * time.Second})
	if err != nil {
		return nil
	}
	ids, _ := client.List(context.Background())
	return ids
}

// `gmark submit --target arc` is killed (kill -9) once the CE has three
// of its jobs, and `gmark submit --resume` finishes the run: the jobs in
// flight are tracked again, the ones whose submission was under way are
// found by name, the rest are submitted, and every job succeeds, each
// part a CE job once. About 90 s on an idle machine.
func TestLiveARCResume(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	g := newGrid(t, arctest.Options{Name: "a"})
	dir := openDir(t, "gmark-arc-run-")
	targets := filepath.Join(dir, "targets.toml")
	if err := os.WriteFile(targets, []byte(g.targetsTOML("keep = true\nworkdir = \""+g.work+"\"\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := faultJobs()
	wl := testkit.WriteWorkload(t, jobs...)
	db := filepath.Join(dir, "results.db")
	cmd := exec.Command(g.bin, "submit", wl, "--target", "arc", "--targets", targets, "--db", db, "--gmark", g.bin, "--run-id", "k1", "-q")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); len(ceJobsQuiet(g.ces[0])) < 3; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the CE never had three jobs")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if out, err := exec.Command(g.bin, "submit", "--resume", "k1", "--db", db, "-q").CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, _ := st.Jobs("k1")
	rows := map[string]store.Job{}
	for _, r := range list {
		rows[r.JobID] = r
	}
	checkOnce(t, g.ces[0], st, g.work, "k1", rows, jobs)
	if !strings.Contains(rows["2-0"].TargetID, ",") {
		t.Errorf("the co-allocated job: %+v", rows["2-0"])
	}
}
