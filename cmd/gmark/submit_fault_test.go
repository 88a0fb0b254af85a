package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/koalatarget"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// The fault tests: kill -9 of a real `gmark submit` at several points of a
// run, and again during the recovery of the `--resume` that follows, for
// every target; then a last `--resume` to the end. Every job must be
// submitted exactly once, as the scheduler itself says (its job list, its
// job completion log, the processes that ran), and none may be recorded as
// failed because of a kill.
//
// The kill points are read from the store's progress, not guessed with
// sleeps: the run is killed when the store shows what the point needs.

// faultSpec: 24 short jobs, one every 60 ms; two composite fork/join
// jobs; two long jobs, at 0 and 2 s, so that the second, lastJob, is the
// last to end, seconds after every other: "near the end" (every job final
// but lastJob) is a state the run cannot pass between two looks at the
// store. (On a loaded machine 6 s was once not enough: a Slurm run
// reported every end at once. 12 s is the test's length since; it also
// found a job submitted twice after a resume: the slow sbatch below execs
// the real one, and the resume's wait for a killed run's sbatch followed
// the command line, not the process, so it stopped waiting at the exec.)
const faultSpec = "1\tunitary\t24\tswf\tsingle\t1\t*:1\tC(60ms)\tRunTime=C(400ms)\n" +
	"2\tunitary\t2\tswf\tsingle\t1\t*:1\tC(2s)\tRunTime=C(12s)\n" +
	"3\tcomposite\t2\tforkjoin\tsingle\t1\t*:?\tC(300ms)\tN=4,L=3,AppsWithWeights=hello\n"

const lastJob = "2-1"

// runProgress is what the store says of a run.
type runProgress struct {
	results int  // submissions with a recorded outcome
	rows    int  // jobs and tasks with a final row
	resumes int  // run-resume events: processes that took the run over
	last    bool // lastJob is final
}

// killPoint says when to kill, given the progress and the run's size.
type killPoint struct {
	name string
	due  func(p runProgress, keys int) bool
}

// faultPlan is the kills of every target, in order; after the last one, a
// --resume runs to the end.
var faultPlan = []killPoint{
	{"early (third submission recorded)", func(p runProgress, _ int) bool { return p.results >= 3 }},
	{"during recovery (first --resume)", func(p runProgress, _ int) bool { return p.resumes >= 1 }},
	{"mid-run (half the jobs final)", func(p runProgress, n int) bool { return p.rows >= n/2 }},
	{"during recovery (third --resume)", func(p runProgress, _ int) bool { return p.resumes >= 3 }},
	{"near the end (every job final but the last)", func(p runProgress, n int) bool { return p.rows >= n-1 && !p.last }},
}

// faultRun is one run of the fault plan.
type faultRun struct {
	dir, db, wl, runID string
	keys               []string // every submission key the run must make once
	kills              int
	env                []string // added to the environment of the run's gmark processes
}

func newFaultRun(t *testing.T, runID string) *faultRun {
	t.Helper()
	dir := t.TempDir()
	wl := genWorkload(t, dir, faultSpec)
	jobs, err := workload.ReadAll(wl)
	if err != nil {
		t.Fatal(err)
	}
	f := &faultRun{dir: dir, db: filepath.Join(dir, "results.db"), wl: wl, runID: runID}
	for _, j := range jobs {
		if j.Kind == workload.Composite {
			for _, task := range j.Tasks {
				f.keys = append(f.keys, record.Key(runID, task.ID, 1))
			}
			continue
		}
		f.keys = append(f.keys, record.Key(runID, j.ID, 1))
	}
	return f
}

// progress reads the run's progress from the store, read-only (a missing
// store is no progress yet).
func (f *faultRun) progress(t *testing.T) runProgress {
	t.Helper()
	var p runProgress
	if _, err := os.Stat(f.db); err != nil {
		return p
	}
	db, err := sql.Open("sqlite", "file:"+f.db+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Before the schema exists the queries fail: no progress yet.
	_ = db.QueryRow(`SELECT
		(SELECT count(*) FROM submission_results WHERE run_id = ?1),
		(SELECT count(*) FROM jobs WHERE run_id = ?1 AND state != ''),
		(SELECT count(*) FROM events WHERE run_id = ?1 AND kind = 'run-resume'),
		(SELECT count(*) > 0 FROM jobs WHERE run_id = ?1 AND job_id = ?2)`, f.runID, lastJob).Scan(&p.results, &p.rows, &p.resumes, &p.last)
	return p
}

// gmarkProc is a gmark process the test may kill.
type gmarkProc struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan struct{}
}

