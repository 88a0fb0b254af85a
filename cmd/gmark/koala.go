package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/koala/persist"
	"github.com/gmark/gmark/sim/coresim"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/provenance"
	"github.com/gmark/gmark/submitter/targets"

	"github.com/gmark/gmark/koala/celrm"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/koala/procexec"
	"github.com/gmark/gmark/koala/server"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "koala",
		Usage: "the bundled multi-cluster co-allocating scheduler (in the style of KOALA)",
		Description: "The grid is described in a TOML file (see examples/das2.toml and docs/koala.md).\n" +
			"'serve' runs the scheduler with an HTTP API; 'jobs' lists a running scheduler's jobs and\n" +
			"why the queued ones wait; 'simulate' runs a generated workload through the same scheduler\n" +
			"in simulated time and prints what happened.",
		Subcommands: []*cli.Command{koalaServeCommand(), koalaJobsCommand(), koalaSimulateCommand()},
	})
}

func gridFlag() cli.Flag {
	return &cli.StringFlag{Name: "grid", Usage: "grid description (TOML)", Value: "examples/das2.toml"}
}

// gridOptions are the grid file and the command line's overrides of its
// scheduler settings (nil: the file's).
type gridOptions struct {
	path string
	grid.Overrides
}

// gridOptionsOf reads the grid flags of a koala command.
func gridOptionsOf(c *cli.Context) gridOptions {
	o := gridOptions{path: c.String("grid")}
	if c.IsSet("policy") {
		v := c.String("policy")
		o.Policy = &v
	}
	if c.IsSet("time-scale") {
		v := c.Float64("time-scale")
		o.TimeScale = &v
	}
	if c.IsSet("scan-interval") {
		v := c.Duration("scan-interval")
		o.ScanInterval = &v
	}
	if c.IsSet("execution") {
		v := c.String("execution")
		o.Execution = &v
	}
	return o
}

func loadGrid(c *cli.Context) (*grid.Grid, error) { return gridOptionsOf(c).load() }

// load reads the grid file (the built-in copy of a shipped example when
// it is not on disk) and applies the overrides; every error is bad input.
func (o gridOptions) load() (*grid.Grid, error) {
	g, err := targets.LoadGrid(o.path)
	if err != nil {
		return nil, usageError{err}
	}
	if err := g.Apply(o.Overrides); err != nil {
		return nil, usageErrorf("%s %v", o.path, err)
	}
	if _, err := placement.New(g.Scheduler.Policy, nil); err != nil { // before the core writes its state
		return nil, usageError{err}
	}
	return g, nil
}

func koalaServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the scheduler with its HTTP API",
		Description: "Serves the API documented in docs/koala.md on 127.0.0.1:7070 by default. Every request\n" +
			"that changes state needs the token ('Authorization: Bearer TOKEN'); without --token one is\n" +
			"generated and written next to the state database (STATE.token). The state database keeps\n" +
			"every accepted job: after a crash, restarting with the same --state resumes.",
		Flags: []cli.Flag{
			gridFlag(),
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7070", Usage: "address to serve on"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "allow --listen on an address other than loopback"},
			&cli.StringFlag{Name: "state", Value: "koala-state.db", Usage: "SQLite database of the scheduler's state"},
			&cli.StringFlag{Name: "token", EnvVars: []string{"GMARK_KOALA_TOKEN"}, Usage: "token for state-changing requests (visible to other users in the process list: prefer --token-file or the environment variable)"},
			&cli.StringFlag{Name: "token-file", Usage: "file holding the token for state-changing requests"},
			&cli.StringFlag{Name: "policy", Usage: "placement policy of the jobs that name none (" + placement.List() + "); overrides the grid file"},
			&cli.Float64Flag{Name: "time-scale", Usage: "core seconds per wall second; overrides the grid file"},
			&cli.DurationFlag{Name: "scan-interval", Usage: "placement-queue scan interval; overrides the grid file"},
			&cli.StringFlag{Name: "execution", Usage: "emulated (timers) or process (real 'gmark app' processes); overrides the grid file"},
			&cli.StringFlag{Name: "workdir", DefaultText: "STATE.jobs", Usage: "with process execution, where jobs run"},
			&cli.BoolFlag{Name: "await-run", Usage: "hold the grid's local workloads until a run declares its origin (gmark run starts its core so)"},
		},
		Action: runKoalaServe,
	}
}

