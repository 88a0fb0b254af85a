package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/sim/slurmarray"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// simSweep20 is the 20-run sweep of the must-show of gmark sim run --on
// slurm: five architectures × two loads × two repetitions of one day of
// grid-LF on DAS-2 + Grid'5000, about 0.15 s of computing per run.
const simSweep20 = `name = "sweep20"
seed = 7
topology = "das2-g5k"
architectures = ["sep-c", "condor", "cern", "central", "dmm"]
loads = [50, 80]
repetitions = 2
[workload]
span = "1d"
`

// gmark sim run --on slurm, on one loopback
// cluster of two nodes: a 20-run sweep as one job array, (1) with one task
// killed with kill -9 and another with scancel --signal=KILL while they
// run, both submitted again, and (2) with the coordinator killed with
// kill -9 mid-sweep and run again. Each gives, byte for byte, the report
// of the same sweep run locally with --parallel 2.
//
// Slow: 74 s at load 4–30, 135 s at load 20–40 (2 cores, whole package run):
// a local sweep and two sweeps as Slurm job arrays of two tasks at a time.
func TestSimSlurm(t *testing.T) {
	t.Parallel() // waits on a Slurm cluster of its own: runs beside the others
	env := slurmtest.Start(t, slurmtest.Options{CPUs: 4, Nodes: 2}, "simx")
	conf := env.Clusters[0].Conf
	dir := t.TempDir()
	exp := simFile(t, dir, "sweep20.toml", simSweep20)
	if _, stderr, code := run(t, dir, "sim", "run", exp, "--db", "local.db", "--parallel", "2", "-q"); code != 0 {
		t.Fatalf("local sweep: exit %d: %s", code, stderr)
	}
	local, _, code := run(t, dir, "sim", "report", "--db", "local.db", "--format", "json")
	if code != 0 || !strings.Contains(local, `"finished_runs": 20`) {
		t.Fatalf("local report: exit %d\n%.2000s", code, local)
	}
	args := func(db string) []string {
		return []string{"sim", "run", exp, "--db", db, "--on", "slurm", "--slurm-conf", conf, "--array-limit", "2"}
	}
	same := func(t *testing.T, db string) {
		t.Helper()
		got, _, code := run(t, dir, "sim", "report", "--db", db, "--format", "json")
		if code != 0 || got != local {
			t.Errorf("the report of %s differs from the local sweep's (exit %d)\non slurm:\n%.3000s\nlocal:\n%.3000s", db, code, got, local)
		}
	}

	t.Run("kill tasks", func(t *testing.T) {
		db := filepath.Join(dir, "killed-tasks.db")
		p := startGmark(t, dir, args(db)...)
		layout := simLayout(t, dir, db)
		killed := map[string]string{} // digest → how
		for _, how := range []string{"kill -9", "scancel --signal=KILL"} {
			digest, task := simKillTask(t, p, layout, killed, how == "kill -9", env.Clusters[0])
			killed[digest] = how
			t.Logf("%s of task %s (run %.12s)", how, task, digest)
		}
		p.waitOK(t, "gmark sim run --on slurm")
		out := p.out.String()
		t.Logf("the coordinator:\n%s", out)
		if n := strings.Count(out, "submitting it again (retry 1 of 2)"); n != 2 {
			t.Errorf("%d tasks submitted again, not 2:\n%s", n, out)
		}
		same(t, db)
		tasks := simTasks(t, db)
		states := map[string]int{}
		for _, k := range tasks {
			states[k.State]++
			how, victim := killed[k.Digest]
			switch {
			case victim && k.Try == 1 && how == "kill -9" && (k.State != store.SimTaskFailed || !strings.Contains(k.Reason, "signal 9")):
				t.Errorf("the task killed with kill -9: %+v", k)
			case victim && k.Try == 1 && how != "kill -9" && k.State != store.SimTaskCancelled:
				t.Errorf("the task killed with scancel: %+v", k)
			case victim && k.Try == 2 && k.State != store.SimTaskCompleted:
				t.Errorf("the retry of a killed task: %+v", k)
			case !victim && (k.Try != 1 || k.State != store.SimTaskCompleted):
				t.Errorf("a task not killed: %+v", k)
			}
		}
		if states[store.SimTaskCompleted] != 20 || len(tasks) != 22 {
			t.Errorf("tasks: %v", states)
		}
		results, attempts := simCounts(t, db)
		total := 0
		for d, n := range attempts {
			total += n
			if _, victim := killed[d]; n != 1 && !(victim && n == 2) {
				t.Errorf("run %.12s: %d attempts", d, n)
			}
		}
		if len(results) != 20 || total != 22 {
			t.Errorf("%d results, %d attempts", len(results), total)
		}
	})

	t.Run("stop and kill coordinator", func(t *testing.T) {
		db := filepath.Join(dir, "killed-coordinator.db")
		// Interrupted (SIGINT), the coordinator stops and leaves its array
		// running; killed (SIGKILL), it says nothing. Either way the same
		// command follows the array it finds and redoes nothing.
		p := startGmark(t, dir, args(db)...)
		simWaitFor(t, p, db, func(results int) bool { return results >= 4 })
		if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.done:
		case <-time.After(time.Minute):
			t.Fatalf("the coordinator still at work a minute after SIGINT:\n%s", p.out.String())
		}
		if out := p.out.String(); p.cmd.ProcessState.ExitCode() != 1 || !strings.Contains(out, "keeps running: the same command again merges its results") ||
			!strings.Contains(out, "run the same command again to continue") {
			t.Fatalf("interrupted: exit %d\n%s", p.cmd.ProcessState.ExitCode(), out)
		}
		atStop, _ := simCounts(t, db)
		p = startGmark(t, dir, args(db)...)
		simWaitFor(t, p, db, func(results int) bool { return results >= 10 })
		p.kill()
		atKill, _ := simCounts(t, db)
		if len(atKill) >= 20 {
			t.Fatalf("the kill struck after the last run")
		}
		second := p.out.String()
		p = startGmark(t, dir, args(db)...)
		p.waitOK(t, "gmark sim run --on slurm, after the kill")
		third := p.out.String()
		for i, out := range []string{second, third} {
			found := -1
			if m := regexp.MustCompile(`(\d+) already in`).FindStringSubmatch(out); m != nil {
				found, _ = strconv.Atoi(m[1])
			}
			if want := []int{len(atStop), len(atKill)}[i]; found < want || strings.Contains(out, "submitted array") || !strings.Contains(out, "following array") {
				t.Errorf("coordinator %d did not follow the array (%d results before it, %d found):\n%s", i+2, want, found, out)
			}
		}
		same(t, db)
		results, attempts := simCounts(t, db)
		for d, n := range attempts {
			if n != 1 {
				t.Errorf("run %.12s: %d attempts: a run was done twice", d, n)
			}
		}
		tasks := simTasks(t, db)
		if len(results) != 20 || len(attempts) != 20 || len(tasks) != 20 {
			t.Errorf("%d results, %d runs attempted, %d tasks", len(results), len(attempts), len(tasks))
		}
		t.Logf("stopped with %d of 20 results merged, killed with %d; the last coordinator:\n%s", len(atStop), len(atKill), third)
	})
}

