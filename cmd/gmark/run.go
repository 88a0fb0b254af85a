package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/koalatarget"
	"github.com/gmark/gmark/wdl"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
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
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "directory of the runs of this scenario (default gmark-runs/SPEC)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed of the workload"},
			&cli.StringFlag{Name: "target", Value: "koala", Usage: "koala (the bundled scheduler), local, dryrun, slurm, condor or sge"},
			&cli.StringFlag{Name: "grid", Value: "examples/das2.toml", Usage: "koala: the grid of the bundled scheduler"},
			&cli.StringFlag{Name: "endpoint", Usage: "koala: a running 'gmark koala serve' instead of one started for the run"},
			&cli.StringFlag{Name: "token", EnvVars: []string{"GMARK_KOALA_TOKEN"}, Usage: "koala with --endpoint: the server's token"},
			&cli.StringFlag{Name: "token-file", Usage: "koala with --endpoint: file holding the token"},
			&cli.StringFlag{Name: "policy", Usage: "koala: placement policy (WF, CF, CM, FCM; default the grid's)"},
			&cli.StringFlag{Name: "priority", Usage: "koala: priority of every job"},
			&cli.StringFlag{Name: "runner", Usage: "koala: runner of every job: krunner, drunner, irunner"},
			&cli.DurationFlag{Name: "scan-interval", Usage: "koala: the bundled scheduler's scan interval (default the grid's)"},
			&cli.StringFlag{Name: "targets", Usage: "slurm, condor, sge, local: the targets TOML file (see 'gmark submit')"},
			&cli.IntFlag{Name: "processors", Usage: "local: processor budget"},
			&cli.StringFlag{Name: "gmark", Usage: "the gmark binary jobs run (default: this one)"},
			&cli.IntFlag{Name: "workers", Value: 5, Usage: "submitting workers"},
			&cli.Float64Flag{Name: "speedup", Value: 1, Usage: "compress time this many times (schedule and, for koala, the scheduler's clock)"},
			&cli.DurationFlag{Name: "tail", Usage: "after the last submission, wait this long, then cancel what is left (default: wait for every job)"},
			&cli.IntFlag{Name: "retries", Usage: "resubmit a failed task of a composite job up to this many times"},
			&cli.StringFlag{Name: "project", Value: "default", Usage: "project the run belongs to"},
			&cli.StringFlag{Name: "scenario", Usage: "scenario the run belongs to (default: the spec's name)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bars and logs"},
		},
		Action: runRun,
	})
}

