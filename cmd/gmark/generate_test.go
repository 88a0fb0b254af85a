package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/workload"
)

// gmarkBin is the gmark binary, built once for the tests that run it as a
// real process (exit codes, files written, nothing written on errors) and
// removed when they are done.
var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

func buildGmark(t *testing.T) string {
	t.Helper()
	return gmarkBin.Path(t)
}

// run runs gmark in dir and returns stdout, stderr and the exit code. A
// gmark that hangs (on a FIFO, a lock) is killed after runLimit and fails
// the test.
func run(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return runBounded(t, runLimit, dir, args...)
}

// runLimit bounds every gmark process of these tests; the longest (real
// submissions to Slurm, the quick-start run) take about a minute.
const runLimit = 10 * time.Minute

func abs(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var positioned = regexp.MustCompile(`(?m)^gmark: [^\s:]+\.(wdl|xin):\d+:\d+: \S`)

// Each kind of malformed input: exit status 2, a file:line:col message, and
// no output written.
func TestGenerateRejectsMalformedSpecs(t *testing.T) {
	specs, err := filepath.Glob(abs(t, "../../testdata/bad/*.wdl"))
	if err != nil || len(specs) < 8 {
		t.Fatalf("bad specs: %v %v", specs, err)
	}
	for _, spec := range specs {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			dir := t.TempDir()
			_, stderr, code := run(t, dir, "generate", spec, "-o", "out", "--jdf", "rsl,sbatch", "--format", "swf")
			if code != 2 {
				t.Errorf("exit status %d, want 2; stderr:\n%s", code, stderr)
			}
			if !positioned.MatchString(stderr) {
				t.Errorf("no file:line:col message in:\n%s", stderr)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 0 {
				t.Errorf("wrote %v on an invalid spec", entries)
			}
		})
	}
}

func TestGenerateUsageErrors(t *testing.T) {
	spec := abs(t, "../../examples/thesis/fig5_4.wdl")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"generate"}, "generate takes one WDL file"},
		{[]string{"generate", spec, "--jdf", "nope"}, `unknown job description format "nope"`},
		{[]string{"generate", spec, "--format", "csv"}, `unknown trace format "csv"`},
		{[]string{"generate", spec, "--single-file"}, "--single-file needs --jdf"},
		{[]string{"generate", "/no/such/spec.wdl"}, "/no/such/spec.wdl: no such file or directory"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		_, stderr, code := run(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v wrote %v", c.args, entries)
		}
	}
}