func startGmark(t *testing.T, dir string, args ...string) *gmarkProc {
	t.Helper()
	return startGmarkEnv(t, dir, nil, args...)
}

// startGmarkEnv is startGmark with env (NAME=value) added to the
// process's environment.
func startGmarkEnv(t *testing.T, dir string, env []string, args ...string) *gmarkProc {
	t.Helper()
	p := &gmarkProc{cmd: exec.Command(buildGmark(t), args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill() })
	return p
}

// kill sends SIGKILL to the process (by pid) and reaps it.
func (p *gmarkProc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// submitArgs are the arguments of the run's first process; resumes are
// `submit --resume RUN --db DB -q`.
func (f *faultRun) play(t *testing.T, first []string, extra ...string) {
	t.Helper()
	args := append([]string{"submit", f.wl, "--db", f.db, "--run-id", f.runID, "-q"}, first...)
	for i, k := range faultPlan {
		p := startGmarkEnv(t, f.dir, f.env, append(args, extra...)...)
		if f.waitKill(t, p, i, k) {
			return // the run ended before this kill: nothing left to kill
		}
		p.kill()
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("kill %q: the process ended by itself first (%v):\n%s", k.name, p.cmd.ProcessState, p.out.String())
		}
		f.kills++
		args = []string{"submit", "--resume", f.runID, "--db", f.db, "-q"}
	}
	startGmarkEnv(t, f.dir, f.env, append(args, extra...)...).waitOK(t, "the last --resume")
}

// waitOK waits for the process to end, at most 3 minutes, with exit 0.
func (p *gmarkProc) waitOK(t *testing.T, what string) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("%s did not end in 3 minutes:\n%s", what, p.out.String())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("%s: exit %d:\n%s", what, code, p.out.String())
	}
}

