package main

import (
	"fmt"

	"github.com/gmark/gmark/internal/version"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "version",
		Usage: "print gmark's version, the revision it was built from, and whether that tree was modified",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf("version takes no arguments")
			}
			printVersion(c)
			return nil
		},
	})
	// 'gmark --version' prints the same line.
	cli.VersionPrinter = printVersion
}

func printVersion(c *cli.Context) { fmt.Fprintln(c.App.Writer, version.Line()) }
