package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gmark/gmark/internal/cliflag"
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

func init() { makers = append(makers, koalaCommand) }

func koalaCommand() *cli.Command {
	return &cli.Command{
		Name:  "koala",
		Usage: "the bundled multi-cluster co-allocating scheduler (in the style of KOALA)",
		Description: "The grid is described in a TOML file (see examples/das2.toml and docs/koala.md).\n" +
			"'serve' runs the scheduler with an HTTP API; 'jobs' lists a running scheduler's jobs and\n" +
			"why the queued ones wait; 'simulate' runs a generated workload through the same scheduler\n" +
			"in simulated time and prints what happened.",
		Subcommands: []*cli.Command{koalaServeCommand(), koalaJobsCommand(), koalaSimulateCommand()},
	}
}

func gridFlag(path *string) cli.Flag {
	return &cli.StringFlag{Name: "grid", Usage: "grid description (TOML)", Value: "examples/das2.toml", Destination: path}
}

// gridOptions are the grid file and the command line's overrides of its
// scheduler settings (nil: the file's), made of the flags' values.
type gridOptions struct {
	path, policy, execution string
	timeScale               float64
	scanInterval            time.Duration
	grid.Overrides
}

// overrides sets the overrides the command line gave.
func (o *gridOptions) overrides(c *cli.Context) *gridOptions {
	o.Policy, o.TimeScale = cliflag.IfSet(c, &o.policy), cliflag.IfSet(c, &o.timeScale)
	o.ScanInterval, o.Execution = cliflag.IfSet(c, &o.scanInterval), cliflag.IfSet(c, &o.execution)
	return o
}

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

// serveOptions are the flags of 'gmark koala serve'.
type serveOptions struct {
	grid                                          gridOptions
	listen, state, tokenGiven, tokenFile, workdir string
	allowRemote, awaitRun                         bool
}

func koalaServeCommand() *cli.Command {
	o := &serveOptions{}
	return &cli.Command{
		Name:  "serve",
		Usage: "run the scheduler with its HTTP API",
		Description: "Serves the API documented in docs/koala.md on 127.0.0.1:7070 by default. Every request\n" +
			"that changes state needs the token ('Authorization: Bearer TOKEN'); without --token one is\n" +
			"generated and written next to the state database (STATE.token). The state database keeps\n" +
			"every accepted job: after a crash, restarting with the same --state resumes.",
		Flags: []cli.Flag{
			gridFlag(&o.grid.path),
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7070", Destination: &o.listen, Usage: "address to serve on"},
			&cli.BoolFlag{Name: "allow-remote", Destination: &o.allowRemote, Usage: "allow --listen on an address other than loopback"},
			&cli.StringFlag{Name: "state", Value: "koala-state.db", Destination: &o.state, Usage: "SQLite database of the scheduler's state"},
			&cli.StringFlag{Name: "token", EnvVars: []string{"GMARK_KOALA_TOKEN"}, Destination: &o.tokenGiven, Usage: "token for state-changing requests (visible to other users in the process list: prefer --token-file or the environment variable)"},
			&cli.StringFlag{Name: "token-file", Destination: &o.tokenFile, Usage: "file holding the token for state-changing requests"},
			&cli.StringFlag{Name: "policy", Destination: &o.grid.policy, Usage: "placement policy of the jobs that name none (" + placement.List() + "); overrides the grid file"},
			&cli.Float64Flag{Name: "time-scale", Destination: &o.grid.timeScale, Usage: "core seconds per wall second; overrides the grid file"},
			&cli.DurationFlag{Name: "scan-interval", Destination: &o.grid.scanInterval, Usage: "placement-queue scan interval; overrides the grid file"},
			&cli.StringFlag{Name: "execution", Destination: &o.grid.execution, Usage: "emulated (timers) or process (real 'gmark app' processes); overrides the grid file"},
			&cli.StringFlag{Name: "workdir", DefaultText: "STATE.jobs", Destination: &o.workdir, Usage: "with process execution, where jobs run"},
			&cli.BoolFlag{Name: "await-run", Destination: &o.awaitRun, Usage: "hold the grid's local workloads until a run declares its origin (gmark run starts its core so)"},
		},
		Action: o.serve,
	}
}

// serveToken is the token given to serve: from --token-file, which wins,
// or --token (or $GMARK_KOALA_TOKEN); "" when none is given (one is
// generated). The token itself is never printed.
func (o *serveOptions) token() (string, error) {
	if file := o.tokenFile; file != "" {
		t, err := httpapi.ReadTokenFile(file)
		if err != nil {
			return "", usageErrorf("--token-file: %v", err)
		}
		return t, nil
	}
	return o.tokenGiven, nil
}

