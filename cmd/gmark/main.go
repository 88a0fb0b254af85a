// Command gmark generates grid and cluster workloads, submits them to
// schedulers, and reports on the results. Each subcommand lives in its own file
// and adds itself to commands in an init function.
package main

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/gmark/gmark/internal/version"
	"github.com/urfave/cli/v2"
)

// commands is filled by the init functions of the command files.
var commands []*cli.Command

// Exit codes: 0 success, 1 a failure while working (or a failed check, such
// as a regression gate), 2 bad usage or bad input (nothing was written).
const (
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks an error caused by the user's input, which exits with 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func newApp() *cli.App {
	sort.Slice(commands, func(i, j int) bool { return commands[i].Name < commands[j].Name })
	return &cli.App{
		Name:                 "gmark",
		Usage:                "grid and cluster workload generation and benchmarking",
		Version:              version.String(),
		EnableBashCompletion: true,
		Commands:             commands,
		Description: "gmark reads a workload description (WDL), generates the workload, submits it on\n" +
			"schedule to a scheduler, records every job in SQLite and reports on the results.\n" +
			"Run 'gmark COMMAND --help' for the flags of a command.",
		// Errors are printed by main, once, with the right exit code.
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

func main() {
	app := newApp()
	err := app.Run(interspersed(app, os.Args))
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "gmark:", err)
	var ue usageError
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ue):
		os.Exit(exitUsage)
	case errors.As(err, &ec):
		os.Exit(ec.ExitCode())
	default:
		os.Exit(exitFailure)
	}
}
