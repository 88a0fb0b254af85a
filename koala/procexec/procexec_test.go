package procexec

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/apps"
	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

func appJob(name string, params ...string) workload.Job {
	app := workload.App{Name: name}
	for i := 0; i+1 < len(params); i += 2 {
		app.Params = append(app.Params, workload.Param{Key: params[i], Value: params[i+1]})
	}
	return workload.Job{ID: "1-0", Kind: workload.Unitary, Type: name, SiteType: workload.Single, App: app,
		Components: []workload.Component{{Site: "*", Count: 1}}}
}

// A job's arguments cannot point its files outside its
// directory, nor ask for files larger than max_output.
func TestScreen(t *testing.T) {
	e := &Executor{MaxOutput: 1 << 20, PlaceholderDirs: []string{"/srv/mq.sites"}} // 1024 KB
	cases := []struct {
		name string
		job  workload.Job
		want string // part of the refusal; "" when accepted
	}{
		{"no workdir", appJob("sser", "supersteps", "2"), ""},
		{"relative workdir", appJob("sserio", "workdir", "data/in"), ""},
		{"dot", appJob("sserio", "workdir", "."), ""},
		{"outputs within the limit", appJob("sserio", "output1", "1024", "input2", "0"), ""},
		{"absolute workdir", appJob("sserio", "workdir", "/etc"), "leaves the job's directory"},
		{"dot-dot", appJob("sserio", "workdir", ".."), "leaves the job's directory"},
		{"dot-dot inside", appJob("sserio", "workdir", "a/../../b"), "leaves the job's directory"},
		{"empty workdir", appJob("sserio", "workdir=", ""), "must not be empty"},
		{"inline absolute", appJob("sserio", "workdir=/tmp/x", ""), "leaves the job's directory"},
		{"three dashes", appJob("sserio", "-workdir", "/tmp"), "unknown flag ---workdir"},
		{"output over max_output", appJob("sserio", "output1", "1025"), "max_output"},
		{"1 TiB output", appJob("sserio", "output3", "1073741824"), "max_output"},
		{"inline input over max_output", appJob("sserio", "input1=99999999", ""), "max_output"},
		{"negative size", appJob("sserio", "output2", "-1"), "whole number"},
		{"repeated workdir, the last escapes", appJob("sserio", "workdir", "a", "workdir", "/tmp"), "leaves the job's directory"},
		{"workdir of every application", appJob("hello", "workdir", "/"), "leaves the job's directory"},
		{"workdir of an alias", appJob("smpi1", "workdir", "../x"), "leaves the job's directory"},

		// A placeholder runs its metaqueue's commands: only the agent.json
		// of a site under a directory the grid trusts.
		{"trusted placeholder", appJob("placeholder", "config", "/srv/mq.sites/g/s/agent.json", "submitted", "1"), ""},
		{"outside config", appJob("placeholder", "config", "/abs/agent.json"), "not the agent.json of a placeholder site the grid trusts"},
		{"config beside the trusted directory", appJob("placeholder", "config", "/srv/mq.sites2/agent.json"), "grid trusts"},
		{"config out of it by dot-dot", appJob("placeholder", "config", "/srv/mq.sites/../x/agent.json"), "grid trusts"},
		{"another file of it", appJob("placeholder", "config", "/srv/mq.sites/g/s/token"), "grid trusts"},
		{"relative config", appJob("placeholder", "config", "agent.json"), "grid trusts"},
		{"config inline", appJob("placeholder", "config=/abs/agent.json", ""), "grid trusts"},
		{"no config", appJob("placeholder", "submitted", "1"), "--config FILE is required"},
		{"placeholder workdir", appJob("placeholder", "config", "/srv/mq.sites/g/s/agent.json", "workdir", "/"), "leaves the job's directory"},

		// What would exit 2 at its start is refused at submission.
		{"exec of a JDF", appJob("exec", "executable", "/bin/sh", "arg", "-c", "arg", "touch /tmp/x"), "\"exec\": not a gmark application"},
		{"unknown flag", appJob("sser", "config", "/abs/agent.json"), "unknown flag --config"},
		{"bad value", appJob("sser", "supersteps", "-3"), "--supersteps must be"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := e.Screen(&tc.job)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// run starts one job through the executor and waits for its end.
func run(t *testing.T, e *Executor, id string, spec workload.Job) (bool, string) {
	t.Helper()
	type end struct {
		ok     bool
		reason string
	}
	ends := make(chan end, 1)
	e.Exited = func(_ string, _ int, ok bool, reason string) { ends <- end{ok, reason} }
	j := &core.Job{ID: id, Spec: spec, Components: []core.Component{{Size: 1, Site: "A"}}}
	if _, err := e.Start(j, []string{"A"}, []float64{1}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-ends:
		return r.ok, r.reason
	case <-time.After(60 * time.Second):
		e.Stop(j)
		t.Fatal("the job did not end in a minute")
	}
	return false, ""
}

// The runtime half of the confinement, with real processes: a job's files
// land in its own, fresh directory, and a process writing a file past
// MaxOutput is stopped by the kernel.
func TestJobsAreConfinedToTheirDirectory(t *testing.T) {
	dir := t.TempDir()
	e := &Executor{Gmark: gmarkBin.Path(t), Dir: filepath.Join(dir, "jobs"), TimeScale: 1, MaxOutput: 64 << 10}

	// A leftover of an earlier run: a link out of the job's directory.
	outside := filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.Dir, "k1")); err != nil {
		t.Fatal(err)
	}
	ok, reason := run(t, e, "k1", appJob("sserio", "supersteps", "1", "output1", "32", "input1", "0", "input2", "0", "quiet", ""))
	if !ok {
		t.Fatalf("sserio failed: %s", reason)
	}
	fi, err := os.Lstat(filepath.Join(e.Dir, "k1"))
	if err != nil || !fi.IsDir() {
		t.Fatalf("the job's directory is not a fresh directory: %v %v", fi, err)
	}
	out, err := os.Stat(filepath.Join(e.Dir, "k1", "k1.sserio-out1"))
	if err != nil || out.Size() != 32<<10 {
		t.Errorf("the output is not in the job's directory: %v", err)
	}
	if left, _ := os.ReadDir(outside); len(left) != 0 {
		t.Errorf("the job wrote through the old link: %d files in %s", len(left), outside)
	}

	// Standard output is a file the job writes too: past MaxOutput the
	// kernel stops the process.
	e.MaxOutput = 1 << 10
	ok, reason = run(t, e, "k2", appJob("sser", "supersteps", "500", "memory", "1", "compute", "1"))
	if ok || !strings.Contains(reason, "max_output") {
		t.Errorf("a job writing past max_output: ok=%v %s", ok, reason)
	}
	if fi, err := os.Stat(filepath.Join(e.Dir, "k2", "rank-0.out")); err != nil || fi.Size() > 1<<10 {
		t.Errorf("rank-0.out: %v %v", fi, err)
	}

	// A job that was not screened (restored from an older state) is
	// refused at its start.
	j := &core.Job{ID: "k3", Spec: appJob("sserio", "workdir", "/tmp"), Components: []core.Component{{Size: 1, Site: "A"}}}
	if _, err := e.Start(j, []string{"A"}, []float64{1}); err == nil || !strings.Contains(err.Error(), "leaves the job's directory") {
		t.Errorf("an escaping job started: %v", err)
	}
}

// The server's token never reaches its jobs' environment.
func TestJobEnvironmentHasNoSecrets(t *testing.T) {
	env := jobEnv([]string{"PATH=/bin", "GMARK_KOALA_TOKEN=s3cret", "GMARK_KOALA_TOKENX=kept", "HOME=/root"})
	if got := strings.Join(env, " "); got != "PATH=/bin GMARK_KOALA_TOKENX=kept HOME=/root" {
		t.Errorf("job environment %s", got)
	}
}

// Every flag the generator writes, with every value it draws, passes the
// screen: the screen reads them as the applications do. And the one
// application the generator does not write, placeholder, is the one whose
// path the screen treats apart.
func TestGeneratedJobsPassTheScreen(t *testing.T) {
	e := &Executor{MaxOutput: int64(grid.MaxOutputLimit)}
	generated := map[string]bool{}
	for _, name := range generator.AppNames() {
		spec, _ := generator.LookupApp(name)
		generated[spec.Name] = true
		base := appJob(name)
		base.RunTime, base.Components[0].Count = 90*time.Second, 4
		for _, p := range spec.Params {
			v := p.Default
			if p.FromJob != nil {
				v = p.FromJob(&base)
			}
			base.App.Params = append(base.App.Params, workload.Param{Key: p.Flag, Value: v})
		}
		if err := e.Screen(&base); err != nil {
			t.Errorf("%s with its defaults: %v", name, err)
		}
		for i, p := range spec.Params {
			for _, v := range p.Values {
				j := base
				j.App.Params = slices.Clone(base.App.Params)
				j.App.Params[i].Value = v
				if err := e.Screen(&j); err != nil {
					t.Errorf("%s --%s %s: %v", name, p.Flag, v, err)
				}
			}
		}
	}
	var others []string
	for _, name := range apps.Names() {
		if !generated[name] {
			others = append(others, name)
		}
	}
	if !slices.Equal(others, []string{placeholderApp}) {
		t.Errorf("applications the generator does not write: %v, want [placeholder]", others)
	}
}

// startDecoy starts a process that is no job's, whose command line holds
// the word app; the test's cleanup stops it by pid.
func startDecoy(t *testing.T) *exec.Cmd {
	t.Helper()
	decoy := exec.Command("sh", "-c", "sleep 300; true", "app")
	if err := decoy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = decoy.Process.Kill(); _ = decoy.Wait() })
	return decoy
}

