package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/filelock"
)

// small is an experiment of 8 short runs on DAS-2.
const small = `name = "small"
seed = 3
topology = "das2"
architectures = ["sep-c", "dmm"]
loads = [30, 70]
repetitions = 2
[workload]
span = "3h"
`

func load(t *testing.T, dir, src string) *Experiment {
	t.Helper()
	path := filepath.Join(dir, "exp.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func reportJSON(t *testing.T, db string, names ...string) []byte {
	t.Helper()
	rep, err := ReadReport(db, names)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func count(t *testing.T, db, query string, args ...any) int {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int
	if err := st.DB().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// An execution records the experiment, its scenarios and planned runs,
// its provenance, an attempt and a result per run; a second one finds
// every run done and runs nothing.
func TestExecuteRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := load(t, dir, small)
	db := filepath.Join(dir, "r.db")
	var started [3]int
	var done atomic.Int32
	sum, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2, CommandLine: []string{"gmark", "sim", "run"},
		Started: func(p, d, n int) { started = [3]int{p, d, n} },
		Done:    func(*Run, error) { done.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Planned != 8 || sum.Ran != 8 || sum.AlreadyDone != 0 || sum.Failed != 0 || sum.Interrupted || started != [3]int{8, 0, 8} || done.Load() != 8 {
		t.Fatalf("%+v, started %v, done %d", sum, started, done.Load())
	}
	for q, want := range map[string]int{
		"SELECT count(*) FROM sim_experiments":                                 1,
		"SELECT count(*) FROM sim_scenarios":                                   1,
		"SELECT count(*) FROM sim_runs":                                        8,
		"SELECT count(*) FROM sim_results":                                     8,
		"SELECT count(*) FROM sim_attempts":                                    8,
		"SELECT count(DISTINCT digest) FROM sim_attempts":                      8,
		"SELECT count(*) FROM sim_messages":                                    8 * 6,
		"SELECT count(*) FROM sim_invocations":                                 1,
		"SELECT count(*) FROM sim_invocation_inputs WHERE role = 'experiment'": 1,
		"SELECT count(*) FROM input_contents":                                  1,
		"SELECT count(*) FROM sim_results r JOIN sim_runs u USING (digest)":    8,
		"SELECT count(*) FROM sim_results WHERE jobs > 0 AND finished > 0":     8,
	} {
		if n := count(t, db, q); n != want {
			t.Errorf("%s: %d, want %d", q, n, want)
		}
	}
	first := reportJSON(t, db)
	sum, err = Execute(context.Background(), e, RunOptions{DB: db, Parallel: 1})
	if err != nil || sum.Ran != 0 || sum.AlreadyDone != 8 {
		t.Fatalf("second execution: %+v %v", sum, err)
	}
	if n := count(t, db, "SELECT count(*) FROM sim_attempts"); n != 8 {
		t.Errorf("%d attempts after a second execution: a finished run was redone", n)
	}
	if n := count(t, db, "SELECT count(*) FROM sim_invocations"); n != 2 {
		t.Errorf("%d invocations", n)
	}
	if !bytes.Equal(first, reportJSON(t, db)) {
		t.Error("the report changed with a second execution that ran nothing")
	}
	// The records are immutable.
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, q := range []string{"UPDATE sim_results SET awt_s = 0", "DELETE FROM sim_runs", "DELETE FROM sim_attempts"} {
		if _, err := st.DB().Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// The report's numbers are the stored ones, run by run, and its means are
// the means of the runs.
func TestReportIsTheStore(t *testing.T) {
	dir := t.TempDir()
	e := load(t, dir, small)
	db := filepath.Join(dir, "r.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db}); err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReport(db, []string{"small"})
	if err != nil {
		t.Fatal(err)
	}
	er := rep.Experiments[0]
	if er.Planned != 8 || er.Finished != 8 || len(er.Runs) != 8 || len(er.Aggregates) != 4 || er.Processors != 400 {
		t.Fatalf("%+v", er)
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range er.Runs {
		var awt, goodput, jf, u float64
		var jobs int
		var dmm int64
		err := st.DB().QueryRow(`SELECT awt_s, goodput_cpu_years, jf_percent, utilization, jobs, m.count FROM sim_results s
			JOIN sim_messages m USING (digest) WHERE digest = ? AND m.type = 'DMM'`, r.Digest).Scan(&awt, &goodput, &jf, &u, &jobs, &dmm)
		if err != nil {
			t.Fatal(err)
		}
		m := r.Metrics
		if m.AWT != awt || m.Goodput != goodput || m.JF != jf || m.Utilization != u || m.Jobs != jobs || m.Messages["DMM"] != dmm {
			t.Errorf("run %d: report %+v, store awt %g goodput %g jf %g u %g jobs %d dmm %d", r.Index, m, awt, goodput, jf, u, jobs, dmm)
		}
		if r.Arch == "dmm" && r.Load == 70 && m.Messages["KeepAlive"] == 0 {
			t.Errorf("run %d: no KeepAlive under dmm", r.Index)
		}
	}
	for _, a := range er.Aggregates {
		var sum float64
		n := 0
		for _, r := range er.Runs {
			if r.Arch == a.Arch && r.Load == a.Load {
				sum += r.Metrics.AWT
				n++
			}
		}
		if a.Runs != 2 || n != 2 || math.Abs(a.Stats["awt_s"].Mean-sum/2) > 1e-9*math.Max(1, sum) {
			t.Errorf("%s %g: mean AWT %g, runs %d; want %g of %d", a.Arch, a.Load, a.Stats["awt_s"].Mean, a.Runs, sum/2, n)
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"experiment small", "8 of 8 runs finished", "ASD (τ = 10s)", "means over repetitions"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report without %q:\n%s", want, text.String())
		}
	}
	if _, err := ReadReport(db, []string{"nothing"}); !errors.Is(err, ErrNoExperiment) || !strings.Contains(err.Error(), "experiments: small") {
		t.Errorf("unknown experiment: %v", err)
	}
}

// Interrupted (its context cancelled) after some runs, an execution keeps
// what ended; the next does the rest, and the result is that of an
// execution in one go, byte for byte.
func TestExecuteInterruptedContinues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := load(t, dir, small)
	db := filepath.Join(dir, "r.db")
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	sum, err := Execute(ctx, e, RunOptions{DB: db, Parallel: 1, Done: func(*Run, error) {
		if n.Add(1) == 3 {
			cancel()
		}
	}})
	if err != nil || !sum.Interrupted || sum.Ran != 3 {
		t.Fatalf("interrupted: %+v %v", sum, err)
	}
	sum, err = Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2})
	if err != nil || sum.Ran != 5 || sum.AlreadyDone != 3 {
		t.Fatalf("continued: %+v %v", sum, err)
	}
	if n := count(t, db, "SELECT count(*) FROM sim_attempts"); n > 9 || n < 8 {
		t.Errorf("%d attempts: more than the one interrupted run was redone", n)
	}
	whole := filepath.Join(dir, "whole.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: whole, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	if a, b := reportJSON(t, db), reportJSON(t, whole); !bytes.Equal(a, b) {
		t.Errorf("interrupted and continued:\n%s\nin one go:\n%s", a, b)
	}
}

// One process at a time works on a store.
func TestExecuteRefusesABusyStore(t *testing.T) {
	dir := t.TempDir()
	e := load(t, dir, small)
	db := filepath.Join(dir, "r.db")
	release, err := filelock.ForFile(db, lockSuffix)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Execute(context.Background(), e, RunOptions{DB: db})
	release()
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("%v", err)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the store was created by the refused execution")
	}
}

// Runs of the same definition are computed once, whatever scenario or
// experiment plans them; an edited experiment reuses the runs it shares
// with the old one.
func TestRunsAreShared(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	twice := small + "[[scenario]]\nname = \"a\"\n[[scenario]]\nname = \"b\"\n"
	sum, err := Execute(context.Background(), load(t, dir, twice), RunOptions{DB: db, Parallel: 2})
	if err != nil || sum.Planned != 16 || sum.Ran != 8 || sum.AlreadyDone != 8 {
		t.Fatalf("%+v %v", sum, err)
	}
	if n := count(t, db, "SELECT count(*) FROM sim_attempts"); n != 8 {
		t.Errorf("%d attempts for 8 distinct runs", n)
	}
	more := strings.Replace(small, "loads = [30, 70]", "loads = [30, 50, 70]", 1)
	sum, err = Execute(context.Background(), load(t, dir, more), RunOptions{DB: db, Parallel: 2})
	if err != nil || sum.Planned != 12 || sum.Ran != 4 || sum.AlreadyDone != 8 {
		t.Fatalf("edited: %+v %v", sum, err)
	}
	if n := count(t, db, "SELECT count(*) FROM sim_experiments WHERE name = 'small'"); n != 2 {
		t.Errorf("%d definitions of small", n)
	}
	rep, err := ReadReport(db, []string{"small"})
	if err != nil || rep.Experiments[0].Planned != 12 || rep.Experiments[0].Finished != 12 || rep.Experiments[0].Definitions != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
}

// A run that fails (IWG cannot reach the target within one iteration) is
// reported and not recorded; the others are; the next execution tries it
// again.
func TestFailedRunsAreRetried(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	src := small + "[[scenario]]\nname = \"ok\"\n[[scenario]]\nname = \"bad\"\nloads = [55]\n[scenario.workload]\nmax_iterations = 1\ntolerance = 0.0001\n"
	var failed atomic.Int32
	e := load(t, dir, src)
	sum, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2, Done: func(r *Run, err error) {
		if err != nil {
			failed.Add(1)
			if r.Scenario.Name != "bad" || !strings.Contains(err.Error(), "grid-LF workload of cluster fs") || !strings.Contains(err.Error(), "max_iterations") {
				t.Errorf("%s: %v", r, err)
			}
		}
	}})
	if err == nil || !strings.Contains(err.Error(), "4 of 12 runs failed") || sum.Failed != 4 || sum.Ran != 8 || failed.Load() != 4 {
		t.Fatalf("%+v %v", sum, err)
	}
	if n := count(t, db, "SELECT count(*) FROM sim_results"); n != 8 {
		t.Errorf("%d results", n)
	}
	sum, err = Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2})
	if err == nil || sum.AlreadyDone != 8 || sum.Failed != 4 {
		t.Fatalf("again: %+v %v", sum, err)
	}
}

