package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// gmark run says, before the run starts, when the bundled scheduler's
// placement policy has nothing to act on in the workload (a comparison
// with another policy would show no difference, byte for byte), and when
// jobs read files no site of the grid holds; a workload that gives the
// policy something to decide gets no warning.
func TestRunWarnsOfAPolicyWithNothingToActOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name, unit string
		args       []string
		want       string // on standard error; "" for no warning
	}{
		{"CF, no input files", "2\tswf\tsingle\t1\t*:?\tU(1s,1s)\tRunTime=1s", nil,
			"warning: policy CF has nothing to act on: no job with a site to choose reads an input file (2 jobs with a site to choose), and Close-to-Files places a job without input files as Worst-Fit does"},
		{"WF, every job pinned", "2\tswf\tsingle\t1\tfs0:1\tU(1s,1s)\tRunTime=1s", []string{"--policy", "worst-fit"},
			"warning: policy WF has nothing to act on: every component of the 2 jobs is pinned to a site"},
		{"CM, one component each", "2\tswf\tsingle\t1\t*:?\tU(1s,1s)\tRunTime=1s,InputFile=file-2g:2GB", []string{"--policy", "CM"},
			"warning: policy CM has nothing to act on: no job has two or more components to place"},
		{"a file the grid lacks", "2\tswf\tsingle\t1\t*:?\tU(1s,1s)\tRunTime=1s,InputFile=nosuch:1GB", []string{"--tail", "1s"},
			"warning: grid das2 holds no replica of nosuch, which jobs read: no policy can place those jobs"},
		{"CF with files the grid holds", "2\tswf\tsingle\t1\t*:?\tU(1s,1s)\tRunTime=1s,InputFile=file-2g:2GB", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := writeFile(t, filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".wdl"), c.unit+"\n", 0o644)
			args := append([]string{"run", spec, "-o", filepath.Join(dir, "runs-"+filepath.Base(spec)), "-q", "--speedup", "50",
				"--grid", abs(t, "../../examples/das2.toml")}, c.args...)
			stdout, stderr, code := run(t, dir, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if c.want == "" && strings.Contains(stderr, "warning") || !strings.Contains(stderr, c.want) {
				t.Errorf("stderr:\n%s\nwant %q", stderr, c.want)
			}
			if n := strings.Count(stderr, "nothing to act on"); n > 1 {
				t.Errorf("said %d times:\n%s", n, stderr)
			}
		})
	}
}
