package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/gmark/gmark/internal/cliflag"
	"github.com/gmark/gmark/internal/progress"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/sim/experiment"
	"github.com/gmark/gmark/sim/slurmarray"
	"github.com/urfave/cli/v2"
)

// gmark sim: experiments of the multi-grid simulator (package sim/experiment;
// docs/sim.md).
func init() { makers = append(makers, simCommand) }

// simFlags are the values of the flags of 'gmark sim run' and 'report';
// line holds --targets, --array-limit, --retries and run's --jobs.
type simFlags struct {
	db, on, format, output string
	parallel, jobsOfRun    int
	scale                  float64
	quiet                  bool
	slurmConf              cli.StringSlice
	line                   slurmarray.CommandLine
}

func simCommand() *cli.Command {
	o := &simFlags{}
	db := &cli.StringFlag{Name: "db", Value: "results.db", Destination: &o.db, Usage: "results store (SQLite)"}
	return &cli.Command{
		Name:  "sim",
		Usage: "multi-grid simulation experiments (DGSim-style): run an experiment file, report on it",
		Description: "An experiment file (TOML, docs/sim.md) names a topology and scenarios × architectures × load\n" +
			"levels × repetitions; 'run' expands it into runs, simulates them in parallel and records each in the\n" +
			"results store as it ends; 'report' prints the standard metrics per run and over repetitions.",
		Subcommands: []*cli.Command{{
			Name: "run", Usage: "run the runs of an experiment that the store has no result for", ArgsUsage: "EXPERIMENT.toml",
			Description: "Killed or interrupted, it keeps every run that ended: the same command again does the rest\n" +
				"(a run in progress is done again from its start). One process at a time works on a store.",
			Flags: []cli.Flag{db,
				&cli.IntFlag{Name: "parallel", Aliases: []string{"j"}, DefaultText: "GOMAXPROCS", Destination: &o.parallel, Usage: "runs at once"},
				&cli.Float64Flag{Name: "scale", Value: 1, Destination: &o.scale, Usage: "a reduced version: every workload shortened to this fraction of its span (0 < F ≤ 1)"},
				&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &o.quiet, Usage: "no progress bar and no summary"},
				&cli.BoolFlag{Name: "jobs", Destination: &o.line.Jobs, Usage: "also record each run's per-job schedule (and add it to the runs recorded without; gmark sim report --jobs)"},
				&cli.StringFlag{Name: "on", Value: "local", Destination: &o.on, Usage: "where the runs run: local, or slurm (a job array task per run; docs/sim.md)"},
				&cli.StringFlag{Name: "targets", Destination: &o.line.Targets, Usage: "--on slurm: a targets file whose [slurm] section names the clusters"},
				&cli.StringSliceFlag{Name: "slurm-conf", DefaultText: "$SLURM_CONF", Destination: &o.slurmConf, Usage: "--on slurm: a cluster's slurm.conf (repeatable)"},
				&cli.IntFlag{Name: "array-limit", DefaultText: "Slurm's choice", Destination: &o.line.ArrayLimit, Usage: "--on slurm: tasks of an array running at once"},
				&cli.IntFlag{Name: "retries", Value: 2, Destination: &o.line.Retries, Usage: "--on slurm: times a run whose task failed is submitted again"},
			},
			Action: o.run,
		}, {
			Name: "task", Hidden: true, ArgsUsage: "MANIFEST INDEX", Usage: "one array task of 'sim run --on slurm'",
			Action: func(c *cli.Context) error {
				i, err := strconv.Atoi(c.Args().Get(1))
				if c.NArg() != 2 || err != nil {
					return usageErrorf("sim task takes a manifest and a task index")
				}
				watchInterrupts()
				return slurmarray.RunTask(c.Context, c.Args().First(), i, os.Args)
			},
		}, {
			Name: "report", Usage: "the standard metrics of experiments: per run and over repetitions", ArgsUsage: "[EXPERIMENT...]",
			Description: "Reports the latest definition of each experiment named (default: every experiment of --db).\n" +
				"-o DIR writes report.txt, report.json, the figures (metric vs load per architecture) and index.html.",
			Flags: append(append(append([]cli.Flag{db},
				cliflag.Renamed(&cli.StringFlag{Name: "format", Value: "text", Destination: &o.format, Usage: "text or json"}, "f")...),
				cliflag.Renamed(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.output, Usage: "write the report, its figures and an HTML page into this directory (--jobs: the file)"}, "out")...),
				&cli.IntFlag{Name: "jobs", Destination: &o.jobsOfRun, Usage: "instead, the per-job schedule of run `N` (from 1) of one experiment: Batsim's jobs.csv columns, or --format swf"}),
			Action: o.report,
		}},
	}
}

