package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// replayInstance is a WfFormat 1.5 instance: a diamond, split -> w1, w2
// -> merge, run times 1, 2, 1, 1 s: its critical path is split w1 merge,
// 4 s.
const replayInstance = `{"name": "diamond", "schemaVersion": "1.5",
 "workflow": {
  "specification": {"tasks": [
    {"name": "split", "id": "split", "parents": [], "children": ["w1", "w2"]},
    {"name": "work", "id": "w1", "parents": ["split"], "children": ["merge"]},
    {"name": "work", "id": "w2", "parents": ["split"], "children": ["merge"]},
    {"name": "merge", "id": "merge", "parents": ["w1", "w2"], "children": []}]},
  "execution": {"makespanInSeconds": 5, "executedAt": "2024-01-01T00:00:00Z", "tasks": [
    {"id": "split", "runtimeInSeconds": 1, "coreCount": 1},
    {"id": "w1", "runtimeInSeconds": 2, "coreCount": 1},
    {"id": "w2", "runtimeInSeconds": 1, "coreCount": 1},
    {"id": "merge", "runtimeInSeconds": 1, "coreCount": 1}]}}}
`

// replayCriticalPath is the instance's critical path, ns.
const replayCriticalPath = 4e9

// genReplay writes the instance and a wl:trace spec of it into dir, and
// generates the workload.
func genReplay(t *testing.T, dir string) []workload.Job {
	t.Helper()
	files := map[string]string{"inst.json": replayInstance, "wf.wdl": "1\twl:trace\tsingle\t1\t*:?\t-\tFile=inst.json,Mode=sleep\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := run(t, dir, "generate", "wf.wdl", "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	jobs, err := workload.ReadAll(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].Kind != workload.Composite || len(jobs[0].Tasks) != 4 || len(jobs[0].Deps) != 4 {
		t.Fatalf("want one composite job of 4 tasks and 4 dependencies: %+v", jobs)
	}
	return jobs
}

// checkReplay checks a run of the instance in the store: every task
// succeeded and started after its parents ended, and the workflow's
// makespan (its first task's start to its last end) is at least its
// critical path. It returns the rows by job id.
func checkReplay(t *testing.T, db, runID string, jobs []workload.Job) map[string]store.Job {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Jobs(runID)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]store.Job{}
	for _, r := range rows {
		byID[r.JobID] = r
	}
	j := jobs[0]
	first, last := int64(0), int64(0)
	for _, task := range j.Tasks {
		r, ok := byID[task.ID]
		if !ok || r.State != store.Succeeded || r.StartNS == 0 || r.EndNS < r.StartNS {
			t.Fatalf("task %s: %+v", task.ID, r)
		}
		if first == 0 || r.StartNS < first {
			first = r.StartNS
		}
		last = max(last, r.EndNS)
	}
	for _, d := range j.Deps {
		from, to := byID[d.From], byID[d.To]
		if to.StartNS < from.EndNS {
			t.Errorf("task %s started at %d, before its parent %s ended at %d", d.To, to.StartNS, d.From, from.EndNS)
		}
	}
	if last-first < replayCriticalPath {
		t.Errorf("makespan %d ns, below the critical path of %d ns", last-first, int64(replayCriticalPath))
	}
	return byID
}

