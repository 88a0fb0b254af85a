package slurmarray

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/sim/experiment"
)

// gmarkBin is the gmark binary the live tests' array tasks run.
var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// small is an experiment of 8 runs of a few milliseconds.
const small = `name = "small"
seed = 3
topology = "das2"
architectures = ["sep-c", "dmm"]
loads = [30, 70]
repetitions = 2
[workload]
span = "3h"
`

func loadExp(t *testing.T, dir, src string) *experiment.Experiment {
	t.Helper()
	path := filepath.Join(dir, "exp.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := experiment.Load(path, experiment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func reportJSON(t *testing.T, db string) []byte {
	t.Helper()
	rep, err := experiment.ReadReport(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// counts is the number of rows of every sim_ table.
func counts(t *testing.T, db string) map[string]int {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[string]int{}
	for _, table := range []string{"sim_experiments", "sim_runs", "sim_invocations", "sim_invocation_inputs", "sim_attempts",
		"sim_results", "sim_messages", "sim_tasks", "input_contents"} {
		var n int
		if err := st.DB().QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// manifestOf writes the manifest of an array of the given runs of e, as
// the coordinator would, and returns its path.
func manifestOf(t *testing.T, l Layout, e *experiment.Experiment, cluster string, seq int, runs ...int) string {
	t.Helper()
	_, digest, err := e.Definition()
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Format: manifestFormat, Name: l.ArrayName(seq), Cluster: cluster, Experiment: e.Path, Source: e.Source, Scale: e.Scale,
		ExperimentDigest: digest, Results: l.results(), CreatedNS: 1}
	for _, i := range runs {
		r, err := e.Run(i)
		if err != nil {
			t.Fatal(err)
		}
		m.Tasks = append(m.Tasks, Task{Run: i, Digest: r.Digest, Try: 1})
	}
	if err := l.mkdirs(); err != nil {
		t.Fatal(err)
	}
	if err := l.writeManifest(m); err != nil {
		t.Fatal(err)
	}
	return l.manifestPath(m.Name)
}

func layoutOf(t *testing.T, e *experiment.Experiment, db string) Layout {
	t.Helper()
	_, digest, err := e.Definition()
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLayout(db+".slurm", db, digest)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The task side and the merge without Slurm: tasks run in this process
// write their result files, a coordinator merges them, and the report is
// that of a local execution, byte for byte. Merging again changes nothing.
func TestTasksMergeAsLocal(t *testing.T) {
	dir := t.TempDir()
	e := loadExp(t, dir, small)
	local := filepath.Join(dir, "local.db")
	if _, err := experiment.Execute(context.Background(), e, experiment.RunOptions{DB: local, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "s.db")
	l := layoutOf(t, e, db)
	manifest := manifestOf(t, l, e, "c", 1, 0, 1, 2, 3, 4, 5, 6, 7)
	for i := 0; i < 8; i++ {
		if err := RunTask(context.Background(), manifest, i, []string{"gmark", "sim", "task", manifest, "x"}); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	sum, err := Execute(context.Background(), e, experiment.RunOptions{DB: db}, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if sum.AlreadyDone != 8 || sum.Ran != 0 || sum.Failed != 0 || !strings.Contains(log.String(), "merged 8 results") {
		t.Fatalf("%+v\n%s", sum, log.String())
	}
	if a, b := reportJSON(t, local), reportJSON(t, db); !bytes.Equal(a, b) {
		t.Errorf("merged results differ from local ones:\n%s\n%s", a, b)
	}
	before := counts(t, db)
	if before["sim_results"] != 8 || before["sim_tasks"] != 8 || before["sim_attempts"] != 8 || before["sim_invocations"] != 9 {
		t.Fatalf("rows: %v", before)
	}
	// Merge every file again, the runs pretended pending.
	s, err := experiment.Open(context.Background(), e, experiment.RunOptions{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	c := &coordinator{e: e, s: s, sum: s.Summary(), l: l, o: Options{Log: &log}, runs: map[string][]*experiment.Run{},
		arrays: map[string]*array{}, slots: map[taskKey]*slot{}, byDigest: map[string]map[taskKey]bool{}}
	for i := 0; i < 8; i++ {
		r, _ := e.Run(i)
		c.runs[r.Digest] = []*experiment.Run{r}
	}
	err = c.mergeResults(context.Background())
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	after := counts(t, db)
	after["sim_invocations"]-- // the Open above, and its input
	after["sim_invocation_inputs"]--
	for k, n := range before {
		if after[k] != n {
			t.Errorf("%s: %d rows after merging again, %d before", k, after[k], n)
		}
	}
	if c.sum.Ran != 0 {
		t.Errorf("merging again counted %d runs as run", c.sum.Ran)
	}
}

// What a task refuses, and what it does not do twice.
func TestRunTaskRefuses(t *testing.T) {
	dir := t.TempDir()
	e := loadExp(t, dir, small)
	l := layoutOf(t, e, filepath.Join(dir, "s.db"))
	good := manifestOf(t, l, e, "c", 1, 0, 1)
	ctx := context.Background()

	m, err := ReadManifest(good)
	if err != nil {
		t.Fatal(err)
	}
	m.Name, m.Tasks[0].Digest = l.ArrayName(2), m.Tasks[1].Digest // task 0 says it is run 0, with run 1's digest
	if err := l.writeManifest(m); err != nil {
		t.Fatal(err)
	}
	if err := RunTask(ctx, l.manifestPath(m.Name), 0, nil); !errors.Is(err, ErrWrongRun) {
		t.Errorf("a run of another digest: %v", err)
	}
	m, _ = ReadManifest(good)
	m.Name, m.ExperimentDigest = l.ArrayName(3), strings.Repeat("0", 64)
	if err := l.writeManifest(m); err != nil {
		t.Fatal(err)
	}
	if err := RunTask(ctx, l.manifestPath(m.Name), 0, nil); !errors.Is(err, ErrWrongRun) {
		t.Errorf("another experiment: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	for _, tc := range []struct {
		name, manifest string
		task           int
		want           string
	}{
		{"task below", good, -1, "task -1: the array has tasks 0 to 1"},
		{"task above", good, 2, "task 2: the array has tasks 0 to 1"},
		{"no manifest", filepath.Join(dir, "none.json"), 0, "no such file"},
		{"not json", bad, 0, "not a manifest"},
		{"a directory", dir, 0, "a directory, not a regular file"},
	} {
		os.WriteFile(bad, []byte("{nope"), 0o644)
		if err := RunTask(ctx, tc.manifest, tc.task, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A result file that is there is not computed again; a damaged one is.
	if err := RunTask(ctx, good, 1, nil); err != nil {
		t.Fatal(err)
	}
	m, _ = ReadManifest(good)
	path := l.ResultPath(m.Tasks[1].Digest)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, old, old)
	if err := RunTask(ctx, good, 1, nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("the result file was written again (%v)", err)
	}
	os.WriteFile(path, []byte(`{"format":"gmark-sim-result/1"}`), 0o644)
	if err := RunTask(ctx, good, 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := readResult(path, m.Tasks[1].Digest); err != nil {
		t.Errorf("the damaged result file was not replaced: %v", err)
	}
}

// The batch script runs the binary on the manifest at the task's index,
// whatever the paths hold.
func TestScript(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's a dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "fake gmark")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh := filepath.Join(dir, "task.sh")
	manifest := filepath.Join(dir, "m $x `y`.json")
	if err := os.WriteFile(sh, []byte(script(exe, manifest, "a")), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh)
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=17")
	out, err := cmd.CombinedOutput()
	if want := "[sim]\n[task]\n[" + manifest + "]\n[17]\n"; err != nil || string(out) != want {
		t.Errorf("%v: %q, want %q", err, out, want)
	}
}

func TestLayout(t *testing.T) {
	a, _ := NewLayout("/w", "/x/a.db", "d1")
	b, _ := NewLayout("/w", "/x/b.db", "d1")
	c, _ := NewLayout("/w", "/x/a.db", "d2")
	if a.Tag == b.Tag || a.Tag == c.Tag || len(a.Tag) != 12 || filepath.Dir(a.Dir) != "/w" {
		t.Errorf("tags %s %s %s, dir %s", a.Tag, b.Tag, c.Tag, a.Dir)
	}
	names := []string{a.ArrayName(10000), a.ArrayName(2), a.ArrayName(10), a.ArrayName(9999)}
	want := []string{a.ArrayName(2), a.ArrayName(10), a.ArrayName(9999), a.ArrayName(10000)}
	for i := range names {
		for j := range names {
			if (compareSeq(want[i], want[j]) < 0) != (i < j) {
				t.Errorf("%s and %s in the wrong order", want[i], want[j])
			}
		}
	}
}

// The manifests of a layout, in order, and the next name: one never
// submitted (renamed) still holds its number.
func TestManifestNames(t *testing.T) {
	l, err := NewLayout(t.TempDir(), "r.db", "d")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.mkdirs(); err != nil {
		t.Fatal(err)
	}
	if names, seq, err := l.manifestNames(); err != nil || len(names) != 0 || seq != 0 {
		t.Fatalf("empty: %v %d %v", names, seq, err)
	}
	for _, f := range []string{l.ArrayName(10) + ".json", l.ArrayName(9) + ".json", l.ArrayName(9) + ".submitted", l.ArrayName(9) + ".sh",
		l.ArrayName(12) + ".json.unsubmitted", "gmark-sim-000000000000-s0099.json", "." + l.ArrayName(11) + ".json.partial-1"} {
		if err := os.WriteFile(filepath.Join(l.manifests(), f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(l.manifests(), l.ArrayName(13)+".json"), 0o755)
	names, seq, err := l.manifestNames()
	if err != nil || strings.Join(names, " ") != l.ArrayName(9)+" "+l.ArrayName(10) || seq != 13 {
		t.Errorf("%v %d %v", names, seq, err)
	}
}

func TestNewOptions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	confA := write("a.conf", "# x\nClusterName=alpha\nSlurmctldPort=1\n")
	confB := write("b.conf", "SlurmctldPort=2\n")
	confA2 := write("a2.conf", "clustername = alpha # again\n")
	tgt := write("t.toml", "[slurm]\nworkdir = \"/shared\"\n[[slurm.clusters]]\nname = \"x\"\nconf = \""+confA+"\"\n")
	noSlurm := write("n.toml", "[local]\nprocessors = 4\n")
	for _, tc := range []struct {
		name     string
		cl       CommandLine
		want     string // an error, or the cluster names
		workDir  string
		clusters []string
	}{
		{name: "environment", cl: CommandLine{Retries: 2}},
		{name: "confs", cl: CommandLine{SlurmConfs: []string{confA, confB, confA2}}, clusters: []string{"alpha", "cluster2", "alpha-3"}},
		{name: "targets", cl: CommandLine{Targets: tgt, ArrayLimit: 5}, clusters: []string{"x"}, workDir: "/shared"},
		{name: "parallel", cl: CommandLine{Parallel: true}, want: "--parallel is for --on local"},
		{name: "limit below", cl: CommandLine{ArrayLimit: -1}, want: "--array-limit -1"},
		{name: "limit above", cl: CommandLine{ArrayLimit: MaxArrayLimit + 1}, want: "--array-limit 100001"},
		{name: "retries", cl: CommandLine{Retries: MaxRetries + 1}, want: "--retries 101: from 0 to 100"},
		{name: "both", cl: CommandLine{Targets: tgt, SlurmConfs: []string{confA}}, want: "give one"},
		{name: "no [slurm]", cl: CommandLine{Targets: noSlurm}, want: "has no [slurm] section"},
		{name: "no targets file", cl: CommandLine{Targets: filepath.Join(dir, "none.toml")}, want: "no such file"},
		{name: "no conf", cl: CommandLine{SlurmConfs: []string{filepath.Join(dir, "none.conf")}}, want: "none.conf: no such file"},
	} {
		o, err := NewOptions(tc.cl)
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			}
			continue
		}
		var names []string
		for _, c := range o.Slurm.Clusters {
			names = append(names, c.Name)
		}
		if err != nil || strings.Join(names, ",") != strings.Join(tc.clusters, ",") || o.Slurm.WorkDir != tc.workDir ||
			o.ArrayLimit != tc.cl.ArrayLimit || o.Retries != tc.cl.Retries {
			t.Errorf("%s: %v %+v", tc.name, err, o)
		}
	}
}

func FuzzReadManifest(f *testing.F) {
	dir := f.TempDir()
	m := Manifest{Format: manifestFormat, Name: "n", Experiment: "/e.toml", Source: []byte("x"), Scale: 1, Results: "/r",
		Tasks: []Task{{Run: 0, Digest: strings.Repeat("a", 64), Try: 1}}}
	b, _ := json.Marshal(m)
	f.Add(b)
	f.Add([]byte(`{"format":"gmark-sim-array/1","tasks":[]}`))
	f.Add([]byte(`{"format":"gmark-sim-array/1","name":"n","experiment":"e","results":"/r","scale":1e999,"tasks":[{"run":-1}]}`))
	path := filepath.Join(dir, "m.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(path)
		if err != nil {
			if m != nil {
				t.Fatal("a manifest with an error")
			}
			return
		}
		if len(m.Tasks) == 0 || !(m.Scale > 0 && m.Scale <= 1) || !filepath.IsAbs(m.Results) {
			t.Fatalf("accepted %+v", m)
		}
		for _, k := range m.Tasks {
			if k.Run < 0 || k.Try < 1 || len(k.Digest) != 64 {
				t.Fatalf("accepted task %+v", k)
			}
		}
	})
}

func FuzzReadResult(f *testing.F) {
	dir := f.TempDir()
	d := strings.Repeat("b", 64)
	rf := ResultFile{Format: resultFormat, Array: "a", Try: 1, Digest: d, Result: store.SimResult{Digest: d}}
	b, _ := json.Marshal(rf)
	f.Add(b)
	f.Add([]byte(`{"format":"gmark-sim-result/1","digest":"` + d + `","contents":{"x":"!!"}}`))
	path := filepath.Join(dir, "r.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rf, err := readResult(path, d)
		if err != nil {
			if rf != nil {
				t.Fatal("a result with an error")
			}
			return
		}
		if rf.Digest != d || rf.Result.Digest != d || rf.Try < 1 || rf.Task < 0 || rf.Array == "" {
			t.Fatalf("accepted %+v", rf)
		}
	})
}
