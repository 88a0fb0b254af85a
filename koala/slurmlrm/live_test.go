package slurmlrm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/apps/output"
	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/persist"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/koala/server/servertest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// live is a core on real Slurm clusters, driven by the server's loop.
type live struct {
	*servertest.Live
	t     *testing.T
	env   *slurmtest.Env
	grid  *grid.Grid
	set   *Set
	state string
	dir   string
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
	return startLiveIn(t, e, src, gmark, t.TempDir())
}

// startLiveIn starts a core whose state and jobs are in dir (a second core
// on the same dir restarts the first).
func startLiveIn(t *testing.T, e *slurmtest.Env, src, gmark, dir string) *live {
	t.Helper()
	g, err := grid.Parse("grid.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	l := &live{t: t, env: e, grid: g, state: filepath.Join(dir, "koala.db"), dir: filepath.Join(dir, "jobs")}
	l.set, err = New(g, Options{Gmark: gmark, Dir: l.dir, Prefix: Prefix(l.state), Log: servertest.Log{T: t}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.set.ResolveProcessors(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	l.Live = servertest.Start(t, server.Config{Grid: g, State: l.state, Token: "t", Controllers: l.set.Controllers(),
		Agents: []server.Agent{l.set}, MaxWait: 50 * time.Millisecond})
	return l
}

// events stops the core and reads every event it recorded.
func (l *live) events() []core.Event {
	l.t.Helper()
	l.Close()
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
	for _, r := range squeueJobs(t, c) {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("%s: no job %s in squeue", c.Name, name)
	return slurmcli.Record{}
}

// squeueJobs is every job the cluster's controller keeps, as squeue --json
// lists them.
func squeueJobs(t *testing.T, c *slurmtest.Cluster) []slurmcli.Record {
	t.Helper()
	b, err := c.Cmd("squeue", "--json").Output()
	if err != nil {
		t.Fatalf("%s: squeue: %v", c.Name, err)
	}
	recs, err := slurmcli.ParseSqueue(b)
	if err != nil {
		t.Fatalf("%s: squeue: %v", c.Name, err)
	}
	return recs
}

// latestJob is the cluster's job of the highest id: the last submitted.
func latestJob(t *testing.T, c *slurmtest.Cluster) slurmcli.Record {
	t.Helper()
	recs := squeueJobs(t, c)
	if len(recs) == 0 {
		t.Fatalf("%s: squeue lists no job", c.Name)
	}
	last := recs[0]
	for _, r := range recs {
		if r.ID > last.ID {
			last = r
		}
	}
	return last
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
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{CPUs: 4}, "sa", "sb")
	l := startLive(t, e, gridTOML(e, "scan_interval = \"1s\"", ""), gmarkBin.Path(t))
	id := l.Submit(swfJob("j1", "0.5", map[string]int{"sa": 2, "sb": 1}, "sa", "sb"), core.KRunner)
	js := l.Wait(id, 60*time.Second)
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

// wrapper is a gmark that first notes when each process starts, by the
// wall clock: "component local-rank unix-seconds" lines in log.
func wrapper(t *testing.T, log string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gmark-wrapper")
	script := fmt.Sprintf("#!/bin/sh\necho \"$GMARK_COMPONENT ${SLURM_PROCID:-0} $(date +%%s.%%N)\" >> %s\nexec %s \"$@\"\n", log, gmarkBin.Path(t))
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// procStart is when one process of a component started.
type procStart struct {
	component, rank int
	at              float64 // Unix seconds
}

func readStarts(t *testing.T, log string) []procStart {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out []procStart
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var p procStart
		if _, err := fmt.Sscanf(line, "%d %d %f", &p.component, &p.rank, &p.at); err != nil {
			t.Fatalf("start log line %q: %v", line, err)
		}
		out = append(out, p)
	}
	return out
}

// firstExchange is when each process of the job finished its first
// superstep's all-to-all exchange, by global rank: its start plus the t
// (seconds since it started) of its step-1 record.
func firstExchange(t *testing.T, dir string, starts map[int]float64) map[int]float64 {
	t.Helper()
	outs, _ := filepath.Glob(filepath.Join(dir, "c*.out"))
	ends := map[int]float64{}
	for _, f := range outs {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			rec, ok, _ := output.ParseRecord(line)
			if !ok || rec.Kind != "step" || rec.Fields["step"] != "1" {
				continue
			}
			rank, err1 := rec.Int("rank")
			since, err2 := rec.Float("t")
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: step record %q", f, line)
			}
			ends[int(rank)] = starts[int(rank)] + since
		}
	}
	return ends
}

// The runners over Slurm, as the thesis has them. A job of two components,
// one process on sa and one on sb, reads a file held at sa (so its start
// time is 16.8 s after its placement, and the first claim 4.2 s after it),
// with claim_threshold 0.5 (a try may claim one component of two). Just
// after it is placed, another user's job takes every processor of sb for 8
// s. The first claim try finds sa free and sb busy: it claims the component
// on sa; sb's is claimed at the first try after the other job ends.
//   - KRunner: each component's process starts as Slurm starts it: sa's
//     before the other job ends, sb's after.
//   - DRunner: sa's component holds its processor; both are released
//     together once sb's has started and the start time has come.
//   - IRunner: the processes start as under the KRunner, and meet at the
//     core's rendezvous: their first exchange ends at the same time, after
//     sb's could start.
//
// One process per component: the script starts it with exec, right after
// its hold, so the start times are the runners' and not srun's.
func TestLiveRunners(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{CPUs: 4}, "sa", "sb")
	// What the clusters said when a runner failed (at load 77 all three
	// missed their start times, sb's processors never claimed).
	t.Cleanup(func() {
		if t.Failed() {
			for _, c := range e.Clusters {
				nodes, _ := c.Cmd("sinfo", "-N", "-l").CombinedOutput()
				jobs, _ := c.Cmd("squeue", "-a", "-t", "all", "-o", "%i %j %T %r %S %e").CombinedOutput()
				t.Logf("cluster %s:\n%s\n%s", c.Name, nodes, jobs)
			}
		}
	})
	scheduler := "scan_interval = \"1s\"\nclaim_threshold = 0.5\nclaim_l = 0.25\n"
	extra := "[network]\ndefault_bandwidth = \"8Mbit/s\"\n[[file]]\nname = \"in\"\nsize = \"16MB\"\nsites = [\"sa\"]\n"
	for _, runner := range []core.Runner{core.KRunner, core.DRunner, core.IRunner} {
		t.Run(string(runner), func(t *testing.T) {
			startLog := filepath.Join(t.TempDir(), "starts")
			l := startLive(t, e, gridTOML(e, scheduler, extra), wrapper(t, startLog))
			j := workload.Job{ID: "r-" + string(runner), Kind: workload.Unitary, Type: "smpi", SiteType: workload.Ordered,
				App: workload.App{Name: "smpi", Params: []workload.Param{{Key: "supersteps", Value: "1"}, {Key: "memory", Value: "1"},
					{Key: "elements", Value: "1"}, {Key: "compute", Value: "1"}}},
				Components: []workload.Component{{Site: "sa", Count: 1}, {Site: "sb", Count: 1}},
				Files:      []workload.File{{Name: "in", Size: 16 << 20}}}
			id := l.Submit(j, runner)
			other := "other-" + string(runner)
			sb := e.Cluster("sb")
			// The other job holds sb until it is released: for the krunner
			// and the irunner 3 s after Slurm started sa's component, so
			// that it ends after sa's process started (a fixed 8 s was once
			// over before, at load 80) and before the job's start time,
			// when the core claims sb (waiting for sa's process itself
			// was once too late, at load 35); for the drunner, whose
			// processes start only once both clusters can take them,
			// after 8 s.
			rel := filepath.Join(t.TempDir(), "release-other")
			release := func() { _ = os.WriteFile(rel, nil, 0o644) }
			t.Cleanup(release)
			if out, err := sb.Cmd("sbatch", "--parsable", "--job-name="+other, "--ntasks=4", "--output=/dev/null",
				"--wrap", "while [ ! -e "+rel+" ]; do sleep 0.1; done").CombinedOutput(); err != nil {
				t.Fatalf("sbatch of the other job: %v %s", err, out)
			}
			if runner == core.DRunner {
				time.AfterFunc(8*time.Second, release)
			} else {
				sa := e.Cluster("sa")
				go func() {
					for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
						if out, err := sa.Cmd("squeue", "-h", "-t", "RUNNING", "-o", "%i").Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
							break
						}
					}
					time.Sleep(3 * time.Second)
					release()
				}()
			}
			js := l.Wait(id, 90*time.Second)
			if js.State != core.Finished {
				t.Fatalf("job %s: %s (%s)", id, js.State, js.Reason)
			}
			x := slurmJob(t, sb, other)
			starts := map[int]float64{}
			first := map[int]float64{} // the first process start of each component
			for _, p := range readStarts(t, startLog) {
				starts[p.component+p.rank] = p.at
				if f, ok := first[p.component]; !ok || p.at < f {
					first[p.component] = p.at
				}
			}
			if len(starts) != 2 {
				t.Fatalf("process starts %v, want 2", starts)
			}
			otherEnd := float64(x.End)
			lo, hi := starts[0], starts[0]
			for _, at := range starts {
				lo, hi = min(lo, at), max(hi, at)
			}
			jst := float64(js.JST.UnixNano()) / 1e9
			t.Logf("%s: the other job ran %d..%d; components started at %.2f and %.2f (apart %.2f s); JST %.2f",
				runner, x.Start, x.End, first[0], first[1], first[1]-first[0], jst)
			switch runner {
			case core.KRunner, core.IRunner:
				// sa's component was started by Slurm while sb was still
				// busy, sb's after: Slurm's own start times (a process
				// started 17 s after its Slurm job at load 50).
				saStart := float64(latestJob(t, e.Cluster("sa")).Start)
				if !(saStart < otherEnd && otherEnd <= first[1]) {
					t.Errorf("sa's component started at %.0f (its process at %.2f), sb's at %.2f; the other job ended at %d: want sa's before, sb's after",
						saStart, first[0], first[1], x.End)
				}
			case core.DRunner:
				if lo < otherEnd || lo < jst-0.01 {
					t.Errorf("a process started at %.2f, before the other job ended (%d) or the start time (%.2f)", lo, x.End, jst)
				}
				// The release is one moment of the core's: no process starts
				// before every component is released. (How soon after, the
				// scripts' polls of their release files say: 0.2 s on a
				// quiet machine, 8 s apart once at load 60.)
				rels, _ := filepath.Glob(filepath.Join(l.dir, id, "c*.release"))
				last := 0.0
				for _, r := range rels {
					if fi, err := os.Stat(r); err == nil {
						last = max(last, float64(fi.ModTime().UnixNano())/1e9)
					}
				}
				if len(rels) < 2 || lo < last-0.01 {
					t.Errorf("a process started at %.2f, before the last of the release files %v (%.2f)", lo, rels, last)
				}
				t.Logf("drunner: released at %.2f, the processes started %.2f s apart", last, hi-lo)
			}
			if runner == core.IRunner {
				ex := firstExchange(t, filepath.Join(l.dir, id), starts)
				elo, ehi := ex[0], ex[0]
				for _, at := range ex {
					elo, ehi = min(elo, at), max(ehi, at)
				}
				t.Logf("irunner: first exchange ended between %.2f and %.2f", elo, ehi)
				// sa's processes waited at the rendezvous for sb's, which
				// could not start before the other job ended.
				if len(ex) != 2 || elo < otherEnd || ehi-elo > 1 {
					t.Errorf("first exchange by rank %v: want both, after the other job's end (%d), together", ex, x.End)
				}
			}
		})
	}
}

