package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gmark trace reads WfFormat and the WTA's parquet as a new user would
// try them: stats with the workflow analysis, the fields it does not carry
// named, conversions between the workflow formats, and bad input at its
// position with exit status 2.
func TestTraceWorkflowFormats(t *testing.T) {
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
