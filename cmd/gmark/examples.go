package main

import (
	"fmt"

	"github.com/gmark/gmark/examples"
	"github.com/urfave/cli/v2"
)

func init() { makers = append(makers, examplesCommand) }

func examplesCommand() *cli.Command {
	var force bool
	return &cli.Command{
		Name:  "examples",
		Usage: "list the shipped examples built into gmark, or write them out",
		Description: "The WDL specs and DAS-2 grids of the repository's examples/ are built into gmark: outside the\n" +
			"repository, 'gmark run examples/quickstart.wdl' and the default --grid examples/das2.toml use them.\n" +
			"'gmark examples write DIR' writes them into DIR, to read or edit.",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("%q is not a command of gmark examples; run 'gmark examples --help'", c.Args().First())
			}
			for _, n := range examples.Names() {
				fmt.Fprintln(c.App.Writer, examples.Dir+"/"+n)
			}
			return nil
		},
		Subcommands: []*cli.Command{{
			Name: "write", Usage: "write the examples into a directory", ArgsUsage: "DIR",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Destination: &force, Usage: "replace files that differ from the built-in examples"}},
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageErrorf("examples write takes one directory")
				}
				written, err := examples.WriteAll(c.Args().First(), force)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "wrote %d examples into %s\n", len(written), c.Args().First())
				return nil
			},
		}},
	}
}
