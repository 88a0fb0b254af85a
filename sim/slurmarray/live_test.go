package slurmarray

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/sim/experiment"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
)

// two is an experiment of two runs.
const two = `name = "two"
seed = 9
topology = "das2"
architectures = ["sep-c", "dmm"]
loads = [50]
[workload]
span = "3h"
`

func storeTasks(t *testing.T, db string) []store.SimTask {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	exps, err := st.SimExperiments()
	if err != nil || len(exps) != 1 {
		t.Fatalf("%d experiments: %v", len(exps), err)
	}
	tasks, err := st.SimTasks(exps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// The coordinator on a live loopback cluster, in the states a killed one
// leaves, and with tasks that fail every time.
func TestLive(t *testing.T) {
	env := slurmtest.Start(t, slurmtest.Options{CPUs: 4}, "sarr", "sarr2")
	cl := env.Clusters[0]
	dir := t.TempDir()
	e := loadExp(t, dir, two)
	opts := func(exe string, retries int, log *bytes.Buffer) Options {
		return Options{Slurm: slurm.Config{Clusters: []slurm.ClusterConfig{{Name: cl.Name, Conf: cl.Conf}}, Poll: 200 * time.Millisecond,
			Executable: exe}, Retries: retries, Log: log}
	}
	gmark := gmarkBin.Path(t)
	ctx := context.Background()

	// Killed after sbatch, before the marker: the array is found by name.
	t.Run("found by name", func(t *testing.T) {
		db := filepath.Join(dir, "found.db")
		l := layoutOf(t, e, db)
		manifest := manifestOf(t, l, e, cl.Name, 4, 0, 1)
		name := l.ArrayName(4)
		if err := os.WriteFile(l.scriptPath(name), []byte(script(gmark, manifest, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		// Held, so that it is still in squeue when the coordinator looks;
		// released a second later.
		out, err := cl.Cmd("sbatch", "--parsable", "--hold", "--array=0-1", "--job-name="+name,
			"--output="+filepath.Join(l.logs(), name+"_%a.out"), l.scriptPath(name)).CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch: %v: %s", err, out)
		}
		go func() {
			time.Sleep(time.Second)
			cl.Cmd("scontrol", "release", strings.TrimSpace(string(out))).Run()
		}()
		var log bytes.Buffer
		sum, err := Execute(ctx, e, experiment.RunOptions{DB: db}, opts(gmark, 2, &log))
		if err != nil || sum.Ran+sum.AlreadyDone != 2 || !strings.Contains(log.String(), "found array "+name) || strings.Contains(log.String(), "submitted array") {
			t.Fatalf("%v %+v\n%s", err, sum, log.String())
		}
		if _, ok := l.readMarker(name); !ok {
			t.Error("no marker written for the array found")
		}
	})

	// Killed before sbatch: the manifest is there, Slurm does not know it.
	t.Run("never submitted", func(t *testing.T) {
		db := filepath.Join(dir, "unsubmitted.db")
		l := layoutOf(t, e, db)
		manifestOf(t, l, e, cl.Name, 1, 0, 1)
		var log bytes.Buffer
		sum, err := Execute(ctx, e, experiment.RunOptions{DB: db}, opts(gmark, 2, &log))
		if err != nil || sum.Ran != 2 || !strings.Contains(log.String(), l.ArrayName(1)+" was never submitted") ||
			!strings.Contains(log.String(), "submitted array "+l.ArrayName(2)) {
			t.Fatalf("%v %+v\n%s", err, sum, log.String())
		}
		if _, err := os.Stat(l.manifestPath(l.ArrayName(1)) + ".unsubmitted"); err != nil {
			t.Error(err)
		}
		for _, k := range storeTasks(t, db) {
			if k.ArrayName != l.ArrayName(2) || k.State != store.SimTaskCompleted || k.Try != 1 || k.Cluster != cl.Name {
				t.Errorf("%+v", k)
			}
		}
	})

	// Two clusters: the runs are spread over both, an array on each; the
	// results are those of a local execution.
	t.Run("two clusters", func(t *testing.T) {
		e := loadExp(t, t.TempDir(), small)
		db := filepath.Join(dir, "two.db")
		var log bytes.Buffer
		o := opts(gmark, 0, &log)
		o.Slurm.Clusters = append(o.Slurm.Clusters, slurm.ClusterConfig{Name: env.Clusters[1].Name, Conf: env.Clusters[1].Conf})
		o.ArrayLimit = 3
		sum, err := Execute(ctx, e, experiment.RunOptions{DB: db}, o)
		if err != nil || sum.Ran != 8 || !strings.Contains(log.String(), "to cluster sarr: 4 runs, at most 3 at once") ||
			!strings.Contains(log.String(), "to cluster sarr2: 4 runs, at most 3 at once") {
			t.Fatalf("%v %+v\n%s", err, sum, log.String())
		}
		local := filepath.Join(dir, "two-local.db")
		if _, err := experiment.Execute(ctx, e, experiment.RunOptions{DB: local, Parallel: 2}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(reportJSON(t, db), reportJSON(t, local)) {
			t.Error("the results of two clusters differ from the local ones")
		}
		on := map[string]int{}
		for _, k := range storeTasks(t, db) {
			on[k.Cluster]++
		}
		if on["sarr"] != 4 || on["sarr2"] != 4 {
			t.Errorf("tasks per cluster: %v", on)
		}
	})

	// Tasks that fail every time: each run is submitted again Retries
	// times, each end recorded with its reason, then given up; the same
	// command again (with a gmark that works) does them.
	t.Run("retries", func(t *testing.T) {
		db := filepath.Join(dir, "failing.db")
		bad := filepath.Join(dir, "bad-gmark")
		if err := os.WriteFile(bad, []byte("#!/bin/sh\necho \"gmark: no such luck\" >&2\nexit 3\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		sum, err := Execute(ctx, e, experiment.RunOptions{DB: db}, opts(bad, 1, &log))
		if err == nil || !strings.Contains(err.Error(), "2 of 2 runs failed") || sum.Failed != 2 || sum.Ran != 0 ||
			strings.Count(log.String(), "submitting it again (retry 1 of 1)") != 2 || strings.Count(log.String(), "giving up after 2 tries") != 2 {
			t.Fatalf("%v %+v\n%s", err, sum, log.String())
		}
		tasks := storeTasks(t, db)
		for _, k := range tasks {
			if k.State != store.SimTaskFailed || k.Reason != "FAILED, exit status 3: gmark: no such luck" || k.StartedNS == 0 || k.EndedNS < k.StartedNS {
				t.Errorf("%+v", k)
			}
		}
		if len(tasks) != 4 || counts(t, db)["sim_attempts"] != 4 || counts(t, db)["sim_results"] != 0 {
			t.Errorf("%d tasks, %v", len(tasks), counts(t, db))
		}
		log.Reset()
		sum, err = Execute(ctx, e, experiment.RunOptions{DB: db}, opts(gmark, 1, &log))
		if err != nil || sum.Ran != 2 {
			t.Fatalf("again: %v %+v\n%s", err, sum, log.String())
		}
		tasks = storeTasks(t, db)
		if len(tasks) != 6 || tasks[4].Try != 3 || tasks[5].Try != 3 || tasks[5].State != store.SimTaskCompleted {
			t.Errorf("%+v", tasks)
		}
	})
}