// readTree maps every file under dir (relative path) to its content.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The same spec and seed give byte-identical workload.jsonl, JDFs in every
// format, traces and manifest.
func TestGenerateIsByteIdentical(t *testing.T) {
	t.Parallel()
	formats := strings.Join(printers.Names(), ",")
	for _, spec := range []string{"../../examples/thesis/fig5_4.wdl", "../../examples/composite.wdl", "../../examples/koala-w30.wdl"} {
		spec := abs(t, spec)
		dir := t.TempDir()
		for _, out := range []string{"a", "b"} {
			if _, stderr, code := run(t, dir, "generate", spec, "-o", out, "--seed", "11", "--jdf", formats, "--format", "gwf,swf", "-q"); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		}
		a, b := readTree(t, filepath.Join(dir, "a")), readTree(t, filepath.Join(dir, "b"))
		if len(a) < 10 || len(a) != len(b) {
			t.Fatalf("%s: %d and %d files", spec, len(a), len(b))
		}
		for name, content := range a {
			if !bytes.Equal(content, b[name]) {
				t.Errorf("%s: %s differs between two runs", filepath.Base(spec), name)
			}
		}
		for _, f := range printers.Names() {
			if _, err := os.Stat(filepath.Join(dir, "a", "jdf", f)); err != nil {
				t.Errorf("no JDFs for %s: %v", f, err)
			}
		}
		// The single-file mode gives one stream per format.
		if _, stderr, code := run(t, dir, "generate", spec, "-o", "c", "--seed", "11", "--jdf", formats, "--single-file", "-q"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		c := readTree(t, filepath.Join(dir, "c"))
		if len(c) != 2+len(printers.Names()) || !bytes.Equal(c[workload.JobsFile], a[workload.JobsFile]) {
			t.Errorf("single-file output has files %d, workload.jsonl equal %v", len(c), bytes.Equal(c[workload.JobsFile], a[workload.JobsFile]))
		}
	}
}

func TestGenerateWritesManifestAndReadableJobs(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run(t, dir, "generate", abs(t, "../../examples/thesis/fig5_4.wdl"), "-o", "w", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"generated 100 jobs from 4 units", "processors:", "arrivals:", "w/workload.jsonl"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	m, err := workload.ReadManifest(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Jobs != 100 || m.Seed != 3 || len(m.Units) != 4 || len(m.Includes) != 2 || len(m.Spec.SHA256) != 64 {
		t.Errorf("manifest %+v", m)
	}
	jobs, err := workload.ReadAll(filepath.Join(dir, "w"))
	if err != nil || len(jobs) != 100 {
		t.Fatalf("read back %d jobs: %v", len(jobs), err)
	}
	// The manifest identifies workload.jsonl exactly.
	b, err := os.ReadFile(filepath.Join(dir, "w", workload.JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	want := workload.JobsDigest{SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(b)), Jobs: 100}
	if m.JobsFile == nil || *m.JobsFile != want {
		t.Errorf("manifest's workload_jsonl %+v, want %+v", m.JobsFile, want)
	}
	if warning, err := workload.Check(filepath.Join(dir, "w")); warning != "" || err != nil {
		t.Errorf("Check of a fresh workload: %q, %v", warning, err)
	}
	// A second run into the same directory is refused without --force.
	if _, stderr, code := run(t, dir, "generate", abs(t, "../../examples/thesis/fig5_4.wdl"), "-o", "w"); code != 2 || !strings.Contains(stderr, "--force") {
		t.Errorf("overwrite without --force: exit %d, %s", code, stderr)
	}
	if _, _, code := run(t, dir, "generate", abs(t, "../../examples/thesis/fig5_4.wdl"), "-o", "w", "--force", "-q"); code != 0 {
		t.Errorf("--force failed: %d", code)
	}
}

func TestGenerateValidateWritesNothing(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := run(t, dir, "generate", "--validate", abs(t, "../../examples/composite.wdl"))
	if code != 0 || !strings.Contains(stdout, "valid (1.1 layout, 8 units, 40 jobs") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("--validate wrote %v", entries)
	}
}

func TestHelpAndVersion(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"--help"}, {"generate", "--help"}, {"version"}} {
		stdout, stderr, code := run(t, dir, args...)
		if code != 0 || stdout == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	stdout, _, _ := run(t, dir, "generate", "--help")
	for _, flag := range []string{"--seed", "--jdf", "--single-file", "--format", "--validate", "--output"} {
		if !strings.Contains(stdout, flag) {
			t.Errorf("generate --help lacks %s", flag)
		}
	}
}

// The bash completion script, sourced in a real bash, completes command names
// and generate's flags.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	bin := buildGmark(t)
	binDir := filepath.Dir(bin)
	script := `eval "$(gmark completion bash)"
COMP_WORDS=(gmark gen); COMP_CWORD=1; _gmark_complete; echo "A:${COMPREPLY[*]}"
COMP_WORDS=(gmark generate --si); COMP_CWORD=2; _gmark_complete; echo "B:${COMPREPLY[*]}"`
	cmd := exec.Command(bash, "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "A:generate") || !strings.Contains(string(out), "B:--single-file") {
		t.Errorf("completion output:\n%s", out)
	}
}

// runBounded is run with a time limit: the process is killed (by pid) if it
// has not exited after limit, as when it blocks opening a FIFO.
func runBounded(t *testing.T, limit time.Duration, dir string, args ...string) (string, string, int) {
	t.Helper()
	return runBoundedEnv(t, limit, nil, dir, args...)
}

// runEnv is run with env (NAME=value) added to gmark's environment: a
// test that sets a variable for gmark this way, not by t.Setenv, leaves
// the test process's environment alone and may run in parallel.
func runEnv(t *testing.T, env []string, dir string, args ...string) (string, string, int) {
	t.Helper()
	return runBoundedEnv(t, runLimit, env, dir, args...)
}

func runBoundedEnv(t *testing.T, limit time.Duration, env []string, dir string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildGmark(t), args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gmark %v did not end within %v", args, limit)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stdout.String(), stderr.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

// writeSpec writes a one-unit spec of n hello jobs into dir.
func writeSpec(t *testing.T, dir, name string, n int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	spec := fmt.Sprintf("# File-type: text/wl-spec\n# File-version: 1.1\n1\tunitary\t%d\thello\tsingle\t1\t*:1\tC(1s)\n", n)
	if err := os.WriteFile(p, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantCompleteWorkload asserts that dir holds a whole workload of n jobs,
// as its manifest vouches.
func wantCompleteWorkload(t *testing.T, dir string, n int) {
	t.Helper()
	if warning, err := workload.Check(dir); warning != "" || err != nil {
		t.Fatalf("%s: %q %v", dir, warning, err)
	}
	if m, err := workload.ReadManifest(dir); err != nil || m.Jobs != n {
		t.Fatalf("%s: manifest %+v, %v; want %d jobs", dir, m, err, n)
	}
}

// stagingDirs lists the staging directories of output name in dir.
func stagingDirs(t *testing.T, dir, name string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "."+name+".partial-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// -o naming a symbolic link was replaced by a
// directory (with --force), and a FIFO blocked generate forever. A link to
// a directory is written through; anything else that is not a directory is
// refused with exit 2 and left as it was.
func TestGenerateOutputKinds(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) // makes dir/out
		args  []string
		code  int
		want  string // in stderr
	}{
		{"link to an empty directory", func(t *testing.T, dir string) {
			must(t, os.Mkdir(filepath.Join(dir, "target"), 0o755))
			must(t, os.Symlink("target", filepath.Join(dir, "out")))
		}, nil, 0, ""},
		{"link to a workload, --force", func(t *testing.T, dir string) {
			must(t, os.Symlink("target", filepath.Join(dir, "out")))
			if _, stderr, code := run(t, dir, "generate", writeSpec(t, dir, "old.wdl", 2), "-o", "target", "-q"); code != 0 {
				t.Fatal(stderr)
			}
		}, []string{"--force"}, 0, ""},
		{"link to a workload", func(t *testing.T, dir string) {
			must(t, os.Symlink("target", filepath.Join(dir, "out")))
			if _, stderr, code := run(t, dir, "generate", writeSpec(t, dir, "old.wdl", 2), "-o", "target", "-q"); code != 0 {
				t.Fatal(stderr)
			}
		}, nil, 2, "use --force"},
		{"a directory that is not a workload, --force", func(t *testing.T, dir string) {
			must(t, os.Mkdir(filepath.Join(dir, "out"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "out", "thesis.tex"), []byte("keep"), 0o644))
		}, []string{"--force"}, 2, "is not a workload directory"},
		{"regular file", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "out"), []byte("keep"), 0o644))
		}, []string{"--force"}, 2, "is a regular file, not a directory"},
		{"FIFO", func(t *testing.T, dir string) {
			must(t, syscall.Mkfifo(filepath.Join(dir, "out"), 0o644))
		}, []string{"--force"}, 2, "is a FIFO (named pipe), not a directory"},
		{"dangling link", func(t *testing.T, dir string) {
			must(t, os.Symlink("nowhere", filepath.Join(dir, "out")))
		}, []string{"--force"}, 2, "which does not exist"},
		{"link to a device", func(t *testing.T, dir string) {
			must(t, os.Symlink("/dev/null", filepath.Join(dir, "out")))
		}, []string{"--force"}, 2, "is a character device, not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := writeSpec(t, dir, "spec.wdl", 3)
			c.setup(t, dir)
			out := filepath.Join(dir, "out")
			before, err := os.Lstat(out)
			if err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runBounded(t, time.Minute, dir, append([]string{"generate", spec, "-o", "out", "-q"}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.want)
			}
			after, err := os.Lstat(out)
			if err != nil || after.Mode().Type() != before.Mode().Type() {
				t.Errorf("out was %v, is now %v (%v)", before.Mode().Type(), after.Mode().Type(), err)
			}
			if code == 0 {
				wantCompleteWorkload(t, out, 3)
			}
			for _, keep := range []string{out, filepath.Join(out, "thesis.tex")} {
				if fi, err := os.Lstat(keep); err == nil && fi.Mode().IsRegular() {
					if b, err := os.ReadFile(keep); err != nil || string(b) != "keep" {
						t.Errorf("%s changed: %q %v", keep, b, err)
					}
				}
			}
			if left := append(stagingDirs(t, dir, "out"), stagingDirs(t, dir, "target")...); len(left) > 0 {
				t.Errorf("left %v", left)
			}
		})
	}
}

