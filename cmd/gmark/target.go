package main

import (
	"context"
	"errors"

	"github.com/gmark/gmark/internal/cliflag"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/targets"
	"github.com/urfave/cli/v2"
)

// targetOptions are the flags that make a target (gmark submit, gmark run),
// and whether the targets file was given.
type targetOptions struct {
	targets.Options
	fileSet bool
}

// given marks the flags of the koala target and the targets file that the
// command line gave, the flags bound to o's fields (koalaTargetFlags).
func (o *targetOptions) given(c *cli.Context) {
	k := &o.Koala
	for _, f := range []*targets.Flag{&k.Endpoint, &k.Grid, &k.TokenFile, &k.Policy, &k.Priority, &k.Runner} {
		f.Set = cliflag.Given(c, &f.Value)
	}
	o.fileSet = cliflag.Given(c, &o.File)
}

// newTarget makes the target named by --target (targets.New) in runDir;
// recorded is a resumed run's recorded target configuration.
func newTarget(ctx context.Context, o targetOptions, name, runDir string, recorded []byte) (submitter.Target, any, error) {
	o.RunDir = runDir
	t, cfg, err := targets.New(ctx, name, o.Options, recorded)
	return t, cfg, targetError(err)
}

// targetError makes a target's bad input a usage error (exit 2).
func targetError(err error) error {
	var ie *targets.InputError
	if errors.As(err, &ie) {
		return usageError{err}
	}
	return err
}
