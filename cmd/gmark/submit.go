package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/batch"
	"github.com/gmark/gmark/submitter/koalatarget"
	"github.com/gmark/gmark/submitter/local"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/targets"
	"github.com/gmark/gmark/workload"
	"github.com/urfave/cli/v2"
)

// targetNames are the values of --target.
var targetNames = []string{"dryrun", "local", "slurm", "condor", "sge", "koala"}

func init() {
	commands = append(commands, &cli.Command{
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
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Aliases: []string{"t"}, Usage: "where jobs go: " + strings.Join(targetNames, ", ")},
			&cli.StringFlag{Name: "db", Value: "results.db", Usage: "results store (SQLite)"},
			&cli.StringFlag{Name: "project", Value: "default", Usage: "project the run belongs to"},
			&cli.StringFlag{Name: "scenario", Usage: "scenario the run belongs to (default: the workload directory's name)"},
			&cli.IntFlag{Name: "workers", Value: 5, Usage: "submitting workers"},
			&cli.Float64Flag{Name: "speedup", Value: 1, Usage: "divide every submission offset by this factor"},
			&cli.IntFlag{Name: "max-in-flight", Usage: "at most this many jobs submitted and not finished (0: no cap)"},
			&cli.DurationFlag{Name: "tail", Usage: "after the last submission wait this long, then cancel what is left (default: wait for every job)"},
			&cli.StringFlag{Name: "targets", Usage: "targets file (TOML): clusters of the slurm target, settings of the others"},
			&cli.StringFlag{Name: "resume", Usage: "continue the run with this id (after a crash or an interrupt)"},
			&cli.StringFlag{Name: "run-id", Usage: "id of the new run (default: time and random digits)"},
			&cli.IntFlag{Name: "retries", Usage: "resubmit a failed task of a composite job up to this many times (0: off)"},
			&cli.IntFlag{Name: "submit-retries", Value: submitter.DefaultSubmitRetries, Usage: "retry a submission failing with a transient error this many times"},
			&cli.DurationFlag{Name: "backoff", Value: 500 * time.Millisecond, Usage: "first wait before a submission retry; doubled each time, up to 30s"},
			&cli.DurationFlag{Name: "retry-for", Value: submitter.DefaultRetryFor, Usage: "retry a call failing with transient errors (a scheduler restarting or unreachable) for at least this long, with backoff (0: --submit-retries alone)"},
			&cli.IntFlag{Name: "processors", Usage: "local target: processor budget (default: the number of CPUs)"},
			&cli.StringFlag{Name: "gmark", Usage: "the gmark binary jobs run as 'gmark app NAME …' (default: this one)"},
			&cli.StringFlag{Name: "run-dir", Usage: "where job scripts and outputs go (default: runs/RUN beside the store)"},
			&cli.StringFlag{Name: "endpoint", Usage: "koala target: URL of the core's HTTP API (default: start a core for the run from --grid)"},
			&cli.StringFlag{Name: "grid", Value: "examples/das2.toml", Usage: "koala target without --endpoint: grid description of the core started for the run"},
			&cli.StringFlag{Name: "token", EnvVars: []string{"GMARK_KOALA_TOKEN"}, Usage: "koala target with --endpoint: the core's token; prefer --token-file or $GMARK_KOALA_TOKEN (a command line is visible to every user of the machine)"},
			&cli.StringFlag{Name: "token-file", Usage: "koala target with --endpoint: file holding the core's token (the server's STATE.token); --resume reads it again"},
			&cli.StringFlag{Name: "policy", Usage: "koala target: placement policy of every job (WF, CF, CM, FCM; default the core's)"},
			&cli.StringFlag{Name: "priority", Usage: "koala target: priority of every job (default the core's)"},
			&cli.StringFlag{Name: "runner", Usage: "koala target: runner of every job: krunner, drunner, irunner"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar and no log lines, for CI (the run id and summary are still printed)"},
		},
		Action: runSubmit,
	})
}

