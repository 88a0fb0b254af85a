package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/cliflag"
	"github.com/gmark/gmark/internal/progress"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/koalatarget"
	"github.com/gmark/gmark/submitter/provenance"
	"github.com/gmark/gmark/submitter/targets"
	"github.com/urfave/cli/v2"
)

func init() { makers = append(makers, submitCommand) }

func submitCommand() *cli.Command {
	o := &submitOptions{}
	s := &o.settings
	return &cli.Command{
		Name:      "submit",
		Usage:     "submit a workload on schedule to a scheduler and record every job",
		ArgsUsage: "WORKLOAD_DIR",
		Description: "Submits the jobs of a workload directory (written by 'gmark generate') at their scheduled\n" +
			"offsets, from a pool of workers, to a target: dryrun (records submissions, runs nothing),\n" +
			"local (real processes within a processor budget), slurm (sbatch, one or more clusters named\n" +
			"in --targets), condor, sge. Composite jobs run their tasks as their dependencies succeed.\n" +
			"Every job, event and submission goes into the results store (--db, SQLite), with the run's\n" +
			"provenance; docs/store.md describes it, docs/submit.md the submitter.\n\n" +
			"Each submission is recorded before and after it is made, so after a crash (even kill -9)\n" +
			"'gmark submit --resume RUN' continues the run without submitting any job twice.\n\n" +
			"Exit status: 0 when the run completed (failed jobs are results, not errors), 1 when it could\n" +
			"not (the store failed, the target could not be used, interrupted), 2 on bad usage.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "target", Aliases: []string{"t"}, Destination: &o.target, Usage: "where jobs go: " + targets.List()},
			&cli.StringFlag{Name: "db", Value: "results.db", Destination: &o.db, Usage: "results store (SQLite)"},
			&cli.StringFlag{Name: "project", Value: "default", Destination: &o.project, Usage: "project the run belongs to"},
			&cli.StringFlag{Name: "scenario", DefaultText: "the workload directory's name", Destination: &o.scenario, Usage: "scenario the run belongs to"},
			&cliflag.IntRange{IntFlag: cli.IntFlag{Name: "workers", Value: 5, Destination: &s.Workers, Usage: "submitting workers"}, Min: 1, Max: 10_000},
			&cli.Float64Flag{Name: "speedup", Value: 1, Destination: &s.Speedup, Usage: "divide every submission offset by this factor"},
			&cliflag.IntRange{IntFlag: cli.IntFlag{Name: "max-in-flight", Destination: &s.MaxInFlight, Usage: "at most this many jobs submitted and not finished (0: no cap)"}, Min: 0, Max: 10_000_000},
			&cliflag.DurationRange{DurationFlag: cli.DurationFlag{Name: "tail", DefaultText: "wait for every job", Destination: &s.Tail, Usage: "after the last submission, wait this long, then cancel what is left"}, Min: 0, Max: 30 * 24 * time.Hour},
			&cli.StringFlag{Name: "targets", Destination: &o.targets.File, Usage: "targets file (TOML): clusters of the slurm target, settings of the others"},
			&cli.StringFlag{Name: "resume", Destination: &o.resume, Usage: "continue the run with this id (after a crash or an interrupt)"},
			&cli.StringFlag{Name: "run-id", DefaultText: "time and random digits", Destination: &o.runID, Usage: "id of the new run"},
			&cliflag.IntRange{IntFlag: cli.IntFlag{Name: "retries", Destination: &s.Retries, Usage: "resubmit a failed task of a composite job up to this many times (0: off)"}, Min: 0, Max: 100},
			&cliflag.IntRange{IntFlag: cli.IntFlag{Name: "submit-retries", Value: submitter.DefaultSubmitRetries, Destination: &s.SubmitRetries, Usage: "retry a submission failing with a transient error this many times"}, Min: 0, Max: 1_000, Zero: -1},
			&cliflag.DurationRange{DurationFlag: cli.DurationFlag{Name: "backoff", Value: 500 * time.Millisecond, Destination: &s.Backoff, Usage: "first wait before a submission retry; doubled each time, up to 30s"}, Min: time.Millisecond, Max: 10 * time.Minute},
			&cliflag.DurationRange{DurationFlag: cli.DurationFlag{Name: "retry-for", Value: submitter.DefaultRetryFor, Destination: &s.RetryFor, Usage: "retry a call failing with transient errors (a scheduler restarting or unreachable) for at least this long, with backoff (0: --submit-retries alone)"}, Min: 0, Max: submitter.MaxRetryFor, Zero: -1},
			&cliflag.IntRange{IntFlag: cli.IntFlag{Name: "processors", DefaultText: "the number of CPUs", Destination: &o.targets.Processors, Usage: "local target: processor budget"}, Min: 1, Max: 1_000_000},
			&cli.StringFlag{Name: "gmark", DefaultText: "this one", Destination: &o.targets.Executable, Usage: "the gmark binary jobs run as 'gmark app NAME …'"},
			&cli.StringFlag{Name: "run-dir", DefaultText: "runs/RUN beside the store", Destination: &o.runDir, Usage: "where job scripts and outputs go"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &o.quiet, Usage: "no progress bar and no log lines, for CI (the run id and summary are still printed)"},
		}, koalaTargetFlags(&o.targets)...),
		Action: o.run,
	}
}