func runRun(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("run takes one WDL file (see 'gmark run --help')")
	}
	specPath := c.Args().First()
	name := strings.TrimSuffix(filepath.Base(specPath), filepath.Ext(specPath))
	if err := checkSubmitRanges(c); err != nil {
		return err
	}
	targetName := c.String("target")
	found := false
	for _, t := range targetNames {
		found = found || t == targetName
	}
	if !found {
		return usageErrorf("unknown target %q (known: %s)", targetName, strings.Join(targetNames, ", "))
	}
	quiet := c.Bool("quiet")
	out := c.App.Writer

	// 1. Generate.
	spec, err := wdl.ParseFile(specPath)
	if err != nil {
		return usageError{err}
	}
	gen, err := generator.New(spec, c.Uint64("seed"))
	if err != nil {
		return usageError{err}
	}
	for _, w := range gen.Warnings {
		fmt.Fprintln(c.App.ErrWriter, "warning:", w)
	}
	var g *grid.Grid
	if targetName == "koala" && c.String("endpoint") == "" {
		if g, err = grid.Load(c.String("grid")); err != nil {
			return usageError{err}
		}
	}
	dir := c.String("output")
	if dir == "" {
		dir = filepath.Join("gmark-runs", name)
	}
	runID := submitter.NewRunID()
	workloadDir := filepath.Join(dir, "workloads", runID)
	planned := 0
	for _, u := range spec.Units {
		if !u.Workload {
			planned += u.NTimes
		}
	}
	start := time.Now()
	genBar := newProgress(int64(planned), "generating", "jobs", quiet || planned < 200000)
	sum, err := generator.WriteDir(spec, gen, generator.DirOptions{Out: workloadDir, SpecPath: specPath,
		Seed: c.Uint64("seed"), Progress: func() { genBar.Add(1) }})
	genBar.Done()
	var we *wdl.Error
	if errors.As(err, &we) {
		return usageError{err}
	} else if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(out, "generated %d jobs (%d composite tasks) from %s, seed %d, span %s\n",
			sum.Jobs, sum.Tasks, specPath, c.Uint64("seed"), sum.Span())
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
	runDir, err := filepath.Abs(filepath.Join(dir, "runs", runID))
	if err != nil {
		return err
	}
	var target submitter.Target
	var targetCfg any
	if g != nil {
		// The bundled core runs as fast as the schedule: its clock scaled
		// by --speedup, as recorded for a --resume.
		kc := koalaConfig{Grid: c.String("grid"), Policy: c.String("policy"), Priority: c.String("priority"),
			Runner: c.String("runner"), TimeScale: c.Float64("speedup")}
		if c.IsSet("scan-interval") {
			kc.ScanInterval = c.Duration("scan-interval").String()
		}
		if c.IsSet("policy") {
			g.Scheduler.Policy = c.String("policy")
		}
		tc := koalatarget.Config{Priority: kc.Priority, Runner: kc.Runner}
		if target, targetCfg, err = bundledKoalaTarget(c.Context, kc, tc, runDir); err != nil {
			return err
		}
	} else {
		if target, targetCfg, err = newTarget(c, targetName, runDir, nil); err != nil {
			return err
		}
	}
	defer target.Close()
	if !quiet {
		where := targetName
		if g != nil {
			where = fmt.Sprintf("the bundled scheduler on %s (%d clusters, %d processors, policy %s)", g.Name, len(g.Clusters), g.TotalProcessors(), g.Scheduler.Policy)
		}
		fmt.Fprintf(out, "running on %s", where)
		if s := c.Float64("speedup"); s != 1 {
			fmt.Fprintf(out, ", %g times faster than real time", s)
		}
		fmt.Fprintln(out)
	}

	// 3. Submit and wait.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	scenario := c.String("scenario")
	if scenario == "" {
		scenario = name
	}
	cfg := submitter.Config{WorkloadDir: workloadDir, Store: st, Target: target, TargetConfig: targetCfg,
		Project: c.String("project"), Scenario: scenario, RunID: runID}
	cfg.Workers = c.Int("workers")
	cfg.Speedup = c.Float64("speedup")
	if c.IsSet("tail") {
		cfg.Tail, cfg.HasTail = c.Duration("tail"), true
	}
	cfg.Retries = c.Int("retries")
	if !quiet {
		cfg.Log = logWriter{c.App.ErrWriter}
	}
	bar := newProgress(-1, "running", "jobs", quiet)
	cfg.Progress = func(p submitter.Progress) { showProgress(bar, p) }
	watchInterrupts()
	res, err := submitter.Run(c.Context, cfg)
	bar.Done()
	if errors.Is(err, submitter.ErrInterrupted) {
		keepCore(target, c.App.ErrWriter)
		printRunSummary(out, res, db)
		return fmt.Errorf("interrupted; continue with: gmark submit --resume %s --db %s", runID, db)
	}
	if err != nil {
		return err
	}
	if !quiet {
		printRunSummary(out, res, db)
	}

	// 4. The report.
	// A compressed run is reported in workload time (durations times the
	// speedup): what the workload would have seen, and what τ of the bounded
	// slowdown is meant for.
	opts := report.Options{WorkloadTime: c.Float64("speedup") != 1, Command: submitter.RedactArgs(os.Args)}
	reportDir := filepath.Join(dir, "report-"+runID)
	if err := report.CheckDir(reportDir); err != nil {
		return fmt.Errorf("the run is recorded in %s, but the report failed: %v", db, err)
	}
	rep, err := report.Build(c.Context, db, []string{runID}, opts) // once, for the page and the summary
	if err != nil {
		return fmt.Errorf("the run is recorded in %s, but the report failed: %v", db, err)
	}
	index, err := rep.WriteHTML(c.Context, reportDir, opts)
	if err != nil {
		return fmt.Errorf("the run is recorded in %s, but the report failed: %v", db, err)
	}
	if err := rep.WriteSummary(out); err != nil {
		return err
	}
	fmt.Fprintf(out, "report: %s (the whole loop took %s)\n", index, time.Since(start).Round(time.Second))
	return nil
}