// startBigGenerate starts a gmark generate of millions of jobs to dir/out
// and returns once its staging directory has data in it. The caller stops it.
func startBigGenerate(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(buildGmark(t), "generate", writeSpec(t, dir, "big.wdl", 20_000_000), "-o", "out", "-q")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil { // still ours to stop
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, s := range stagingDirs(t, dir, "out") {
			if fi, err := os.Stat(filepath.Join(s, workload.JobsFile)); err == nil && fi.Size() > 0 {
				return cmd, s
			}
		}
	}
	t.Fatal("the generate never wrote into a staging directory")
	return nil, ""
}

// A gmark generate killed (kill -9) mid-write left its
// hidden staging directory; the next generate to the same output removes it.
func TestGenerateRemovesKilledWritersStaging(t *testing.T) {
	dir := t.TempDir()
	cmd, staging := startBigGenerate(t, dir)
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	if _, err := os.Stat(staging); err != nil {
		t.Fatalf("the killed generate's staging directory: %v", err)
	}
	if _, stderr, code := runBounded(t, time.Minute, dir, "generate", writeSpec(t, dir, "small.wdl", 4), "-o", "out", "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if left := stagingDirs(t, dir, "out"); len(left) > 0 {
		t.Errorf("left %v", left)
	}
	wantCompleteWorkload(t, filepath.Join(dir, "out"), 4)
}

