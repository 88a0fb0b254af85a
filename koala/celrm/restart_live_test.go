package celrm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/koala/slurmlrm"
	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/submitter/gram/gramtest"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/workload"
)

// A core that restarts on its state cancels the CE jobs its previous run
// left, on an ARC CE (found by name) and behind a GRAM5 gatekeeper (by
// the contacts of its .submit files): the jobs they ran for fail (they
// are not run twice), as core.Restore has it for every cluster, and jobs
// the restarted core submits, one of them before its first poll, run to
// their end untouched.
func TestLiveRestartCancelsLeftCEJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bundled core over two CEs, twice; skipped with -short")
	}
	if why := arctest.Available(); why != "" {
		t.Skip("ARC CE not available: " + why)
	}
	if why := gramtest.Available(false); why != "" {
		t.Skip("GRAM5 not available: " + why)
	}
	dir, err := os.MkdirTemp("", "gmark-celrm-restart-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // the CEs' mapped accounts come in
		t.Fatal(err)
	}
	creds, err := gridtest.New(filepath.Join(dir, "creds"))
	if err != nil {
		t.Fatal(err)
	}
	ce := arctest.Start(t, arctest.Options{Name: "fs0", Creds: creds, InfoPeriod: 5 * time.Second, WakeupPeriod: 2 * time.Second})
	gk := gramtest.Start(t, gramtest.Options{Name: "fs1", Creds: creds})
	b, err := os.ReadFile(gmarkBin.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gmark")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf("[scheduler]\nscan_interval = \"1s\"\n"+
		"[[cluster]]\nname = \"fs0\"\nlrm = \"arc\"\nce = %q\npartition = \"fork\"\nprocessors = 8\npoll = \"1s\"\nstart_timeout = \"1m\"\n"+
		"[[cluster]]\nname = \"fs1\"\nlrm = \"gram\"\nce = %q\nprocessors = 8\npoll = \"1s\"\nstart_timeout = \"1m\"\n",
		ce.URL, gk.Resource("fork"))
	state := filepath.Join(dir, "koala.db")
	start := func() *ceLive {
		return startCELive(t, src, state, Options{Gmark: bin, Dir: filepath.Join(dir, "jobs"), Prefix: slurmlrm.Prefix(state),
			Proxy: ce.Proxy, CADir: creds.CADir, Log: testLog{t}})
	}

	l := start()
	onARC := l.submit(oneJob("long-arc", "300", "fs0"))
	onGRAM := l.submit(oneJob("long-gram", "300", "fs1"))
	arcID, gramContact := l.executing(onARC, 2*time.Minute), l.executing(onGRAM, 2*time.Minute)
	l.close() // the core stops; its CE jobs run on
	if st, err := ce.WaitState(arcID, 5*time.Second, "RUNNING"); err != nil {
		t.Fatalf("ARC job %s after the core stopped: %s, %v", arcID, st, err)
	}
	if st, err := gk.Status(gramContact); err != nil || st != "ACTIVE" {
		t.Fatalf("GRAM job %s after the core stopped: %s, %v", gramContact, st, err)
	}

	l2 := start()
	early := l2.submit(oneJob("early", "3", "fs0")) // before the first poll: the sweep must leave it
	for _, id := range []string{onARC, onGRAM} {
		if js := l2.job(id); js.State != core.Failed || !strings.Contains(js.Reason, "restarted") {
			t.Errorf("job %s after the restart: %s (%s), want failed", id, js.State, js.Reason)
		}
	}
	if st, err := ce.WaitState(arcID, 90*time.Second, "KILLED", "FAILED", "FINISHED"); err != nil || st == "FINISHED" {
		t.Errorf("the restarted core left ARC job %s: %s, %v", arcID, st, err)
	}
	if st, err := gk.WaitStatus(gramContact, 90*time.Second, "FAILED", "DONE"); err != nil {
		t.Errorf("the restarted core left GRAM job %s: %s, %v", gramContact, st, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "jobs", "*", "*.submit.swept")); len(files) != 1 {
		t.Errorf("swept .submit files %v, want the one of the GRAM job", files)
	}
	late := l2.submit(oneJob("late", "1", "fs1"))
	for _, id := range []string{early, late} {
		if js := l2.wait(id, 2*time.Minute); js.State != core.Finished {
			t.Errorf("job %s, submitted after the restart: %s (%s)", id, js.State, js.Reason)
		}
	}
}

// oneJob is a job of one processor at a named site, running the swf
// application for runtime seconds.
func oneJob(id, runtime, site string) workload.Job {
	return workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Single,
		App:        workload.App{Name: "swf", Params: []workload.Param{{Key: "runtime", Value: runtime}}},
		Components: []workload.Component{{Site: site, Count: 1}}}
}

// ceLive is a core serving over a grid's CE clusters, in process.
type ceLive struct {
	t    *testing.T
	srv  *server.Server
	stop context.CancelFunc
	done chan error
}

func startCELive(t *testing.T, src, state string, o Options) *ceLive {
	t.Helper()
	g, err := grid.Parse("grid.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	set, err := New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	l := &ceLive{t: t, done: make(chan error, 1)}
	l.srv, err = server.New(server.Config{Grid: g, State: state, Token: "t", Controllers: set.Controllers(),
		Agents: []server.Agent{set}, MaxWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	l.stop = stop
	go func() { l.done <- l.srv.Run(ctx) }()
	t.Cleanup(l.close)
	return l
}

func (l *ceLive) close() {
	if l.stop == nil {
		return
	}
	l.stop()
	if err := <-l.done; err != nil {
		l.t.Error(err)
	}
	l.stop = nil
}

func (l *ceLive) do(fn func(c *core.Core) (any, error)) any {
	l.t.Helper()
	v, err := l.srv.Do(context.Background(), func() (any, error) { return fn(l.srv.Core()) })
	if err != nil {
		l.t.Fatal(err)
	}
	return v
}

func (l *ceLive) submit(j workload.Job) string {
	l.t.Helper()
	return l.do(func(c *core.Core) (any, error) {
		job, err := c.Submit(j, core.Options{Runner: core.KRunner, Key: j.ID})
		if err != nil {
			return nil, err
		}
		return job.ID, nil
	}).(string)
}

type ceJobState struct {
	State  core.State
	Reason string
	Comps  []core.Component
}

func (l *ceLive) job(id string) ceJobState {
	l.t.Helper()
	return l.do(func(c *core.Core) (any, error) {
		j, _ := c.Job(id)
		return ceJobState{State: j.State, Reason: j.Reason, Comps: append([]core.Component(nil), j.Components...)}, nil
	}).(ceJobState)
}

// executing waits until the job's one component runs, and returns its CE
// job id.
func (l *ceLive) executing(id string, limit time.Duration) string {
	l.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		js := l.job(id)
		if len(js.Comps) == 1 && js.Comps[0].Executing && js.Comps[0].LRMID != "" {
			return js.Comps[0].LRMID
		}
		if js.State.Terminal() || time.Now().After(deadline) {
			l.t.Fatalf("job %s did not start: %s (%s) %+v", id, js.State, js.Reason, js.Comps)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (l *ceLive) wait(id string, limit time.Duration) ceJobState {
	l.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		js := l.job(id)
		if js.State.Terminal() {
			return js
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("job %s still %s after %v", id, js.State, limit)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type testLog struct{ t *testing.T }

func (w testLog) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
