package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gmark/gmark/workload"
)

// gmark trace reads WfFormat and the WTA's parquet as a new user would
// try them: stats with the workflow analysis, the fields it does not carry
// named, conversions between the workflow formats, and bad input at its
// position with exit status 2.
func TestTraceWorkflowFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "inst.json"), []byte(replayInstance), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, dir, "trace", "stats", "inst.json")
	if code != 0 || !strings.Contains(stdout, "workflows:    1 workflows, 4 tasks") || !strings.Contains(stderr, "read and left out: workflow.execution.makespanInSeconds") {
		t.Fatalf("stats: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, _, code = run(t, dir, "trace", "stats", "--json", "inst.json")
	var out struct {
		Workflows struct {
			PerWorkflow []struct {
				CriticalPath float64 `json:"critical_path_s"`
				Width        int     `json:"width"`
			} `json:"per_workflow"`
		} `json:"workflows"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &out) != nil || len(out.Workflows.PerWorkflow) != 1 ||
		out.Workflows.PerWorkflow[0].CriticalPath != 4 || out.Workflows.PerWorkflow[0].Width != 2 {
		t.Fatalf("stats --json: exit %d\n%s", code, stdout)
	}
	for _, step := range [][]string{
		{"trace", "convert", "inst.json", "t", "--format", "wta"},
		{"trace", "convert", "t", "back.wf.gwf"},
		{"trace", "convert", "t", "again.json"},
	} {
		if stdout, stderr, code := run(t, dir, step...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", step, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "t", "tasks", "schema-1.0", "part.0.parquet")); err != nil {
		t.Fatal(err)
	}
	figs := filepath.Join(dir, "figs")
	if stdout, stderr, code := run(t, dir, "trace", "plot", "inst.json", "-o", figs); code != 0 {
		t.Fatalf("plot: exit %d\n%s\n%s", code, stdout, stderr)
	}
	page, _ := os.ReadFile(filepath.Join(figs, "index.html"))
	if !strings.Contains(string(page), "workflow_critical_path_vs_work.svg") {
		t.Error("the page does not show the workflow figures")
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{\"name\": \"w\", \"schemaVersion\": \"1.5\", \"workflow\": {\"specification\": {\"tasks\": [\n  {\"id\": \"a\", \"parents\": [\"zz\"]}]}}}"), 0o644)
	_, stderr, code = run(t, dir, "trace", "stats", "bad.json")
	if code != 2 || !strings.Contains(stderr, "bad.json:2:26: task a: parent zz is no task of the instance") {
		t.Errorf("bad instance: exit %d\n%s", code, stderr)
	}
}

// The WDL's composite shapes written as WfFormat instances read back as
// the same DAGs: gmark generate --format wfformat, then wl:trace over the
// instances' directory.
func TestGenerateWfFormat(t *testing.T) {
	dir := t.TempDir()
	spec := "# File-type: text/wl-spec\n" +
		"1\tcomposite\t3\tforkjoin\tsingle\t1\t*:?\tPoisson(100ms)\tN=6-9,L=3-4,AppsWithWeights=swf,RunTime=C(2s)\n" +
		"2\tcomposite\t2\tlayrprob\tsingle\t1\t*:?\tPoisson(100ms)\tN=8,L=4,EdgeProb=0.5,AppsWithWeights=swf,RunTime=C(1s)\n"
	os.WriteFile(filepath.Join(dir, "s.wdl"), []byte(spec), 0o644)
	if _, stderr, code := run(t, dir, "generate", "s.wdl", "-o", "w", "-q", "--format", "wfformat"); code != 0 {
		t.Fatal(stderr)
	}
	jobs, err := workload.ReadAll(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "w", "workflows", "*.json"))
	if len(jobs) != 5 || len(files) != 5 {
		t.Fatalf("%d jobs, %d instances", len(jobs), len(files))
	}
	os.WriteFile(filepath.Join(dir, "r.wdl"), []byte("1\twl:trace\tsingle\t1\t*:?\t-\tFile=w/workflows\n"), 0o644)
	if _, stderr, code := run(t, dir, "generate", "r.wdl", "-o", "r", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	back, err := workload.ReadAll(filepath.Join(dir, "r"))
	if err != nil || len(back) != len(jobs) {
		t.Fatalf("%d jobs back: %v", len(back), err)
	}
	shape := func(j workload.Job) (int, []string, []string) {
		pos := map[string]int{}
		var runs []string
		for i, task := range j.Tasks {
			pos[task.ID] = i
			runs = append(runs, task.RunTime.String())
		}
		var edges []string
		for _, d := range j.Deps {
			edges = append(edges, fmt.Sprintf("%d>%d", pos[d.From], pos[d.To]))
		}
		sort.Strings(edges)
		return len(j.Tasks), edges, runs
	}
	// The instances are read in file-name order, the jobs in submit order:
	// match them by their shapes.
	want := map[string]int{}
	for _, j := range jobs {
		n, e, r := shape(j)
		want[fmt.Sprint(n, e, r)]++
	}
	for _, j := range back {
		n, e, r := shape(j)
		key := fmt.Sprint(n, e, r)
		if want[key] == 0 {
			t.Errorf("job %s read back with a DAG no generated job has: %s", j.ID, key)
		}
		want[key]--
	}
}

// A WfFormat instance as the template of a composite unit (Type wf:PATH):
// every job has its DAG, TaskScale copies side by side, its run times
// times RunTimeScale.
func TestWfTemplateUnit(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "inst.json"), []byte(replayInstance), 0o644)
	spec := "# File-type: text/wl-spec\n" +
		"1\tcomposite\t2\twf:inst.json\tsingle\t1\t*:?\tPoisson(1s)\tTaskScale=3,RunTimeScale=0.5\n" +
		"2\tcomposite\t1\twf:inst.json\tsingle\t1\t*:?\tPoisson(1s)\n"
	os.WriteFile(filepath.Join(dir, "s.wdl"), []byte(spec), 0o644)
	if stdout, stderr, code := run(t, dir, "generate", "s.wdl", "-o", "w", "-q"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	jobs, err := workload.ReadAll(filepath.Join(dir, "w"))
	if err != nil || len(jobs) != 3 {
		t.Fatalf("%d jobs: %v", len(jobs), err)
	}
	for _, j := range jobs {
		want, scale := 4, 0.5
		if j.Unit == 2 {
			want, scale = 1, 1
		}
		k := want
		if j.Unit == 1 {
			k = 3
		}
		if j.Kind != workload.Composite || len(j.Tasks) != 4*k || len(j.Deps) != 4*k {
			t.Fatalf("job %s: %d tasks, %d dependencies; want %d and %d", j.ID, len(j.Tasks), len(j.Deps), 4*k, 4*k)
		}
		// split, w1, w2, merge run 1, 2, 1, 1 s, scaled.
		for i, sec := range []float64{1, 2, 1, 1} {
			if got := j.Tasks[i].RunTime.Seconds(); got != sec*scale || j.Tasks[i].App.Name != "swf" {
				t.Errorf("job %s task %d: %v s (%s), want %v s", j.ID, i, got, j.Tasks[i].App.Name, sec*scale)
			}
		}
	}
	os.WriteFile(filepath.Join(dir, "bad.wdl"), []byte("1\tcomposite\t1\twf:missing.json\tsingle\t1\t*:?\tPoisson(1s)\n"), 0o644)
	if _, stderr, code := run(t, dir, "generate", "bad.wdl", "-o", "b", "-q"); code != 2 || !strings.Contains(stderr, "bad.wdl:1:") || !strings.Contains(stderr, "wf:missing.json") {
		t.Errorf("a missing template: exit %d\n%s", code, stderr)
	}
}
