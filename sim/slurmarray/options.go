package slurmarray

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/sim/experiment"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/targets"
)

// CommandLine is what `gmark sim run --on slurm` was given.
type CommandLine struct {
	Targets    string   // a targets file: its [slurm] section
	SlurmConfs []string // or the slurm.conf of each cluster
	ArrayLimit int
	Retries    int
	Parallel   bool // --parallel was given: it is --on local's
	Jobs       bool // --jobs was given: per-job rows are --on local's
}

// NewOptions checks the command line and makes the options: the clusters
// of the targets file's [slurm] section, or one cluster per slurm.conf
// (named by its ClusterName), or the environment's. Every error is the
// user's input.
func NewOptions(cl CommandLine) (Options, error) {
	o := Options{ArrayLimit: cl.ArrayLimit, Retries: cl.Retries}
	switch {
	case cl.Parallel:
		return o, errors.New("--parallel is for --on local; on Slurm, --array-limit bounds the tasks of an array at once")
	case cl.ArrayLimit < 0 || cl.ArrayLimit > MaxArrayLimit:
		return o, fmt.Errorf("--array-limit %d: from 1 to %d (or 0: Slurm's choice)", cl.ArrayLimit, MaxArrayLimit)
	case cl.Retries < 0 || cl.Retries > MaxRetries:
		return o, fmt.Errorf("--retries %d: from 0 to %d", cl.Retries, MaxRetries)
	case cl.Targets != "" && len(cl.SlurmConfs) > 0:
		return o, errors.New("--targets and --slurm-conf both name the clusters: give one")
	case cl.Targets != "":
		f, err := targets.Load(cl.Targets)
		if err != nil {
			return o, err
		}
		s := targets.Section[slurm.Config](f, "slurm")
		if s == nil {
			return o, fmt.Errorf("%s has no [slurm] section: it names no Slurm cluster", cl.Targets)
		}
		o.Slurm = *s
	}
	seen := map[string]bool{}
	for i, conf := range cl.SlurmConfs {
		name := clusterName(conf, i+1)
		for seen[name] {
			name += "-" + fmt.Sprint(i+1)
		}
		seen[name] = true
		if _, err := os.Stat(conf); err != nil {
			return o, fmt.Errorf("--slurm-conf %s: %v", conf, errors.Unwrap(err))
		}
		o.Slurm.Clusters = append(o.Slurm.Clusters, slurm.ClusterConfig{Name: name, Conf: conf})
	}
	return o, nil
}

// clusterName is a slurm.conf's ClusterName, or cluster<i>.
func clusterName(conf string, i int) string {
	b, err := readlimit.File(conf, 1<<20)
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "ClusterName") && strings.TrimSpace(v) != "" {
				return strings.Fields(v)[0]
			}
		}
	}
	return fmt.Sprintf("cluster%d", i)
}

// ExecuteFunc computes an experiment's runs: experiment.Execute, or
// Execute on Slurm.
type ExecuteFunc func(ctx context.Context, e *experiment.Experiment, ro experiment.RunOptions) (*experiment.Summary, error)

// ExecutorFor is how `gmark sim run --on ON` computes the runs: "local"
// (experiment.Execute; the Slurm flags, set in slurmFlags, are refused) or
// "slurm" (job arrays, logging to log). Every error is the user's input.
func ExecutorFor(on string, cl CommandLine, slurmFlags bool, log io.Writer) (ExecuteFunc, error) {
	switch {
	case on == "slurm" && cl.Jobs:
		return nil, fmt.Errorf("--jobs: the per-job rows are recorded by runs on this machine (--on local); run the experiment with --on slurm, then --on local --jobs adds them")
	case on == "slurm":
		so, err := NewOptions(cl)
		if err != nil {
			return nil, err
		}
		so.Log = log
		return func(ctx context.Context, e *experiment.Experiment, ro experiment.RunOptions) (*experiment.Summary, error) {
			return Execute(ctx, e, ro, so)
		}, nil
	case on != "local" || slurmFlags:
		return nil, fmt.Errorf("--on %q: local or slurm (--targets, --slurm-conf, --array-limit and --retries are --on slurm's)", on)
	}
	return experiment.Execute, nil
}
