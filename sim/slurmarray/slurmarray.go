// Package slurmarray runs the runs of a simulation experiment as Slurm job
// arrays (`gmark sim run --on slurm`, docs/sim.md): "simulating grids on
// grids". The coordinator (Execute) holds the results store, as a local
// execution does, and gives the runs without a result to arrays, one
// array task per run: each array has a manifest, written before it is
// submitted, and task i computes the run the manifest names at index i
// (RunTask, behind the hidden `gmark sim task`), writing its result file
// into a shared directory. The coordinator polls the arrays (squeue --json
// and the job completion log, through internal/slurmcli), merges each
// result file into the store as it appears (once: merging it again changes
// nothing), and submits a task that ended without a result again, up to
// Options.Retries times per run, recording how each task ended and why in
// sim_tasks.
//
// Everything is in the shared directory and the store, so a coordinator
// killed at any point loses nothing: run again, it reads its manifests,
// finds its arrays in Slurm by name, merges the results written meanwhile
// and goes on; finished runs are not done again. A task computes its run
// with sim/experiment's Compute from the experiment the coordinator read,
// and refuses a run whose digest differs from the coordinator's, so the
// results are those of a local execution, metric for metric.
package slurmarray

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/sim/experiment"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/target"
)

// Options say where and how the arrays run.
type Options struct {
	// Slurm is the targets file's [slurm] section: the clusters (a name
	// and a slurm.conf each), the poll period, the work directory (shared
	// with the nodes: default the store's path with ".slurm"), the gmark
	// binary the tasks run (default this one: it must be at the same path
	// on the nodes), sbatch arguments, the command timeout, and how long a
	// cluster may fail to answer before its tasks count as lost.
	Slurm slurm.Config
	// ArrayLimit is how many tasks of an array run at once
	// (sbatch --array=0-N%ArrayLimit); 0 leaves it to Slurm.
	ArrayLimit int
	// Retries is how many times a run whose task ended without a result
	// is submitted again, per execution.
	Retries int
	// Log receives what the coordinator does: arrays submitted and found,
	// tasks that failed and why. nil discards it.
	Log io.Writer
}

// Ranges of the options (docs/sim.md).
const (
	MaxArrayLimit = 100_000
	MaxRetries    = 100
)

// lostPolls is how many polls in a row a task may be missing from squeue
// and from the job completion log before it counts as lost.
const lostPolls = 3

// resultGrace is how long after a task exited 0 its result file may take
// to appear: a shared filesystem (NFS) may show a new file late.
const resultGrace = time.Minute

// Execute runs the runs of e that the store ro.DB has no result for as
// Slurm array tasks, and records their results as they come. ro's
// Started and Done are called as Execute's are; ro.Parallel is not used
// (the invocation records ArrayLimit as its parallelism). When ctx is
// cancelled the coordinator stops and leaves the arrays running: the
// same call again merges what they wrote.
func Execute(ctx context.Context, e *experiment.Experiment, ro experiment.RunOptions, o Options) (*experiment.Summary, error) {
	c, err := newCoordinator(e, ro, o)
	if err != nil {
		return nil, err
	}
	ro.Parallel = o.ArrayLimit
	s, err := experiment.Open(ctx, e, ro)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	c.s, c.sum = s, s.Summary()
	workDir := o.Slurm.WorkDir
	if workDir == "" {
		workDir = ro.DB + ".slurm"
	}
	if c.l, err = NewLayout(workDir, ro.DB, c.sum.Digest); err != nil {
		return c.sum, err
	}
	for _, cl := range c.clusters {
		cl.prefix = "gmark-sim-" + c.l.Tag + "-s"
	}
	if err := c.l.mkdirs(); err != nil {
		return c.sum, err
	}
	if err := c.start(ctx); err != nil {
		return c.sum, err
	}
	if len(c.queue) > 0 || len(c.slots) > 0 {
		for _, name := range []string{"sbatch", "squeue", "scontrol"} {
			if _, err := exec.LookPath(name); err != nil {
				return c.sum, fmt.Errorf("%s not found: is Slurm installed (apt-get install slurm-client)?", name)
			}
		}
	}
	if err := c.loop(ctx); err != nil {
		return c.sum, err
	}
	if c.sum.Failed > 0 {
		return c.sum, fmt.Errorf("%d of %d runs failed (the first: %s); the others are recorded: run the same command again to retry the failed ones",
			c.sum.Failed, c.sum.Failed+c.sum.Ran, c.firstFailure)
	}
	return c.sum, nil
}

// newCoordinator checks the options and makes the clusters.
func newCoordinator(e *experiment.Experiment, ro experiment.RunOptions, o Options) (*coordinator, error) {
	if o.ArrayLimit < 0 || o.ArrayLimit > MaxArrayLimit {
		return nil, fmt.Errorf("array limit %d: from 0 (none) to %d", o.ArrayLimit, MaxArrayLimit)
	}
	if o.Retries < 0 || o.Retries > MaxRetries {
		return nil, fmt.Errorf("retries %d: from 0 to %d", o.Retries, MaxRetries)
	}
	cfg := o.Slurm
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.CommandTimeout <= 0 {
		cfg.CommandTimeout = time.Minute
	}
	if cfg.UnreachableAfter <= 0 {
		cfg.UnreachableAfter = 2 * time.Minute
	}
	if len(cfg.Clusters) == 0 {
		cfg.Clusters = []slurm.ClusterConfig{{Name: "default", Conf: os.Getenv("SLURM_CONF")}}
	}
	exe := cfg.Executable
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("cannot locate gmark for the tasks: %v", err)
		}
		exe = self
	}
	exe, err := filepath.Abs(exe)
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	c := &coordinator{e: e, ro: ro, o: o, cfg: cfg, exe: exe, byName: map[string]*cluster{}}
	for _, cc := range cfg.Clusters {
		if cc.Name == "" || c.byName[cc.Name] != nil {
			return nil, fmt.Errorf("slurm: cluster %q is unnamed or named twice", cc.Name)
		}
		env := os.Environ()
		if cc.Conf != "" {
			if _, err := os.Stat(cc.Conf); err != nil {
				return nil, fmt.Errorf("slurm: cluster %s: %v", cc.Name, err)
			}
			env = append(env, "SLURM_CONF="+cc.Conf)
		}
		cl := &cluster{name: cc.Name, partition: cc.Partition, maxArray: defaultMaxArray,
			cmd: target.Command{Timeout: cfg.CommandTimeout, Env: env, TransientMessages: slurmcli.TransientMessages}}
		c.clusters = append(c.clusters, cl)
		c.byName[cc.Name] = cl
	}
	return c, nil
}

// wait sleeps one poll period; false when ctx ended first.
func (c *coordinator) wait(ctx context.Context) bool {
	t := time.NewTimer(c.cfg.Poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// errInterrupted ends the loop when ctx is cancelled.
var errInterrupted = errors.New("interrupted")
