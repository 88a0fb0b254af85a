package printers

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/workload"
)

// Checks by the real tools: bash reads the batch scripts, sh runs them
// against stand-ins for the program and its launchers, and Graphviz renders
// the DOT graphs. Each skips with a message when its tool is missing.

func allTestJobs() []*workload.Job {
	var jobs []*workload.Job
	for _, c := range unitaryCases {
		jobs = append(jobs, c.job())
	}
	d := diamondJob()
	for i := range d.Tasks {
		jobs = append(jobs, &d.Tasks[i])
	}
	return jobs
}

func TestBatchScriptsParseWithBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed; the batch scripts are not syntax-checked")
	}
	for _, format := range []string{"sbatch", "sge", "pbs"} {
		p := mustLookup(t, format)
		for _, j := range allTestJobs() {
			script := printToString(t, p, j, goldenConfig)
			cmd := exec.Command(bash, "-n")
			cmd.Stdin = strings.NewReader(script)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s job %s: bash -n: %v\n%s\n%s", format, j.ID, err, out, script)
			}
		}
	}
}

// The stand-ins: gmark records its job id, GMARK_SIZE and arguments,
// NUL-separated, in a file named after the rank variable a script's own
// loop (GMARK_LOCAL_RANK) or pbsdsh (PBS_VNODENUM) gave it; srun and
// mpiexec drop their own options and run the rest once; pbsdsh runs its
// program -c times, as PBS does: in the home directory, with the job's
// first environment (not what the script exported) and PBS_VNODENUM.
var standIns = map[string]string{
	"gmark": "#!/bin/sh\nprintf '%s\\0' \"$GMARK_JOB_ID\" \"$GMARK_SIZE\" \"$@\" > " +
		"\"$GMARK_TEST_RECORD${GMARK_LOCAL_RANK:+.l$GMARK_LOCAL_RANK}${PBS_VNODENUM:+.v$PBS_VNODENUM}\"\n",
	"srun":    "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n",
	"mpiexec": "#!/bin/sh\n[ \"$1\" = -n ] && shift 2\nexec \"$@\"\n",
	"pbsdsh": "#!/bin/sh\n[ \"$1\" = -c ] || exit 3\nn=$2\nshift 3\nunset GMARK_JOB_ID GMARK_SIZE\ncd \"$HOME\" || exit 3\n" +
		"i=0\nwhile [ $i -lt $n ]; do PBS_VNODENUM=$i \"$@\" & i=$((i + 1)); done\nwait\n",
}

// TestBatchScriptsRunTheCommand runs every batch script with sh and checks
// that the program gets exactly the job id, size and arguments it was
// given, through each way a script may start it: the end-to-end test of
// the scripts' shell quoting. PATH holds only the stand-ins, so that the
// machine's own mpiexec or pbsdsh is never taken.
func TestBatchScriptsRunTheCommand(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed; the batch scripts are not run")
	}
	variants := []struct {
		name     string
		tools    []string // stand-ins on PATH besides gmark and srun
		formats  []string
		suffixes func(n int) []string // the record files a job of n processors leaves
	}{
		{"mpiexec", []string{"mpiexec"}, []string{"sbatch", "sge", "pbs"}, func(int) []string { return []string{""} }},
		{"pbsdsh", []string{"pbsdsh"}, []string{"pbs"}, func(n int) []string { return rankSuffixes(".v", n) }},
		{"script", nil, []string{"sge", "pbs"}, func(n int) []string { return rankSuffixes(".l", n) }},
	}
	for _, v := range variants {
		bin := t.TempDir()
		for _, name := range append([]string{"gmark", "srun"}, v.tools...) {
			if err := os.WriteFile(filepath.Join(bin, name), []byte(standIns[name]), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, format := range v.formats {
			p := mustLookup(t, format)
			for _, j := range allTestJobs() {
				runScriptWithStandIns(t, sh, bin, p, j, v.suffixes)
			}
		}
	}
}

// rankSuffixes are the record names of ranks 0..n-1 (one record, "", for a
// job of one processor, which execs the program).
func rankSuffixes(prefix string, n int) []string {
	if n == 1 {
		return []string{""}
	}
	var s []string
	for i := range n {
		s = append(s, prefix+strconv.Itoa(i))
	}
	return s
}

func runScriptWithStandIns(t *testing.T, sh, bin string, p Printer, j *workload.Job, suffixes func(int) []string) {
	t.Helper()
	work, home := t.TempDir(), t.TempDir()
	record := filepath.Join(work, "record")
	cmd := exec.Command(sh, "-s")
	cmd.Stdin = strings.NewReader(printToString(t, p, j, goldenConfig))
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + bin, "HOME=" + home, "GMARK_TEST_RECORD=" + record, "PBS_O_WORKDIR=" + work}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s job %s: %v\n%s", p.Name(), j.ID, err, out)
		return
	}
	size := ""
	if n := j.Processors(); n > 1 && (p.Name() != "sbatch" || strings.Contains(printToString(t, p, j, goldenConfig), "hetjob")) {
		size = strconv.Itoa(n)
	}
	want := append([]string{j.ID, size, "app", j.App.Name}, j.App.Args()...)
	wantFiles := suffixes(j.Processors())
	var got []string
	entries, _ := os.ReadDir(work)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "record") {
			got = append(got, strings.TrimPrefix(e.Name(), "record"))
		}
	}
	slices.Sort(got)
	if slices.Sort(wantFiles); !slices.Equal(got, wantFiles) {
		t.Errorf("%s job %s: the program ran as %q, want %q", p.Name(), j.ID, got, wantFiles)
	}
	for _, suffix := range got {
		b, err := os.ReadFile(record + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if words := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"); !slices.Equal(words, want) {
			t.Errorf("%s job %s%s: program got %q, want %q", p.Name(), j.ID, suffix, words, want)
		}
	}
}

func TestDOTRendersWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot is not installed; DOT output is not rendered (apt-get install graphviz)")
	}
	p := mustLookup(t, "dot")
	jobs := []*workload.Job{singleJob(), coallocJob(), diamondJob()}
	for _, j := range jobs {
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(printToString(t, p, j, goldenConfig))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		svg, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Errorf("job %s: dot -Tsvg: %v %s", j.ID, err, stderr.String())
			continue
		}
		nodes := 1
		if j.Kind == workload.Composite {
			nodes = len(j.Tasks)
		}
		if got := strings.Count(string(svg), `class="node"`); got != nodes {
			t.Errorf("job %s: rendered %d nodes, want %d", j.ID, got, nodes)
		}
		if got := strings.Count(string(svg), `class="edge"`); got != len(j.Deps) {
			t.Errorf("job %s: rendered %d edges, want %d", j.ID, got, len(j.Deps))
		}
	}
	// A single-file stream holds several graphs; dot renders each.
	stream := sinkStream(t, "dot", singleJob(), diamondJob())
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = bytes.NewReader(stream)
	svg, err := cmd.Output()
	if err != nil {
		t.Fatalf("dot -Tsvg on a stream: %v", err)
	}
	if got := strings.Count(string(svg), "<svg"); got != 2 {
		t.Errorf("stream rendered as %d graphs, want 2", got)
	}
}

// TestBatchScriptLoopReportsFailure: a script that starts the processes
// itself waits for all and exits with the status of the first one (in rank
// order) that failed, as mpiexec would.
func TestBatchScriptLoopReportsFailure(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed; the batch scripts are not run")
	}
	bin := t.TempDir()
	gmark := "#!/bin/sh\ncase $GMARK_LOCAL_RANK in 1) exit 3;; 2) exit 5;; esac\n: > \"$GMARK_TEST_RECORD.$GMARK_LOCAL_RANK\"\n"
	if err := os.WriteFile(filepath.Join(bin, "gmark"), []byte(gmark), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"sge", "pbs"} {
		work := t.TempDir()
		cmd := exec.Command(sh, "-s")
		cmd.Stdin = strings.NewReader(printToString(t, mustLookup(t, format), smpiJob(), goldenConfig))
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + bin, "HOME=" + work, "PBS_O_WORKDIR=" + work, "GMARK_TEST_RECORD=" + filepath.Join(work, "ok")}
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("%s: %v, want exit status 3", format, err)
		}
		// The others ran to the end: a failure does not stop the wait early.
		for _, rank := range []string{"0", "3", "7"} {
			if _, err := os.Stat(filepath.Join(work, "ok."+rank)); err != nil {
				t.Errorf("%s: rank %s: %v", format, rank, err)
			}
		}
	}
}