// simLayout is the shared directory of the sweep's arrays.
func simLayout(t *testing.T, dir, db string) slurmarray.Layout {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		st, err := store.OpenReadOnly(db)
		if err != nil {
			continue
		}
		exps, err := st.SimExperiments()
		st.Close()
		if err == nil && len(exps) == 1 {
			l, err := slurmarray.NewLayout(db+".slurm", db, exps[0].Digest)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
	}
	t.Fatal("the experiment was not recorded in a minute")
	return slurmarray.Layout{}
}

// simKillTask waits for an array task of the layout to be at work on a run
// that has no result file yet, stops it (SIGSTOP) so that it cannot end,
// and kills it: with kill -9 (byPid) or with scancel --signal=KILL. It
// returns the run's digest and the task's Slurm id.
func simKillTask(t *testing.T, p *gmarkProc, l slurmarray.Layout, skip map[string]string, byPid bool, c *slurmtest.Cluster) (string, string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	escaped := map[string]bool{} // digests of tasks that ended before scancel's kill
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("the coordinator ended before a task could be killed:\n%s", p.out.String())
		default:
		}
		pid, manifest, task, env := simFindTask(l)
		if pid == 0 {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		m, err := slurmarray.ReadManifest(manifest)
		if err != nil || task >= len(m.Tasks) {
			continue
		}
		digest := m.Tasks[task].Digest
		if _, done := skip[digest]; done || escaped[digest] {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGSTOP)
		// kill(2) returns before the signal has stopped the process: on a
		// loaded machine it wrote its result after the check below (and
		// the task meant to be killed completed). Wait until it is stopped.
		if !waitStopped(pid, 5*time.Second) {
			_ = syscall.Kill(pid, syscall.SIGCONT)
			continue
		}
		if _, err := os.Stat(l.ResultPath(digest)); err == nil {
			_ = syscall.Kill(pid, syscall.SIGCONT) // too late: it has written its result
			continue
		}
		id := env["SLURM_ARRAY_JOB_ID"] + "_" + env["SLURM_ARRAY_TASK_ID"]
		if byPid {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		} else {
			if out, err := c.Cmd("scancel", "--signal=KILL", id).CombinedOutput(); err != nil {
				t.Fatalf("scancel: %v: %s", err, out)
			}
			// Slurm continues a stopped process before it delivers the
			// kill: on a loaded machine the task finished its result in
			// between, and was no victim. Such a task is let be, and
			// another one is taken.
			if !waitGone(pid, time.Minute) {
				t.Fatalf("task %s still alive a minute after scancel --signal=KILL", id)
			}
			if _, err := os.Stat(l.ResultPath(digest)); err == nil {
				t.Logf("task %s wrote its result before scancel's kill reached it: another task is killed", id)
				escaped[digest] = true
				continue
			}
		}
		return digest, id
	}
	t.Fatalf("no task caught at work in 2 minutes:\n%s", p.out.String())
	return "", ""
}

