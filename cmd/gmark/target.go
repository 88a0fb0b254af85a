package main

import (
	"context"
	"errors"

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

func stringFlag(c *cli.Context, name string) targets.Flag {
	return targets.Flag{Value: c.String(name), Set: c.IsSet(name)}
}

// targetOptionsOf reads the target flags of the command.
func targetOptionsOf(c *cli.Context) targetOptions {
	o := targetOptions{fileSet: c.IsSet("targets"), Options: targets.Options{File: c.String("targets"),
		NewRunDir: c.IsSet("run-dir"), Executable: c.String("gmark"),
		Koala: targets.KoalaOptions{Endpoint: stringFlag(c, "endpoint"), Grid: stringFlag(c, "grid"),
			TokenFile: stringFlag(c, "token-file"), Token: c.String("token"), Policy: stringFlag(c, "policy"),
			Priority: stringFlag(c, "priority"), Runner: stringFlag(c, "runner")}}}
	if c.IsSet("processors") {
		o.Processors = c.Int("processors")
	}
	return o
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
