package gram

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
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/gram/gramtest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// faultJobs are eight swf jobs of 6 s, two seconds apart, and a job
// co-allocated over two components of one gatekeeper: ten GRAM jobs.
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

// submittedParts counts the parts whose globusrun -b printed a contact.
func submittedParts(work string) int {
	files, _ := filepath.Glob(filepath.Join(work, "jdf", "*", "*.submit"))
	n := 0
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "https://") {
			n++
		}
	}
	return n
}

// checkOnce wants every job succeeded, one summary per component, and as
// many GRAM jobs passed to the LRM as there are parts: nothing lost,
// nothing run twice.
func checkOnce(t *testing.T, g *grid, run string, rows map[string]store.Job, jobs []workload.Job) {
	t.Helper()
	parts := 0
	for _, j := range jobs {
		if r := rows[j.ID]; r.State != store.Succeeded {
			t.Errorf("%s: %s %s", j.ID, r.State, r.Reason)
		}
		if n := len(summaries(t, g.work, j.ID, run)); n != len(j.Components) {
			t.Errorf("%s: %d summaries, want %d", j.ID, n, len(j.Components))
		}
		parts += len(j.Components)
	}
	if n := g.gks[0].Submitted(); n != parts {
		t.Errorf("the job managers passed %d jobs to the LRM, want %d", n, parts)
	}
}

// The gatekeeper is killed (kill -9) while jobs run and others are still
// to be submitted, and started again 10 s later: its job managers, which
// detached, keep answering for the jobs submitted before; the submissions
// made meanwhile fail (the connection is refused), are retried, and go
// through once it is back. Every job succeeds, each part one GRAM job.
// About 50 s on an idle machine.
func TestLiveGRAMKilledGatekeeper(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	g := newGrid(t, gramtest.Options{Name: "a"})
	tg, err := New(g.config())
	if err != nil {
		t.Fatal(err)
	}
	jobs := faultJobs()
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if submittedParts(g.work) >= 3 {
				g.gks[0].Kill()
				time.Sleep(10 * time.Second)
				if err := g.gks[0].Restart(); err != nil {
					t.Error(err)
				}
				return
			}
		}
		t.Error("three parts were never submitted")
	}()
	rows, st, run := runIn(t, tg, jobs...)
	<-killed
	checkOnce(t, g, run, rows, jobs)
	ev := 0
	for _, j := range jobs {
		e, _ := st.Events(run, j.ID)
		for _, x := range e {
			if x.Kind == "retry" {
				ev++
			}
		}
	}
	if ev == 0 {
		t.Error("no submission was retried: the gatekeeper was not down while one was made")
	}
	// A submitter that lost what it knew (a new target) finds every part,
	// as the same GRAM jobs; another attempt is not found.
	again, err := New(g.config())
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

// `gmark submit --target gram` is killed (kill -9) once three parts have
// been submitted, and `gmark submit --resume` finishes the run: every job
// succeeds, each part one GRAM job. About 50 s on an idle machine.
func TestLiveGRAMResume(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	g := newGrid(t, gramtest.Options{Name: "a"})
	dir := openDir(t, "gmark-gram-run-")
	targets := filepath.Join(dir, "targets.toml")
	if err := os.WriteFile(targets, []byte(g.targetsTOML("")), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := faultJobs()
	db := filepath.Join(dir, "results.db")
	cmd := exec.Command(g.bin, "submit", testkit.WriteWorkload(t, jobs...), "--target", "gram", "--targets", targets, "--db", db,
		"--gmark", g.bin, "--run-id", "k1", "-q")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); submittedParts(g.work) < 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("three parts were never submitted")
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
	checkOnce(t, g, "k1", rows, jobs)
}

// A co-allocated job one of whose components can never start (it asks
// more processors than the Slurm cluster behind its gatekeeper has; Slurm
// leaves it pending) while the other, on fork, holds its processors: the
// waiting component is cancelled and claimed again after the retry
// interval, and after the last try the job fails naming it, with nothing
// left holding or waiting. About 40 s on an idle machine.
func TestLiveGRAMClaimGivesUp(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	e := slurmtest.Start(t, slurmtest.Options{}, "fs0")
	g := newGrid(t, gramtest.Options{Name: "fs0", Slurm: e.Cluster("fs0")}, gramtest.Options{Name: "fork"})
	cfg := g.config()
	cfg.ClaimRetry, cfg.ClaimTries = 3*time.Second, 2
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	j := job("1-0", "swf", map[string]string{"runtime": "1"}, "fork:1", "fs0:65")
	rows, st, run := runIn(t, tg, j)
	r := rows["1-0"]
	for _, want := range []string{"claiming failed: component 1 (fs0:", "try 2 of 2", "gave up after 2 claiming tries"} {
		if r.State != store.Failed || !strings.Contains(r.Reason, want) {
			t.Errorf("%s %q lacks %q", r.State, r.Reason, want)
		}
	}
	claims, _ := st.Annotations(run, "gram-claim")
	if len(claims) != 1 || !strings.Contains(claims[0].Value, "component 1") || !strings.Contains(claims[0].Value, "claimed again") {
		t.Errorf("claim annotations: %+v", claims)
	}
	if _, err := os.Stat(filepath.Join(g.work, "release", "1-0.a1-"+run)); err == nil {
		t.Error("the job was released")
	}
	// Two Slurm jobs (the two tries of component 1), none left waiting.
	var left []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		out, err := e.Cluster("fs0").Cmd("squeue", "-h", "-t", "PENDING,RUNNING,COMPLETING", "-o", "%i %T").Output()
		if err != nil {
			t.Fatal(err)
		}
		if left = strings.Fields(string(out)); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("Slurm jobs left: %v", left)
	}
	if n := g.gks[0].Submitted() + g.gks[1].Submitted(); n != 3 {
		t.Errorf("%d GRAM jobs passed to the LRMs, want 3 (component 0, and component 1 twice)", n)
	}
}
