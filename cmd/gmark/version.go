package main

import (
	"fmt"
	"runtime"

	"github.com/gmark/gmark/internal/version"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "version",
		Usage: "print gmark's version",
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "gmark %s (%s, %s/%s)\n", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	})
}