// koalaTargetFlags are the koala target's flags, the same in submit and run,
// bound to o (its given marks those given).
func koalaTargetFlags(o *targetOptions) []cli.Flag {
	k := &o.Koala
	return []cli.Flag{
		&cli.StringFlag{Name: "endpoint", Destination: &k.Endpoint.Value, DefaultText: "start a core for the run from --grid", Usage: "koala target: URL of the core's HTTP API"},
		&cli.StringFlag{Name: "grid", Destination: &k.Grid.Value, Value: "examples/das2.toml", Usage: "koala target without --endpoint: grid description of the core started for the run"},
		&cli.StringFlag{Name: "token", Destination: &k.Token, EnvVars: []string{"GMARK_KOALA_TOKEN"}, Usage: "koala target with --endpoint: the core's token; prefer --token-file or $GMARK_KOALA_TOKEN (a command line is visible to every user of the machine)"},
		&cli.StringFlag{Name: "token-file", Destination: &k.TokenFile.Value, Usage: "koala target with --endpoint: file holding the core's token (the server's STATE.token); --resume reads it again"},
		&cli.StringFlag{Name: "policy", Destination: &k.Policy.Value, DefaultText: "the core's", Usage: "koala target: placement policy of every job (" + placement.List() + ")"},
		&cli.StringFlag{Name: "priority", Destination: &k.Priority.Value, DefaultText: "the core's", Usage: "koala target: priority of every job"},
		&cli.StringFlag{Name: "runner", Destination: &k.Runner.Value, Usage: "koala target: runner of every job: krunner, drunner, irunner"},
	}
}

// submitOptions are the flags of 'gmark submit'.
type submitOptions struct {
	dir      string // the workload directory; "" with --resume: the run's
	target   string // "" with --resume: the run's
	db       string
	project  string
	scenario string
	runID    string // a new run's id; "" for a fresh one
	resume   string // the run to continue
	runDir   string // "" for runs/RUN beside the store
	settings submitter.Settings
	targets  targetOptions
	quiet    bool
}

func (o *submitOptions) run(c *cli.Context) error {
	if err := o.checkFlags(c); err != nil {
		return err
	}
	return submit(c.Context, *o, c.App.Writer, c.App.ErrWriter)
}

// checkFlags checks the flags of gmark submit, and marks those given.
func (o *submitOptions) checkFlags(c *cli.Context) error {
	o.dir = c.Args().First()
	o.targets.given(c)
	o.targets.NewRunDir, o.settings.HasTail = cliflag.Given(c, &o.runDir), cliflag.Given(c, &o.settings.Tail)
	if c.NArg() > 1 || (c.NArg() == 0 && o.resume == "") {
		return usageErrorf("submit takes one workload directory (see 'gmark submit --help')")
	}
	if err := checkSubmitRanges(c, o.settings.Speedup); err != nil {
		return err
	}
	if o.resume != "" && cliflag.Given(c, &o.runID) {
		return usageErrorf("--run-id names a new run; --resume continues one")
	}
	return nil
}

// submit submits the workload (or continues the run o.resume) with
// submitter.Run, and prints the summary.
func submit(ctx context.Context, o submitOptions, stdout, stderr io.Writer) error {
	recorded, err := o.check(stderr)
	if err != nil {
		return err
	}
	st, err := openStore(o.db)
	if err != nil {
		return err
	}
	defer st.Close()
	runDir := o.runDir
	if runDir == "" {
		runDir = filepath.Join(filepath.Dir(o.db), "runs", o.runID)
	}
	// Absolute: the target's configuration records it, and a --resume may
	// run from another directory.
	if runDir, err = filepath.Abs(runDir); err != nil {
		return err
	}
	// One process at a time submits a run; the lock lives in the run's
	// directory beside the store, wherever --run-dir puts the rest.
	release, err := lockNamedRun(o.db, o.runID)
	if err != nil {
		return err
	}
	defer release()
	target, targetCfg, err := newTarget(ctx, o.targets, o.target, runDir, recorded)
	if err != nil {
		return err
	}
	defer target.Close()
	cfg := submitter.Config{WorkloadDir: o.dir, Store: st, Target: target, TargetConfig: targetCfg, Settings: o.settings,
		Project: o.project, Scenario: o.scenario, RunID: o.runID, Resume: o.resume,
		Inputs: provenance.CollectFor(o.dir, targetCfg, o.targets.File, stderr),
		OnStart: func(id string) {
			verb := "run"
			if o.resume != "" {
				verb = "resuming run"
			}
			fmt.Fprintf(stdout, "%s %s\n", verb, id)
		},
	}
	sum, err := runSubmitter(ctx, cfg, "submitting", o.quiet, stderr)
	switch {
	case errors.Is(err, record.ErrUnknownRun), errors.Is(err, record.ErrRunEnded), errors.Is(err, record.ErrRunMismatch):
		return usageError{err}
	case errors.Is(err, submitter.ErrInterrupted):
		if pid := koalatarget.KeepCore(target); pid > 0 {
			fmt.Fprintf(stderr, "gmark: the bundled core keeps running the jobs (pid %d); --resume reconnects to it and stops it at the end\n", pid)
		}
		sum.WriteText(stdout, o.db)
		return fmt.Errorf("interrupted; continue with: gmark submit --resume %s --db %s", sum.RunID, o.db)
	case err != nil && sum == nil:
		return err
	}
	sum.WriteText(stdout, o.db)
	return err
}

