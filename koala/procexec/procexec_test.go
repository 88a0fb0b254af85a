package procexec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/koala/core"
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
	e := &Executor{MaxOutput: 1 << 20} // 1024 KB
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
		{"empty workdir", appJob("sserio", "workdir=", ""), "leaves the job's directory"},
		{"inline absolute", appJob("sserio", "workdir=/tmp/x", ""), "leaves the job's directory"},
		{"one dash", appJob("sserio", "-workdir", "/tmp"), "leaves the job's directory"},
		{"output over max_output", appJob("sserio", "output1", "1025"), "max_output"},
		{"1 TiB output", appJob("sserio", "output3", "1073741824"), "max_output"},
		{"inline input over max_output", appJob("sserio", "input1=99999999", ""), "max_output"},
		{"negative size", appJob("sserio", "output2", "-1"), "max_output"},
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
