package main

import (
	"errors"

	"github.com/gmark/gmark/internal/cliflag"
	"github.com/gmark/gmark/placeholder/experiment"
	"github.com/urfave/cli/v2"
)

func placeholderExperimentCommand() *cli.Command {
	var format, output string
	return &cli.Command{Name: "experiment", ArgsUsage: "FILE.toml", Usage: "run a workload over emulated sites both ways (static split, placeholders) in simulated or scaled time",
		Flags: append([]cli.Flag{&cli.StringFlag{Name: "format", Value: "text", Destination: &format, Usage: "text or json"}},
			cliflag.Renamed(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &output, Usage: "write the report, its figures and index.html into this directory"}, "out")...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("placeholder experiment takes one experiment file")
			}
			err := experiment.RunFile(c.Args().First(), format, output, c.App.Writer)
			if errors.Is(err, experiment.ErrInput) {
				return usageError{err}
			}
			return err
		}}
}
