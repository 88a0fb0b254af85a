package targets

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/local"
)

// localTarget runs jobs as processes of this machine; [local] is its
// local.Config.
var localTarget = Spec{
	Name:    "local",
	Doc:     "real processes within a processor budget",
	section: sectionOf[local.Config](checkLocal),
	make:    newLocal,
}

// checkLocal checks the [local] section.
func checkLocal(c *checker, l *local.Config) {
	c.count(l.Processors, 1, MaxProcessors, "processors")
	c.str(l.Executable, "executable")
	c.list(l.Env, "env")
	for _, kv := range l.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			c.fail(fmt.Sprintf("%q is not KEY=VALUE", kv), "env")
		}
	}
}

func newLocal(_ context.Context, m maker) (submitter.Target, any, error) {
	cfg := sectionOr[local.Config](m, "local")
	if !m.fromRecord(&cfg) {
		cfg.Dir = filepath.Join(m.o.RunDir, "local")
	}
	if m.o.Processors != 0 {
		cfg.Processors = m.o.Processors
	}
	if m.o.Executable != "" {
		cfg.Executable = m.o.Executable
	}
	t, err := local.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return t, t.Config(), nil
}
