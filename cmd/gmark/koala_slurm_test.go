package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// The bundled core on a grid of two real Slurm clusters and an emulated
// one: the quick start through `gmark run --grid` completes, placement and
// claiming work against the real controllers (the co-allocated jobs of
// unit 3 name both Slurm clusters; others mix them with the emulated
// cluster), and the store has the Slurm job id of every component that ran
// on a Slurm cluster, each one a job of that controller named by the core.
//
// Slow: 208 s at load 20–40 (2 cores, whole package run): the quick start's
// schedule in real time, through the core on two Slurm clusters.
func TestRunQuickstartOnSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick start on two Slurm clusters for about two minutes; skipped with -short")
	}
	t.Parallel() // see TestRunQuickstartSlurm
	e := slurmtest.Start(t, slurmtest.Options{CPUs: 48}, "fs0", "fs3")
	dir := t.TempDir()
	src := "name = \"slurm-and-emulated\"\n[scheduler]\nscan_interval = \"5s\"\npolicy = \"WF\"\nmax_runtime = \"15m\"\n" +
		"[network]\ndefault_bandwidth = \"1Gbit/s\"\n"
	// fs0 gives its processors; fs3 leaves them to its controller, and the
	// report's system size then comes from the core (48 + 48 + 32).
	for i, c := range e.Clusters {
		procs := "processors = 48\n"
		if i == 1 {
			procs = ""
		}
		src += fmt.Sprintf("[[cluster]]\nname = %q\nlrm = \"slurm\"\nslurm_conf = %q\n%spoll = \"500ms\"\n", c.Name, c.Conf, procs)
	}
	src += "[[cluster]]\nname = \"fs1\"\nprocessors = 32\n[cluster.background]\nlow = 0.3\nhigh = 0.4\njob_size = [1, 4]\njob_runtime = \"1m\"\n" +
		"[[file]]\nname = \"file-2g\"\nsize = \"2GB\"\nsites = [\"fs1\"]\n"
	gridPath := filepath.Join(dir, "grid.toml")
	if err := os.WriteFile(gridPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// The default runner, then the DRunner (its components hold their
	// processors until all have started): two runs in one store.
	out := filepath.Join(dir, "runs")
	for i, runner := range []string{"krunner", "drunner"} {
		stdout, stderr, code := run(t, abs(t, "../.."), "run", "examples/quickstart.wdl", "--grid", gridPath, "--runner", runner, "-o", out, "-q")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", runner, code, stdout, stderr)
		}
		st, err := store.Open(filepath.Join(out, "results.db"))
		if err != nil {
			t.Fatal(err)
		}
		runs, err := st.Runs()
		if err != nil || len(runs) != i+1 {
			t.Fatalf("runs %v %v", runs, err)
		}
		runID := runs[i].ID
		jobs, err := st.Jobs(runID)
		if err != nil {
			t.Fatal(err)
		}
		succeeded := 0
		for _, j := range jobs {
			if j.State == "succeeded" {
				succeeded++
			} else {
				t.Errorf("%s: %s %s %s on %q: %s", runner, j.Kind, j.JobID, j.State, j.Sites, j.Reason)
			}
		}
		t.Logf("%s: %d jobs and tasks recorded, %d succeeded\n%s", runner, len(jobs), succeeded, stdout)
		checkSlurmIDs(t, st, runID, e)
		st.Close()
		stdout, stderr, code = run(t, dir, "report", "--db", filepath.Join(out, "results.db"), "--run", runID, "--format", "json")
		var rep struct {
			Runs []struct {
				Metrics struct {
					Processors int     `json:"processors"`
					Source     string  `json:"processors_source"`
					Util       float64 `json:"utilization"`
				} `json:"metrics"`
			} `json:"runs"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Runs) != 1 {
			t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
		}
		if s := rep.Runs[0].Metrics; s.Processors != 128 || !(s.Util > 0 && s.Util <= 1) {
			t.Errorf("%s: the report's system size is %d (%s), utilization %v; want 128 from the core", runner, s.Processors, s.Source, s.Util)
		}
	}
}

// checkSlurmIDs: every component the core ran on a Slurm cluster has, in
// the store's koala-event annotations, a component_start and a
// component_end with its Slurm job id, and the controller has that job
// under the core's name.
func checkSlurmIDs(t *testing.T, st *store.Store, run string, e *slurmtest.Env) {
	t.Helper()
	notes, err := st.Annotations(run, "koala-event")
	if err != nil {
		t.Fatal(err)
	}
	slurmNames := map[string]string{} // cluster:id → Slurm job name
	for _, c := range e.Clusters {
		b, err := c.Cmd("squeue", "--json").Output()
		if err != nil {
			t.Fatal(err)
		}
		recs, err := slurmcli.ParseSqueue(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			slurmNames[fmt.Sprintf("%s:%d", c.Name, r.ID)] = r.Name
		}
	}
	starts, ends := map[string]string{}, map[string]string{}
	perCluster := map[string]int{}
	mixed := 0
	for _, n := range notes {
		var ev struct {
			Kind      string   `json:"kind"`
			Key       string   `json:"key"`
			Job       string   `json:"job"`
			Cluster   string   `json:"cluster"`
			Component int      `json:"component"`
			Attempt   uint64   `json:"attempt"`
			LRMID     string   `json:"lrm_id"`
			Sites     []string `json:"sites"`
		}
		if err := json.Unmarshal([]byte(n.Value), &ev); err != nil {
			t.Fatalf("annotation %q: %v", n.Value, err)
		}
		if ev.Kind == "placed" && len(ev.Sites) > 1 && strings.Contains(strings.Join(ev.Sites, ","), "fs1") {
			mixed++
		}
		if ev.Kind != "component_start" && ev.Kind != "component_end" || ev.Cluster == "fs1" {
			continue
		}
		id := fmt.Sprintf("%s/%d/%d", ev.Key, ev.Component, ev.Attempt)
		if ev.LRMID == "" {
			t.Errorf("%s of %s on %s has no Slurm job id", ev.Kind, id, ev.Cluster)
			continue
		}
		name := slurmNames[ev.Cluster+":"+ev.LRMID]
		if !strings.HasPrefix(name, "gmark-") || !strings.Contains(name, "-"+ev.Job+".c") {
			t.Errorf("%s of %s: Slurm job %s:%s is named %q", ev.Kind, id, ev.Cluster, ev.LRMID, name)
		}
		if ev.Kind == "component_start" {
			starts[id] = ev.Cluster + ":" + ev.LRMID
			perCluster[ev.Cluster]++
		} else {
			ends[id] = ev.Cluster + ":" + ev.LRMID
		}
	}
	for id, s := range starts {
		if ends[id] != s {
			t.Errorf("component %s started as %s, ended as %q", id, s, ends[id])
		}
	}
	t.Logf("components on Slurm: %v; jobs placed across fs1 and Slurm: %d", perCluster, mixed)
	if perCluster["fs0"] == 0 || perCluster["fs3"] == 0 {
		t.Errorf("components per Slurm cluster %v: want some on each", perCluster)
	}
}