func runSubmit(c *cli.Context) error {
	resume := c.String("resume")
	if c.NArg() > 1 || (c.NArg() == 0 && resume == "") {
		return usageErrorf("submit takes one workload directory (see 'gmark submit --help')")
	}
	if err := checkSubmitRanges(c); err != nil {
		return err
	}
	if resume != "" && c.IsSet("run-id") {
		return usageErrorf("--run-id names a new run; --resume continues one")
	}

	st, err := openStore(c.String("db"))
	if err != nil {
		return err
	}
	defer st.Close()

	// What run, what workload, what target.
	runID := c.String("run-id")
	dir := c.Args().First()
	targetName := c.String("target")
	if resume != "" {
		run, err := st.Run(resume)
		if errors.Is(err, store.ErrNotFound) {
			return usageErrorf("no run %s in %s", resume, c.String("db"))
		}
		if err != nil {
			return err
		}
		runID = run.ID
		if dir == "" {
			dir = run.WorkloadDir
		}
		if targetName == "" {
			targetName = run.Target
		}
	} else if runID == "" {
		runID = submitter.NewRunID()
	} else if err := submitter.CheckRunID(runID); err != nil {
		return usageErrorf("--run-id: %v", err)
	}
	if targetName == "" {
		return usageErrorf("--target is required: %s", strings.Join(targetNames, ", "))
	}
	if _, err := os.Stat(dir); err != nil {
		return usageErrorf("workload directory: %v", err)
	}
	// Nothing is submitted from a workload.jsonl that is not the file its
	// manifest was written with (cut short, edited).
	if warning, err := workload.Check(dir); err != nil {
		return usageError{err}
	} else if warning != "" {
		fmt.Fprintln(c.App.ErrWriter, "warning:", warning)
	}
	runDir := c.String("run-dir")
	if runDir == "" {
		runDir = filepath.Join(filepath.Dir(c.String("db")), "runs", runID)
	}
	// Absolute: the target's configuration records it, and a --resume may
	// run from another directory.
	if runDir, err = filepath.Abs(runDir); err != nil {
		return err
	}
	// One process at a time submits a run; the lock lives in the run's
	// directory beside the store, wherever --run-dir puts the rest.
	release, err := submitter.LockRun(filepath.Join(filepath.Dir(c.String("db")), "runs", runID))
	if errors.Is(err, submitter.ErrRunBusy) {
		return usageErrorf("run %s: %v", runID, err)
	}
	if err != nil {
		return err
	}
	defer release()
	// A resumed run's target is configured as recorded, unless --targets
	// says otherwise.
	var recorded []byte
	if resume != "" && !c.IsSet("targets") {
		if ps, err := st.Provenance(resume); err == nil && len(ps) > 0 {
			recorded = []byte(ps[len(ps)-1].TargetConfig)
		}
	}
	target, targetCfg, err := newTarget(c, targetName, runDir, recorded)
	if err != nil {
		return err
	}
	defer target.Close()

	// The submitter is a latency-sensitive process: collect garbage less
	// often (unless the user chose), so fewer collections pause it.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}

	quiet := c.Bool("quiet")
	out := c.App.Writer
	cfg := submitter.Config{
		WorkloadDir: dir, Store: st, Target: target, TargetConfig: targetCfg,
		Project: c.String("project"), Scenario: c.String("scenario"), RunID: runID, Resume: resume,
		OnStart: func(id string) {
			verb := "run"
			if resume != "" {
				verb = "resuming run"
			}
			fmt.Fprintf(out, "%s %s\n", verb, id)
		},
	}
	cfg.Workers = c.Int("workers")
	cfg.Speedup = c.Float64("speedup")
	cfg.MaxInFlight = c.Int("max-in-flight")
	if c.IsSet("tail") {
		cfg.Tail, cfg.HasTail = c.Duration("tail"), true
	}
	cfg.Retries = c.Int("retries")
	cfg.SubmitRetries = c.Int("submit-retries")
	if cfg.SubmitRetries == 0 {
		cfg.SubmitRetries = -1 // none; 0 would mean the default
	}
	cfg.Backoff = c.Duration("backoff")
	cfg.RetryFor = c.Duration("retry-for")
	if cfg.RetryFor == 0 {
		cfg.RetryFor = -1 // none; 0 would mean the default
	}
	if !quiet {
		cfg.Log = logWriter{c.App.ErrWriter}
	}
	bar := newProgress(-1, "submitting", "jobs", quiet)
	cfg.Progress = func(p submitter.Progress) { showProgress(bar, p) }

	watchInterrupts()
	sum, err := submitter.Run(c.Context, cfg)
	bar.Done()
	switch {
	case errors.Is(err, submitter.ErrUnknownRun), errors.Is(err, submitter.ErrRunEnded), errors.Is(err, submitter.ErrRunMismatch):
		return usageError{err}
	case errors.Is(err, submitter.ErrInterrupted):
		keepCore(target, c.App.ErrWriter)
		printRunSummary(out, sum, c.String("db"))
		return fmt.Errorf("interrupted; continue with: gmark submit --resume %s --db %s", sum.RunID, c.String("db"))
	case err != nil && sum == nil:
		return err
	case err != nil:
		printRunSummary(out, sum, c.String("db"))
		return err
	}
	printRunSummary(out, sum, c.String("db"))
	return nil
}