// A WfFormat instance replayed on the bundled core runs with its
// dependencies.
func TestWfFormatReplayOnBundledCore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jobs := genReplay(t, dir)
	grid := "name = \"one\"\n[scheduler]\npolicy = \"WF\"\nscan_interval = \"1s\"\nplace_on_submit = true\n[[cluster]]\nname = \"A\"\nprocessors = 4\n"
	if err := os.WriteFile(filepath.Join(dir, "grid.toml"), []byte(grid), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, dir, "submit", "w", "--target", "koala", "--grid", "grid.toml", "--db", "r.db", "--run-id", "k1", "-q")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	checkReplay(t, filepath.Join(dir, "r.db"), "k1", jobs)
	// The report's workflow figures: the response is at least the critical
	// path (slowdown >= 1, efficiency <= 1), in text, JSON and the gate.
	stdout, stderr, code = run(t, dir, "report", "--db", "r.db", "--run", "k1", "--format", "json")
	var rep struct {
		Runs []struct {
			Metrics struct {
				Workflows *struct {
					Workflows    int `json:"workflows"`
					CriticalPath struct {
						Mean float64 `json:"mean"`
					} `json:"critical_path_s"`
					Slowdown struct {
						Mean float64 `json:"mean"`
					} `json:"slowdown"`
					Efficiency struct {
						Mean float64 `json:"mean"`
					} `json:"critical_path_efficiency"`
				} `json:"workflows"`
			} `json:"metrics"`
		} `json:"runs"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Runs) != 1 || rep.Runs[0].Metrics.Workflows == nil {
		t.Fatalf("report --json: exit %d\n%.2000s\n%s", code, stdout, stderr)
	}
	w := rep.Runs[0].Metrics.Workflows
	if w.Workflows != 1 || w.CriticalPath.Mean < 3.9 || w.Slowdown.Mean < 1 || w.Efficiency.Mean > 1 || w.Efficiency.Mean <= 0 {
		t.Errorf("workflow metrics %+v", *w)
	}
	stdout, _, code = run(t, dir, "report", "--db", "r.db", "--run", "k1", "--format", "text")
	if code != 0 || !strings.Contains(stdout, "slowdown vs critical path") {
		t.Errorf("report text: exit %d\n%s", code, stdout)
	}
	if _, stderr, code := run(t, dir, "submit", "w", "--target", "koala", "--grid", "grid.toml", "--db", "r.db", "--run-id", "k2", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code = run(t, dir, "report", "--db", "r.db", "--run", "k2", "--format", "text", "--baseline", "r.db", "--baseline-run", "k1", "--metrics", "mean-workflow-slowdown,mean-cp-efficiency")
	if code == 2 || !strings.Contains(stdout+stderr, "mean-workflow-slowdown") || !strings.Contains(stdout+stderr, "mean-cp-efficiency") {
		t.Errorf("gate: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// The same instance on loopback Slurm, gmark's executor waiting for the
// dependencies, and Slurm's own (--dependency=afterok): then a task is
// submitted before its parents end, and Slurm holds it.
//
// Slow: 20 s at load 4–30, 29 s at load 20–40 (2 cores, whole package run):
// the workflows' tasks on a Slurm cluster in real time.
func TestWfFormatReplayOnSlurm(t *testing.T) {
	t.Parallel() // waits on a Slurm cluster of its own: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{}, "alpha")
	bin := buildGmark(t)
	for _, mode := range []string{"gmark", "slurm"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			jobs := genReplay(t, dir)
			toml := strings.Replace(e.TargetsTOML(), "[slurm]\n", "[slurm]\nhetjob = false\npoll = \"300ms\"\ndependencies = \""+mode+"\"\n", 1)
			if err := os.WriteFile(filepath.Join(dir, "targets.toml"), []byte(toml), 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := run(t, dir, "submit", "w", "--target", "slurm", "--targets", "targets.toml", "--db", "r.db",
				"--gmark", bin, "--run-id", "s1", "-q", "--tail", "5m")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			byID := checkReplay(t, filepath.Join(dir, "r.db"), "s1", jobs)
			// Who waited: with Slurm's dependencies the merge task is
			// submitted before w1 ends; with gmark's, after.
			merge, w1 := byID[jobs[0].Tasks[3].ID], byID[jobs[0].Tasks[1].ID]
			early := merge.SubmitNS < w1.EndNS
			if early != (mode == "slurm") {
				t.Errorf("%s: merge submitted at %d, w1 ended at %d", mode, merge.SubmitNS, w1.EndNS)
			}
		})
	}
}

// The same instance on the local target (real processes) and dryrun: the
// submitter's executor waits for the dependencies on every target.
func TestWfFormatReplayOnLocalAndDryrun(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"local", "dryrun"} {
		t.Run(target, func(t *testing.T) {
			dir := t.TempDir()
			jobs := genReplay(t, dir)
			args := []string{"submit", "w", "--target", target, "--db", "r.db", "--run-id", "x1", "-q"}
			if stdout, stderr, code := run(t, dir, args...); code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if target == "local" {
				checkReplay(t, filepath.Join(dir, "r.db"), "x1", jobs)
				return
			}
			// dryrun runs nothing: every task is submitted after its parents
			// are final.
			st, err := store.OpenReadOnly(filepath.Join(dir, "r.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			rows, _ := st.Jobs("x1")
			byID := map[string]store.Job{}
			for _, r := range rows {
				byID[r.JobID] = r
			}
			for _, d := range jobs[0].Deps {
				if from, to := byID[d.From], byID[d.To]; to.State != store.Succeeded || to.SubmitNS < from.EndNS {
					t.Errorf("%s submitted at %d, its parent %s ended at %d", d.To, to.SubmitNS, d.From, from.EndNS)
				}
			}
		})
	}
}

// filesInstance is a chain whose tasks pass files on: a writes mid.dat
// (10 GB), b reads it and writes out.dat, c reads out.dat; in.dat, a's
// input, is the workflow's own (held by no site).
const filesInstance = `{"name": "files", "schemaVersion": "1.5",
 "workflow": {
  "specification": {"tasks": [
    {"name": "a", "id": "a", "parents": [], "children": ["b"], "inputFiles": ["in.dat"], "outputFiles": ["mid.dat"]},
    {"name": "b", "id": "b", "parents": ["a"], "children": ["c"], "inputFiles": ["mid.dat"], "outputFiles": ["out.dat"]},
    {"name": "c", "id": "c", "parents": ["b"], "children": [], "inputFiles": ["out.dat"]}],
   "files": [{"id": "in.dat", "sizeInBytes": 1000}, {"id": "mid.dat", "sizeInBytes": 10000000000}, {"id": "out.dat", "sizeInBytes": 10000000000}]},
  "execution": {"makespanInSeconds": 3, "executedAt": "2024-01-01T00:00:00Z", "tasks": [
    {"id": "a", "runtimeInSeconds": 1}, {"id": "b", "runtimeInSeconds": 1}, {"id": "c", "runtimeInSeconds": 1}]}}}
`

// A task's input written by its predecessor is held where the predecessor
// ran, so Close-to-Files places the task there: the whole chain runs on
// the site its first task ran on, and no file is transferred.
func TestWfFormatFilesCloseToFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"inst.json": filesInstance, "wf.wdl": "1\twl:trace\tsingle\t1\t*:?\t-\tFile=inst.json,Mode=sleep\n",
		"grid.toml": "name = \"two\"\n[scheduler]\npolicy = \"CF\"\nscan_interval = \"1s\"\nplace_on_submit = true\n" +
			"[[cluster]]\nname = \"A\"\nprocessors = 4\n[[cluster]]\nname = \"B\"\nprocessors = 4\n"}
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	if _, stderr, code := run(t, dir, "generate", "wf.wdl", "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	jobs, err := workload.ReadAll(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	tk := jobs[0].Tasks
	if len(tk[0].Files) != 0 || len(tk[0].Outputs) != 1 || len(tk[1].Files) != 1 || tk[1].Files[0].Name != "mid.dat" || len(tk[2].Files) != 1 {
		t.Fatalf("task files: %+v / %+v / %+v", tk[0], tk[1], tk[2])
	}
	if stdout, stderr, code := run(t, dir, "submit", "w", "--target", "koala", "--grid", "grid.toml", "--db", "r.db", "--run-id", "f1", "-q", "--tail", "60s"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	st, err := store.OpenReadOnly(filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	site := map[string]string{}
	for _, task := range tk {
		r, err := st.Job("f1", task.ID)
		if err != nil || r.State != store.Succeeded {
			t.Fatalf("%s: %+v %v", task.ID, r, err)
		}
		site[task.ID] = r.Sites
	}
	if site[tk[1].ID] != site[tk[0].ID] || site[tk[2].ID] != site[tk[0].ID] {
		t.Errorf("the chain moved away from its files: %v", site)
	}
}
