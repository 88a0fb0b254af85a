package main

import (
	"os"

	"github.com/gmark/gmark/apps"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "app",
		Usage:     "run a synthetic application (what generated jobs run): " + joinNames(apps.Names()),
		ArgsUsage: "NAME [--flag value ...]",
		Description: "Runs one of GrenchMark's synthetic applications with the parameters the generator\n" +
			"writes into jobs. Standard output carries record lines and ends with one JSON summary line;\n" +
			"the environment places a process in its job: GMARK_JOB_ID, GMARK_SIZE, GMARK_COMPONENT,\n" +
			"GMARK_RENDEZVOUS, and GMARK_RANK or else GMARK_RANK_BASE plus the rank its launcher gives\n" +
			"(srun, mpiexec, PMI/PMIx, HTCondor's parallel universe, pbsdsh). Run 'gmark app NAME --help' for an application's flags;\n" +
			"docs/apps.md documents the work, the output and the environment.\n\n" +
			"Exit status: 0 on success, 1 when the work failed (walltime, lost peer, I/O), 2 on bad flags.",
		// The applications parse their own flags, with messages that name
		// the flag and what it accepts.
		SkipFlagParsing: true,
		Action:          runApp,
	})
}

func runApp(c *cli.Context) error {
	// SIGTERM is how batch systems end a job at its wall time: the
	// application stops and still prints its summary.
	watchInterrupts()
	err := apps.Main(c.Context, c.Args().Slice(), c.App.Writer, c.App.ErrWriter, os.Getenv)
	if apps.ExitCode(err) == exitUsage {
		return usageError{err}
	}
	return err
}

func joinNames(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