// newTarget builds the target named by --target, with its configuration
// for the provenance record.
//
// recorded, when set, is the target configuration a resumed run recorded
// (JSON): the target is made the same way again, in the same directories.
func newTarget(c *cli.Context, name, runDir string, recorded []byte) (submitter.Target, any, error) {
	var tf targets.File
	if path := c.String("targets"); path != "" {
		f, err := targets.Load(path)
		if err != nil {
			return nil, nil, usageErrorf("targets file %v", err)
		}
		tf = *f
	}
	fromRecord := func(v any) bool {
		return len(recorded) > 0 && !c.IsSet("run-dir") && json.Unmarshal(recorded, v) == nil
	}
	exe := c.String("gmark")
	if exe != "" {
		abs, err := filepath.Abs(exe)
		if err != nil {
			return nil, nil, usageErrorf("--gmark: %v", err)
		}
		exe = abs
	}
	switch name {
	case "dryrun":
		return submitter.NewDryRun(), map[string]any{}, nil
	case "local":
		var cfg local.Config
		if tf.Local != nil {
			cfg = *tf.Local
		}
		if !fromRecord(&cfg) {
			cfg.Dir = filepath.Join(runDir, "local")
		}
		if c.IsSet("processors") {
			cfg.Processors = c.Int("processors")
		}
		if exe != "" {
			cfg.Executable = exe
		}
		t, err := local.New(cfg)
		if err != nil {
			return nil, nil, err
		}
		return t, t.Config(), nil
	case "slurm":
		var cfg slurm.Config
		if path := c.String("targets"); path != "" {
			if tf.Slurm == nil {
				return nil, nil, usageErrorf("targets file %s: no [slurm] section", path)
			}
			cfg = *tf.Slurm
		} else {
			fromRecord(&cfg)
		}
		if exe != "" {
			cfg.Executable = exe
		}
		if cfg.WorkDir == "" {
			cfg.WorkDir = filepath.Join(runDir, "slurm")
		}
		t, err := slurm.New(cfg)
		if err != nil {
			return nil, nil, usageError{err}
		}
		return t, t.Config(), nil
	case "condor", "sge":
		var cfg batch.Config
		if name == "condor" && tf.Condor != nil {
			cfg = *tf.Condor
		}
		if name == "sge" && tf.SGE != nil {
			cfg = *tf.SGE
		}
		fromRecord(&cfg)
		if exe != "" {
			cfg.Executable = exe
		}
		if cfg.WorkDir == "" {
			cfg.WorkDir = filepath.Join(runDir, name)
		}
		var t *batch.Target
		var err error
		if name == "condor" {
			t, err = batch.NewCondor(cfg)
		} else {
			t, err = batch.NewSGE(cfg)
		}
		if err != nil {
			return nil, nil, usageError{err}
		}
		return t, t.Config(), nil
	case "koala":
		return newKoalaTarget(c, runDir, recorded)
	}
	return nil, nil, usageErrorf("unknown target %q (known: %s)", name, strings.Join(targetNames, ", "))
}