// clusters is the core's view of its clusters.
func (l *live) clusters() map[string]core.ClusterStatus {
	out := map[string]core.ClusterStatus{}
	for _, c := range l.Do(func(c *core.Core) (any, error) { return c.Clusters(), nil }).([]core.ClusterStatus) {
		out[c.Name] = c
	}
	return out
}

// until waits (at most limit) for cond on the core's view of its clusters.
func (l *live) until(what string, limit time.Duration, cond func(map[string]core.ClusterStatus) bool) {
	l.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		cs := l.clusters()
		if cond(cs) {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("%s: not within %v: %+v", what, limit, cs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Another user's job on a Slurm cluster is its background load as the core
// sees it: the idle processors drop by its size, and placement goes
// elsewhere; when it ends, they come back.
func TestLiveBackgroundLoad(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{CPUs: 4}, "sa", "sb")
	l := startLive(t, e, gridTOML(e, "scan_interval = \"1s\"\npolicy = \"WF\"", ""), gmarkBin.Path(t))
	l.until("the core sees both clusters idle", 10*time.Second, func(cs map[string]core.ClusterStatus) bool {
		return cs["sa"].Idle == 4 && cs["sb"].Idle == 4 && cs["sa"].LRM == "slurm"
	})
	sa := e.Cluster("sa")
	out, err := sa.Cmd("sbatch", "--parsable", "--job-name=someone-else", "--ntasks=3", "--output=/dev/null", "--wrap", "sleep 120").CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v %s", err, out)
	}
	other := strings.TrimSpace(string(out))
	l.until("sa's idle processors drop by 3", 20*time.Second, func(cs map[string]core.ClusterStatus) bool {
		return cs["sa"].Idle == 1 && cs["sa"].Background == 3 && cs["sb"].Idle == 4
	})
	// Worst-Fit would take sa by name order on a tie; sa has 1 idle, sb 4.
	id := l.Submit(swfJob("2p", "0.2", map[string]int{"*": 2}, "*"), core.KRunner)
	js := l.Wait(id, 60*time.Second)
	if js.State != core.Finished || js.Components[0].Site != "sb" {
		t.Errorf("job %s on %s: %s", id, js.Components[0].Site, js.Reason)
	}
	if out, err := sa.Cmd("scancel", other).CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v %s", err, out)
	}
	l.until("sa idle again", 20*time.Second, func(cs map[string]core.ClusterStatus) bool {
		return cs["sa"].Idle == 4 && cs["sa"].Background == 0
	})
}

