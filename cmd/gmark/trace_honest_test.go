package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Honest numbers through the command: what trace stats says
// of the system size and of odd records, what trace select writes, and the
// system size of a generated trace.

// swfLine is an SWF record: id, submit, wait, run, size.
func swfLine(id, submit, wait, run, procs string) string {
	return strings.Join([]string{id, submit, wait, run, procs, "-1", "-1", procs, "-1", "-1", "1", "1", "1", "-1", "-1", "1", "-1", "-1"}, " ") + "\n"
}

// trace stats states the estimated system size, the negative run times and
// the power-of-two share, in text and JSON.
func TestTraceStatsStatesEstimates(t *testing.T) {
	dir := t.TempDir()
	text := swfLine("1", "0", "0", "100", "64") + swfLine("2", "10", "0", "200", "32") + swfLine("3", "50", "5", "300", "16") +
		swfLine("4", "60", "0", "-60", "3")
	os.WriteFile(filepath.Join(dir, "t.swf"), []byte(text), 0o644)
	m := statsJSON(t, dir, "t.swf")
	u := m["utilization"].(map[string]any)
	size := m["sequential_parallel"].(map[string]any)
	read := m["read"].(map[string]any)
	if u["processors"] != 112.0 || u["processors_estimated"] != true || u["average"].(float64) > 1 {
		t.Errorf("utilization %v", u)
	}
	if size["power_of_two_share"] != 0.75 || read["negative_run_time"] != 1.0 {
		t.Errorf("power-of-two share %v, negative run times %v", size["power_of_two_share"], read["negative_run_time"])
	}
	if est, _ := m["ranking"].(map[string]any)["estimated"].([]any); len(est) != 6 || est[1] != true || est[4] != true || est[0] != false {
		t.Errorf("ranking estimated %v", est)
	}
	out, stderr, code := run(t, dir, "trace", "stats", "t.swf")
	for _, want := range []string{"112 processors (estimated: the peak of processors in use at once, a lower bound)",
		"cores * (estimated)", "power of two 75.0% of jobs", "negative run time 1 (counted as unknown run time)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("stats text lacks %q (exit %d):\n%s%s", want, code, out, stderr)
		}
	}
	out, _, _ = run(t, dir, "trace", "rank", "t.swf")
	if !strings.Contains(out, "(cores and utilization rest on an estimated system size") {
		t.Errorf("rank does not say it rests on an estimate:\n%s", out)
	}
}

// A file of malformed lines only is bad input at its first bad line, exit
// status 2, whatever its format.
func TestTraceEveryLineMalformed(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"bad.gwf": "# JobID\tSubmitTime\nj1\tsoon\n",
		"bad.swf": "\n1 2 3\n",
		"bad.txt": "hello world\n",
	}
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	for name, line := range map[string]string{"bad.gwf": ":2: ", "bad.swf": ":2: ", "bad.txt": ":1: "} {
		for _, cmd := range []string{"stats", "bots"} {
			out, stderr, code := run(t, dir, "trace", cmd, name)
			if code != 2 || !strings.Contains(stderr, name+line) || strings.Contains(out, "0 jobs") {
				t.Errorf("trace %s %s: exit %d, want 2 and %s%s\n%s%s", cmd, name, code, name, line, out, stderr)
			}
		}
	}
}

// trace select --submit-scale writes whole seconds and drops the header
// lines that described the source's records.
func TestTraceSelectScaledWholeSeconds(t *testing.T) {
	dir := t.TempDir()
	text := "; MaxJobs: 3\n; MaxRecords: 3\n; EndTime: Mon Dec 05 10:30:24 GMT 2005\n" +
		swfLine("1", "100", "0", "7", "1") + swfLine("2", "634", "0", "11", "1") + swfLine("3", "700", "0", "5", "1")
	os.WriteFile(filepath.Join(dir, "in.swf"), []byte(text), 0o644)
	if _, stderr, code := run(t, dir, "trace", "select", "in.swf", "-o", "out.swf", "--submit-scale", "0.1", "--runtime-scale", "0.37", "-q"); code != 0 {
		t.Fatalf("select: exit %d\n%s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "out.swf"))
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, ";") {
			f := strings.Fields(l)
			rows = append(rows, f[1]+" "+f[3])
		}
	}
	// Submits 100, 634, 700 × 0.1; run times 7, 11, 5 × 0.37.
	if strings.Join(rows, ", ") != "10 3, 63 4, 70 2" || strings.Contains(string(b), "MaxJobs") || strings.Contains(string(b), "EndTime") {
		t.Errorf("select wrote rows %q:\n%s", rows, b)
	}
}

// A generated workload's traces carry MaxProcs when the spec's units name
// the grid and agree on its size, and no MaxProcs otherwise.
func TestTraceGeneratedMaxProcs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "grid.toml"), []byte("[[cluster]]\nname = \"a\"\nprocessors = 40\n[[cluster]]\nname = \"b\"\nprocessors = 24\n"), 0o644)
	unit := func(id, keys string) string {
		return id + "\tunitary\t3\tswf\tsingle\t2\t*:?\tPoisson(1s)\tRunTime=U(5s,20s)" + keys + "\n"
	}
	cases := []struct {
		name, spec, want string
	}{
		{"Processors", unit("1", ",Processors=64") + unit("2", ""), "MaxProcs: 64"},
		{"Grid and Processors agree", unit("1", ",Grid=grid.toml") + unit("2", ",Processors=64"), "MaxProcs: 64"},
		{"disagree", unit("1", ",Processors=64") + unit("2", ",Processors=32"), ""},
		{"none", unit("1", ""), ""},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := filepath.Join(dir, c.name+".wdl")
			os.WriteFile(spec, []byte(c.spec), 0o644)
			out := filepath.Join(dir, "w"+string(rune('a'+i)))
			if _, stderr, code := run(t, dir, "generate", spec, "-o", out, "--format", "swf,gwf", "-q"); code != 0 {
				t.Fatalf("generate: exit %d\n%s", code, stderr)
			}
			for _, f := range []string{"workload.swf", "workload.gwf"} {
				b, _ := os.ReadFile(filepath.Join(out, f))
				if got := strings.Contains(string(b), "MaxProcs:"); got != (c.want != "") || (got && !strings.Contains(string(b), c.want+"\n")) {
					t.Errorf("%s: header\n%s\nwant %q", f, b, c.want)
				}
			}
			if c.want != "" {
				m := statsJSON(t, dir, filepath.Join(out, "workload.swf"))
				if u := m["utilization"].(map[string]any); u["processors"] != 64.0 || u["processors_source"] != "header MaxProcs" {
					t.Errorf("stats of the generated trace: %v", u)
				}
			}
		})
	}
}