// checkStore checks the store's side: one submission and one result per
// key, every job and task succeeded. It returns the keys the store lost
// (no final row).
func (f *faultRun) checkStore(t *testing.T) (lost int) {
	t.Helper()
	st, err := store.OpenReadOnly(f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	subs, _ := st.Submissions(f.runID)
	results, _ := st.Results(f.runID)
	if len(subs) != len(f.keys) || len(results) != len(f.keys) {
		t.Errorf("%d submission records and %d results; want %d of each", len(subs), len(results), len(f.keys))
	}
	for _, r := range results {
		if !r.OK {
			t.Errorf("submission %s failed: %s", r.Key, r.Error)
		}
	}
	rows, _ := st.Jobs(f.runID)
	final := map[string]bool{}
	for _, r := range rows {
		if r.State != store.Succeeded {
			t.Errorf("job %s: %s (%s)", r.JobID, r.State, r.Reason)
		}
		if r.SubmitNS == 0 || r.StartNS == 0 || r.EndNS < r.StartNS {
			t.Errorf("job %s: submit %d, start %d, end %d", r.JobID, r.SubmitNS, r.StartNS, r.EndNS)
		}
		final[r.JobID] = true
	}
	// Each process that worked on the run recorded its provenance.
	if ps, _ := st.Provenance(f.runID); f.kills > 0 && len(ps) != f.kills+1 {
		t.Errorf("%d provenance records after %d kills", len(ps), f.kills)
	}
	for _, k := range f.keys {
		_, rest, _ := strings.Cut(k, "/")
		id, _, _ := strings.Cut(rest, "/")
		if !final[id] {
			lost++
		}
	}
	return lost
}

// checkTarget compares what the scheduler saw (how many times each key was
// submitted, or ran) with the keys: it returns the keys it never saw and
// those it saw more than once.
func (f *faultRun) checkTarget(t *testing.T, target string, seen map[string]int) (lost, dup int) {
	t.Helper()
	want := map[string]bool{}
	for _, k := range f.keys {
		want[k] = true
		switch n := seen[k]; {
		case n == 0:
			lost++
			t.Errorf("%s never saw %s", target, k)
		case n > 1:
			dup++
			t.Errorf("%s saw %s %d times", target, k, n)
		}
	}
	var extra []string
	for k := range seen {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("%s saw submissions that are not the run's: %v", target, extra)
	}
	return lost, dup
}

// report logs the figures of a target's fault run.
func (f *faultRun) report(t *testing.T, target string, lost, dup int) {
	t.Logf("fault figures: target %s: %d kills, %d submissions, jobs lost %d, jobs duplicated %d",
		target, f.kills, len(f.keys), lost, dup)
	if lost != 0 || dup != 0 {
		t.Errorf("%s: %d lost, %d duplicated", target, lost, dup)
	}
}

func TestSubmitFaultsDryRun(t *testing.T) {
	t.Parallel()
	f := newFaultRun(t, "fd")
	f.play(t, []string{"--target", "dryrun"})
	lost := f.checkStore(t)
	// dryrun has nothing outside the process to ask: the store is its
	// only witness (one submission record and one result per key).
	l, dup := f.checkTarget(t, "the store", f.results(t))
	f.report(t, "dryrun", lost+l, dup)
}

// results counts the recorded submission results of each key; a failed
// submission is an error.
func (f *faultRun) results(t *testing.T) map[string]int {
	t.Helper()
	st, err := store.OpenReadOnly(f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	results, _ := st.Results(f.runID)
	seen := map[string]int{}
	for _, r := range results {
		seen[r.Key]++
		if !r.OK {
			t.Errorf("submission %s failed: %s", r.Key, r.Error)
		}
	}
	return seen
}

// The local target's witness is the processes themselves: every job runs
// through a wrapper that appends a line before it execs gmark, so a job run
// twice shows twice, whatever the target believes.
func TestSubmitFaultsLocal(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	f := newFaultRun(t, "fl")
	f.play(t, []string{"--target", "local", "--processors", "4", "--gmark", f.witnessWrapper(t)})
	lost := f.checkStore(t)
	l, dup := f.checkTarget(t, "the processes", f.witnessed(t))
	// The launch log says the same.
	lb, err := os.ReadFile(filepath.Join(f.dir, "runs", f.runID, "local", "launches.log"))
	if err != nil {
		t.Fatal(err)
	}
	launches := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(lb)), "\n") {
		key, _, _ := strings.Cut(line, " ")
		launches[key]++
	}
	f.checkTarget(t, "launches.log", launches)
	f.report(t, "local", lost+l, dup)
}

// witnessWrapper writes a wrapper of gmark for the local target's jobs
// (--gmark) that appends a line to the run's witness log before it execs
// gmark: a job run twice shows twice, whatever the target believes.
func (f *faultRun) witnessWrapper(t *testing.T) string {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\necho \"$PWD $GMARK_RANK\" >> %s\nexec %s \"$@\"\n", filepath.Join(f.dir, "witness.log"), buildGmark(t))
	return writeFile(t, filepath.Join(f.dir, "gmark-wrapper"), script, 0o755)
}

// witnessed counts the processes of each submission key in the witness
// log (one process per job here).
func (f *faultRun) witnessed(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, "witness.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The job directory is RUN_DIR/local/<job>/a<attempt>.
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		path, _, _ := strings.Cut(line, " ")
		job, att := filepath.Base(filepath.Dir(path)), strings.TrimPrefix(filepath.Base(path), "a")
		seen[f.runID+"/"+job+"/"+att]++
	}
	return seen
}

