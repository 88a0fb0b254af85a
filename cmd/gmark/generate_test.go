package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

// run runs gmark in dir and returns stdout, stderr and the exit code.
func run(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(buildGmark(t), args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

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
	// The manifest identifies workload.jsonl exactly (item 7 of issue 11).
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