// waitStopped waits until the process is stopped (state T in
// /proc/PID/stat), and says whether it is.
func waitStopped(pid int, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false // it is gone
		}
		// The state follows the command name, which is in parentheses
		// and may hold spaces: the field after the last ')'.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && (b[i+2] == 'T' || b[i+2] == 't') {
			return true
		}
	}
	return false
}

// waitGone waits until the process is gone or a zombie, and says whether
// it is.
func waitGone(pid int, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return true
		}
	}
	return false
}

// simFindTask finds a process of `gmark sim task` of the layout's arrays:
// its pid, manifest, task index and environment.
func simFindTask(l slurmarray.Layout) (int, string, int, map[string]string) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(argv) != 5 || argv[1] != "sim" || argv[2] != "task" || !strings.HasPrefix(argv[3], l.Dir+string(filepath.Separator)) {
			continue
		}
		task, err := strconv.Atoi(argv[4])
		raw, err2 := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || err2 != nil {
			continue
		}
		env := map[string]string{}
		for _, kv := range bytes.Split(raw, []byte{0}) {
			if k, v, ok := strings.Cut(string(kv), "="); ok {
				env[k] = v
			}
		}
		return pid, argv[3], task, env
	}
	return 0, "", 0, nil
}

func simTasks(t *testing.T, db string) []store.SimTask {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	exps, err := st.SimExperiments()
	if err != nil || len(exps) != 1 {
		t.Fatalf("%d experiments: %v", len(exps), err)
	}
	tasks, err := st.SimTasks(exps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}