// A core that restarts on its state finds the Slurm jobs its previous run
// left by their names and cancels them: the job that was running fails
// (it is not run twice), as core.Restore has it for every cluster.
func TestLiveRestart(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	e := slurmtest.Start(t, slurmtest.Options{CPUs: 4}, "sa", "sb")
	dir := t.TempDir()
	src := gridTOML(e, "scan_interval = \"1s\"", "")
	l := startLiveIn(t, e, src, gmarkBin.Path(t), dir)
	id := l.Submit(swfJob("long", "300", map[string]int{"sa": 2}, "sa"), core.KRunner)
	var comp core.Component
	deadline := time.Now().Add(30 * time.Second)
	for !comp.Executing {
		comp = l.Job(id).Components[0]
		if time.Now().After(deadline) {
			t.Fatalf("job %s did not start: %+v", id, l.Job(id))
		}
		time.Sleep(100 * time.Millisecond)
	}
	name := l.set.jobName(core.Ref{Job: id, Component: 0, Attempt: comp.Attempt})
	l.Close() // the core stops; its Slurm job runs on
	sa := e.Cluster("sa")
	if r := slurmJob(t, sa, name); r.Class() != "running" || fmt.Sprint(r.ID) != comp.LRMID {
		t.Fatalf("Slurm job %d (%s) is %s after the core stopped; the core knew it as %s", r.ID, name, r.State, comp.LRMID)
	}
	l2 := startLiveIn(t, e, src, gmarkBin.Path(t), dir)
	if js := l2.Job(id); js.State != core.Failed || !strings.Contains(js.Reason, "restarted") {
		t.Errorf("job %s after the restart: %s (%s)", id, js.State, js.Reason)
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		r := slurmJob(t, sa, name)
		if r.Class() == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted core left Slurm job %d %s", r.ID, r.State)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The restarted core runs new jobs under the same names' prefix.
	id2 := l2.Submit(swfJob("after", "0.2", map[string]int{"sa": 2}, "sa"), core.KRunner)
	if js := l2.Wait(id2, 60*time.Second); js.State != core.Finished {
		t.Errorf("a job after the restart: %s (%s)", js.State, js.Reason)
	}
}

// Global priority on a Slurm cluster (docs/deadlines.md): another user's
// job fills the cluster, and a global job of 2 processors has its start
// deadline 20 s after its submission. With preempt_local the core kills
// the other job at its kill try (start_timeout, 15 s, before the
// deadline): Slurm says CANCELLED, the kill is a local_killed event with
// the Slurm job id and the processor time lost, and the global job starts
// by its deadline. Without it the global job fails at its deadline saying
// why, and the other job runs on. Run one case at a time:
// go test ./koala/slurmlrm -run 'TestLiveGlobalPriority/kills'.
func TestLiveGlobalPriority(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	for _, c := range []struct {
		name    string
		preempt bool
	}{{"kills", true}, {"fails", false}} {
		t.Run(c.name, func(t *testing.T) {
			e := slurmtest.Start(t, slurmtest.Options{CPUs: 4}, "sa")
			sa := e.Cluster("sa")
			src := "[scheduler]\nscan_interval = \"1s\"\ndeadline_policy = \"rpp\"\ndeadline_l = 0.5\ndeadline_priority = \"global\"\n" +
				fmt.Sprintf("[[cluster]]\nname = \"sa\"\nlrm = \"slurm\"\nslurm_conf = %q\npoll = \"200ms\"\nstart_timeout = \"15s\"\npreempt_local = %v\n", sa.Conf, c.preempt)
			l := startLive(t, e, src, gmarkBin.Path(t))
			out, err := sa.Cmd("sbatch", "--parsable", "--job-name=someone-else", "--ntasks=4", "--output=/dev/null", "--wrap", "sleep 300").CombinedOutput()
			if err != nil {
				t.Fatalf("sbatch: %v %s", err, out)
			}
			other := strings.TrimSpace(string(out))
			t.Cleanup(func() { _ = sa.Cmd("scancel", other).Run() })
			l.until("the other job fills sa", 30*time.Second, func(cs map[string]core.ClusterStatus) bool {
				return cs["sa"].Idle == 0 && cs["sa"].Background == 4
			})
			j := swfJob("g", "1", map[string]int{"sa": 2}, "sa")
			j.Deadline = 20 * time.Second
			id := l.Submit(j, core.KRunner)
			js := l.Wait(id, 90*time.Second)
			rec := slurmJob(t, sa, "someone-else")
			evs := l.events()
			var kills []core.Event
			for _, ev := range evs {
				if ev.Kind == core.EvLocalKilled {
					kills = append(kills, ev)
				}
			}
			if !c.preempt {
				if js.State != core.Failed || !strings.Contains(js.Reason, "preemption of local jobs is not allowed on Slurm cluster sa (preempt_local = false)") {
					t.Errorf("global job %s (%s), want failed: preemption not allowed", js.State, js.Reason)
				}
				if rec.State != "RUNNING" || len(kills) != 0 {
					t.Errorf("other job %s, %d kills; want it running, none", rec.State, len(kills))
				}
				return
			}
			if js.State != core.Finished || js.Start.IsZero() || js.Start.After(js.Deadline) {
				t.Errorf("global job %s, started %v, deadline %v (%s): want finished, started by its deadline", js.State, js.Start, js.Deadline, js.Reason)
			}
			if rec.State != "CANCELLED" {
				t.Errorf("the other job is %s, want CANCELLED", rec.State)
			}
			if len(kills) != 1 || kills[0].LRMID != other || kills[0].Cluster != "sa" || kills[0].Count != 4 || kills[0].ProcessorS <= 0 || kills[0].Job != id {
				t.Fatalf("kills %+v, want one of Slurm job %s (4 processors) on sa for %s", kills, other, id)
			}
			t.Logf("other job killed %v before the deadline, having used %g processor-s; global job started %v before its deadline",
				js.Deadline.Sub(kills[0].Time), kills[0].ProcessorS, js.Deadline.Sub(js.Start))
		})
	}
}
