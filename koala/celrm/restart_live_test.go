package celrm

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/koala/server/servertest"
	"github.com/gmark/gmark/koala/slurmlrm"
	"github.com/gmark/gmark/workload"
)

// A core that restarts on its state cancels the CE jobs its previous run
// left, on an ARC CE (found by name) and behind a GRAM5 gatekeeper (by
// the contacts of its .submit files): the jobs they ran for fail (they
// are not run twice), as core.Restore has it for every cluster, and jobs
// the restarted core submits, one of them before its first poll, run to
// their end untouched.
func TestLiveRestartCancelsLeftCEJobs(t *testing.T) {
	e := startCEs(t, "runs the bundled core over two CEs, twice")
	dir, ce, gk := e.dir, e.ce, e.gk
	src := fmt.Sprintf("[scheduler]\nscan_interval = \"1s\"\n"+
		"[[cluster]]\nname = \"fs0\"\nlrm = \"arc\"\nce = %q\npartition = \"fork\"\nprocessors = 8\npoll = \"1s\"\nstart_timeout = \"1m\"\n"+
		"[[cluster]]\nname = \"fs1\"\nlrm = \"gram\"\nce = %q\nprocessors = 8\npoll = \"1s\"\nstart_timeout = \"1m\"\n",
		ce.URL, gk.Resource("fork"))
	state := filepath.Join(dir, "koala.db")
	start := func() *servertest.Live {
		return startCELive(t, src, state, Options{Gmark: e.bin, Dir: filepath.Join(dir, "jobs"), Prefix: slurmlrm.Prefix(state),
			Proxy: ce.Proxy, CADir: e.creds.CADir, Log: servertest.Log{T: t}})
	}

	l := start()
	onARC := l.Submit(oneJob("long-arc", "300", "fs0"), core.KRunner)
	onGRAM := l.Submit(oneJob("long-gram", "300", "fs1"), core.KRunner)
	arcID, gramContact := executing(t, l, onARC, 2*time.Minute), executing(t, l, onGRAM, 2*time.Minute)
	l.Close() // the core stops; its CE jobs run on
	if st, err := ce.WaitState(arcID, 5*time.Second, "RUNNING"); err != nil {
		t.Fatalf("ARC job %s after the core stopped: %s, %v", arcID, st, err)
	}
	if st, err := gk.Status(gramContact); err != nil || st != "ACTIVE" {
		t.Fatalf("GRAM job %s after the core stopped: %s, %v", gramContact, st, err)
	}

	l2 := start()
	early := l2.Submit(oneJob("early", "3", "fs0"), core.KRunner) // before the first poll: the sweep must leave it
	for _, id := range []string{onARC, onGRAM} {
		if js := l2.Job(id); js.State != core.Failed || !strings.Contains(js.Reason, "restarted") {
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
	late := l2.Submit(oneJob("late", "1", "fs1"), core.KRunner)
	for _, id := range []string{early, late} {
		if js := l2.Wait(id, 2*time.Minute); js.State != core.Finished {
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

// startCELive starts a core over the grid src's CE clusters, in process.
func startCELive(t *testing.T, src, state string, o Options) *servertest.Live {
	t.Helper()
	g, err := grid.Parse("grid.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	set, err := New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	return servertest.Start(t, server.Config{Grid: g, State: state, Token: "t", Controllers: set.Controllers(),
		Agents: []server.Agent{set}, MaxWait: 50 * time.Millisecond})
}

// executing waits until the job's one component runs, and returns its CE
// job id.
func executing(t *testing.T, l *servertest.Live, id string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		js := l.Job(id)
		if len(js.Components) == 1 && js.Components[0].Executing && js.Components[0].LRMID != "" {
			return js.Components[0].LRMID
		}
		if js.State.Terminal() || time.Now().After(deadline) {
			t.Fatalf("job %s did not start: %s (%s) %+v", id, js.State, js.Reason, js.Components)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
