package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/internal/cliflag"
	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/koalatarget"
	"github.com/gmark/gmark/submitter/provenance"
	"github.com/gmark/gmark/submitter/targets"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
	"github.com/urfave/cli/v2"
)

func init() { makers = append(makers, runCommand) }

func runCommand() *cli.Command {
	o := &runOptions{}
	s := &o.settings
	return &cli.Command{
		Name:      "run",
		Usage:     "generate a workload, run it on a scheduler, and write the report: the whole loop in one command",
		ArgsUsage: "SPEC.wdl",
		Description: "Generates the workload of SPEC.wdl, starts the bundled scheduler ('gmark koala serve') on the grid of\n" +
			"--grid (examples/das2.toml), submits the workload on schedule, waits for every job, records\n" +
			"everything in DIR/results.db, and writes the HTML report to DIR/report-RUN/ (DIR: -o, default\n" +
			"gmark-runs/SPEC). Each run adds a run to the same store, so runs compare with\n" +
			"'gmark report --db DIR/results.db'. --target slurm|local|dryrun runs elsewhere (see 'gmark submit').\n\n" +
			"--speedup S compresses time S times: the submitter divides the schedule by S and the bundled\n" +
			"scheduler's clock runs S times faster, so a two-hour workload (examples/koala-w30.wdl) runs in\n" +
			"about a minute at --speedup 100.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, DefaultText: "gmark-runs/SPEC", Destination: &o.output, Usage: "directory of the runs of this scenario"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Destination: &o.seed, Usage: "random seed of the workload"},
			&cli.StringFlag{Name: "target", Aliases: []string{"t"}, Value: "koala", Destination: &o.target, Usage: "koala (the bundled scheduler), local, dryrun, slurm, condor or sge"},
			&cli.DurationFlag{Name: "scan-interval", DefaultText: "the grid's", Destination: &o.scan, Usage: "koala: the bundled scheduler's scan interval"},
			&cli.StringFlag{Name: "targets", Destination: &o.targets.File, Usage: "slurm, condor, sge, local: the targets TOML file (see 'gmark submit')"},
			&cliflag.IntRange{IntFlag: cli.IntFlag{Name: "processors", DefaultText: "the number of CPUs", Destination: &o.targets.Processors, Usage: "local: processor budget"}, Min: 1, Max: 1_000_000},
			&cli.StringFlag{Name: "gmark", DefaultText: "this one", Destination: &o.targets.Executable, Usage: "the gmark binary jobs run"},
			&cliflag.IntRange{IntFlag: cli.IntFlag{Name: "workers", Value: 5, Destination: &s.Workers, Usage: "submitting workers"}, Min: 1, Max: 10_000},
			&cli.Float64Flag{Name: "speedup", Value: 1, Destination: &s.Speedup, Usage: "compress time this many times (schedule and, for koala, the scheduler's clock)"},
			&cliflag.DurationRange{DurationFlag: cli.DurationFlag{Name: "tail", DefaultText: "wait for every job", Destination: &s.Tail, Usage: "after the last submission, wait this long, then cancel what is left"}, Min: 0, Max: 30 * 24 * time.Hour},
			&cliflag.IntRange{IntFlag: cli.IntFlag{Name: "retries", Destination: &s.Retries, Usage: "resubmit a failed task of a composite job up to this many times"}, Min: 0, Max: 100},
			&cli.StringFlag{Name: "project", Value: "default", Destination: &o.project, Usage: "project the run belongs to"},
			&cli.StringFlag{Name: "scenario", DefaultText: "the spec's name", Destination: &o.scenario, Usage: "scenario the run belongs to"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &o.quiet, Usage: "no progress bars and logs"},
		}, koalaTargetFlags(&o.targets)...),
		Action: o.run,
	}
}

// runOptions are the flags of 'gmark run'.
type runOptions struct {
	spec         string // the WDL file
	output       string // the scenario's directory; "" for gmark-runs/SPEC
	seed         uint64
	target       string
	targets      targetOptions
	scanInterval *time.Duration // koala: the bundled scheduler's, when given
	scan         time.Duration  // --scan-interval
	settings     submitter.Settings
	project      string
	scenario     string // "" for the spec's name
	quiet        bool
}

