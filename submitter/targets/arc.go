package targets

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/arc"
	"github.com/gmark/gmark/submitter/target"
)

// arcTarget submits to ARC CEs through their REST interface; [arc] is its
// arc.Config, with its [[arc.ce]].
var arcTarget = Spec{
	Name:    "arc",
	Doc:     "ARC CEs through their REST interface, named in the targets file",
	section: sectionOf[arc.Config](checkARC),
	make: func(_ context.Context, m maker) (submitter.Target, any, error) {
		cfg, err := arcConfig(m)
		if err != nil {
			return nil, nil, err
		}
		t, err := arc.New(cfg)
		if err != nil {
			return nil, nil, &InputError{err}
		}
		return t, t.Config(), nil
	},
	check: func(m maker) error {
		cfg, err := arcConfig(m)
		if err != nil {
			return err
		}
		return inputError(cfg.Check())
	},
}

// checkARC checks the [arc] section: its CEs (a name each, unique, and an
// https URL) and its numbers.
func checkARC(c *checker, a *arc.Config) {
	for _, k := range [][2]string{{a.WorkDir, "workdir"}, {a.Executable, "executable"}, {a.Proxy, "proxy"}, {a.CADir, "ca_dir"}} {
		c.str(k[0], k[1])
	}
	c.duration(a.Poll, pollRange, "poll")
	c.duration(a.UnreachableAfter, unreachableRange, "unreachable_after")
	c.duration(a.RequestTimeout, timeoutRange, "request_timeout")
	c.duration(a.ClaimRetry, claimRetryRange, "claim_retry")
	c.count(a.ClaimTries, 1, target.MaxClaimTries, "claim_tries")
	if len(a.CEs) > MaxClusters {
		c.fail(fmt.Sprintf("%d CEs; at most %d", len(a.CEs), MaxClusters), "ce")
	}
	seen := map[string]bool{}
	for _, e := range a.CEs {
		c.ceName(e.Name, seen)
		if e.URL == "" {
			c.fail(fmt.Sprintf("CE %s: url \"\" is not https://host:port/arex", e.Name), "ce")
		} else if u, err := url.Parse(e.URL); err != nil || u.Scheme != "https" || u.Host == "" {
			c.fail(fmt.Sprintf("CE %s: url %q is not https://host:port/arex", e.Name, e.URL), "ce", "url")
		}
		c.str(e.URL, "ce", "url")
		c.str(e.Queue, "ce", "queue")
	}
}

// arcConfig is the arc target's configuration: the targets file's [arc],
// or a resumed run's recorded one.
func arcConfig(m maker) (arc.Config, error) {
	var cfg arc.Config
	if m.o.File != "" {
		s := Section[arc.Config](m.file, "arc")
		if s == nil {
			return cfg, inputErrorf("targets file %s: no [arc] section", m.o.File)
		}
		cfg = *s
	} else if !m.fromRecord(&cfg) {
		return cfg, inputErrorf("--target arc needs a targets file naming the CEs (--targets; docs/grid.md)")
	}
	if m.o.Executable != "" {
		cfg.Executable = m.o.Executable
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(m.o.RunDir, "arc")
	}
	return cfg, nil
}

// inputError is err as an *InputError (nil for nil).
func inputError(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{err}
}