// keepCore leaves the bundled core of an interrupted run running, with the
// jobs it runs: the --resume reconnects to it.
func keepCore(t submitter.Target, w io.Writer) {
	if o, ok := t.(*koalatarget.Owned); ok {
		if core, ok := o.Core.(*koalatarget.Core); ok {
			o.Keep()
			fmt.Fprintf(w, "gmark: the bundled core keeps running the jobs (pid %d); --resume reconnects to it and stops it at the end\n", core.Pid)
		}
	}
}

// logWriter prefixes the submitter's log lines.
type logWriter struct{ w io.Writer }

func (l logWriter) Write(p []byte) (int, error) {
	if _, err := fmt.Fprintf(l.w, "gmark submit: %s", p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func showProgress(p *progress, s submitter.Progress) {
	if p.bar == nil {
		return
	}
	if p.bar.GetMax() != s.Total {
		p.bar.ChangeMax(s.Total)
	}
	desc := fmt.Sprintf("submitted %d · queued %d · running %d · done %d · failed %d · delay %s",
		s.Submitted, s.Queued, s.Running, s.Succeeded, s.Failed+s.Cancelled, fmtMS(s.LastDelay))
	if s.InTail {
		desc += fmt.Sprintf(" · tail %s left", s.TailLeft.Round(time.Second))
	}
	p.bar.Describe(desc)
	_ = p.bar.Set(s.Succeeded + s.Failed + s.Cancelled)
}

func fmtMS(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

func printRunSummary(w io.Writer, s *submitter.Summary, db string) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "run %s %s in %s\n", s.RunID, s.Status, s.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  submitted: %d", s.Submitted)
	if s.SubmitFailed > 0 {
		fmt.Fprintf(w, ", %d submissions failed", s.SubmitFailed)
	}
	if s.Retries > 0 {
		fmt.Fprintf(w, " (%d submit calls retried)", s.Retries)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  jobs:  %s\n", stateCounts(s.Jobs))
	if len(s.Tasks) > 0 {
		fmt.Fprintf(w, "  tasks: %s\n", stateCounts(s.Tasks))
	}
	if s.Delay.N > 0 {
		fmt.Fprintf(w, "  submission delay: %s\n", s.Delay)
	}
	if s.Recovered > 0 {
		fmt.Fprintf(w, "  recovered after the restart: %d submissions found at the target\n", s.Recovered)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintf(w, "  store: %s\n", db)
}

func stateCounts(m map[string]int) string {
	total := 0
	var keys []string
	for k, n := range m {
		total += n
		keys = append(keys, k)
	}
	order := map[string]int{store.Succeeded: 0, store.Failed: 1, store.Cancelled: 2, store.NeverStarted: 3}
	sort.Slice(keys, func(i, j int) bool { return order[keys[i]] < order[keys[j]] })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	if len(parts) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

// koalaConfig is the koala target's configuration as the provenance records
// it (never the token).
type koalaConfig struct {
	Endpoint string `json:"endpoint,omitempty"`
	// TokenFile is where the token was read (a path is no secret): a
	// resumed run reads it there again.
	TokenFile string `json:"token_file,omitempty"`
	Grid      string `json:"grid,omitempty"`
	State     string `json:"state,omitempty"`
	Policy    string `json:"policy,omitempty"`
	Priority  string `json:"priority,omitempty"`
	Runner    string `json:"runner,omitempty"`
	// The bundled core's clock and scan interval, when they override the
	// grid's ('gmark run --speedup'): a resumed run's core runs the same.
	TimeScale    float64 `json:"time_scale,omitempty"`
	ScanInterval string  `json:"scan_interval,omitempty"`
}

// newKoalaTarget connects to a core at --endpoint, or starts one for the
// run from --grid (bundledKoalaTarget).
func newKoalaTarget(c *cli.Context, runDir string, recorded []byte) (submitter.Target, any, error) {
	var cfg koalaConfig
	if len(recorded) > 0 && !c.IsSet("endpoint") && !c.IsSet("grid") {
		_ = json.Unmarshal(recorded, &cfg)
	}
	for _, f := range []struct {
		flag string
		dst  *string
	}{{"endpoint", &cfg.Endpoint}, {"policy", &cfg.Policy}, {"priority", &cfg.Priority}, {"runner", &cfg.Runner}} {
		if c.IsSet(f.flag) || *f.dst == "" {
			*f.dst = c.String(f.flag)
		}
	}
	tc := koalatarget.Config{Policy: cfg.Policy, Priority: cfg.Priority, Runner: cfg.Runner}
	if cfg.Endpoint != "" {
		tc.Endpoint = cfg.Endpoint
		switch {
		case c.IsSet("token-file"):
			abs, err := filepath.Abs(c.String("token-file"))
			if err != nil {
				return nil, nil, usageErrorf("--token-file: %v", err)
			}
			cfg.TokenFile = abs
		case c.String("token") != "":
			cfg.TokenFile = "" // given again: it wins over the recorded file
			tc.Token = c.String("token")
		}
		if cfg.TokenFile != "" {
			b, err := os.ReadFile(cfg.TokenFile)
			if err != nil {
				return nil, nil, usageErrorf("--token-file: %v", err)
			}
			tc.Token = strings.TrimSpace(string(b))
		}
		t, err := koalatarget.New(tc)
		if err != nil {
			return nil, nil, usageError{err}
		}
		return t, cfg, nil
	}
	if cfg.Grid == "" || c.IsSet("grid") {
		cfg.Grid = c.String("grid")
	}
	return bundledKoalaTarget(c.Context, cfg, tc, runDir)
}

// bundledKoalaTarget starts the bundled core of cfg.Grid as a process of
// its own (or reconnects to the one a killed submitter left running), its
// state in the run directory, and returns the target that uses it and
// owns it. The core outlives a kill -9 of the submitter, so the jobs it
// runs do not die with the submitter; the resumed run finds the same core
// or, if it is gone, restarts one on the same state, which refuses to run
// a job twice.
func bundledKoalaTarget(ctx context.Context, cfg koalaConfig, tc koalatarget.Config, runDir string) (submitter.Target, any, error) {
	if _, err := grid.Load(cfg.Grid); err != nil {
		return nil, nil, usageError{err}
	}
	var err error
	if cfg.Grid, err = filepath.Abs(cfg.Grid); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return nil, nil, err
	}
	if cfg.State == "" {
		cfg.State = filepath.Join(runDir, "koala.db")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	var args []string
	if cfg.Policy != "" {
		args = append(args, "--policy", cfg.Policy)
	}
	if cfg.TimeScale > 0 {
		args = append(args, "--time-scale", strconv.FormatFloat(cfg.TimeScale, 'g', -1, 64))
	}
	if cfg.ScanInterval != "" {
		args = append(args, "--scan-interval", cfg.ScanInterval)
	}
	core, err := koalatarget.StartCore(ctx, koalatarget.CoreSpec{Executable: exe, Grid: cfg.Grid, State: cfg.State, Args: args})
	if err != nil {
		return nil, nil, err
	}
	tc.Endpoint, tc.Token = core.Endpoint, core.Token
	t, err := koalatarget.New(tc)
	if err != nil {
		_ = core.Stop()
		return nil, nil, err
	}
	return &koalatarget.Owned{Target: t, Core: core}, cfg, nil
}

// openStore opens the results store for writing; a damaged file or a path
// that is not a file is bad input (exit 2), and nothing is written to it.
func openStore(path string) (*store.Store, error) {
	st, err := store.Open(path)
	if errors.Is(err, store.ErrDamaged) || errors.Is(err, store.ErrNotFile) {
		return nil, usageError{err}
	}
	return st, err
}