// Cleanup, as a core restarted after a kill -9 runs it, kills the processes
// the executor started, every rank, and nothing else: not a process whose
// pid the job wrote into its directory (where pids used to be kept), even
// one whose command line holds "app".
func TestCleanupKillsOnlyWhatItStarted(t *testing.T) {
	dir := t.TempDir()
	e := &Executor{Gmark: gmarkBin.Path(t), Dir: filepath.Join(dir, "jobs"), TimeScale: 1}
	ends := make(chan bool, 2)
	e.Exited = func(_ string, _ int, ok bool, _ string) { ends <- ok }
	j := &core.Job{ID: "k1", Spec: appJob("swf", "runtime", "300"), Components: []core.Component{{Size: 2, Site: "A"}}}
	if _, err := e.Start(j, []string{"A"}, []float64{1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(j) })
	decoy := startDecoy(t)
	forged := []byte(strconv.Itoa(decoy.Process.Pid) + "\n")
	if err := os.WriteFile(filepath.Join(e.Dir, "k1", "pids"), forged, 0o644); err != nil {
		t.Fatal(err)
	}

	if n := Cleanup(e.Dir); n != 2 {
		t.Errorf("Cleanup killed %d processes, want the job's 2", n)
	}
	select {
	case ok := <-ends:
		if ok {
			t.Error("the killed job's component ended ok")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the job's processes still run a minute after Cleanup")
	}
	if err := decoy.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("Cleanup killed a process the executor did not start: %v", err)
	}
	if n := Cleanup(e.Dir); n != 0 {
		t.Errorf("a second Cleanup killed %d processes", n)
	}
}