// Two `gmark submit --resume RUN` at once on the same store: the second is
// refused (exit 2) while the first runs, which completes the run with
// every job run once; a third, after the end, is refused too.
func TestSubmitResumeTwiceAtOnce(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	f := newFaultRun(t, "f2")
	p := startGmark(t, f.dir, "submit", f.wl, "--db", f.db, "--run-id", f.runID, "-q",
		"--target", "local", "--processors", "4", "--gmark", f.witnessWrapper(t))
	f.waitFor(t, p, "a fifth of the jobs final", func(pr runProgress) bool { return pr.rows >= len(f.keys)/5 })
	p.kill()
	a := startGmark(t, f.dir, "submit", "--resume", f.runID, "--db", f.db, "-q")
	f.waitFor(t, a, "the first --resume under way", func(pr runProgress) bool { return pr.resumes >= 1 })
	_, stderr, code := run(t, f.dir, "submit", "--resume", f.runID, "--db", f.db, "-q")
	if code != 2 || !strings.Contains(stderr, "is being recorded by another process (pid "+fmt.Sprint(a.cmd.Process.Pid)) {
		t.Errorf("a second --resume at once: exit %d, %s", code, stderr)
	}
	a.waitOK(t, "the first --resume")
	lost := f.checkStore(t)
	l, dup := f.checkTarget(t, "the processes", f.witnessed(t))
	f.kills = 1
	f.report(t, "local, two --resume at once", lost+l, dup)
	if _, stderr, code := run(t, f.dir, "submit", "--resume", f.runID, "--db", f.db, "-q"); code != 2 || !strings.Contains(stderr, "already ended") {
		t.Errorf("--resume of an ended run: exit %d, %s", code, stderr)
	}
}

// waitFor polls the store until cond holds, failing if p ends first.
func (f *faultRun) waitFor(t *testing.T, p *gmarkProc, what string, cond func(runProgress) bool) {
	t.Helper()
	if f.waitUntil(t, p, what, cond) {
		t.Fatalf("%s: the process ended first (%+v):\n%s", what, f.progress(t), p.out.String())
	}
}

// waitUntil polls the store until cond holds (false) or the process
// ended first (true); after 2 minutes of neither, the test fails.
func (f *faultRun) waitUntil(t *testing.T, p *gmarkProc, what string, cond func(runProgress) bool) (ended bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond(f.progress(t)) {
		select {
		case <-p.done:
			return true
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not in 2 minutes (%+v):\n%s", what, f.progress(t), p.out.String())
		}
	}
	return false
}

// waitKill waits for kill k (the i-th of the plan) to be due. A target
// that runs the jobs itself (the bundled core) goes on while the submitter
// is down, and on a loaded machine it may finish the run before the later
// kills are due: a resume then only collects the outcomes and ends. That
// is no failure when at least the first kill and the first recovery's
// happened and the process ended well with every job final; waitKill then
// says so and reports true, and the checks of the run follow.
func (f *faultRun) waitKill(t *testing.T, p *gmarkProc, i int, k killPoint) (ended bool) {
	t.Helper()
	if !f.waitUntil(t, p, "kill "+k.name, func(pr runProgress) bool { return k.due(pr, len(f.keys)) }) {
		return false
	}
	pr := f.progress(t)
	if i < 2 || p.cmd.ProcessState.ExitCode() != 0 || pr.rows < len(f.keys) || !pr.last {
		t.Fatalf("kill %s: the process ended first (%v, %+v):\n%s", k.name, p.cmd.ProcessState, pr, p.out.String())
	}
	t.Logf("the run ended before kill %q (its jobs ran while the submitter was down): %d of %d kills made", k.name, i, len(faultPlan))
	return true
}

// faultGrid is a small grid whose scheduler scans its queues as often as it
// may (every second), so the jobs of faultSpec run as they come.
const faultGrid = "name = \"pair\"\n[scheduler]\npolicy = \"WF\"\nscan_interval = \"1s\"\ndefault_runtime = \"1s\"\n" +
	"[[cluster]]\nname = \"A\"\nprocessors = 8\n[[cluster]]\nname = \"B\"\nprocessors = 8\n"