// The staging directory of a live generate (here stopped with SIGSTOP, so
// that it is certainly alive and mid-write) is never removed by another
// generate to the same output; once it is killed, the next one removes it.
func TestGenerateLeavesLiveWritersStaging(t *testing.T) {
	dir := t.TempDir()
	cmd, staging := startBigGenerate(t, dir)
	must(t, cmd.Process.Signal(syscall.SIGSTOP))
	if _, stderr, code := runBounded(t, time.Minute, dir, "generate", writeSpec(t, dir, "small.wdl", 4), "-o", "out", "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(staging, workload.JobsFile)); err != nil {
		t.Fatalf("a live generate's staging directory was touched: %v", err)
	}
	wantCompleteWorkload(t, filepath.Join(dir, "out"), 4)
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	if _, stderr, code := runBounded(t, time.Minute, dir, "generate", writeSpec(t, dir, "small.wdl", 5), "-o", "out", "-q", "--force"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if left := stagingDirs(t, dir, "out"); len(left) > 0 {
		t.Errorf("left %v", left)
	}
	wantCompleteWorkload(t, filepath.Join(dir, "out"), 5)
}

// Two gmark generate -o same at once each end with a complete directory or
// a clean error (exit 2, "exists"), and leave nothing else behind. Without
// --force the one that finishes second refuses to replace the other's
// workload (it silently replaced it before).
func TestGenerateConcurrentSameOutput(t *testing.T) {
	t.Parallel()
	const jobs = 200_000
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("force %v", force), func(t *testing.T) {
			for trial := range 3 {
				dir := t.TempDir()
				spec := writeSpec(t, dir, "spec.wdl", jobs)
				args := []string{"generate", spec, "-o", "out", "-q"}
				if force {
					args = append(args, "--force")
				}
				ok := 0
				for i, r := range runTogether(t, dir, 2, args...) {
					switch {
					case r.code == 0:
						ok++
					case !force && r.code == 2 && strings.Contains(r.stderr, "exists and is not empty"):
					default:
						t.Errorf("trial %d, process %d: exit %d: %s", trial, i, r.code, r.stderr)
					}
				}
				// Without --force the second to finish must not replace the
				// first's workload; with it, both replace.
				if want := map[bool]int{false: 1, true: 2}[force]; ok != want {
					t.Errorf("trial %d: %d generates succeeded, want %d", trial, ok, want)
				}
				wantCompleteWorkload(t, filepath.Join(dir, "out"), jobs)
				if left := stagingDirs(t, dir, "out"); len(left) > 0 {
					t.Errorf("trial %d: left %v", trial, left)
				}
			}
		})
	}
}

// result is how a gmark process ended.
type result struct {
	code   int
	stderr string
}

// runTogether starts n gmark processes with the same arguments in dir at
// once, and waits for them all, for two minutes at most (then they are
// killed by pid).
func runTogether(t *testing.T, dir string, n int, args ...string) []result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmds := make([]*exec.Cmd, n)
	stderrs := make([]bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = exec.CommandContext(ctx, buildGmark(t), args...)
		cmds[i].Dir = dir
		cmds[i].Stderr = &stderrs[i]
		must(t, cmds[i].Start())
	}
	results := make([]result, n)
	for i, cmd := range cmds {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			t.Fatalf("gmark %v did not end within two minutes", args)
		case errors.As(err, &ee):
			results[i].code = ee.ExitCode()
		case err != nil:
			t.Fatal(err)
		}
		results[i].stderr = stderrs[i].String()
	}
	return results
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
