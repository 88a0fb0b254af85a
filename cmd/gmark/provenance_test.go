package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// 'gmark version' and 'gmark --version' print the same line: the version,
// the revision the binary was built from and whether that tree was
// modified. Built with the revision stamped (as 'make build' does), and
// without (as 'go build' does in a worktree or with -buildvcs=false).
func TestVersionAndFlagAgree(t *testing.T) {
	t.Parallel()
	stamped := filepath.Join(t.TempDir(), "gmark")
	pkg := "github.com/gmark/gmark/internal/version"
	build := exec.Command("go", "build", "-ldflags", "-X "+pkg+".Revision=0123abcd -X "+pkg+".Modified=true", "-o", stamped, "github.com/gmark/gmark/cmd/gmark")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct {
		bin  string
		want string
	}{
		{stamped, "(revision 0123abcd, modified)"},
		{buildGmark(t), "(revision "},
	} {
		var lines []string
		for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
			out, err := exec.Command(c.bin, args...).Output()
			if err != nil {
				t.Fatalf("%s %v: %v", c.bin, args, err)
			}
			lines = append(lines, string(out))
		}
		if lines[0] != lines[1] || lines[0] != lines[2] {
			t.Errorf("version %q, --version %q, -v %q", lines[0], lines[1], lines[2])
		}
		if !strings.HasPrefix(lines[0], "gmark ") || !strings.Contains(lines[0], c.want) || strings.Count(lines[0], "\n") != 1 {
			t.Errorf("%q lacks %q", lines[0], c.want)
		}
	}
}

// reproFiles writes a spec that reads an extension file beside it and a
// fit file outside the working directory: work/specs/s.wdl,
// work/specs/ext/a.xin, fits/f.toml. It returns the working directory.
func reproFiles(t *testing.T, njobs string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range map[string]string{
		"work/specs/s.wdl": "# File-type: text/wl-spec\n# File-version: 1.1\n" +
			"1\tunitary\t" + njobs + "\tswf\tsingle\t1\t*:1\tPoisson(1s)\tExternalFile=ext/a.xin,RunTime=Fit(../../fits/f.toml,runtime)\n",
		"work/specs/ext/a.xin": "RunTimeInMinutes=5\n",
		"fits/f.toml":          "[runtime]\nfamily = \"Exp\"\n[runtime.params]\nrate = 0.2\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "work")
}

// sameTree fails unless directories a and b hold the same files, byte for
// byte.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	read := func(dir string) map[string]string {
		files := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			content, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files[rel] = string(content)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	fa, fb := read(a), read(b)
	if len(fa) < 2 {
		t.Fatalf("%s holds %d files", a, len(fa))
	}
	for name, content := range fa {
		if other, ok := fb[name]; !ok {
			t.Errorf("%s: not regenerated", name)
		} else if other != content {
			t.Errorf("%s differs:\n%s\nregenerated:\n%s", name, content, other)
		}
	}
	if len(fb) != len(fa) {
		t.Errorf("%d files regenerated, %d originally", len(fb), len(fa))
	}
}

var runIDRE = regexp.MustCompile(`(?m)^run (\d{8}T\d{6}Z-[0-9a-f]+)`)

// A run reproduced from its store alone: the inputs are deleted after the
// run, 'gmark report --reproduce' writes them back out of the store, and
// the script it writes regenerates the workload byte for byte (manifest,
// job description files and traces included) and runs it again.
func TestReproduceFromTheStoreAlone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// made runs the workload and returns the store, the original
		// workload directory, and where the rerun records.
		made func(t *testing.T, wd string) (db, workloadDir, rerunDB string)
	}{
		{"gmark run", func(t *testing.T, wd string) (string, string, string) {
			out, stderr, code := run(t, wd, "run", "specs/s.wdl", "--target", "dryrun", "--speedup", "1000", "--seed", "7", "-q", "-o", "out")
			m := runIDRE.FindStringSubmatch(out)
			if code != 0 || m == nil {
				t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
			}
			return filepath.Join(wd, "out", "results.db"), filepath.Join(wd, "out", "workloads", m[1]), filepath.Join("run", "results.db")
		}},
		{"gmark submit", func(t *testing.T, wd string) (string, string, string) {
			if out, stderr, code := run(t, wd, "generate", "specs/s.wdl", "-q", "-o", "w", "--seed", "3", "--jdf", "sbatch,koala", "--format", "swf"); code != 0 {
				t.Fatalf("generate: exit %d\n%s\n%s", code, out, stderr)
			}
			out, stderr, code := run(t, wd, "submit", "w", "--target", "dryrun", "--db", "s.db", "--speedup", "1000", "--workers", "3", "-q")
			if code != 0 {
				t.Fatalf("submit: exit %d\n%s\n%s", code, out, stderr)
			}
			return filepath.Join(wd, "s.db"), filepath.Join(wd, "w"), "results.db"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wd := reproFiles(t, "6")
			db, orig, rerunDB := c.made(t, wd)
			runs, stderr, code := run(t, wd, "report", "sql", "--db", db, "-f", "csv", "SELECT id FROM runs")
			lines := strings.Fields(runs)
			if code != 0 || len(lines) != 2 {
				t.Fatalf("runs: %q %s", runs, stderr)
			}
			runID := lines[1]
			// The inputs are gone: only the store is left to reproduce from.
			for _, p := range []string{filepath.Join(wd, "specs"), filepath.Join(wd, "..", "fits")} {
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
			}
			to := filepath.Join(t.TempDir(), "repro")
			out, stderr, code := run(t, t.TempDir(), "report", "--db", db, "--reproduce", runID, "--to", to)
			if code != 0 || !strings.Contains(out, "3 input files written") || !strings.Contains(out, "gmark generate specs/s.wdl") {
				t.Fatalf("reproduce: exit %d\n%s\n%s", code, out, stderr)
			}
			script := exec.Command("sh", filepath.Join(to, "reproduce.sh"))
			script.Env = append(os.Environ(), "GMARK="+buildGmark(t))
			if b, err := script.CombinedOutput(); err != nil {
				t.Fatalf("reproduce.sh: %v\n%s", err, b)
			}
			sameTree(t, orig, filepath.Join(to, "workload"))
			again, stderr, code := run(t, to, "report", "--db", filepath.Join(to, rerunDB), "-f", "summary", "-q")
			if code != 0 || !strings.Contains(again, "jobs 6: ") {
				t.Errorf("the rerun's store: exit %d\n%s\n%s", code, again, stderr)
			}
		})
	}
}