// serveToken is the token given to serve: from --token-file, which wins,
// or --token (or $GMARK_KOALA_TOKEN); "" when none is given (one is
// generated). The token itself is never printed.
func serveToken(c *cli.Context) (string, error) {
	if file := c.String("token-file"); file != "" {
		t, err := httpapi.ReadTokenFile(file)
		if err != nil {
			return "", usageErrorf("--token-file: %v", err)
		}
		return t, nil
	}
	return c.String("token"), nil
}

func runKoalaServe(c *cli.Context) error {
	g, err := loadGrid(c)
	if err != nil {
		return err
	}
	addr := c.String("listen")
	if err := httpapi.CheckListen(addr); err != nil {
		return usageError{err}
	}
	if !server.IsLoopback(addr) && !c.Bool("allow-remote") {
		return usageErrorf("--listen %s is not a loopback address; add --allow-remote to serve beyond this machine", addr)
	}
	state := c.String("state")
	if err := persist.Check(state); err != nil { // before the token is written beside it
		return err
	}
	token, err := serveToken(c)
	if err != nil {
		return err
	}
	tokenFile := ""
	if token == "" {
		if token, tokenFile, err = server.StateToken(state); err != nil {
			return err
		}
	}
	px, err := procexec.ForGrid(g, state, c.String("workdir"), c.App.ErrWriter)
	if err != nil {
		return err
	}
	ctls, agents, err := celrm.Clusters(c.Context, g, state, c.String("workdir"), c.App.ErrWriter)
	if err != nil {
		return usageError{err}
	}
	cfg := server.Config{Grid: g, State: state, Token: token, Controllers: ctls, AwaitRun: c.Bool("await-run"), Agents: agents}
	if px != nil {
		cfg.Executor = px
	}
	srv, err := server.New(cfg)
	if errors.Is(err, persist.ErrInUse) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	ln, err := srv.Listen(addr)
	if err != nil {
		return err
	}
	watchInterrupts()
	ctx, stop := context.WithCancel(c.Context)
	defer stop()
	if px != nil {
		px.Exited = func(id string, comp int, ok bool, reason string) {
			_, _ = srv.Do(ctx, func() (any, error) {
				srv.Core().ComponentExited(id, comp, ok, reason)
				return nil, nil
			})
		}
	}
	return srv.Serve(ctx, stop, ln, func() {
		fmt.Fprintf(c.App.Writer, "gmark koala: grid %q (%d clusters, %d processors), policy %s, time scale %g, %s execution\n",
			g.Name, len(g.Clusters), g.TotalProcessors(), g.Scheduler.Policy, g.Scheduler.TimeScale, g.Scheduler.Execution)
		fmt.Fprintf(c.App.Writer, "gmark koala: serving http://%s/v1/ (state %s", ln.Addr(), state)
		if tokenFile != "" {
			fmt.Fprintf(c.App.Writer, ", token in %s", tokenFile)
		}
		fmt.Fprintln(c.App.Writer, ")")
	})
}

func koalaSimulateCommand() *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "run a generated workload through the scheduler in simulated time",
		ArgsUsage: "WORKLOAD_DIR",
		Description: "Submits every job of a workload directory (from 'gmark generate') at its submit time to the\n" +
			"scheduler, with emulated execution, in simulated time (a two-hour workload takes a fraction of a\n" +
			"second), and prints per-job statistics and utilization. Composite jobs are not supported here.",
		Flags: []cli.Flag{
			gridFlag(),
			&cli.StringFlag{Name: "policy", Usage: "placement policy (" + placement.List() + "); overrides the grid file"},
			&cli.StringFlag{Name: "priority", Value: "high", Usage: "priority of every job"},
			&cli.StringFlag{Name: "runner", Value: "krunner", Usage: "runner of every job: krunner, drunner, irunner"},
			&cli.DurationFlag{Name: "warmup", Value: 30 * time.Minute, Usage: "background load runs this long before the first job (at least the grid's [scheduler] local_warmup, which the local workloads get)"},
			&cli.DurationFlag{Name: "limit", Value: 7 * 24 * time.Hour, Usage: "stop the simulation after this much simulated time"},
			&cli.DurationFlag{Name: "scan-interval", Usage: "placement-queue scan interval; overrides the grid file"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of background load and failures"},
			&cli.StringFlag{Name: "events", Usage: "write every event as JSON lines to this file"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.StringFlag{Name: "db", Usage: "also record the simulated run in this results store (for 'gmark report')"},
			&cli.StringFlag{Name: "project", Value: "default", Usage: "with --db: project of the run"},
			&cli.StringFlag{Name: "scenario", DefaultText: "the workload directory's name", Usage: "with --db: scenario of the run"},
			&cli.StringFlag{Name: "run-id", DefaultText: "time and random digits", Usage: "with --db: id of the run"},
			&cli.StringFlag{Name: "resume", Usage: "with --db: continue run `RUN`, which a killed simulation left unfinished (the same workload, grid and settings)"},
		},
		Action: runKoalaSimulate,
	}
}

