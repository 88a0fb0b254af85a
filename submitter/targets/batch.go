package targets

import (
	"context"
	"path/filepath"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/batch"
)

// condorTarget and sgeTarget submit through HTCondor's and Grid Engine's
// commands; [condor] and [sge] are each a batch.Config.
var (
	condorTarget = Spec{
		Name:    "condor",
		Doc:     "HTCondor, through condor_submit and condor_q",
		section: sectionOf[batch.Config](checkBatch),
		make:    newBatch("condor", batch.NewCondor),
	}
	sgeTarget = Spec{
		Name:    "sge",
		Doc:     "Grid Engine, through qsub and qstat",
		section: sectionOf[batch.Config](checkBatch),
		make:    newBatch("sge", batch.NewSGE),
	}
)

// checkBatch checks a [condor] or [sge] section.
func checkBatch(c *checker, cfg *batch.Config) {
	c.str(cfg.WorkDir, "workdir")
	c.str(cfg.Executable, "executable")
	c.list(cfg.SubmitArgs, "submit_args")
	c.duration(cfg.Poll, pollRange, "poll")
	c.duration(cfg.UnreachableAfter, unreachableRange, "unreachable_after")
	c.duration(cfg.CommandTimeout, timeoutRange, "command_timeout")
}

func newBatch(name string, newTarget func(batch.Config) (*batch.Target, error)) func(context.Context, maker) (submitter.Target, any, error) {
	return func(_ context.Context, m maker) (submitter.Target, any, error) {
		cfg := sectionOr[batch.Config](m, name)
		m.fromRecord(&cfg)
		if m.o.Executable != "" {
			cfg.Executable = m.o.Executable
		}
		if cfg.WorkDir == "" {
			cfg.WorkDir = filepath.Join(m.o.RunDir, name)
		}
		t, err := newTarget(cfg)
		if err != nil {
			return nil, nil, &InputError{err}
		}
		return t, t.Config(), nil
	}
}
