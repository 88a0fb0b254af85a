package local

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/workload"
)

// fakeGmark stands in for "gmark app NAME": it prints a record line, sleeps
// --runtime seconds, prints a JSON summary and exits with --exit. The real
// applications are tested in apps/ and end to end in cmd/gmark.
const fakeGmark = `#!/bin/sh
shift; name=$1; shift
rt=0; code=0
while [ $# -gt 0 ]; do case $1 in --runtime) rt=$2; shift;; --exit) code=$2; shift;; esac; shift; done
echo $$ >> started.$GMARK_RANK
echo "gmark-hello v1 job=$GMARK_JOB_ID rank=$GMARK_RANK size=$GMARK_SIZE component=$GMARK_COMPONENT"
sleep $rt
echo "{\"v\":1,\"app\":\"$name\",\"ok\":true,\"rank\":$GMARK_RANK}"
exit $code
`

func fakeExe(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gmark")
	if err := os.WriteFile(p, []byte(fakeGmark), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func mkjob(id string, offset time.Duration, runtime string, comps ...int) workload.Job {
	if len(comps) == 0 {
		comps = []int{1}
	}
	j := workload.Job{ID: id, Unit: 1, Kind: workload.Unitary, Type: "swf", Submit: offset, SiteType: workload.Single,
		App: workload.App{Name: "swf", Params: []workload.Param{{Key: "runtime", Value: runtime}}}}
	for _, c := range comps {
		j.Components = append(j.Components, workload.Component{Site: "*", Count: c})
	}
	return j
}

func runLocal(t *testing.T, jobs []workload.Job, cfg Config, settings submitter.Settings) (*store.Store, map[string]store.Job, *record.Summary) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if cfg.Executable == "" {
		cfg.Executable = fakeExe(t)
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	tg.Wait()
	rows, _ := st.Jobs(sum.RunID)
	m := map[string]store.Job{}
	for _, r := range rows {
		m[r.JobID] = r
	}
	return st, m, sum
}

// Jobs run as real processes within the processor budget, first come first
// served, with their output and summary kept.
func TestBudgetFIFO(t *testing.T) {
	var jobs []workload.Job
	for i := 0; i < 6; i++ {
		jobs = append(jobs, mkjob(fmt.Sprintf("1-%d", i), time.Duration(i)*20*time.Millisecond, "0.3"))
	}
	jobs = append(jobs, mkjob("2-0", 0, "0.1", 1, 1)) // two components of one processor
	dir := t.TempDir()
	// One worker: jobs reach the target in workload order.
	_, rows, sum := runLocal(t, jobs, Config{Processors: 2, Dir: dir}, submitter.Settings{Workers: 1})
	if sum.Jobs[store.Succeeded] != 7 {
		t.Fatalf("summary %+v", sum.Jobs)
	}
	type ev struct {
		t int64
		d int
	}
	var evs []ev
	for _, r := range rows {
		if r.StartNS == 0 || r.EndNS < r.StartNS || *r.ExitStatus != 0 || !strings.Contains(r.Summary, `"ok":true`) {
			t.Fatalf("row %+v", r)
		}
		evs = append(evs, ev{r.StartNS, r.Processors}, ev{r.EndNS, -r.Processors})
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].t < evs[j].t || evs[i].t == evs[j].t && evs[i].d < evs[j].d })
	busy := 0
	for _, e := range evs {
		busy += e.d
		if busy > 2 {
			t.Fatalf("more than the budget of 2 processors in use")
		}
	}
	// FIFO: jobs start in submission order.
	for i := 1; i < 6; i++ {
		if rows[fmt.Sprintf("1-%d", i)].StartNS < rows[fmt.Sprintf("1-%d", i-1)].StartNS {
			t.Fatalf("1-%d started before 1-%d", i, i-1)
		}
	}
	// A job of two processors runs two processes, told their rank.
	for c := 0; c < 2; c++ {
		b, err := os.ReadFile(filepath.Join(dir, "2-0", "a1", fmt.Sprintf("r%d.out", c)))
		if err != nil || !strings.Contains(string(b), fmt.Sprintf("job=2-0 rank=%d size=2 component=%d", c, c)) {
			t.Fatalf("rank %d output %q %v", c, b, err)
		}
	}
}