func (o *simFlags) run(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("sim run takes one experiment file (see 'gmark sim run --help')")
	}
	if p := o.parallel; cliflag.Given(c, &o.parallel) && (p < 1 || p > 1024) {
		return usageErrorf("--parallel %d: from 1 to 1024", p)
	}
	if s := o.scale; !(s > 0 && s <= 1) {
		return usageErrorf("--scale %g: a fraction in (0, 1]", s)
	}
	o.line.SlurmConfs, o.line.Parallel = o.slurmConf.Value(), cliflag.Given(c, &o.parallel)
	execute, err := slurmarray.ExecutorFor(o.on, o.line,
		cliflag.Given(c, &o.line.Targets) || cliflag.Given(c, &o.slurmConf) || cliflag.Given(c, &o.line.ArrayLimit) || cliflag.Given(c, &o.line.Retries), c.App.ErrWriter)
	if err != nil {
		return usageError{err}
	}
	e, err := experiment.Load(c.Args().First(), experiment.Options{Scale: o.scale})
	if err != nil {
		return usageError{err}
	}
	watchInterrupts()
	bar, w, quiet := &progress.Bar{}, c.App.Writer, o.quiet
	sum, err := execute(c.Context, e, experiment.RunOptions{DB: o.db, Parallel: o.parallel, Jobs: o.line.Jobs,
		CommandLine: record.RedactArgs(os.Args),
		Started: func(planned, done, todo int) {
			if !quiet {
				fmt.Fprintf(w, "experiment %s: %d runs, %d already in %s, %d to run\n", e.Name, planned, done, o.db, todo)
			}
			bar = progress.New(c.App.ErrWriter, progress.Options{Total: int64(todo), Desc: "simulating", Unit: "runs", Quiet: quiet})
		},
		Done: func(r *experiment.Run, err error) {
			bar.Add(1)
			if err != nil {
				fmt.Fprintln(c.App.ErrWriter, "gmark sim run:", err)
			}
		}})
	bar.Done()
	switch {
	case err != nil:
		return simError(err)
	case sum.Interrupted:
		return fmt.Errorf("interrupted: %d runs recorded now, %d before; run the same command again to continue", sum.Ran, sum.AlreadyDone)
	case !quiet:
		fmt.Fprintf(w, "%s; %d of %d are in %s: gmark sim report --db %s %s\n", sum.RanText(o.line.Jobs), sum.Ran+sum.AlreadyDone+sum.JobsAdded, sum.Planned, o.db, o.db, e.Name)
	}
	return err
}

func (o *simFlags) report(c *cli.Context) error {
	if cliflag.Given(c, &o.jobsOfRun) {
		return simError(experiment.WriteJobs(o.db, c.Args().Slice(), o.jobsOfRun, o.format, o.output, c.App.Writer))
	}
	if !slices.Contains([]string{"text", "json"}, o.format) {
		return usageErrorf("--format %q: text or json", o.format)
	}
	if _, err := os.Stat(o.db); err != nil {
		return usageErrorf("results store %s: %v", o.db, errors.Unwrap(err))
	}
	return simError(experiment.WriteReport(o.db, c.Args().Slice(), o.format, o.output, c.App.Writer))
}

// simError makes bad input of a sim command (a store that is not one, an
// experiment the store does not hold) a usage error.
func simError(err error) error {
	if experiment.BadInput(err) {
		return usageError{err}
	}
	return err
}