// A store with no experiment reports none; a store of the submitter alone
// has no experiment tables until a gmark sim writes it.
func TestReportOfNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	rep, err := ReadReport(db, nil)
	if err != nil || len(rep.Experiments) != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "no experiment") {
		t.Errorf("%q %v", b.String(), err)
	}
	if _, err := ReadReport(db, []string{"x"}); !errors.Is(err, ErrNoExperiment) {
		t.Errorf("%v", err)
	}
	if _, err := ReadReport(filepath.Join(t.TempDir(), "none.db"), nil); err == nil {
		t.Error("a report of a missing store")
	}
}

// The shipped example is valid, expands as its comment says, and runs
// (reduced to 1% of its span), from the copy built into gmark when the
// path names it the way the repository does.
func TestShippedExample(t *testing.T) {
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil { // no examples/ here: the built-in copy
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	e, err := Load("examples/sim/sweep.toml", Options{Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if e.NumRuns() != 68 || len(e.Scenarios) != 2 {
		t.Fatalf("%d runs, %d scenarios", e.NumRuns(), len(e.Scenarios))
	}
	sum, err := Execute(context.Background(), e, RunOptions{DB: filepath.Join(dir, "r.db"), Parallel: 2})
	if err != nil || sum.Ran != 68 {
		t.Fatalf("%+v %v", sum, err)
	}
}

// central's core model in an experiment: the bundled core over the
// topology's clusters, with a grid file of its own (scheduler settings and
// a local workload); the other architectures run beside it on the same
// jobs. Its runs are recorded and reported like any other, and a second
// store computes the same report byte for byte.
func TestCoreModelRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	grid := `[scheduler]
policy = "CF"
scan_interval = "30s"
`
	for _, c := range []struct {
		name  string
		procs int
	}{{"fs0", 144}, {"fs1", 64}, {"fs2", 64}, {"fs3", 64}, {"fs4", 64}} {
		grid += fmt.Sprintf("[[cluster]]\nname = %q\nprocessors = %d\n", c.name, c.procs)
	}
	grid += "[cluster.local]\nload = 0.2\nruntime = \"10m\"\n" // on fs4
	if err := os.WriteFile(filepath.Join(dir, "core.toml"), []byte(grid), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `name = "core"
seed = 5
topology = "das2"
architectures = ["central", "sep-c"]
loads = [50]
[workload]
span = "6h"
[settings]
cool_down = true
[[scenario]]
name = "plugin"
[[scenario]]
name = "core"
[scenario.settings]
central_model = "core"
[[scenario]]
name = "grid"
[scenario.settings]
core_grid = "core.toml"
`
	e := load(t, dir, src)
	var reports [2][]byte
	for i := range reports {
		db := filepath.Join(dir, fmt.Sprintf("r%d.db", i))
		sum, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2})
		if err != nil || sum.Failed != 0 || sum.Ran != 4 || sum.Planned != 6 {
			t.Fatalf("%+v %v", sum, err)
		}
		reports[i] = reportJSON(t, db)
		if i == 0 {
			// sep-c is the same run in every scenario (the settings are
			// central's): computed once.
			if n := count(t, db, "SELECT count(DISTINCT digest) FROM sim_runs"); n != 4 {
				t.Errorf("%d distinct runs, want 4 (three central models, one sep-c)", n)
			}
			if n := count(t, db, "SELECT count(*) FROM sim_results WHERE jobs > 100 AND finished = jobs"); n != 4 {
				t.Errorf("%d runs finished every job, want all 4", n)
			}
		}
	}
	if !bytes.Equal(reports[0], reports[1]) {
		t.Error("two stores computed different reports")
	}
	rep, err := ReadReport(filepath.Join(dir, "r0.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	awt := map[string]float64{}
	for _, r := range rep.Experiments[0].Runs {
		if r.Arch == "central" && r.Metrics != nil {
			awt[r.Scenario] = r.Metrics.AWT
		}
	}
	if len(awt) != 3 || awt["plugin"] == awt["core"] || awt["core"] == awt["grid"] {
		t.Errorf("central's AWT by model %v: the three models must all run and differ", awt)
	}
}
