package targets

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/gram"
	"github.com/gmark/gmark/submitter/target"
)

// gramTarget submits to Globus GRAM5 gatekeepers through globusrun; [gram]
// is its gram.Config, with its [[gram.ce]].
var gramTarget = Spec{
	Name:    "gram",
	Doc:     "Globus GRAM5 gatekeepers through globusrun, named in the targets file",
	section: sectionOf[gram.Config](checkGRAM),
	make: func(_ context.Context, m maker) (submitter.Target, any, error) {
		cfg, err := gramConfig(m)
		if err != nil {
			return nil, nil, err
		}
		t, err := gram.New(cfg)
		if err != nil {
			return nil, nil, &InputError{err}
		}
		return t, t.Config(), nil
	},
	check: func(m maker) error {
		cfg, err := gramConfig(m)
		if err != nil {
			return err
		}
		return inputError(cfg.Check())
	},
}

var twoPhaseRange = [2]time.Duration{time.Minute, 24 * time.Hour}

// checkGRAM checks the [gram] section: its gatekeepers (a name each,
// unique, and a contact host:port/jobmanager-LRM) and its numbers.
func checkGRAM(c *checker, g *gram.Config) {
	for _, k := range [][2]string{{g.WorkDir, "workdir"}, {g.Executable, "executable"}, {g.Proxy, "proxy"}, {g.CADir, "ca_dir"}} {
		c.str(k[0], k[1])
	}
	c.duration(g.Poll, pollRange, "poll")
	c.duration(g.UnreachableAfter, unreachableRange, "unreachable_after")
	c.duration(g.CommandTimeout, timeoutRange, "command_timeout")
	c.duration(g.ClaimRetry, claimRetryRange, "claim_retry")
	c.duration(g.TwoPhase, twoPhaseRange, "two_phase")
	c.count(g.ClaimTries, 1, target.MaxClaimTries, "claim_tries")
	c.count(g.Parallel, 1, 64, "parallel")
	if len(g.CEs) > MaxClusters {
		c.fail(fmt.Sprintf("%d gatekeepers; at most %d", len(g.CEs), MaxClusters), "ce")
	}
	seen := map[string]bool{}
	for _, e := range g.CEs {
		c.ceName(e.Name, seen)
		hostPort, service, ok := strings.Cut(e.Contact, "/")
		switch {
		case e.Contact == "":
			c.fail(fmt.Sprintf("gatekeeper %s: contact \"\" is not host:port/jobmanager-LRM", e.Name), "ce")
		case !ok || hostPort == "" || !strings.HasPrefix(service, "jobmanager") || strings.ContainsAny(e.Contact, " \t"):
			c.fail(fmt.Sprintf("gatekeeper %s: contact %q is not host:port/jobmanager-LRM", e.Name, e.Contact), "ce", "contact")
		}
		c.str(e.Contact, "ce", "contact")
		c.str(e.Queue, "ce", "queue")
	}
}

// gramConfig is the gram target's configuration: the targets file's
// [gram], or a resumed run's recorded one.
func gramConfig(m maker) (gram.Config, error) {
	var cfg gram.Config
	if m.o.File != "" {
		s := Section[gram.Config](m.file, "gram")
		if s == nil {
			return cfg, inputErrorf("targets file %s: no [gram] section", m.o.File)
		}
		cfg = *s
	} else if !m.fromRecord(&cfg) {
		return cfg, inputErrorf("--target gram needs a targets file naming the gatekeepers (--targets; docs/grid.md)")
	}
	if m.o.Executable != "" {
		cfg.Executable = m.o.Executable
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(m.o.RunDir, "gram")
	}
	return cfg, nil
}