// check reads every input of the run before anything is written (README:
// nothing is written on bad usage): a resumed run from the store, read
// only; the workload directory; the target's settings. It returns a
// resumed run's recorded target configuration.
func (o *submitOptions) check(stderr io.Writer) ([]byte, error) {
	recorded, err := o.resolveRun()
	if err == nil {
		err = checkWorkloadDir(o.dir, "", stderr)
	}
	if err == nil {
		err = targetError(targets.Check(o.target, o.targets.Options, recorded))
	}
	return recorded, err
}

// resolveRun settles the run, the workload directory and the target: a
// resumed run's (which must not have ended), unless given; a new run's id,
// fresh or checked.
func (o *submitOptions) resolveRun() (recorded []byte, err error) {
	if o.resume != "" {
		if _, err := os.Stat(o.db); err != nil {
			return nil, usageErrorf("no run %s: %v", o.resume, err)
		}
		if err := checkDB(o.db, []string{o.resume}, false); err != nil {
			return nil, err
		}
		st, err := store.OpenReadOnly(o.db)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		run, err := st.Run(o.resume)
		if err != nil {
			return nil, err
		}
		if _, ended, err := st.RunEnd(run.ID); err != nil {
			return nil, err
		} else if ended {
			return nil, usageError{fmt.Errorf("%w: %s", record.ErrRunEnded, run.ID)}
		}
		o.runID, o.dir, o.target = run.ID, cmp.Or(o.dir, run.WorkloadDir), cmp.Or(o.target, run.Target)
		recorded = submitter.RecordedTarget(st, o.resume, o.targets.fileSet)
	} else if o.runID == "" {
		o.runID = record.NewRunID()
	} else if err := record.CheckRunID(o.runID); err != nil {
		return nil, usageErrorf("--run-id: %v", err)
	}
	if o.target == "" {
		return nil, usageErrorf("--target is required: %s", targets.List())
	}
	return recorded, nil
}

// checkWorkloadDir is submitter.CheckWorkload, its refusals usage errors:
// nothing is submitted from a workload directory that is not there, or
// whose workload.jsonl is not what its manifest says (cut short, edited).
func checkWorkloadDir(dir, unitaryFor string, stderr io.Writer) error {
	warning, err := submitter.CheckWorkload(dir, unitaryFor)
	if warning != "" {
		fmt.Fprintln(stderr, "warning:", warning)
	}
	if err != nil {
		return usageError{err}
	}
	return nil
}

// runSubmitter runs the submitter with a progress bar (unless quiet) and
// the log on stderr; it stops cleanly when ctx is cancelled (gmark's signal
// context: Ctrl-C or SIGTERM).
func runSubmitter(ctx context.Context, cfg submitter.Config, what string, quiet bool, stderr io.Writer) (*record.Summary, error) {
	submitter.CollectLessOften() // the submitter is latency-sensitive: fewer pauses
	if !quiet {
		cfg.Log = logWriter{stderr}
	}
	bar := progress.New(stderr, progress.Options{Total: -1, Desc: what, Unit: "jobs", Quiet: quiet})
	cfg.Progress = func(p submitter.Progress) {
		bar.SetTotal(p.Total)
		bar.Detail(p.Detail())
		bar.Set(p.Final())
	}
	watchInterrupts()
	sum, err := submitter.Run(ctx, cfg)
	bar.Done()
	return sum, err
}

// logWriter prefixes the submitter's log lines.
type logWriter struct{ w io.Writer }

func (l logWriter) Write(p []byte) (int, error) {
	if _, err := fmt.Fprintf(l.w, "gmark submit: %s", p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// openStore opens the results store for writing; a damaged file or a path
// that is not a file is bad input (exit 2), and nothing is written to it.
func openStore(path string) (*store.Store, error) {
	st, err := store.Open(path)
	if errors.Is(err, store.ErrDamaged) || errors.Is(err, store.ErrNotFile) || errors.Is(err, store.ErrNotStore) {
		return nil, usageError{err}
	}
	return st, err
}

// lockNamedRun is record.LockStoreRun, its refusals usage errors.
func lockNamedRun(db, runID string) (func(), error) {
	release, err := record.LockStoreRun(db, runID)
	if errors.Is(err, record.ErrRunBusy) || errors.Is(err, record.ErrBadRunID) {
		return nil, usageError{err}
	}
	return release, err
}
