package generator

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// smallSWF: ten jobs over three partitions, three users, 15 minutes apart
// from t = 1000 s; job k runs 100·k seconds on k%3+1 processors.
func smallSWF(t *testing.T, dir string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("; Version: 2.2\n; UnixStartTime: 1200000000\n; MaxProcs: 64\n; Partition: 1 alpha\n; Partition: 2 beta\n; Partition: 3 gamma\n")
	parts := []int{2, 1, 2, 3, 1, 2, 3, 3, 1, 2}
	for k := 1; k <= 10; k++ {
		status := 1
		if k == 4 {
			status = 0
		}
		fmt.Fprintf(&b, "%d %d 5 %d %d -1 -1 %d %d -1 %d %d %d -1 -1 %d -1 -1\n",
			k, 1000+900*(k-1), 100*k, k%3+1, k%3+1, 200*k, status, k%3+1, 7, parts[k-1])
	}
	if err := os.WriteFile(filepath.Join(dir, "small.swf"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// traceSpec writes a one-unit spec beside the trace and parses it.
func traceSpec(t *testing.T, dir, ntimes, other string) *wdl.Spec {
	t.Helper()
	path := filepath.Join(dir, "replay.wdl")
	src := ntimes + "\twl:trace\tsingle\t1\t*:?\t-\t" + other + "\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := wdl.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func jobSummary(j *workload.Job) string {
	return fmt.Sprintf("%s@%s %s/%s run=%s wall=%s %s:%d", j.ID, j.Submit, j.User, j.Group, j.RunTime, j.WallTime, j.Components[0].Site, j.Components[0].Count)
}

func TestTraceReplay(t *testing.T) {
	dir := t.TempDir()
	smallSWF(t, dir)
	cases := []struct {
		name, ntimes, other string
		want                []string
	}{
		{"everything, sites spread over two clusters in order of appearance", "1", "File=small.swf,Sites=fs0;fs1",
			[]string{"1-0@0s 2/7 run=1m40s wall=3m20s fs0:2", "1-1@15m0s 3/7 run=3m20s wall=6m40s fs1:3",
				"1-2@30m0s 1/7 run=5m0s wall=10m0s fs0:1", "1-3@45m0s 2/7 run=6m40s wall=13m20s fs0:2"}},
		{"window, scaled by 0.5 and 2, explicit site map", "1", "File=small.swf,From=2800s,To=4600,SubmitScale=0.5,RunTimeScale=2,SiteMap=beta:fsB;1:fsA;gamma:fsC",
			[]string{"1-0@0s 1/7 run=10m0s wall=20m0s fsB:1", "1-1@7m30s 2/7 run=13m20s wall=26m40s fsC:2"}},
		{"site, status, size filters and first N", "1", "File=small.swf,TraceSites=beta;gamma,Status=completed,MinProcs=2,FirstN=2",
			[]string{"1-0@0s 2/7 run=1m40s wall=3m20s *:2", "1-1@1h30m0s 2/7 run=11m40s wall=23m20s *:2"}},
		{"users and run time", "1", "File=small.swf,Users=1,MaxRunTime=10m,ProcScale=4",
			[]string{"1-0@0s 1/7 run=5m0s wall=10m0s *:4", "1-1@45m0s 1/7 run=10m0s wall=20m0s *:4"}},
		{"the busiest hour: area p100 of arrivals over 1h windows", "1", "File=small.swf,AreaWidth=1h,AreaTarget=arrivals:p100",
			[]string{"1-0@0s 2/7 run=1m40s wall=3m20s *:2", "1-1@15m0s 3/7 run=3m20s wall=6m40s *:3",
				"1-2@30m0s 1/7 run=5m0s wall=10m0s *:1", "1-3@45m0s 2/7 run=6m40s wall=13m20s *:2"}},
		{"two replays back to back, one window apart", "2", "File=small.swf,From=1000s,To=2800s,StartAt=1m",
			[]string{"1-0@1m0s 2/7 run=1m40s wall=3m20s *:2", "1-1@16m0s 3/7 run=3m20s wall=6m40s *:3",
				"1-2@31m0s 2/7 run=1m40s wall=3m20s *:2", "1-3@46m0s 3/7 run=3m20s wall=6m40s *:3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jobs := generate(t, traceSpec(t, dir, c.ntimes, c.other), 1)
			var got []string
			for i := range jobs {
				got = append(got, jobSummary(&jobs[i]))
			}
			if len(got) > len(c.want) {
				got = got[:len(c.want)]
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("jobs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// Replayed jobs run the swf application with the parameters any swf unit
// gives, in the same order.
func TestTraceReplayJobsAreSWFJobs(t *testing.T) {
	dir := t.TempDir()
	smallSWF(t, dir)
	jobs := generate(t, traceSpec(t, dir, "1", "File=small.swf,Mode=cpu"), 3)
	if len(jobs) != 10 {
		t.Fatalf("%d jobs, want 10", len(jobs))
	}
	app, _ := LookupApp("swf")
	for _, j := range jobs {
		if j.Kind != workload.Unitary || j.Type != "swf" || j.App.Name != "swf" || j.SiteType != workload.Single || len(j.App.Params) != len(app.Params) {
			t.Fatalf("job %+v", j)
		}
		for i, p := range app.Params {
			if j.App.Params[i].Key != p.Flag {
				t.Errorf("param %d is %s, want %s", i, j.App.Params[i].Key, p.Flag)
			}
		}
		rt, _ := j.App.Param("runtime")
		procs, _ := j.App.Param("procs")
		mode, _ := j.App.Param("mode")
		if rt != string(workload.AppendSeconds(nil, j.RunTime)) || procs != fmt.Sprint(j.Processors()) || mode != "cpu" {
			t.Errorf("%s: params %v", j.ID, j.App.Params)
		}
	}
	// Deterministic, and the same again.
	again := generate(t, traceSpec(t, dir, "1", "File=small.swf,Mode=cpu"), 3)
	for i := range jobs {
		if jobSummary(&jobs[i]) != jobSummary(&again[i]) {
			t.Fatalf("not deterministic: %s vs %s", jobSummary(&jobs[i]), jobSummary(&again[i]))
		}
	}
	if jobs[9].Submit != 8100*time.Second {
		t.Errorf("last submit %v, want 2h15m from the first job", jobs[9].Submit)
	}
}

func TestTraceReplayErrors(t *testing.T) {
	dir := t.TempDir()
	smallSWF(t, dir)
	bad := "; x\n1 0 -1 83 1 -1 -1 -1 1200 -1 -1 1 1 -1 -1 1 -1 -1\n2 5 -1 8x3 1 -1 -1 -1 1200 -1 -1 1 1 -1 -1 1 -1 -1\n"
	os.WriteFile(filepath.Join(dir, "bad.swf"), []byte(bad), 0o644)
	cases := []struct{ other, want string }{
		{"Sites=fs0", "replay.wdl:1:27: wl:trace needs File=PATH"},
		{"File=missing.swf", "replay.wdl:1:32: File: no trace at " + filepath.Join(dir, "missing.swf") + " (a relative path is relative to " + filepath.Join(dir, "replay.wdl") + ", the file that names it)"},
		{"File=/no/such/trace.swf", "replay.wdl:1:32: File: open /no/such/trace.swf: no such file"},
		{"File=bad.swf", `replay.wdl:1:32: File: ` + filepath.Join(dir, "bad.swf") + `:3: field 4: "8x3" is not a number`},
		{"File=small.swf,AreaTarget=arrivals:p90", "replay.wdl:1:42: AreaTarget needs AreaWidth"},
		{"File=small.swf,AreaWidth=1h,AreaTarget=load:p90", "replay.wdl:1:66: AreaTarget: unknown characteristic"},
		{"File=small.swf,From=2h,To=1h", "replay.wdl:1:53: To (3600s) must be after From (7200s)"},
		{"File=small.swf,SubmitScale=0", "replay.wdl:1:54: SubmitScale must be > 0"},
		{"File=small.swf,SiteMap=alpha", `replay.wdl:1:50: SiteMap: "alpha" must be TRACESITE:CLUSTER`},
		{"File=small.swf,Status=running", `replay.wdl:1:49: Status: unknown status "running"`},
		{"File=small.swf,Format=csv", `replay.wdl:1:49: Format: "csv" is not swf, gwf, wf, sqlite, wfformat or wta`},
		{"File=small.swf,MinProcs=4,MaxProcs=2", "replay.wdl:1:62: MaxProcs (2) is below MinProcs (4)"},
		{"File=small.swf,WarmStart=maybe", "replay.wdl:1:52: WarmStart"},
	}
	for _, c := range cases {
		t.Run(c.other, func(t *testing.T) {
			_, err := New(traceSpec(t, dir, "1", c.other), 1)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %s", err, c.want)
			}
		})
	}
	// Strict=false skips the malformed line.
	jobs := generate(t, traceSpec(t, dir, "1", "File=bad.swf,Strict=false"), 1)
	if len(jobs) != 1 {
		t.Errorf("%d jobs from bad.swf with Strict=false, want 1", len(jobs))
	}
}

// The real LCG trace: the busiest-tenth 3-hour window (p90 of arrivals),
// compressed ten times, spread over five clusters.
func TestTraceReplayLCG(t *testing.T) {
	lcg := testkit.LCG(t)
	dir := t.TempDir()
	jobs := generate(t, traceSpec(t, dir, "1", "File="+lcg+",AreaWidth=3h,AreaTarget=arrivals:p90,SubmitScale=0.1,Sites=fs0;fs1;fs2;fs3;fs4"), 1)
	if len(jobs) < 100 {
		t.Fatalf("%d jobs in the p90 window", len(jobs))
	}
	perCluster := map[string]int{}
	for _, j := range jobs {
		if j.Submit < 0 || j.Submit >= 18*time.Minute {
			t.Fatalf("%s submitted at %v, outside the 3h window compressed to 18m", j.ID, j.Submit)
		}
		perCluster[j.Components[0].Site]++
	}
	if len(perCluster) != 5 {
		t.Errorf("jobs per cluster %v", perCluster)
	}
	t.Logf("LCG p90 3h window: %d jobs, per cluster %v", len(jobs), perCluster)
}

// A trace's job that ran 0 s is replayed as a job of a known run time of 0
// ("runtime":0 in workload.jsonl), a job whose run time is missing (-1) as
// one of an unknown run time (no "runtime"); before, both were unknown.
func TestTraceReplayZeroRunTime(t *testing.T) {
	dir := t.TempDir()
	swf := "; Version: 2.2\n" +
		"1 0 0 0 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n" +
		"2 10 0 -1 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n" +
		"3 20 0 30 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"
	if err := os.WriteFile(filepath.Join(dir, "z.swf"), []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := generate(t, traceSpec(t, dir, "1", "File=z.swf"), 1)
	want := []struct {
		rt    time.Duration
		known bool
		json  string
	}{{0, true, `"runtime":0,`}, {0, false, ""}, {30 * time.Second, true, `"runtime":30,`}}
	if len(jobs) != len(want) {
		t.Fatalf("%d jobs", len(jobs))
	}
	for i, w := range want {
		rt, known := jobs[i].KnownRunTime()
		line := string(jobs[i].AppendJSON(nil))
		var top map[string]any
		if err := json.Unmarshal([]byte(line), &top); err != nil {
			t.Fatal(err)
		}
		_, has := top["runtime"]
		if rt != w.rt || known != w.known || has != (w.json != "") || w.json != "" && !strings.Contains(line, w.json) {
			t.Errorf("job %d: run time %v known %v, %s; want %v known %v", i, rt, known, line, w.rt, w.known)
		}
		back, err := workload.ParseJob([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if brt, bknown := back.KnownRunTime(); brt != rt || bknown != known {
			t.Errorf("job %d read back: %v known %v", i, brt, bknown)
		}
	}
}