func TestFailuresAndWallTime(t *testing.T) {
	bad := mkjob("1-0", 0, "0")
	bad.App.Params = append(bad.App.Params, workload.Param{Key: "exit", Value: "3"})
	slow := mkjob("1-1", 0, "30")
	slow.WallTime = 300 * time.Millisecond
	big := mkjob("1-2", 0, "0", 64)
	_, rows, _ := runLocal(t, []workload.Job{bad, slow, big}, Config{Processors: 4, KillGrace: 100 * time.Millisecond}, submitter.Settings{})
	if r := rows["1-0"]; r.State != store.Failed || *r.ExitStatus != 3 || !strings.Contains(r.Reason, "exit status 3") {
		t.Fatalf("1-0 %+v", r)
	}
	r := rows["1-1"]
	if r.State != store.Failed || !strings.Contains(r.Reason, "wall time") || time.Duration(r.EndNS-r.StartNS) > 10*time.Second {
		t.Fatalf("1-1 %+v", r)
	}
	if r := rows["1-2"]; r.State != store.Failed || !strings.Contains(r.Reason, "budget is 4") || r.StartNS != 0 {
		t.Fatalf("1-2 %+v", r)
	}
}

// At the end of the tail, running jobs are killed (their whole process
// group) and queued ones never start.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	jobs := []workload.Job{mkjob("1-0", 0, "30"), mkjob("1-1", 0, "30")}
	_, rows, _ := runLocal(t, jobs, Config{Processors: 1, Dir: dir, KillGrace: 100 * time.Millisecond},
		submitter.Settings{Tail: 300 * time.Millisecond, HasTail: true})
	ran, waited := rows["1-0"], rows["1-1"]
	if ran.StartNS == 0 {
		ran, waited = waited, ran
	}
	if ran.State != store.Cancelled || ran.StartNS == 0 || ran.EndNS == 0 {
		t.Fatalf("running job %+v", ran)
	}
	if waited.State != store.Cancelled || waited.StartNS != 0 || !strings.Contains(waited.Reason, "queued") {
		t.Fatalf("queued job %+v", waited)
	}
	jobDir := filepath.Join(dir, ran.JobID, "a1")
	var rec startRecord
	b, _ := os.ReadFile(filepath.Join(jobDir, "start"))
	json.Unmarshal(b, &rec)
	if len(rec.Pids) != 1 || alive(rec.Pids[0], jobDir) {
		t.Fatalf("process %v still alive", rec.Pids)
	}
}

type collect struct {
	mu sync.Mutex
	u  []submitter.Update
}

func (c *collect) Report(u submitter.Update)        { c.mu.Lock(); c.u = append(c.u, u); c.mu.Unlock() }
func (c *collect) Annotate(kind, key, value string) {}
func (c *collect) final(key string) *submitter.Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.u {
		if c.u[i].Key == key && c.u[i].State.Final() {
			return &c.u[i]
		}
	}
	return nil
}