// simulateOptions are the flags of 'gmark koala simulate'.
type simulateOptions struct {
	dir           string // the workload directory
	grid          gridOptions
	seed          uint64
	priority      string
	runner        string
	warmup, limit time.Duration
	events        string // the events file; "" none
	json          bool
	db            string // the results store; "" none
	project       string
	scenario      string
	runID         string
	resume        bool // continue runID (--resume)
}

func runKoalaSimulate(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("simulate takes one workload directory (from 'gmark generate')")
	}
	runID, resume := c.String("run-id"), c.String("resume")
	if resume != "" && (c.String("db") == "" || runID != "" && runID != resume) {
		return usageErrorf("--resume %s needs --db, and no other --run-id", resume)
	} else if resume != "" {
		runID = resume
	}
	return koalaSimulate(c.Context, simulateOptions{dir: c.Args().First(), grid: gridOptionsOf(c), resume: resume != "",
		seed: c.Uint64("seed"), priority: c.String("priority"), runner: c.String("runner"),
		warmup: c.Duration("warmup"), limit: c.Duration("limit"), events: c.String("events"), json: c.Bool("json"),
		db: c.String("db"), project: c.String("project"), scenario: c.String("scenario"), runID: runID},
		c.App.Writer, c.App.ErrWriter)
}

// koalaSimulate runs the workload through the scheduler in simulated time
// (coresim.Simulate), records it when asked, and prints its summary.
func koalaSimulate(ctx context.Context, o simulateOptions, stdout, stderr io.Writer) error {
	g, err := o.grid.load()
	if err != nil {
		return err
	}
	g.Scheduler.Seed = o.seed
	opts := coresim.Options{Warmup: o.warmup, Limit: o.limit}
	if opts.Priority, err = core.ParsePriority(o.priority); err != nil {
		return usageError{err}
	}
	if opts.Runner, err = core.ParseRunner(o.runner); err != nil {
		return usageError{err}
	}
	if err := checkWorkloadDir(o.dir, "koala simulate", stderr); err != nil { // as submit does
		return err
	}
	sink, saveEvents, err := core.OpenEventLog(o.events)
	if err != nil {
		return err
	}
	defer saveEvents(false)
	opts.Events = sink
	if o.db != "" { // the simulation records itself as it runs, one process a run (as submit)
		if release, err := lockNamedRun(o.db, o.runID); err != nil {
			return err
		} else {
			defer release()
		}
		st, err := openStore(o.db)
		if err != nil {
			return err
		}
		defer st.Close()
		in, _ := provenance.Collect(provenance.Sources{WorkloadDir: o.dir, Grid: o.grid.path, Core: &g.Scheduler})
		opts.DB = &coresim.DB{Store: st, RunInfo: coresim.RunInfo{Project: o.project, Scenario: o.scenario,
			RunID: o.runID, GridPath: o.grid.path, CommandLine: os.Args, Inputs: in, Resume: o.resume}}
	}
	submitter.CollectLessOften()
	sim, err := coresim.Simulate(g, o.dir, opts)
	if err != nil {
		return usageError{err}
	}
	if err := saveEvents(true); err != nil {
		return err
	}
	for _, e := range sim.Refused {
		fmt.Fprintln(stderr, "refused:", e)
	}
	if o.db != "" {
		rs, err := sim.FinishRecord()
		if err != nil {
			return err
		}
		if !o.json {
			fmt.Fprintf(stdout, "run %s recorded in %s\n", rs.RunID, o.db)
		}
	}
	sum := sim.Summary()
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	sum.WriteText(stdout, g.Name, g.Scheduler.Policy)
	return nil
}
