package targets

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/target"
)

// slurmTarget submits through sbatch to one or more clusters; [slurm] is
// its slurm.Config, with its [[slurm.clusters]].
var slurmTarget = Spec{
	Name:    "slurm",
	Doc:     "sbatch, one or more clusters named in the targets file",
	section: sectionOf[slurm.Config](checkSlurm),
	make:    newSlurm,
	check: func(m maker) error {
		cfg, err := slurmConfig(m)
		if err != nil {
			return err
		}
		if err := cfg.Check(); err != nil {
			return &InputError{err}
		}
		return nil
	},
}

// MaxPollCPUFactor bounds the slurm target's poll_cpu_factor: beyond it
// every costly poll waits slurm.MaxPollWait anyway.
const MaxPollCPUFactor = 100000

// checkSlurm checks the [slurm] section and its clusters.
func checkSlurm(c *checker, s *slurm.Config) {
	c.str(s.WorkDir, "workdir")
	c.str(s.Executable, "executable")
	c.list(s.SbatchArgs, "sbatch_args")
	c.duration(s.Poll, pollRange, "poll")
	c.count(s.PollCPUFactor, 1, MaxPollCPUFactor, "poll_cpu_factor")
	c.duration(s.UnreachableAfter, unreachableRange, "unreachable_after")
	c.duration(s.CommandTimeout, timeoutRange, "command_timeout")
	c.duration(s.ClaimRetry, claimRetryRange, "claim_retry")
	c.count(s.ClaimTries, 1, target.MaxClaimTries, "claim_tries")
	switch s.Dependencies {
	case "", "gmark", "slurm":
	default:
		c.fail(fmt.Sprintf("%q: gmark or slurm", s.Dependencies), "dependencies")
	}
	if len(s.Clusters) > MaxClusters {
		c.fail(fmt.Sprintf("%d clusters; at most %d", len(s.Clusters), MaxClusters), "clusters")
	}
	seen := map[string]bool{}
	for _, cl := range s.Clusters {
		switch {
		case cl.Name == "":
			c.fail("a cluster has no name", "clusters")
		case !clusterName(cl.Name):
			c.fail(fmt.Sprintf("cluster name %q: use letters, digits, '-' and '_'", cl.Name), "clusters", "name")
		case seen[cl.Name]:
			c.fail(fmt.Sprintf("cluster %s is named twice", cl.Name), "clusters", "name")
		}
		seen[cl.Name] = true
		c.str(cl.Conf, "clusters", "conf")
		c.str(cl.Partition, "clusters", "partition")
	}
}

func newSlurm(_ context.Context, m maker) (submitter.Target, any, error) {
	cfg, err := slurmConfig(m)
	if err != nil {
		return nil, nil, err
	}
	t, err := slurm.New(cfg)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	return t, t.Config(), nil
}

// slurmConfig is the slurm target's configuration: the targets file's
// [slurm] (which a targets file must have), or a resumed run's recorded
// one, or the defaults.
func slurmConfig(m maker) (slurm.Config, error) {
	var cfg slurm.Config
	if m.o.File != "" {
		s := Section[slurm.Config](m.file, "slurm")
		if s == nil {
			return cfg, inputErrorf("targets file %s: no [slurm] section", m.o.File)
		}
		cfg = *s
	} else {
		m.fromRecord(&cfg)
	}
	if m.o.Executable != "" {
		cfg.Executable = m.o.Executable
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(m.o.RunDir, "slurm")
	}
	return cfg, nil
}
