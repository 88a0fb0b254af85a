package gram

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/gram/gramtest"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// liveSlots: at most three of this package's tests run their middleware at once.
var liveSlots = gridtest.NewSlots(3)

// gmarkBin is the real gmark, whose applications the gatekeepers' jobs run.
var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// grid is a test grid of GRAM5 gatekeepers, each with the job manager of
// its LRM, a work directory and a gmark the mapped account can reach.
type grid struct {
	gks  []*gramtest.Gatekeeper
	lrm  []string
	work string
	bin  string
}

// openDir makes a directory the mapped account (nobody) can reach,
// removed at the end of the test.
func openDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newGrid starts one gatekeeper per option, all trusting one CA; a
// gatekeeper with a cluster is used through jobmanager-slurm, one with a
// Grid Engine cell through jobmanager-sge, one with neither through
// jobmanager-fork.
func newGrid(t *testing.T, opts ...gramtest.Options) *grid {
	t.Helper()
	slurm := false
	for _, o := range opts {
		slurm = slurm || o.Slurm != nil
		if o.SGE != nil {
			if why := gramtest.AvailableSGE(); why != "" {
				t.Skip("GRAM5 not available: " + why)
			}
		}
	}
	if why := gramtest.Available(slurm); why != "" {
		t.Skip("GRAM5 not available: " + why)
	}
	liveSlots.Hold(t)
	g := &grid{work: openDir(t, "gmark-gram-work-")}
	dir := openDir(t, "gmark-gram-bin-")
	creds, err := gridtest.New(filepath.Join(dir, "creds"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range opts {
		o.Creds = creds
		g.gks = append(g.gks, gramtest.Start(t, o))
		lrm := "fork"
		if o.Slurm != nil {
			lrm = "slurm"
		} else if o.SGE != nil {
			lrm = "sge"
		}
		g.lrm = append(g.lrm, lrm)
	}
	b, err := os.ReadFile(gmarkBin.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	g.bin = filepath.Join(dir, "gmark")
	if err := os.WriteFile(g.bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *grid) config() Config {
	cfg := Config{Poll: time.Second, UnreachableAfter: time.Minute, WorkDir: g.work, Executable: g.bin,
		ClaimRetry: 30 * time.Second, Proxy: g.gks[0].Proxy, CADir: g.gks[0].Creds.CADir}
	for i, gk := range g.gks {
		cfg.CEs = append(cfg.CEs, CEConfig{Name: gk.Name, Contact: gk.Resource(g.lrm[i])})
	}
	return cfg
}

// targetsTOML is the [gram] section of a targets file over the grid.
func (g *grid) targetsTOML(extra string) string {
	var b strings.Builder
	b.WriteString("[gram]\nproxy = \"" + g.gks[0].Proxy + "\"\nca_dir = \"" + g.gks[0].Creds.CADir + "\"\npoll = \"1s\"\nworkdir = \"" + g.work + "\"\n" + extra)
	for i, gk := range g.gks {
		b.WriteString("[[gram.ce]]\nname = \"" + gk.Name + "\"\ncontact = \"" + gk.Resource(g.lrm[i]) + "\"\n")
	}
	return b.String()
}

// job is a unitary job of app with params, of the given components
// ("site:count").
func job(id, app string, params map[string]string, comps ...string) workload.Job {
	j := workload.Job{ID: id, Unit: 1, Kind: workload.Unitary, Type: app, SiteType: workload.Single, WallTime: 5 * time.Minute,
		App: workload.App{Name: app}}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		j.App.Params = append(j.App.Params, workload.Param{Key: k, Value: params[k]})
	}
	for _, c := range comps {
		site, n, _ := strings.Cut(c, ":")
		count := 0
		for _, d := range n {
			count = count*10 + int(d-'0')
		}
		j.Components = append(j.Components, workload.Component{Site: site, Count: count})
	}
	if len(comps) > 1 {
		j.SiteType = workload.Ordered
	}
	return j
}

// summaries reads the summary lines of job id's GRAM jobs in run.
func summaries(t *testing.T, work, id, run string) []gridtest.Summary {
	return gridtest.Summaries(t, filepath.Join(work, "jobs", "gmark-"+id+".*-"+run+".out"))
}

func runIn(t *testing.T, tg submitter.Target, jobs ...workload.Job) (map[string]store.Job, *store.Store, string) {
	t.Helper()
	return runWith(t, tg, submitter.Settings{}, jobs...)
}

// runWith is runIn with settings (a tail).
func runWith(t *testing.T, tg submitter.Target, set submitter.Settings, jobs ...workload.Job) (map[string]store.Job, *store.Store, string) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg, Settings: set})
	tg.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.Jobs(sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Job{}
	for _, r := range rows {
		out[r.JobID] = r
	}
	return out, st, sum.RunID
}

// checkSmpi wants the job's four processes to have ranks 0..3, two in
// each component, each having exchanged with the three others.
func checkSmpi(t *testing.T, work, id, run string) {
	t.Helper()
	checkRanks(t, work, id, run, 2, 2)
}

// checkRanks wants the job's processes to have ranks 0..n-1, perComp[i]
// of them in component i, each having exchanged with all the others.
func checkRanks(t *testing.T, work, id, run string, perComp ...int) {
	t.Helper()
	n := 0
	var want []int
	for _, c := range perComp {
		for range c {
			want = append(want, n)
			n++
		}
	}
	var ranks []int
	byComp := map[int]int{}
	for _, s := range summaries(t, work, id, run) {
		ranks = append(ranks, s.Rank)
		byComp[s.Component]++
		if !s.OK || s.Size != n || s.Peers != n-1 || s.Sent <= 0 || s.Received != s.Sent {
			t.Errorf("%s rank %d: %+v", id, s.Rank, s)
		}
	}
	slices.Sort(ranks)
	ok := slices.Equal(ranks, want)
	for i, c := range perComp {
		ok = ok && byComp[i] == c
	}
	if !ok {
		t.Errorf("%s: ranks %v, per component %v; want %v, %v in each", id, ranks, byComp, want, perComp)
	}
}

// A gatekeeper fronting a loopback Slurm cluster (jobmanager-slurm) and
// one on fork: a sequential job on each, an smpi job of two processes, an
// smpi job co-allocated over both (one GRAM job per component, held
// together by gmark), a job that fails, and one cancelled at the tail.
// The exit codes and start times are the jobs' own reports (GRAM5 says
// neither). About 70 s on an idle machine.
func TestLiveGRAMJobs(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	e := slurmtest.Start(t, slurmtest.Options{}, "fs0")
	g := newGrid(t, gramtest.Options{Name: "fs0", Slurm: e.Cluster("fs0")}, gramtest.Options{Name: "fork"})
	tg, err := New(g.config())
	if err != nil {
		t.Fatal(err)
	}
	smpi := map[string]string{"supersteps": "3", "memory": "1", "compute": "1", "exchange": "100"}
	jobs := []workload.Job{
		job("1-0", "sser", map[string]string{"supersteps": "2"}, "fs0:1"),
		job("1-1", "sser", map[string]string{"supersteps": "2"}, "fork:1"),
		job("1-2", "smpi", smpi, "fork:2"),
		job("1-3", "smpi", smpi, "fs0:2", "fork:2"),
		job("1-4", "sser", map[string]string{"supersteps": "none"}, "fork:1"),
		job("1-5", "sser", map[string]string{"supersteps": "none"}, "fs0:1"),
	}
	rows, st, run := runIn(t, tg, jobs...)
	for _, id := range []string{"1-0", "1-1", "1-2", "1-3"} {
		if r := rows[id]; r.State != store.Succeeded || r.ExitStatus == nil || *r.ExitStatus != 0 || r.StartNS == 0 || r.EndNS < r.StartNS {
			t.Errorf("%s: %s %s (exit %v, start %d end %d)", id, r.State, r.Reason, r.ExitStatus, r.StartNS, r.EndNS)
		}
	}
	if r := rows["1-3"]; r.Sites != "fs0,fork" || strings.Count(r.TargetID, ",") != 1 {
		t.Errorf("1-3 ran on %q as %s, want a GRAM job on each gatekeeper", r.Sites, r.TargetID)
	}
	gridtest.CheckComponentStarts(t, st, run, rows["1-3"], 2)
	if notes, _ := st.Annotations(run, record.AnnotationComponentStart); len(notes) != 2 {
		t.Errorf("%d component-start records, want those of 1-3's two components only", len(notes))
	}
	checkSmpi(t, g.work, "1-3", run)
	for _, id := range []string{"1-4", "1-5"} {
		if r := rows[id]; r.State != store.Failed || r.ExitStatus == nil || *r.ExitStatus != 2 {
			t.Errorf("%s: %s %q exit %v, want failed with exit status 2 (the job's report)", id, r.State, r.Reason, r.ExitStatus)
		}
	}
	t.Logf("1-3: %s", rows["1-3"].TargetID)

	// Cancelled when the tail ends: a job running on each gatekeeper, and
	// one co-allocated job whose components hold.
	tg, err = New(g.config())
	if err != nil {
		t.Fatal(err)
	}
	long := map[string]string{"runtime": "600"}
	jobs = []workload.Job{job("2-0", "swf", long, "fs0:1"), job("2-1", "swf", long, "fork:1"), job("2-2", "swf", long, "fs0:1", "fork:1")}
	rows, _, _ = runWith(t, tg, submitter.Settings{Tail: 15 * time.Second, HasTail: true}, jobs...)
	for _, j := range jobs {
		if r := rows[j.ID]; r.State != store.Cancelled {
			t.Errorf("%s: %s %q, want cancelled", j.ID, r.State, r.Reason)
		}
	}
	// Slurm takes a moment to stop a job it was told to cancel.
	var left []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		out, err := e.Cluster("fs0").Cmd("squeue", "-h", "-t", "PENDING,RUNNING,COMPLETING", "-o", "%j %T").Output()
		if err != nil {
			t.Fatal(err)
		}
		if left = strings.Fields(string(out)); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("Slurm jobs left after the cancellation: %v", left)
	}
}
