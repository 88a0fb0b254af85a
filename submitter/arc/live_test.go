package arc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/arcrest"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/submitter/gridtest"
	"github.com/gmark/gmark/workload"
)

// liveSlots: at most three of this package's tests run their middleware at once.
var liveSlots = gridtest.NewSlots(3)

// gmarkBin is the real gmark, whose applications the CEs' jobs run.
var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// The CE periods of the tests: short, so that a job's end is seen a few
// seconds after it happens (docs/grid.md: a polled state is as old as the
// information provider's last run).
const (
	testInfoPeriod   = 5 * time.Second
	testWakeupPeriod = 2 * time.Second
)

// grid is a test grid of ARC CEs, with a work directory and a gmark the
// CEs' mapped account can reach.
type grid struct {
	ces  []*arctest.CE
	work string
	bin  string
}

// openDir makes a directory the CEs' mapped account (nobody) can reach,
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

// newGrid starts one CE per option, all trusting one CA.
func newGrid(t *testing.T, opts ...arctest.Options) *grid {
	t.Helper()
	if why := arctest.Available(); why != "" {
		t.Skip("ARC CE not available: " + why)
	}
	liveSlots.Hold(t)
	g := &grid{work: openDir(t, "gmark-arc-work-")}
	dir := openDir(t, "gmark-arc-bin-")
	creds, err := gridtest.New(filepath.Join(dir, "creds"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range opts {
		o.Creds = creds
		if o.InfoPeriod == 0 {
			o.InfoPeriod, o.WakeupPeriod = testInfoPeriod, testWakeupPeriod
		}
		g.ces = append(g.ces, arctest.Start(t, o))
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

// config is a target configuration over the grid's CEs.
func (g *grid) config() Config {
	cfg := Config{Poll: time.Second, UnreachableAfter: time.Minute, WorkDir: g.work, Executable: g.bin,
		ClaimRetry: 30 * time.Second, Proxy: g.ces[0].Proxy, CADir: g.ces[0].Creds.CADir}
	for _, c := range g.ces {
		cfg.CEs = append(cfg.CEs, CEConfig{Name: c.Name, URL: c.URL, Queue: c.Queue})
	}
	return cfg
}

// targetsTOML is the [arc] section of a targets file over the grid.
func (g *grid) targetsTOML(extra string) string {
	var b strings.Builder
	b.WriteString("[arc]\nproxy = \"" + g.ces[0].Proxy + "\"\nca_dir = \"" + g.ces[0].Creds.CADir + "\"\npoll = \"1s\"\n" + extra)
	for _, c := range g.ces {
		b.WriteString("[[arc.ce]]\nname = \"" + c.Name + "\"\nurl = \"" + c.URL + "\"\nqueue = \"" + c.Queue + "\"\n")
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

// summaries reads the summary lines of job id's CE jobs in run, as the
// target copied their output into the work directory.
func summaries(t *testing.T, work, id, run string) []gridtest.Summary {
	return gridtest.Summaries(t, filepath.Join(work, "gmark-"+id+".*-"+run+".out"))
}

// runIn runs the jobs through the target to their ends and returns the
// rows by job id.
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

// Two CEs on the fork back end: a sequential job, a parallel one, an smpi
// job co-allocated over both CEs, sserio with inputs staged through the
// CE, and a job that fails. Every process of the co-allocated job has its
// own rank of four and exchanged with the three others, from both CEs;
// the staged inputs were read, not made by the job; the failed job has
// the LRM's exit code and A-REX's failure text. About 60 s on an idle
// machine.
func TestLiveARCJobs(t *testing.T) {
	t.Parallel() // each test has CEs of its own; most of its time is waiting for them
	g := newGrid(t, arctest.Options{Name: "a"}, arctest.Options{Name: "b"})
	tg, err := New(g.config())
	if err != nil {
		t.Fatal(err)
	}
	smpi := map[string]string{"supersteps": "3", "memory": "1", "compute": "1", "exchange": "100"}
	jobs := []workload.Job{
		job("1-0", "sser", map[string]string{"supersteps": "2"}, "a:1"),
		job("1-1", "smpi", smpi, "b:2"),
		job("1-2", "smpi", smpi, "a:2", "b:2"),
		job("1-3", "sserio", map[string]string{"supersteps": "1", "input1": "128", "output1": "0", "output2": "0", "output3": "0"}, "*:1"),
		job("1-4", "sser", map[string]string{"supersteps": "none"}, "a:1"),
	}
	rows, st, run := runIn(t, tg, jobs...)
	for _, id := range []string{"1-0", "1-1", "1-2", "1-3"} {
		if r := rows[id]; r.State != store.Succeeded || r.ExitStatus == nil || *r.ExitStatus != 0 {
			t.Errorf("%s: %s %s (exit %v)", id, r.State, r.Reason, r.ExitStatus)
		}
	}
	r := rows["1-2"]
	if r.Sites != "a,b" || strings.Count(r.TargetID, ",") != 1 {
		t.Errorf("1-2 ran on %q as %s, want a CE job on each of a and b", r.Sites, r.TargetID)
	}
	gridtest.CheckComponentStarts(t, st, run, r, 2)
	if notes, _ := st.Annotations(run, record.AnnotationComponentStart); len(notes) != 2 {
		t.Errorf("%d component-start records, want those of 1-2's two components only", len(notes))
	}
	var ranks []int
	comps := map[int]bool{}
	for _, s := range summaries(t, g.work, "1-2", run) {
		ranks = append(ranks, s.Rank)
		comps[s.Component] = true
		if !s.OK || s.Size != 4 || s.Peers != 3 || s.Sent <= 0 || s.Received != s.Sent {
			t.Errorf("1-2 rank %d: %+v", s.Rank, s)
		}
	}
	slices.Sort(ranks)
	if !slices.Equal(ranks, []int{0, 1, 2, 3}) || len(comps) != 2 {
		t.Errorf("1-2: ranks %v in components %v; want 0..3 in two", ranks, comps)
	}
	io := summaries(t, g.work, "1-3", run)
	if len(io) != 1 || io[0].BytesRead != (128+64)*1024 || io[0].BytesStaged != 0 {
		t.Errorf("sserio: %+v, want 192 KB read from the staged inputs (128 and the default 64), none made by the job", io)
	}
	bad := rows["1-4"]
	if bad.State != store.Failed || bad.ExitStatus == nil || *bad.ExitStatus != 2 || !strings.Contains(bad.Reason, "wrong exit code - 2") {
		t.Errorf("1-4: %s %q exit %v, want failed with exit status 2 and A-REX's text", bad.State, bad.Reason, bad.ExitStatus)
	}
	t.Logf("1-2: %s on %s, started %s after its submission", r.TargetID, r.Sites, time.Duration(r.StartNS-r.SubmitNS))
}

// jobDiag says what there is of job id of run when a check of its output
// fails: the work directory's files of its CE jobs, the CE's records of
// them, their session and control directories' files, and the store's row
// and events of the job.
func jobDiag(c *arctest.CE, st *store.Store, work, id, run string) string {
	var b strings.Builder
	prefix := "gmark-" + id + "."
	files, _ := filepath.Glob(filepath.Join(work, "*"+prefix+"*"))
	fmt.Fprintf(&b, "work directory %s, files of %s*:", work, prefix)
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil {
			fmt.Fprintf(&b, " %s (%v)", filepath.Base(f), err)
			continue
		}
		fmt.Fprintf(&b, " %s (%d B)", filepath.Base(f), fi.Size())
		if strings.HasSuffix(f, ".out") {
			data, _ := os.ReadFile(f)
			if len(data) > 600 {
				data = data[len(data)-600:]
			}
			fmt.Fprintf(&b, " ending %q", data)
		}
	}
	if len(files) == 0 {
		b.WriteString(" none")
	}
	client, err := arcrest.New(arcrest.Options{Endpoint: c.URL, Proxy: c.Proxy, CADir: c.Creds.CADir, Timeout: 30 * time.Second})
	var infos []arcrest.Job
	var ids []string
	if err == nil {
		if ids, err = client.List(context.Background()); err == nil && len(ids) > 0 {
			infos, err = client.Info(context.Background(), ids)
		}
	}
	if err != nil {
		fmt.Fprintf(&b, "\nthe CE's records: %v", err)
	}
	for i, j := range infos {
		if j.Info == nil || j.Info.Name != "" && !strings.HasPrefix(j.Info.Name, prefix) {
			continue // a stand-in record (no name) may be the job's
		}
		jid := ids[i]
		in := j.Info
		exit := "?"
		if in.ExitCode != nil {
			exit = fmt.Sprint(*in.ExitCode)
		}
		fmt.Fprintf(&b, "\nCE job %s %s: %s %v exit %s errors %q submitted %s started %s LRM end %s end %s",
			jid, in.Name, in.State, in.States, exit, in.Errors, in.Submission.Format(time.RFC3339Nano),
			in.Start.Format(time.RFC3339Nano), in.LRMEnd.Format(time.RFC3339Nano), in.End.Format(time.RFC3339Nano))
		// What the target's copy would get of the job's stdout.
		var out strings.Builder
		if err := client.Get(context.Background(), jid, in.Name+".out", &out, 1<<20); err != nil {
			fmt.Fprintf(&b, "\n  GET session/%s.out: %v", in.Name, err)
		} else {
			fmt.Fprintf(&b, "\n  GET session/%s.out: %d B", in.Name, out.Len())
		}
		fmt.Fprintf(&b, "\n  session %s:", jid)
		entries, err := os.ReadDir(filepath.Join(c.Dir, "session", jid))
		if err != nil {
			fmt.Fprintf(&b, " %v", err)
		}
		for _, e := range entries {
			if fi, err := e.Info(); err == nil {
				fmt.Fprintf(&b, " %s (%d B, %s)", e.Name(), fi.Size(), fi.ModTime().Format("15:04:05.000"))
			}
		}
		// A-REX's control files of the job (control/job.<id>.<item>,
		// control/<state>/job.<id>.status): which there are, and its
		// state, name and log.
		filepath.WalkDir(filepath.Join(c.Dir, "control"), func(p string, d os.DirEntry, err error) error {
			base := filepath.Base(p)
			if err != nil || d.IsDir() || !strings.HasPrefix(base, "job."+jid+".") {
				return nil
			}
			rel := strings.TrimPrefix(p, c.Dir+"/")
			switch item := strings.TrimPrefix(base, "job."+jid+"."); item {
			case "status", "failed":
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&b, "\n  control %s: %q", rel, data)
			case "errors", "diag": // A-REX's log of the job; what the job's wrapper measured
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&b, "\n  control %s:", rel)
				for _, line := range strings.Split(string(data), "\n") {
					if strings.Contains(line, "state change") || strings.Contains(line, "rror") || strings.HasPrefix(line, "exitcode=") || strings.HasPrefix(line, "LRMS") {
						fmt.Fprintf(&b, "\n    %s", line)
					}
				}
			default:
				if fi, err := d.Info(); err == nil {
					fmt.Fprintf(&b, "\n  control %s (%d B, %s)", rel, fi.Size(), fi.ModTime().Format("15:04:05.000"))
				}
			}
			return nil
		})
	}
	if st != nil {
		if row, err := st.Job(run, id); err == nil {
			fmt.Fprintf(&b, "\nrow: %s %q target id %s attempts %d submit output %q", row.State, row.Reason, row.TargetID, row.Attempts, row.SubmitOutput)
		}
		events, _ := st.Events(run, id)
		for _, e := range events {
			p := e.Payload
			if len(p) > 600 {
				p = p[:600] + "…"
			}
			fmt.Fprintf(&b, "\nevent %s a%d %s %s", time.Unix(0, e.TimeNS).UTC().Format("15:04:05.000"), e.Attempt, e.Kind, p)
		}
	}
	return b.String()
}
