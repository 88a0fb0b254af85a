// Command gmark generates grid and cluster workloads, submits them to
// schedulers, and reports on the results. Each subcommand lives in its own file
// and adds itself to commands in an init function.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"sync/atomic"
	"syscall"

	"github.com/gmark/gmark/internal/cliflag"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/sqlitefile"
	"github.com/gmark/gmark/internal/version"
	"github.com/gmark/gmark/placeholder"
	"github.com/urfave/cli/v2"
)

// commands and makers are filled by the init functions of the command files;
// a maker's command is made anew for each app, its flags bound to its own fields.
var commands, makers = []*cli.Command(nil), []func() *cli.Command(nil)

// Exit codes: 0 success, 1 a failure while working (or a failed check, such
// as a regression gate), 2 bad usage or bad input (nothing was written).
const (
	exitFailure = 1
	exitUsage   = 2

	// helpTopicMissing is urfave/cli's exit code for 'gmark help NAME' of
	// an unknown NAME: bad usage, so it exits 2.
	helpTopicMissing = 3
)

// usageError marks an error caused by the user's input, which exits with 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func newApp() *cli.App {
	cmds := append([]*cli.Command(nil), commands...)
	for _, mk := range makers {
		cmds = append(cmds, mk())
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	app := &cli.App{
		Name:                 "gmark",
		Usage:                "grid and cluster workload generation and benchmarking",
		Version:              version.String(),
		EnableBashCompletion: true,
		Commands:             cmds,
		Description: "gmark reads a workload description (WDL), generates the workload, submits it on\n" +
			"schedule to a scheduler, records every job in SQLite and reports on the results.\n" +
			"Run 'gmark COMMAND --help' for the flags of a command.",
		// Errors are printed by main, once, with the right exit code.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	// Bad flags, no command or an unknown one: bad usage (exit 2), with
	// the nearest names; help in one format (internal/cliflag).
	cliflag.Prepare(app, func(err error) error { return usageError{err} })
	return app
}

func main() {
	// A panic is a bug in gmark, never bad input: it exits 1 with the
	// stack, not with the runtime's 2 that would read as a usage error.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "gmark: internal error: %v\n%s\nThis is a bug in gmark; please report it with the command that caused it.\n", r, debug.Stack())
			os.Exit(exitFailure)
		}
	}()
	ctx, stop := interruptContext()
	code := runGmark(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runGmark runs gmark with args (args[0] is the program's name) and returns its
// exit status; the commands write to stdout and stderr, so that they can be
// run in-process by tests.
func runGmark(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp()
	app.Writer, app.ErrWriter = stdout, stderr
	err := app.RunContext(ctx, interspersed(app, args))
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "gmark:", err)
	var ue usageError
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ue), cliflag.IsUsage(err):
		return exitUsage
	case readlimit.IsInput(err), sqlitefile.IsInput(err), errors.Is(err, placeholder.ErrInput):
		return exitUsage // a FIFO, /dev/zero, a file too large, a damaged state, a bad file of commands
	case errors.As(err, &ec) && ec.ExitCode() == helpTopicMissing:
		return exitUsage
	case errors.As(err, &ec):
		return ec.ExitCode()
	default:
		return exitFailure
	}
}

// watchesInterrupts is set by the commands that stop cleanly when their
// context is cancelled (they record what they did and say how to resume).
var watchesInterrupts atomic.Bool

// watchInterrupts tells main that the running command stops cleanly on an
// interrupt: the first SIGINT or SIGTERM only cancels its context.
func watchInterrupts() { watchesInterrupts.Store(true) }

// interruptContext is the one signal context of gmark: the first SIGINT or
// SIGTERM cancels it. A command that watches it (watchInterrupts) winds
// down and records; for any other, the signal then takes its default
// action and the process ends, as if gmark had not caught it. Either way a
// second signal ends the process at once.
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel()
			signal.Stop(sigs)
			if !watchesInterrupts.Load() {
				if s, ok := sig.(syscall.Signal); ok {
					_ = syscall.Kill(os.Getpid(), s)
				}
			}
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
