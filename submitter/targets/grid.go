package targets

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/arc"
	"github.com/gmark/gmark/submitter/gram"
	"github.com/gmark/gmark/submitter/target"
)

// checkARC checks the [arc] section: its CEs (a name each, unique, and an
// https URL) and its numbers.
func (c *checker) checkARC(a *arc.Config) {
	if a == nil {
		return
	}
	for _, k := range [][2]string{{a.WorkDir, "workdir"}, {a.Executable, "executable"}, {a.Proxy, "proxy"}, {a.CADir, "ca_dir"}} {
		c.str(k[0], "arc", k[1])
	}
	c.duration(a.Poll, pollRange, "arc", "poll")
	c.duration(a.UnreachableAfter, unreachableRange, "arc", "unreachable_after")
	c.duration(a.RequestTimeout, timeoutRange, "arc", "request_timeout")
	c.duration(a.ClaimRetry, claimRetryRange, "arc", "claim_retry")
	c.count(a.ClaimTries, 1, target.MaxClaimTries, "arc", "claim_tries")
	if len(a.CEs) > MaxClusters {
		c.fail(fmt.Sprintf("%d CEs; at most %d", len(a.CEs), MaxClusters), "arc", "ce")
	}
	seen := map[string]bool{}
	for _, e := range a.CEs {
		c.ceName(e.Name, seen, "arc")
		if e.URL == "" {
			c.fail(fmt.Sprintf("CE %s: url \"\" is not https://host:port/arex", e.Name), "arc", "ce")
		} else if u, err := url.Parse(e.URL); err != nil || u.Scheme != "https" || u.Host == "" {
			c.fail(fmt.Sprintf("CE %s: url %q is not https://host:port/arex", e.Name, e.URL), "arc", "ce", "url")
		}
		c.str(e.URL, "arc", "ce", "url")
		c.str(e.Queue, "arc", "ce", "queue")
	}
}

// ceName checks the name of a CE of section sec.
func (c *checker) ceName(name string, seen map[string]bool, sec string) {
	switch {
	case name == "":
		c.fail("a CE has no name", sec, "ce")
	case !clusterName(name):
		c.fail(fmt.Sprintf("CE name %q: use letters, digits, '-' and '_'", name), sec, "ce", "name")
	case seen[name]:
		c.fail(fmt.Sprintf("CE %s is named twice", name), sec, "ce", "name")
	}
	seen[name] = true
}

// arcConfig is the arc target's configuration: the targets file's [arc],
// or a resumed run's recorded one.
func arcConfig(o Options, tf File, fromRecord func(any) bool) (arc.Config, error) {
	var cfg arc.Config
	if o.File != "" {
		if tf.ARC == nil {
			return cfg, inputErrorf("targets file %s: no [arc] section", o.File)
		}
		cfg = *tf.ARC
	} else if !fromRecord(&cfg) {
		return cfg, inputErrorf("--target arc needs a targets file naming the CEs (--targets; docs/grid.md)")
	}
	if o.Executable != "" {
		cfg.Executable = o.Executable
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(o.RunDir, "arc")
	}
	return cfg, nil
}

func newARC(o Options, tf File, fromRecord func(any) bool) (submitter.Target, any, error) {
	cfg, err := arcConfig(o, tf, fromRecord)
	if err != nil {
		return nil, nil, err
	}
	t, err := arc.New(cfg)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	return t, t.Config(), nil
}

var twoPhaseRange = [2]time.Duration{time.Minute, 24 * time.Hour}

// checkGRAM checks the [gram] section: its gatekeepers (a name each,
// unique, and a contact host:port/jobmanager-LRM) and its numbers.
func (c *checker) checkGRAM(g *gram.Config) {
	if g == nil {
		return
	}
	for _, k := range [][2]string{{g.WorkDir, "workdir"}, {g.Executable, "executable"}, {g.Proxy, "proxy"}, {g.CADir, "ca_dir"}} {
		c.str(k[0], "gram", k[1])
	}
	c.duration(g.Poll, pollRange, "gram", "poll")
	c.duration(g.UnreachableAfter, unreachableRange, "gram", "unreachable_after")
	c.duration(g.CommandTimeout, timeoutRange, "gram", "command_timeout")
	c.duration(g.ClaimRetry, claimRetryRange, "gram", "claim_retry")
	c.duration(g.TwoPhase, twoPhaseRange, "gram", "two_phase")
	c.count(g.ClaimTries, 1, target.MaxClaimTries, "gram", "claim_tries")
	c.count(g.Parallel, 1, 64, "gram", "parallel")
	if len(g.CEs) > MaxClusters {
		c.fail(fmt.Sprintf("%d gatekeepers; at most %d", len(g.CEs), MaxClusters), "gram", "ce")
	}
	seen := map[string]bool{}
	for _, e := range g.CEs {
		c.ceName(e.Name, seen, "gram")
		hostPort, service, ok := strings.Cut(e.Contact, "/")
		switch {
		case e.Contact == "":
			c.fail(fmt.Sprintf("gatekeeper %s: contact \"\" is not host:port/jobmanager-LRM", e.Name), "gram", "ce")
		case !ok || hostPort == "" || !strings.HasPrefix(service, "jobmanager") || strings.ContainsAny(e.Contact, " \t"):
			c.fail(fmt.Sprintf("gatekeeper %s: contact %q is not host:port/jobmanager-LRM", e.Name, e.Contact), "gram", "ce", "contact")
		}
		c.str(e.Contact, "gram", "ce", "contact")
		c.str(e.Queue, "gram", "ce", "queue")
	}
}

// gramConfig is the gram target's configuration: the targets file's
// [gram], or a resumed run's recorded one.
func gramConfig(o Options, tf File, fromRecord func(any) bool) (gram.Config, error) {
	var cfg gram.Config
	if o.File != "" {
		if tf.GRAM == nil {
			return cfg, inputErrorf("targets file %s: no [gram] section", o.File)
		}
		cfg = *tf.GRAM
	} else if !fromRecord(&cfg) {
		return cfg, inputErrorf("--target gram needs a targets file naming the gatekeepers (--targets; docs/grid.md)")
	}
	if o.Executable != "" {
		cfg.Executable = o.Executable
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(o.RunDir, "gram")
	}
	return cfg, nil
}

func newGRAM(o Options, tf File, fromRecord func(any) bool) (submitter.Target, any, error) {
	cfg, err := gramConfig(o, tf, fromRecord)
	if err != nil {
		return nil, nil, err
	}
	t, err := gram.New(cfg)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	return t, t.Config(), nil
}

// checkGrid is Check for the arc and gram targets.
func checkGrid(name string, o Options, tf File, fromRecord func(any) bool) error {
	var err error
	if name == "arc" {
		var cfg arc.Config
		if cfg, err = arcConfig(o, tf, fromRecord); err == nil {
			err = cfg.Check()
		}
	} else {
		var cfg gram.Config
		if cfg, err = gramConfig(o, tf, fromRecord); err == nil {
			err = cfg.Check()
		}
	}
	var ie *InputError
	if err != nil && !errors.As(err, &ie) {
		err = &InputError{err}
	}
	return err
}
