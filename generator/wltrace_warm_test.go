package generator

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/workload"
)

// warmSWF: seven jobs around a window [500 s, 900 s). Columns: id, submit,
// wait, run, procs, requested time.
//
//	1: 0 + 0,    runs    0–1000 on 2, asks 1200 s → running at 500, 500 s left, 700 s asked
//	2: 100 + 0,  runs  100–150                    → ended before 500
//	3: 200 + 400, runs 600–900                    → queued at 500, all 300 s
//	4: 300 + 100, runs 400–900 on 4, asks 450 s   → running at 500, 400 s left, asks max(400, 350)
//	5: 500 + 0,  runs  500–600                    → the window's first job
//	6: 600 + 50, runs  650–850                    → the window's
//	7: 900 + 0                                    → after the window (To is excluded)
func warmSWF(t *testing.T, dir string) {
	t.Helper()
	rows := [][6]int{{1, 0, 0, 1000, 2, 1200}, {2, 100, 0, 50, 1, -1}, {3, 200, 400, 300, 1, -1}, {4, 300, 100, 500, 4, 450},
		{5, 500, 0, 100, 1, -1}, {6, 600, 50, 200, 1, -1}, {7, 900, 0, 10, 1, -1}}
	var b strings.Builder
	b.WriteString("; Version: 2.2\n; MaxProcs: 8\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%d %d %d %d %d -1 -1 %d %d -1 1 1 1 -1 -1 1 -1 -1\n", r[0], r[1], r[2], r[3], r[4], r[4], r[5])
	}
	if err := os.WriteFile(filepath.Join(dir, "warm.swf"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func warmSummary(j *workload.Job) string {
	w := ""
	if j.Warm {
		w = " warm"
	}
	return fmt.Sprintf("%s@%s run=%s wall=%s procs=%d%s", j.ID, j.Submit, j.RunTime, j.WallTime, j.Processors(), w)
}

func TestTraceWarmStart(t *testing.T) {
	dir := t.TempDir()
	warmSWF(t, dir)
	cases := []struct {
		name, ntimes, other string
		want                []string
	}{
		{"cold: the window's jobs only", "1", "File=warm.swf,From=500s,To=900s", []string{
			"1-0@0s run=1m40s wall=0s procs=1", "1-1@1m40s run=3m20s wall=0s procs=1"}},
		{"warm: two running and one queued first", "1", "File=warm.swf,From=500s,To=900s,WarmStart=true", []string{
			"1-0@0s run=8m20s wall=11m40s procs=2 warm", "1-1@0s run=5m0s wall=0s procs=1 warm", "1-2@0s run=6m40s wall=6m40s procs=4 warm",
			"1-3@0s run=1m40s wall=0s procs=1", "1-4@1m40s run=3m20s wall=0s procs=1"}},
		{"warm, scaled, at StartAt", "1", "File=warm.swf,From=500s,To=900s,WarmStart=true,RunTimeScale=2,ProcScale=0.5,SubmitScale=0.5,StartAt=10s", []string{
			"1-0@10s run=16m40s wall=23m20s procs=1 warm", "1-1@10s run=10m0s wall=0s procs=1 warm", "1-2@10s run=13m20s wall=13m20s procs=2 warm",
			"1-3@10s run=3m20s wall=0s procs=1", "1-4@1m0s run=6m40s wall=0s procs=1"}},
		{"two replays: warm jobs once", "2", "File=warm.swf,From=500s,To=900s,WarmStart=true", []string{
			"1-0@0s run=8m20s wall=11m40s procs=2 warm", "1-1@0s run=5m0s wall=0s procs=1 warm", "1-2@0s run=6m40s wall=6m40s procs=4 warm",
			"1-3@0s run=1m40s wall=0s procs=1", "1-4@1m40s run=3m20s wall=0s procs=1",
			"1-5@6m40s run=1m40s wall=0s procs=1", "1-6@8m20s run=3m20s wall=0s procs=1"}},
		{"WarmStart=false is cold", "1", "File=warm.swf,From=500s,To=900s,WarmStart=false", []string{
			"1-0@0s run=1m40s wall=0s procs=1", "1-1@1m40s run=3m20s wall=0s procs=1"}},
		{"nothing in flight before the first job", "1", "File=warm.swf,To=300s,WarmStart=true", []string{
			"1-0@0s run=16m40s wall=20m0s procs=2", "1-1@1m40s run=50s wall=0s procs=1", "1-2@3m20s run=5m0s wall=0s procs=1"}},
		{"NTimes 0", "0", "File=warm.swf,From=500s,To=900s,WarmStart=true", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jobs := generate(t, traceSpec(t, dir, c.ntimes, c.other), 1)
			var got []string
			for i := range jobs {
				got = append(got, warmSummary(&jobs[i]))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("jobs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestTraceWarmStartManifest: the manifest lists the warm jobs and records
// the trace window, and a job line says "warm".
func TestTraceWarmStartManifest(t *testing.T) {
	dir := t.TempDir()
	warmSWF(t, dir)
	spec := traceSpec(t, dir, "1", "File=warm.swf,From=500s,To=900s,WarmStart=true,SubmitScale=0.5")
	g, err := New(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "wl")
	if _, err := WriteDir(spec, g, DirOptions{Out: out, SpecPath: filepath.Join(dir, "replay.wdl")}); err != nil {
		t.Fatal(err)
	}
	m, err := workload.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.WarmJobs, ","); got != "1-0,1-1,1-2" {
		t.Errorf("warm_jobs %s, want 1-0,1-1,1-2", got)
	}
	tr := m.Units[0].Trace
	if tr == nil {
		t.Fatal("no trace record in the manifest")
	}
	abs, _ := filepath.Abs(filepath.Join(dir, "warm.swf"))
	if tr.Path != abs || len(tr.SHA256) != 64 || tr.Format != "swf" || !tr.Strict || tr.Origin != 500 || tr.Jobs != 2 ||
		tr.Replays != 1 || tr.Warm != 3 || tr.Running != 2 || tr.Period != workload.Seconds(200e9) {
		t.Errorf("trace record %+v", tr)
	}
	var sel struct {
		Filter struct {
			Submit struct {
				Min, Max       float64
				HasMin, HasMax bool
			}
		}
		Scale  struct{ Submit float64 }
		Rebase bool
	}
	if err := json.Unmarshal(tr.Selection, &sel); err != nil || sel.Filter.Submit.Min != 500 || sel.Filter.Submit.Max != 900 ||
		sel.Scale.Submit != 0.5 || !sel.Rebase {
		t.Errorf("selection %s (%v)", tr.Selection, err)
	}
	b, err := os.ReadFile(filepath.Join(out, workload.JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"warm":true`); n != 3 {
		t.Errorf("%d lines say warm, want 3:\n%s", n, b)
	}
}
