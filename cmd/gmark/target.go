package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/batch"
	"github.com/gmark/gmark/submitter/koalatarget"
	"github.com/gmark/gmark/submitter/local"
	"github.com/gmark/gmark/submitter/slurm"
	"github.com/gmark/gmark/submitter/targets"
	"github.com/urfave/cli/v2"
)

// targetOptions are the flags that make a target (gmark submit, gmark run).
// A string flag's value comes with whether it was given: a resumed run's
// recorded configuration gives way to a flag given again, not to a default.
type targetOptions struct {
	file       string // --targets: the targets file
	fileSet    bool
	runDirSet  bool   // --run-dir given: a resumed run's recorded directories are not reused
	processors int    // local: the processor budget; 0 when not given
	gmark      string // the gmark binary jobs run; "" this one
	endpoint   flagString
	grid       flagString
	token      string
	tokenFile  flagString
	policy     flagString
	priority   flagString
	runner     flagString
}

// flagString is a string flag's value and whether it was given.
type flagString struct {
	v   string
	set bool
}

func stringFlag(c *cli.Context, name string) flagString {
	return flagString{c.String(name), c.IsSet(name)}
}

// targetOptionsOf reads the target flags of the command.
func targetOptionsOf(c *cli.Context) targetOptions {
	o := targetOptions{file: c.String("targets"), fileSet: c.IsSet("targets"), runDirSet: c.IsSet("run-dir"),
		gmark: c.String("gmark"), endpoint: stringFlag(c, "endpoint"), grid: stringFlag(c, "grid"), token: c.String("token"),
		tokenFile: stringFlag(c, "token-file"), policy: stringFlag(c, "policy"), priority: stringFlag(c, "priority"),
		runner: stringFlag(c, "runner")}
	if c.IsSet("processors") {
		o.processors = c.Int("processors")
	}
	return o
}

// newTarget builds the target named by --target, with its configuration
// for the provenance record.
//
// recorded, when set, is the target configuration a resumed run recorded
// (JSON): the target is made the same way again, in the same directories.
func newTarget(ctx context.Context, o targetOptions, name, runDir string, recorded []byte) (submitter.Target, any, error) {
	var tf targets.File
	if o.file != "" {
		f, err := targets.Load(o.file)
		if err != nil {
			return nil, nil, usageErrorf("targets file %v", err)
		}
		tf = *f
	}
	fromRecord := func(v any) bool {
		return len(recorded) > 0 && !o.runDirSet && json.Unmarshal(recorded, v) == nil
	}
	if o.gmark != "" {
		abs, err := filepath.Abs(o.gmark)
		if err != nil {
			return nil, nil, usageErrorf("--gmark: %v", err)
		}
		o.gmark = abs
	}
	switch name {
	case "dryrun":
		return submitter.NewDryRun(), map[string]any{}, nil
	case "local":
		return newLocalTarget(o, tf, runDir, fromRecord)
	case "slurm":
		return newSlurmTarget(o, tf, runDir, fromRecord)
	case "condor", "sge":
		return newBatchTarget(o, tf, name, runDir, fromRecord)
	case "koala":
		return newKoalaTarget(ctx, o, runDir, recorded)
	}
	return nil, nil, usageErrorf("unknown target %q (known: %s)", name, strings.Join(targetNames, ", "))
}

func newLocalTarget(o targetOptions, tf targets.File, runDir string, fromRecord func(any) bool) (submitter.Target, any, error) {
	var cfg local.Config
	if tf.Local != nil {
		cfg = *tf.Local
	}
	if !fromRecord(&cfg) {
		cfg.Dir = filepath.Join(runDir, "local")
	}
	if o.processors != 0 {
		cfg.Processors = o.processors
	}
	if o.gmark != "" {
		cfg.Executable = o.gmark
	}
	t, err := local.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return t, t.Config(), nil
}

func newSlurmTarget(o targetOptions, tf targets.File, runDir string, fromRecord func(any) bool) (submitter.Target, any, error) {
	var cfg slurm.Config
	if o.file != "" {
		if tf.Slurm == nil {
			return nil, nil, usageErrorf("targets file %s: no [slurm] section", o.file)
		}
		cfg = *tf.Slurm
	} else {
		fromRecord(&cfg)
	}
	if o.gmark != "" {
		cfg.Executable = o.gmark
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(runDir, "slurm")
	}
	t, err := slurm.New(cfg)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return t, t.Config(), nil
}

func newBatchTarget(o targetOptions, tf targets.File, name, runDir string, fromRecord func(any) bool) (submitter.Target, any, error) {
	var cfg batch.Config
	if name == "condor" && tf.Condor != nil {
		cfg = *tf.Condor
	}
	if name == "sge" && tf.SGE != nil {
		cfg = *tf.SGE
	}
	fromRecord(&cfg)
	if o.gmark != "" {
		cfg.Executable = o.gmark
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
func newKoalaTarget(ctx context.Context, o targetOptions, runDir string, recorded []byte) (submitter.Target, any, error) {
	var cfg koalaConfig
	if len(recorded) > 0 && !o.endpoint.set && !o.grid.set {
		_ = json.Unmarshal(recorded, &cfg)
	}
	for _, f := range []struct {
		flag flagString
		dst  *string
	}{{o.endpoint, &cfg.Endpoint}, {o.policy, &cfg.Policy}, {o.priority, &cfg.Priority}, {o.runner, &cfg.Runner}} {
		if f.flag.set || *f.dst == "" {
			*f.dst = f.flag.v
		}
	}
	tc := koalatarget.Config{Policy: cfg.Policy, Priority: cfg.Priority, Runner: cfg.Runner}
	if cfg.Endpoint != "" {
		tc.Endpoint = cfg.Endpoint
		switch {
		case o.tokenFile.set:
			abs, err := filepath.Abs(o.tokenFile.v)
			if err != nil {
				return nil, nil, usageErrorf("--token-file: %v", err)
			}
			cfg.TokenFile = abs
		case o.token != "":
			cfg.TokenFile = "" // given again: it wins over the recorded file
			tc.Token = o.token
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
	if cfg.Grid == "" || o.grid.set {
		cfg.Grid = o.grid.v
	}
	return bundledKoalaTarget(ctx, cfg, tc, runDir)
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