func (o *serveOptions) serve(c *cli.Context) error {
	g, err := o.grid.overrides(c).load()
	if err != nil {
		return err
	}
	addr := o.listen
	if err := httpapi.CheckListen(addr); err != nil {
		return usageError{err}
	}
	if !server.IsLoopback(addr) && !o.allowRemote {
		return usageErrorf("--listen %s is not a loopback address; add --allow-remote to serve beyond this machine", addr)
	}
	state := o.state
	if err := persist.Check(state); err != nil { // before the token is written beside it
		return err
	}
	token, err := o.token()
	if err != nil {
		return err
	}
	tokenFile := ""
	if token == "" {
		if token, tokenFile, err = server.StateToken(state); err != nil {
			return err
		}
	}
	px, err := procexec.ForGrid(g, state, o.workdir, c.App.ErrWriter)
	if err != nil {
		return err
	}
	ctls, agents, err := celrm.Clusters(c.Context, g, state, o.workdir, c.App.ErrWriter)
	if err != nil {
		return usageError{err}
	}
	cfg := server.Config{Grid: g, State: state, Token: token, Controllers: ctls, AwaitRun: o.awaitRun, Agents: agents}
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
	o := &simulateOptions{}
	return &cli.Command{
		Name:      "simulate",
		Usage:     "run a generated workload through the scheduler in simulated time",
		ArgsUsage: "WORKLOAD_DIR",
		Description: "Submits every job of a workload directory (from 'gmark generate') at its submit time to the\n" +
			"scheduler, with emulated execution, in simulated time (a two-hour workload takes a fraction of a\n" +
			"second), and prints per-job statistics and utilization. Composite jobs are not supported here.",
		Flags: []cli.Flag{
			gridFlag(&o.grid.path),
			&cli.StringFlag{Name: "policy", Destination: &o.grid.policy, Usage: "placement policy (" + placement.List() + "); overrides the grid file"},
			&cli.StringFlag{Name: "priority", Value: "high", Destination: &o.priority, Usage: "priority of every job"},
			&cli.StringFlag{Name: "runner", Value: "krunner", Destination: &o.runner, Usage: "runner of every job: krunner, drunner, irunner"},
			&cli.DurationFlag{Name: "warmup", Value: 30 * time.Minute, Destination: &o.warmup, Usage: "background load runs this long before the first job (at least the grid's [scheduler] local_warmup, which the local workloads get)"},
			&cli.DurationFlag{Name: "limit", Value: 7 * 24 * time.Hour, Destination: &o.limit, Usage: "stop the simulation after this much simulated time"},
			&cli.DurationFlag{Name: "scan-interval", Destination: &o.grid.scanInterval, Usage: "placement-queue scan interval; overrides the grid file"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Destination: &o.seed, Usage: "seed of background load and failures"},
			&cli.StringFlag{Name: "events", Destination: &o.events, Usage: "write every event as JSON lines to this file"},
			&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "print the summary as JSON"},
			&cli.StringFlag{Name: "db", Destination: &o.db, Usage: "also record the simulated run in this results store (for 'gmark report')"},
			&cli.StringFlag{Name: "project", Value: "default", Destination: &o.project, Usage: "with --db: project of the run"},
			&cli.StringFlag{Name: "scenario", DefaultText: "the workload directory's name", Destination: &o.scenario, Usage: "with --db: scenario of the run"},
			&cli.StringFlag{Name: "run-id", DefaultText: "time and random digits", Destination: &o.runID, Usage: "with --db: id of the run"},
			&cli.StringFlag{Name: "resume", Destination: &o.resumeRun, Usage: "with --db: continue run `RUN`, which a killed simulation left unfinished (the same workload, grid and settings)"},
		},
		Action: o.run,
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
	resumeRun     string // --resume
	resume        bool   // continue runID
}

func (o *simulateOptions) run(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("simulate takes one workload directory (from 'gmark generate')")
	}
	if o.resume = o.resumeRun != ""; o.resume && (o.db == "" || o.runID != "" && o.runID != o.resumeRun) {
		return usageErrorf("--resume %s needs --db, and no other --run-id", o.resumeRun)
	} else if o.resume {
		o.runID = o.resumeRun
	}
	o.dir = c.Args().First()
	o.grid.overrides(c)
	return koalaSimulate(c.Context, *o, c.App.Writer, c.App.ErrWriter)
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