func writeFile(t *testing.T, path, text string, mode os.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// coreSeen counts, per submission key, the jobs the core holds and the
// jobs it started more than once (from its whole event log). Every job must
// have finished, or ended in one of the terminal states given.
func coreSeen(t *testing.T, k *koalaProc, terminal ...string) (jobs map[string]int, startedTwice []string) {
	t.Helper()
	code, body := k.do(t, "GET", "/v1/jobs", "")
	if code != 200 {
		t.Fatalf("GET /v1/jobs: %d %s", code, body)
	}
	var list []apiJob
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	jobs = map[string]int{}
	for _, j := range list {
		jobs[j.Key]++
		ok := j.State == "finished"
		for _, st := range terminal {
			ok = ok || j.State == st
		}
		if !ok {
			t.Errorf("the core's job %s (%s): %s %s", j.ID, j.Key, j.State, j.Reason)
		}
	}
	code, body = k.do(t, "GET", "/v1/events?since=0&follow=false", "")
	if code != 200 {
		t.Fatalf("GET /v1/events: %d", code)
	}
	started := map[string]int{}
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var e struct{ Kind, Key string }
			if json.Unmarshal([]byte(data), &e) == nil && e.Kind == "started" {
				started[e.Key]++
			}
		}
	}
	for key, n := range started {
		if n > 1 {
			startedTwice = append(startedTwice, key)
		}
	}
	return jobs, startedTwice
}

// The bundled core as a real `gmark koala serve` process: the submitter
// is killed, the core is not.
func TestSubmitFaultsKoalaHTTP(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	f := newFaultRun(t, "fk")
	grid := writeFile(t, filepath.Join(f.dir, "grid.toml"), faultGrid, 0o644)
	tokenFile := writeFile(t, filepath.Join(f.dir, "token"), "tok\n", 0o600)
	k := startKoala(t, "--grid", grid, "--state", filepath.Join(f.dir, "core.db"), "--token", "tok")
	f.play(t, []string{"--target", "koala", "--endpoint", k.base, "--token-file", tokenFile})
	lost := f.checkStore(t)
	jobs, twice := coreSeen(t, k)
	l, dup := f.checkTarget(t, "the core", jobs)
	for _, key := range twice {
		t.Errorf("the core started %s twice", key)
	}
	f.report(t, "koala over HTTP", lost+l, dup+len(twice))
}

// Two Slurm clusters on loopback: what Slurm saw is every job it was
// given, by name (the name carries the submission key), from squeue and
// the job completion log, counted once per Slurm job id.
func TestSubmitFaultsSlurm(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them and on Slurm: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha", "beta")
	f := newFaultRun(t, "fs")
	// sbatch as slow as on a loaded controller: a kill -9 then leaves
	// sbatch commands running, which submit their jobs after the submitter
	// died (the --resume must wait for them, not submit the jobs again).
	sbatch, err := exec.LookPath("sbatch")
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(f.dir, "bin")
	if err := os.Mkdir(slow, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(slow, "sbatch"), "#!/bin/sh\nsleep 0.5\nexec "+sbatch+" \"$@\"\n", 0o755)
	f.env = []string{"PATH=" + slow + ":" + os.Getenv("PATH")} // for gmark's processes only
	// Single-node clusters cannot run heterogeneous jobs; poll often.
	targets := writeFile(t, filepath.Join(f.dir, "targets.toml"),
		strings.Replace(e.TargetsTOML(), "[slurm]\n", "[slurm]\nhetjob = false\npoll = \"300ms\"\n", 1), 0o644)
	f.play(t, []string{"--target", "slurm", "--targets", targets, "--gmark", buildGmark(t), "--workers", "8"})
	lost := f.checkStore(t)
	ids := map[string]map[string]bool{} // job name → cluster:id
	add := func(cluster, name string, id int64) {
		if ids[name] == nil {
			ids[name] = map[string]bool{}
		}
		ids[name][fmt.Sprintf("%s:%d", cluster, id)] = true
	}
	for _, c := range e.Clusters {
		for _, j := range slurmQueue(t, c) {
			add(c.Name, j.Name, j.ID)
		}
		for _, rec := range slurmJobComp(t, c) {
			var id int64
			fmt.Sscan(rec["JobId"], &id)
			if id != 0 {
				add(c.Name, rec["Name"], id)
			}
		}
	}
	// gmark-<job>.a<attempt>-<run> is the key <run>/<job>/<attempt>.
	seen := map[string]int{}
	for name, set := range ids {
		rest, ok := strings.CutPrefix(name, "gmark-")
		rest, ok2 := strings.CutSuffix(rest, "-"+f.runID)
		i := strings.LastIndex(rest, ".a")
		if !ok || !ok2 || i < 0 {
			t.Errorf("Slurm ran a job named %q", name)
			continue
		}
		seen[f.runID+"/"+rest[:i]+"/"+rest[i+2:]] += len(set)
	}
	l, dup := f.checkTarget(t, "Slurm", seen)
	if dup > 0 {
		// What Slurm and the store say of each duplicate, to see how.
		for name, set := range ids {
			if len(set) < 2 {
				continue
			}
			t.Logf("%s: Slurm jobs %v", name, set)
			for _, c := range e.Clusters {
				for _, rec := range slurmJobComp(t, c) {
					if rec["Name"] == name {
						t.Logf("  %s job completion log: %v", c.Name, rec)
					}
				}
			}
			rest := strings.TrimSuffix(strings.TrimPrefix(name, "gmark-"), "-"+f.runID)
			st, err := store.OpenReadOnly(f.db)
			if err != nil {
				continue
			}
			evs, _ := st.Events(f.runID, rest[:strings.LastIndex(rest, ".a")])
			st.Close()
			for _, ev := range evs {
				t.Logf("  event %d %s %s", ev.TimeNS, ev.Kind, ev.Payload)
			}
		}
	}
	f.report(t, "slurm", lost+l, dup)
}

