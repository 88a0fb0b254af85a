package slurmlrm

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/persist"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// live is a core on real Slurm clusters, driven by the server's loop.
type live struct {
	t     *testing.T
	env   *slurmtest.Env
	grid  *grid.Grid
	set   *Set
	srv   *server.Server
	state string
	dir   string
	stop  context.CancelFunc
	done  chan error
}

// gridTOML writes a grid of the test clusters (each lrm = "slurm", polled
// every 200ms) after the scheduler settings and before extra tables.
func gridTOML(e *slurmtest.Env, scheduler, extra string) string {
	var b strings.Builder
	b.WriteString("[scheduler]\n" + scheduler + "\n")
	for _, c := range e.Clusters {
		fmt.Fprintf(&b, "[[cluster]]\nname = %q\nlrm = \"slurm\"\nslurm_conf = %q\npoll = \"200ms\"\nstart_timeout = \"20s\"\n", c.Name, c.Conf)
	}
	return b.String() + extra
}

// startLive starts a core on the grid; gmark is the program the
// components run (the test binary, or a wrapper of it).
func startLive(t *testing.T, e *slurmtest.Env, src, gmark string) *live {
	t.Helper()
	dir := t.TempDir()
	g, err := grid.Parse("grid.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	l := &live{t: t, env: e, grid: g, state: filepath.Join(dir, "koala.db"), dir: filepath.Join(dir, "jobs"), done: make(chan error, 1)}
	l.set, err = New(g, Options{Gmark: gmark, Dir: l.dir, Prefix: Prefix(l.state), Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.set.ResolveProcessors(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	l.srv, err = server.New(server.Config{Grid: g, State: l.state, Token: "t", Controllers: l.set.Controllers(),
		Agents: []server.Agent{l.set}, MaxWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	l.stop = stop
	go func() { l.done <- l.srv.Run(ctx) }()
	t.Cleanup(l.close)
	return l
}

type testLog struct{ t *testing.T }

func (w testLog) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func (l *live) close() {
	if l.stop == nil {
		return
	}
	l.stop()
	if err := <-l.done; err != nil {
		l.t.Error(err)
	}
	l.stop = nil
}

// do runs fn on the core's goroutine.
func (l *live) do(fn func(c *core.Core) (any, error)) any {
	l.t.Helper()
	v, err := l.srv.Do(context.Background(), func() (any, error) { return fn(l.srv.Core()) })
	if err != nil {
		l.t.Fatal(err)
	}
	return v
}

func (l *live) submit(j workload.Job, runner core.Runner) string {
	l.t.Helper()
	return l.do(func(c *core.Core) (any, error) {
		job, err := c.Submit(j, core.Options{Runner: runner, Key: j.ID})
		if err != nil {
			return nil, err
		}
		return job.ID, nil
	}).(string)
}

// jobState is a copy of what the core knows of a job.
type jobState struct {
	State      core.State
	Reason     string
	JST        time.Time
	Components []core.Component
}

func (l *live) job(id string) jobState {
	return l.do(func(c *core.Core) (any, error) {
		j, _ := c.Job(id)
		return jobState{State: j.State, Reason: j.Reason, JST: j.JST, Components: append([]core.Component(nil), j.Components...)}, nil
	}).(jobState)
}

// wait waits for the job to end (at most limit) and returns its state.
func (l *live) wait(id string, limit time.Duration) jobState {
	l.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		js := l.job(id)
		if js.State.Terminal() {
			return js
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("job %s still %s after %v: %+v", id, js.State, limit, js)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// events stops the core and reads every event it recorded.
func (l *live) events() []core.Event {
	l.t.Helper()
	l.close()
	st, err := persist.Open(l.state)
	if err != nil {
		l.t.Fatal(err)
	}
	defer st.Close()
	stored, err := st.Events(0, 1_000_000)
	if err != nil {
		l.t.Fatal(err)
	}
	var out []core.Event
	for _, s := range stored {
		var ev core.Event
		if err := json.Unmarshal(s.Data, &ev); err != nil {
			l.t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// slurmJob is what squeue says of one job of a cluster, by name.
func slurmJob(t *testing.T, c *slurmtest.Cluster, name string) slurmcli.Record {
	t.Helper()
	b, err := c.Cmd("squeue", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := slurmcli.ParseSqueue(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("%s: no job %s in squeue", c.Name, name)
	return slurmcli.Record{}
}

func swfJob(id string, runtime string, sizes map[string]int, order ...string) workload.Job {
	j := workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Single,
		App: workload.App{Name: "swf", Params: []workload.Param{{Key: "runtime", Value: runtime}}}}
	for _, site := range order {
		j.Components = append(j.Components, workload.Component{Site: site, Count: sizes[site]})
	}
	if len(order) > 1 {
		j.SiteType = workload.Ordered
	}
	return j
}

// A job of two components on two Slurm clusters runs there: each
// component is a Slurm job of the core's name, claimed when Slurm starts
// it, and the events carry the Slurm job ids.
func TestLiveTwoClusters(t *testing.T) {
	e := slurmtest.Start(t, slurmtest.Options{CPUs: 4}, "sa", "sb")
	l := startLive(t, e, gridTOML(e, "scan_interval = \"1s\"", ""), gmarkBin.Path(t))
	id := l.submit(swfJob("j1", "0.5", map[string]int{"sa": 2, "sb": 1}, "sa", "sb"), core.KRunner)
	js := l.wait(id, 60*time.Second)
	if js.State != core.Finished {
		t.Fatalf("job %s: %s (%s)", id, js.State, js.Reason)
	}
	ids := map[string]bool{}
	for _, ev := range l.events() {
		if ev.Kind == core.EvComponentStart || ev.Kind == core.EvComponentEnd {
			if ev.LRMID == "" {
				t.Errorf("%s of component %d has no Slurm job id", ev.Kind, ev.Component)
			}
			ids[ev.Cluster+":"+ev.LRMID] = true
		}
	}
	if len(ids) != 2 {
		t.Errorf("Slurm jobs %v, want one per component", ids)
	}
}