// A new target (the submitter restarted) finds jobs started by the old
// one: a running job is adopted and its end read from its exit record; a
// job that never started is not found, and Track queues it.
func TestAdoptAfterRestart(t *testing.T) {
	dir := t.TempDir()
	exe := fakeExe(t)
	old, err := New(Config{Processors: 1, Dir: dir, Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	old.Watch(context.Background(), &collect{})
	running := mkjob("1-0", 0, "0.5")
	queued := mkjob("1-1", 0, "0")
	subRun := &submitter.Submission{Key: "r/1-0/1", RunID: "r", Job: &running, Attempt: 1}
	subQ := &submitter.Submission{Key: "r/1-1/1", RunID: "r", Job: &queued, Attempt: 1}
	if _, err := old.Submit(context.Background(), subRun); err != nil {
		t.Fatal(err)
	}
	// The old target "crashes": it is closed and forgotten, its process
	// keeps running. 1-1 was recorded but never reached the target.
	old.Close()

	c := &collect{}
	nt, err := New(Config{Processors: 1, Dir: dir, Executable: exe, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer nt.Close()
	nt.Watch(context.Background(), c)
	if _, found, err := nt.Find(context.Background(), subRun); !found || err != nil {
		t.Fatalf("running job not found: %v", err)
	}
	if _, found, _ := nt.Find(context.Background(), subQ); found {
		t.Fatal("a job that never started was found")
	}
	if err := nt.Track(context.Background(), subQ, submitter.Receipt{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for c.final(subRun.Key) == nil || c.final(subQ.Key) == nil {
		if time.Now().After(deadline) {
			t.Fatal("jobs did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	u := c.final(subRun.Key)
	if u.State != submitter.Succeeded || u.Start.IsZero() || u.End.Before(u.Start) || !strings.Contains(u.Summary, `"ok":true`) {
		t.Fatalf("adopted job: %+v", u)
	}
	if u := c.final(subQ.Key); u.State != submitter.Succeeded {
		t.Fatalf("requeued job: %+v", u)
	}
	// Each job started exactly once.
	for _, id := range []string{"1-0", "1-1"} {
		b, _ := os.ReadFile(filepath.Join(dir, id, "a1", "started.0"))
		if n := strings.Count(string(b), "\n"); n != 1 {
			t.Fatalf("%s started %d times", id, n)
		}
	}
	old.Wait()
	nt.Wait()
}

// A crash of the submitter in the middle of a launch: the launch log has
// one line per launch that really started processes, whichever process
// wrote it, and --resume relaunches only a job whose processes never
// started. Each case is the job directory as a crash at that point leaves
// it.
func TestCrashDuringLaunch(t *testing.T) {
	cases := []struct {
		name      string
		running   bool // the job's processes were started
		logged    bool // the launch log has the line
		wantFound bool
		start     string // the start record, as a crash or a full disk left it
	}{
		{"before the processes started", false, false, false, ""},
		{"after the processes started, before the log", true, false, true, ""},
		{"after the log, before the start record", true, true, true, ""},
		// Read as it was, it made the job start in 1969, with pid 0 (so
		// adopted as ended at once, its output not yet written).
		{"a damaged start record", true, true, true, `{"start_ns":-5,"pids":[0]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			j := mkjob("1-0", 0, "0")
			s := &submitter.Submission{Key: "r/1-0/1", RunID: "r", Job: &j, Attempt: 1}
			jobDir := filepath.Join(dir, "1-0", "a1")
			if err := os.MkdirAll(jobDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(jobDir, "launching"), []byte(time.Now().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var proc *exec.Cmd
			if tc.running {
				// The job's process, as the crashed submitter started it:
				// working in the job's directory, writing r0.out.
				out, err := os.Create(filepath.Join(jobDir, "r0.out"))
				if err != nil {
					t.Fatal(err)
				}
				proc = exec.Command("sh", "-c", `sleep 0.3; echo '{"v":1,"app":"swf","ok":true}'`)
				proc.Dir, proc.Stdout = jobDir, out
				if err := proc.Start(); err != nil {
					t.Fatal(err)
				}
				out.Close()
				defer func() { _ = proc.Process.Kill(); _ = proc.Wait() }()
				if tc.logged {
					_ = appendLine(filepath.Join(dir, LaunchLog), s.Key+" "+time.Now().Format(time.RFC3339Nano))
				}
				if tc.start != "" {
					if err := os.WriteFile(filepath.Join(jobDir, "start"), []byte(tc.start), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			c := &collect{}
			tg, err := New(Config{Processors: 1, Dir: dir, Executable: fakeExe(t), Poll: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			tg.Watch(context.Background(), c)
			_, found, err := tg.Find(context.Background(), s)
			if err != nil || found != tc.wantFound {
				t.Fatalf("Find: found %v (%v), want %v", found, err, tc.wantFound)
			}
			if !found {
				if _, err := tg.Submit(context.Background(), s); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(20 * time.Second)
			for c.final(s.Key) == nil {
				if time.Now().After(deadline) {
					t.Fatal("the job did not finish")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if u := c.final(s.Key); u.State != submitter.Succeeded || u.Start.Year() < 2000 {
				t.Fatalf("job: %+v", u)
			}
			b, _ := os.ReadFile(filepath.Join(dir, LaunchLog))
			if n := strings.Count(string(b), s.Key+" "); n != 1 {
				t.Fatalf("the launch log has %d lines for %s:\n%s", n, s.Key, b)
			}
			if _, err := os.Stat(filepath.Join(jobDir, "start")); err != nil {
				t.Fatalf("no start record: %v", err)
			}
			tg.Wait()
		})
	}
}