// The bundled core started by the submitter itself (--target koala with a
// grid and no endpoint): its state lives in the run directory.
func TestSubmitFaultsKoalaBundled(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	f := newFaultRun(t, "fb")
	grid := writeFile(t, filepath.Join(f.dir, "grid.toml"), faultGrid, 0o644)
	runDir := filepath.Join(f.dir, "runs", f.runID)
	stopBundledCore(t, runDir)
	f.play(t, []string{"--target", "koala", "--grid", grid})
	lost := f.checkStore(t)
	// The core outlived every kill (none of its jobs failed for a restart)
	// and the last --resume stopped it.
	if pid := bundledCorePid(t, runDir); pid == 0 || processRuns(pid) {
		t.Errorf("the bundled core (pid %d) still runs after the run ended", pid)
	}
	// The core's own records: its state database, read once the run is over.
	core, err := sql.Open("sqlite", "file:"+filepath.Join(f.dir, "runs", f.runID, "koala.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	jobs := map[string]int{}
	rows, err := core.Query(`SELECT key, state, reason FROM jobs`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key, state, reason string
		if err := rows.Scan(&key, &state, &reason); err != nil {
			t.Fatal(err)
		}
		jobs[key]++
		if state != "finished" {
			t.Errorf("the core's job %s: %s %s", key, state, reason)
		}
	}
	rows.Close()
	started := map[string]int{}
	rows, err = core.Query(`SELECT data FROM events WHERE kind = 'started'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var data string
		var e struct{ Key string }
		if rows.Scan(&data) == nil && json.Unmarshal([]byte(data), &e) == nil {
			started[e.Key]++
		}
	}
	rows.Close()
	twice := 0
	for key, n := range started {
		if n > 1 {
			twice++
			t.Errorf("the core started %s %d times", key, n)
		}
	}
	l, dup := f.checkTarget(t, "the core", jobs)
	f.report(t, "koala bundled", lost+l, dup+twice)
}

// bundledCorePid is the pid of the bundled core of a run, from its record
// in the run directory (0 if there is none).
func bundledCorePid(t *testing.T, runDir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(runDir, koalatarget.CoreRecord))
	if err != nil {
		return 0
	}
	var rec struct{ Pid int }
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Pid
}

// stopBundledCore makes sure the test leaves no bundled core of the run
// running (it is not the test's child: a process of its own, made to
// outlive the submitter): its cleanup kills, by pid, every `koala serve`
// whose state is in the run directory.
func stopBundledCore(t *testing.T, runDir string) {
	t.Cleanup(func() {
		for _, p := range target.Procs() {
			if bytes.Contains(p.Cmdline, []byte("koala\x00serve\x00")) && bytes.Contains(p.Cmdline, []byte(runDir+"/")) {
				_ = syscall.Kill(p.Pid, syscall.SIGKILL)
			}
		}
	})
}

// processRuns reports whether pid is a live process (not a zombie).
func processRuns(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// Ctrl-C (SIGINT) of a run on the bundled core: the submitter stops, the
// core keeps running the jobs it has, and the --resume reconnects to it,
// so no job fails for the interruption; at the end the core is stopped.
func TestSubmitInterruptKeepsBundledCore(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	f := newFaultRun(t, "fi")
	grid := writeFile(t, filepath.Join(f.dir, "grid.toml"), faultGrid, 0o644)
	runDir := filepath.Join(f.dir, "runs", f.runID)
	stopBundledCore(t, runDir)
	p := startGmark(t, f.dir, "submit", f.wl, "--db", f.db, "--run-id", f.runID, "-q", "--target", "koala", "--grid", grid)
	f.waitFor(t, p, "a third of the jobs final", func(pr runProgress) bool { return pr.rows >= len(f.keys)/3 })
	if err := syscall.Kill(p.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		t.Fatal("the submitter did not stop within a minute of SIGINT")
	}
	pid := bundledCorePid(t, runDir)
	if code := p.cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(p.out.String(), fmt.Sprintf("keeps running the jobs (pid %d)", pid)) {
		t.Fatalf("interrupted: exit %d:\n%s", code, p.out.String())
	}
	if !processRuns(pid) {
		t.Fatalf("the bundled core (pid %d) stopped with the interrupted submitter", pid)
	}
	// As if the submitter had died between starting the core and recording
	// it: the --resume must find it all the same, not start a second core
	// on the same state.
	if err := os.Remove(filepath.Join(runDir, koalatarget.CoreRecord)); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, f.dir, "submit", "--resume", f.runID, "--db", f.db, "-q")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := f.checkStore(t); n != 0 {
		t.Errorf("%d jobs lost", n)
	}
	if bundledCorePid(t, runDir) != pid {
		t.Errorf("the --resume started another core instead of reconnecting to pid %d", pid)
	}
	if processRuns(pid) {
		t.Errorf("the bundled core (pid %d) still runs after the run ended", pid)
	}
}

// kill -9 of the `gmark koala serve` a run submits to, while jobs are
// queued and running and more are due; the server is restarted on its
// state, at the same address, once the submitter has met the outage. The
// submitter rides through it (it retries with backoff, its event stream
// reconnects and catches up), every job ends, none is submitted twice, and
// none fails for the outage: a job that was running when the core died
// fails, by the core's own rule (running it again would run it twice),
// and only those.
func TestSubmitRidesThroughCoreRestart(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	f := newFaultRun(t, "fo")
	grid := writeFile(t, filepath.Join(f.dir, "grid.toml"), faultGrid, 0o644)
	tokenFile := writeFile(t, filepath.Join(f.dir, "token"), "tok\n", 0o600)
	state := filepath.Join(f.dir, "core.db")
	k := startKoala(t, "--grid", grid, "--state", state, "--token", "tok")
	p := startGmark(t, f.dir, "submit", f.wl, "--db", f.db, "--run-id", f.runID, "-q",
		"--target", "koala", "--endpoint", k.base, "--token-file", tokenFile, "--backoff", "100ms")
	f.waitFor(t, p, "a third of the jobs final", func(pr runProgress) bool { return pr.rows >= len(f.keys)/3 })
	if err := k.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = k.cmd.Wait()
	// The outage lasts longer than --submit-retries' tries alone would
	// ride through: until a submission has been retried more often (or
	// has failed: the defect this test guards against).
	f.waitFor(t, p, "a long outage", func(runProgress) bool {
		return maxRetries(t, f.db, f.runID) > submitter.DefaultSubmitRetries || countEvents(t, f.db, f.runID, "submit-failed") > 0
	})
	k = startKoala(t, "--grid", grid, "--state", state, "--token", "tok", "--listen", strings.TrimPrefix(k.base, "http://"))
	p.waitOK(t, "the run, after the restart,")
	f.results(t)
	st, err := store.OpenReadOnly(f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, _ := st.Jobs(f.runID)
	failed := 0
	for _, r := range rows {
		if r.State == store.Failed && (strings.Contains(r.Reason, "the core restarted while the job ran") ||
			strings.HasPrefix(r.Reason, "predecessor ") || strings.Contains(r.Reason, "tasks failed")) {
			failed++ // killed with the core; a task after such a task; their composite job
			continue
		}
		if r.State != store.Succeeded {
			t.Errorf("job %s: %s (%s)", r.JobID, r.State, r.Reason)
		}
	}
	// A task whose predecessor failed is never submitted: the keys the
	// run had to make are those it recorded an intent for.
	subs, _ := st.Submissions(f.runID)
	f.keys = f.keys[:0]
	for _, s := range subs {
		f.keys = append(f.keys, s.Key)
	}
	lost := 0
	final := map[string]bool{}
	for _, r := range rows {
		final[r.JobID] = true
	}
	for _, s := range subs {
		if !final[s.JobID] {
			lost++
			t.Errorf("job %s has no final record", s.JobID)
		}
	}
	jobs, twice := coreSeen(t, k, "finished", "failed")
	l, dup := f.checkTarget(t, "the core", jobs)
	for _, key := range twice {
		t.Errorf("the core started %s twice", key)
	}
	t.Logf("core kill -9 and restart during a run of %d submissions: %d jobs and tasks failed as running at the crash (or after such a task)", len(subs), failed)
	f.kills = 1
	f.report(t, "koala over HTTP, server killed", lost+l, dup+len(twice))
}

func countEvents(t *testing.T, db, runID, kind string) int {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := 0
	_ = d.QueryRow(`SELECT count(*) FROM events WHERE run_id = ? AND kind = ?`, runID, kind).Scan(&n)
	return n
}

// maxRetries is the most retry events of one submission of the run.
func maxRetries(t *testing.T, db, runID string) int {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := 0
	_ = d.QueryRow(`SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM events WHERE run_id = ? AND kind = 'retry' GROUP BY job_id, attempt)`, runID).Scan(&n)
	return n
}

// slurmJob is what the tests read of a job in squeue --json.
type slurmJob struct {
	ID     int64  `json:"job_id"`
	Name   string `json:"name"`
	Submit int64  `json:"submit_time"`
	Start  int64  `json:"start_time"`
	End    int64  `json:"end_time"`
}

// slurmQueue is the jobs a cluster's controller knows (squeue --json).
func slurmQueue(t *testing.T, c *slurmtest.Cluster) []slurmJob {
	t.Helper()
	b, err := c.Cmd("squeue", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var q struct {
		Jobs []slurmJob `json:"jobs"`
	}
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	return q.Jobs
}

// slurmJobComp is a cluster's job completion log: the Key=Value fields of
// each line, in order.
func slurmJobComp(t *testing.T, c *slurmtest.Cluster) []map[string]string {
	t.Helper()
	b, _ := os.ReadFile(c.JobComp)
	var recs []map[string]string
	for _, line := range strings.Split(string(b), "\n") {
		rec := map[string]string{}
		for _, fld := range strings.Fields(line) {
			if k, v, ok := strings.Cut(fld, "="); ok {
				rec[k] = v
			}
		}
		if len(rec) > 0 {
			recs = append(recs, rec)
		}
	}
	return recs
}

// The kill -9 / resume loop of scripts/kill-resume-loop.sh, small: a real
// `gmark submit --target local` killed at random moments and resumed at
// once, while the killed process may still be exiting; no resume may be
// refused, and every job runs exactly once. (The script's default is 200
// kills; run it so, under nice -n 19, to measure.)
func TestSubmitKillResumeLoop(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("od"); err != nil {
		t.Skip("no od(1) for the script's random delays")
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", abs(t, "../../scripts/kill-resume-loop.sh"), "-n", "12", "-w", "150", "-g", buildGmark(t), "-d", dir)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", bytes.TrimSpace(out))
	if err != nil {
		t.Fatalf("the loop: %v", err)
	}
	if !strings.Contains(string(out), "kills 12,") || !strings.Contains(string(out), "resumes refused 0,") {
		t.Fatalf("not 12 kills without a refused resume")
	}
}
