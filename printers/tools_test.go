package printers

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// The stand-ins: gmark records its job id and arguments, NUL-separated;
// srun and mpiexec drop their own options and run the rest, as the real ones
// would on every task.
var standIns = map[string]string{
	"gmark":   "#!/bin/sh\nprintf '%s\\0' \"$GMARK_JOB_ID\" \"$@\" > \"$GMARK_TEST_RECORD\"\n",
	"srun":    "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n",
	"mpiexec": "#!/bin/sh\n[ \"$1\" = -n ] && shift 2\nexec \"$@\"\n",
}

// TestBatchScriptsRunTheCommand runs every batch script with sh and checks
// that the program gets exactly the job id and arguments it was given: the
// end-to-end test of the scripts' shell quoting.
func TestBatchScriptsRunTheCommand(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed; the batch scripts are not run")
	}
	bin := t.TempDir()
	for name, body := range standIns {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, format := range []string{"sbatch", "sge", "pbs"} {
		p := mustLookup(t, format)
		for _, j := range allTestJobs() {
			work := t.TempDir()
			record := filepath.Join(work, "record")
			cmd := exec.Command(sh, "-s")
			cmd.Stdin = strings.NewReader(printToString(t, p, j, goldenConfig))
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"GMARK_TEST_RECORD="+record, "PBS_O_WORKDIR="+work)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s job %s: %v\n%s", format, j.ID, err, out)
				continue
			}
			got, err := os.ReadFile(record)
			if err != nil {
				t.Errorf("%s job %s: the program did not run: %v", format, j.ID, err)
				continue
			}
			want := append([]string{j.ID, "app", j.App.Name}, j.App.Args()...)
			if words := strings.Split(strings.TrimSuffix(string(got), "\x00"), "\x00"); !slices.Equal(words, want) {
				t.Errorf("%s job %s: program got %q, want %q", format, j.ID, words, want)
			}
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
