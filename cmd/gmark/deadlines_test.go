package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Jobs with start deadlines through the whole loop: a WDL with Deadline=,
// a grid with local users' workloads and Wait-10 under global priority,
// 'gmark koala simulate --db', and 'gmark report': the report shows the
// core's deadline figures, the same numbers the simulation printed.
func TestDeadlinesSimulatedAndReported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := "# File-type: text/wl-spec\n" +
		"40\tswf\tunordered\t12\t-\tPoisson(2m)\tNSites=3,RunTime=Exp(0.005),Deadline=U(1s,3599s)\n"
	grid := "name = \"four\"\n[scheduler]\npolicy = \"WF\"\ndeadline_policy = \"wait-10\"\ndeadline_l = 0.7\nseed = 3\n"
	for _, n := range []string{"c1", "c2", "c3", "c4"} {
		grid += "[[cluster]]\nname = \"" + n + "\"\nprocessors = 32\n[cluster.local]\nload = 0.3\nruntime = \"100s\"\n"
	}
	for name, body := range map[string]string{"d.wdl": spec, "grid.toml": grid} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := run(t, dir, "generate", "d.wdl", "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	out, stderr, code := run(t, dir, "koala", "simulate", "--grid", "grid.toml", "--warmup", "10m", "--json",
		"--db", "sim.db", "--run-id", "sim-1", "w")
	if code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, out, stderr)
	}
	var sum struct {
		Deadlines *struct {
			GlobalJobs    int     `json:"global_jobs"`
			GlobalStarted int     `json:"global_started"`
			LocalJobs     int     `json:"local_jobs"`
			LocalFinished int     `json:"local_finished"`
			LocalKilled   int     `json:"local_killed"`
			Wasted        float64 `json:"wasted_processor_s"`
		} `json:"deadlines"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Deadlines == nil {
		t.Fatalf("simulate --json: %v\n%s", err, out)
	}
	d := sum.Deadlines
	if d.GlobalJobs != 40 || d.GlobalStarted == 0 || d.LocalJobs == 0 || !(d.Wasted > 0) {
		t.Fatalf("deadline summary %+v: want 40 global jobs, some started, local jobs, wasted time", *d)
	}
	text, stderr, code := run(t, dir, "report", "--db", "sim.db", "--run", "sim-1", "--format", "text")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"global jobs started at their deadline", "local jobs killed", "local response time",
		strconv.Itoa(d.GlobalStarted) + " of 40", strconv.Itoa(d.LocalKilled) + " of " + strconv.Itoa(d.LocalKilled+d.LocalFinished)} {
		if !strings.Contains(text, want) {
			t.Errorf("the report does not say %q:\n%s", want, text)
		}
	}
	js, stderr, code := run(t, dir, "report", "--db", "sim.db", "--run", "sim-1", "--format", "json")
	var rep struct {
		Runs []struct {
			Metrics struct {
				Core struct {
					Deadlines struct {
						GlobalStarted int `json:"global_started"`
					} `json:"deadlines"`
				} `json:"core"`
			} `json:"metrics"`
		} `json:"runs"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || len(rep.Runs) != 1 {
		t.Fatalf("report --format json: exit %d\n%s\n%s", code, js, stderr)
	}
	if got := rep.Runs[0].Metrics.Core.Deadlines.GlobalStarted; got != d.GlobalStarted {
		t.Errorf("the JSON report says %d started, the simulation %d", got, d.GlobalStarted)
	}
}