func (o *runOptions) run(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("run takes one WDL file (see 'gmark run --help')")
	}
	if err := checkSubmitRanges(c, o.settings.Speedup); err != nil {
		return err
	}
	o.spec, o.scanInterval, o.settings.HasTail = c.Args().First(), cliflag.IfSet(c, &o.scan), cliflag.Given(c, &o.settings.Tail)
	o.targets.given(c)
	return runLoop(c.Context, *o, c.App.Writer, c.App.ErrWriter)
}

// runLoop is the whole loop: generate the workload, run it on the target,
// and write the report.
func runLoop(ctx context.Context, o runOptions, stdout, stderr io.Writer) error {
	if _, err := targets.Lookup(o.target); err != nil {
		return targetError(err)
	}
	if err := checkRun(o, stderr); err != nil {
		return err
	}
	name := strings.TrimSuffix(filepath.Base(o.spec), filepath.Ext(o.spec))
	dir := o.output
	if dir == "" {
		dir = filepath.Join("gmark-runs", name)
	}
	start := time.Now()
	runID := record.NewRunID()
	runDir, err := filepath.Abs(filepath.Join(dir, "runs", runID))
	if err != nil {
		return err
	}
	// Outside the repository, a shipped example named as the spec is the
	// copy built into gmark, written into the run's directory (named
	// relative to the working directory, as the spec was); the bundled
	// core does the same with the grid.
	rel := filepath.Join(dir, "runs", runID)
	var embedded bool
	if o.spec, embedded, err = examples.Resolve(o.spec, rel); err != nil {
		return err
	}
	// 1. Generate.
	workloadDir := filepath.Join(dir, "workloads", runID)
	g, err := generateForRun(o, workloadDir, stdout, stderr)
	if err != nil {
		if embedded { // nothing is left of a run that did not start
			_ = os.RemoveAll(rel)
		}
		return err
	}
	// 2. The target: by default the bundled scheduler, a process of its own
	// (it outlives a kill -9 of this one), its clock running --speedup times
	// faster than the wall clock.
	db := filepath.Join(dir, "results.db")
	st, err := openStore(db)
	if err != nil {
		return err
	}
	defer st.Close()
	target, targetCfg, err := runTarget(ctx, o, g, runDir, stdout)
	if err != nil {
		return err
	}
	defer target.Close()
	// 3. Submit and wait.
	if o.scenario == "" {
		o.scenario = name
	}
	cfg := submitter.Config{WorkloadDir: workloadDir, Store: st, Target: target, TargetConfig: targetCfg,
		Settings: o.settings, Project: o.project, Scenario: o.scenario, RunID: runID,
		Inputs: provenance.CollectFor(workloadDir, targetCfg, o.targets.File, stderr)}
	res, err := runSubmitter(ctx, cfg, "running", o.quiet, stderr)
	if errors.Is(err, submitter.ErrInterrupted) {
		// Ctrl-C ends what gmark run started: the bundled core stops as the
		// target closes (its state kept); the run, recorded interrupted,
		// goes on with a --resume, which starts a core on that state.
		res.WriteText(stdout, db)
		if _, ok := target.(*koalatarget.Owned); ok {
			fmt.Fprintln(stderr, "gmark: the bundled core is stopped, its state kept; the jobs it was running are recorded failed when the run is resumed")
		}
		return fmt.Errorf("interrupted; continue with: gmark submit --resume %s --db %s", runID, db)
	}
	if err != nil {
		return err
	}
	if !o.quiet {
		res.WriteText(stdout, db)
	}
	// 4. The report.
	return reportRun(ctx, stdout, db, dir, runID, start)
}

// checkRun reads every input of the run before anything is written (a
// shipped example from the copy in the user's cache): the spec, the
// target's settings and, for the bundled core, that every job can run on
// its grid; a job that cannot is the spec's error, at its unit's line.
func checkRun(o runOptions, stderr io.Writer) error {
	path, _, err := examples.Cached(o.spec)
	if err != nil {
		return err
	}
	spec, gen, _, err := prepareGeneration(path, o.seed, stderr)
	if err != nil {
		return err
	}
	if err := targetError(targets.Check(o.target, o.targets.Options, nil)); err != nil || o.target != "koala" || o.targets.Koala.Endpoint.Value != "" {
		return err
	}
	g, err := targets.LoadGrid(o.targets.Koala.Grid.Value)
	if err != nil {
		return usageError{err}
	}
	units := map[int]wdl.Pos{}
	for _, u := range spec.Units {
		units[u.ID] = u.Pos
	}
	err = koalatarget.CheckFits(g, o.targets.Koala.Grid.Value, func(emit func(*workload.Job) error) error { _, err := gen.Generate(emit); return err }, units)
	if errors.As(err, new(*wdl.Error)) || errors.As(err, new(wdl.ErrorList)) {
		return usageError{err}
	}
	return err
}