// summaryOf is what a quiet 'gmark run' prints before its report line:
// the run's summary.
func summaryOf(out string) string {
	if i := strings.Index(out, "report: "); i >= 0 {
		return out[:i]
	}
	return out
}

// 'gmark run' ends with the report's summary; 'gmark report' on the same
// store prints the same numbers: a run made with --speedup in workload
// time, with the wall-clock makespan beside.
func TestRunAndReportShowTheSameNumbers(t *testing.T) {
	t.Parallel()
	wd := reproFiles(t, "8")
	out, stderr, code := run(t, wd, "run", "specs/s.wdl", "--speedup", "100", "-q", "-o", "out") // the bundled core
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	fromRun := summaryOf(out)
	rep, stderr, code := run(t, wd, "report", "--db", "out/results.db", "-f", "summary", "-q")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if fromRun != rep {
		t.Errorf("gmark run's summary:\n%s\ngmark report's:\n%s", fromRun, rep)
	}
	for _, want := range []string{"speedup 100 (workload time)", " s wall)", "jobs 8: 8 succeeded"} {
		if !strings.Contains(rep, want) {
			t.Errorf("the summary lacks %q:\n%s", want, rep)
		}
	}
	wall, _, code := run(t, wd, "report", "--db", "out/results.db", "-f", "summary", "--wall-time", "-q")
	if code != 0 || !strings.Contains(wall, "(wall time)") || wall == rep {
		t.Errorf("--wall-time: exit %d\n%s", code, wall)
	}
}

// Installed gmark (a binary from 'go build -o', run from a directory
// outside the repository) has the shipped examples built in: it lists and
// writes them, and 'gmark run examples/quickstart.wdl' runs on the DAS-2
// grid of the default --grid, recording both files' contents.
func TestExamplesOutsideTheRepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	list, _, code := run(t, dir, "examples")
	if code != 0 || !strings.Contains(list, "examples/das2.toml\n") || !strings.Contains(list, "examples/thesis/smpi1.xin\n") {
		t.Fatalf("examples: exit %d\n%s", code, list)
	}
	if out, stderr, code := run(t, dir, "examples", "write", "ex"); code != 0 {
		t.Fatalf("examples write: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, name := range strings.Fields(list) {
		want, err := os.ReadFile(filepath.Join("..", "..", name))
		got, err2 := os.ReadFile(filepath.Join(dir, "ex", strings.TrimPrefix(name, "examples/")))
		if err != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Errorf("%s written differs from the repository's (%v, %v)", name, err, err2)
		}
	}
	out, stderr, code := run(t, dir, "run", "examples/quickstart.wdl", "--speedup", "100", "-q", "-o", "out")
	if code != 0 || !strings.Contains(out, "jobs 56: 56 succeeded") || !reportLineRE.MatchString(out) {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	rows, stderr, code := run(t, dir, "report", "sql", "--db", "out/results.db", "-f", "csv",
		"SELECT i.role, length(c.content) FROM provenance_inputs i JOIN input_contents c USING (sha256) ORDER BY i.idx")
	want := "role,length(c.content)\n" + "spec," + size(t, "../../examples/quickstart.wdl") + "\ngrid," + size(t, "../../examples/das2.toml") + "\n"
	if code != 0 || rows != want {
		t.Errorf("recorded inputs:\n%s\nwant\n%s%s", rows, want, stderr)
	}
	// Nothing was written outside the run's directory.
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the working directory holds %v", entries)
	}
	// The grid file gone, the report still knows the system size: from the
	// grid the store recorded.
	if err := os.RemoveAll(filepath.Join(dir, "out", "runs")); err != nil {
		t.Fatal(err)
	}
	sum, stderr, code := run(t, dir, "report", "--db", "out/results.db", "-f", "summary", "-q")
	if code != 0 || !strings.Contains(sum, "of 384 processors") || strings.Contains(sum, "system size unknown") {
		t.Errorf("report without the grid file: exit %d\n%s%s", code, sum, stderr)
	}
}

func size(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(fi.Size(), 10)
}