// generateForRun writes the workload of the spec to workloadDir, and loads
// the grid of the bundled scheduler when it is the target (nil otherwise).
// The spec's warnings were printed by checkRun.
func generateForRun(o runOptions, workloadDir string, stdout, stderr io.Writer) (*grid.Grid, error) {
	spec, gen, planned, err := prepareGeneration(o.spec, o.seed, io.Discard)
	if err != nil {
		return nil, err
	}
	var g *grid.Grid
	if o.target == "koala" && o.targets.Koala.Endpoint.Value == "" {
		if g, err = targets.LoadGrid(o.targets.Koala.Grid.Value); err != nil {
			return nil, usageError{err}
		}
	}
	sum, err := writeWorkload(spec, gen, generator.DirOptions{Out: workloadDir, SpecPath: o.spec, Seed: o.seed}, planned, o.quiet)
	if err != nil {
		return nil, err
	}
	if !o.quiet {
		fmt.Fprintf(stdout, "generated %s (%s) from %s, seed %d, span %s\n", names.Count(sum.Jobs, "job"), names.Count(sum.Tasks, "composite task"), o.spec, o.seed, sum.Span())
	}
	targets.WarnPlacement(stderr, g, o.targets.Koala.Policy.Value, sum.Placement, sum.InputFiles)
	return g, nil
}

// runTarget makes the target of the run: with grid g the bundled core,
// whose clock runs as fast as the schedule (scaled by --speedup, as
// recorded for a --resume); otherwise the target named by --target.
func runTarget(ctx context.Context, o runOptions, g *grid.Grid, runDir string, stdout io.Writer) (submitter.Target, any, error) {
	var target submitter.Target
	var targetCfg any
	var err error
	if g != nil {
		k := o.targets.Koala
		kc := targets.KoalaConfig{Grid: k.Grid.Value, Policy: k.Policy.Value, Priority: k.Priority.Value,
			Runner: k.Runner.Value, TimeScale: o.settings.Speedup}
		if o.scanInterval != nil {
			kc.ScanInterval = o.scanInterval.String()
		}
		if k.Policy.Set {
			g.Scheduler.Policy = k.Policy.Value
		}
		tc := koalatarget.Config{Priority: kc.Priority, Runner: kc.Runner}
		target, targetCfg, err = targets.Bundled(ctx, kc, tc, runDir, "")
		err = targetError(err)
	} else {
		target, targetCfg, err = newTarget(ctx, o.targets, o.target, runDir, nil)
	}
	if err != nil || o.quiet {
		return target, targetCfg, err
	}
	where := o.target
	if g != nil {
		where = fmt.Sprintf("the bundled scheduler on %s (%d clusters, %d processors, policy %s)", g.Name, len(g.Clusters), g.TotalProcessors(), g.Scheduler.Policy)
	}
	fmt.Fprintf(stdout, "running on %s", where)
	if s := o.settings.Speedup; s != 1 {
		fmt.Fprintf(stdout, ", %g times faster than real time", s)
	}
	fmt.Fprintln(stdout)
	return target, targetCfg, nil
}

// reportRun writes the run's HTML report beside the store and prints its
// summary: as 'gmark report' does by default, so the two show the same
// numbers (a compressed run in workload time, its wall time beside).
func reportRun(ctx context.Context, stdout io.Writer, db, dir, runID string, start time.Time) error {
	opts := report.Options{Command: record.RedactArgs(os.Args)}
	index, err := report.WriteRun(ctx, stdout, db, runID, filepath.Join(dir, "report-"+runID), opts)
	if err != nil {
		return fmt.Errorf("the run is recorded in %s, but the report failed: %v", db, err)
	}
	fmt.Fprintf(stdout, "report: %s (the whole loop took %s)\n", index, time.Since(start).Round(time.Second))
	return nil
}
