package targets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/batch"
	"github.com/gmark/gmark/submitter/koalatarget"
	"github.com/gmark/gmark/submitter/local"
	"github.com/gmark/gmark/submitter/slurm"
)

// Names are the targets New makes.
var Names = []string{"dryrun", "local", "slurm", "condor", "sge", "koala", "arc", "gram"}

// InputError is a target that cannot be made from what the user gave (a
// targets file, a setting, a grid file): bad input, not a failure.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error { return &InputError{fmt.Errorf(format, args...)} }

// Flag is a setting from the command line and whether it was given: a
// resumed run's recorded configuration gives way to a setting given again,
// not to a default.
type Flag struct {
	Value string
	Set   bool
}

// Options are what makes a target besides the targets file's section.
type Options struct {
	File   string // the targets file; "" none
	RunDir string // the run's directory (absolute): scripts, outputs, the bundled core's state
	// NewRunDir: the run directory was given anew, so a resumed run's
	// recorded directories are not reused.
	NewRunDir  bool
	Processors int    // local: the processor budget; 0 for the file's (or the default)
	Executable string // the gmark binary jobs run; "" this one
	// Self is the gmark binary that serves the bundled core ('gmark koala
	// serve'); "" for os.Executable().
	Self  string
	Koala KoalaOptions
}

// KoalaOptions are the koala target's settings.
type KoalaOptions struct {
	Endpoint  Flag // a running core; not given: a core started for the run from Grid
	Grid      Flag
	TokenFile Flag
	Token     string // given directly; TokenFile wins
	Policy    Flag
	Priority  Flag
	Runner    Flag
}

// New makes the target name, with its configuration for the provenance
// record.
//
// recorded, when set, is the target configuration a resumed run recorded
// (JSON): the target is made the same way again, in the same directories.
func New(ctx context.Context, name string, o Options, recorded []byte) (submitter.Target, any, error) {
	tf, err := loadTargets(&o)
	if err != nil {
		return nil, nil, err
	}
	fromRecord := recordedInto(o, recorded)
	switch name {
	case "dryrun":
		return submitter.NewDryRun(), map[string]any{}, nil
	case "local":
		return newLocal(o, tf, fromRecord)
	case "slurm":
		return newSlurm(o, tf, fromRecord)
	case "condor", "sge":
		return newBatch(o, tf, name, fromRecord)
	case "koala":
		return newKoala(ctx, o, recorded)
	case "arc":
		return newARC(o, tf, fromRecord)
	case "gram":
		return newGRAM(o, tf, fromRecord)
	}
	return nil, nil, unknownTarget(name)
}

func unknownTarget(name string) error {
	return inputErrorf("unknown target %q (known: %s)", name, strings.Join(Names, ", "))
}

// loadTargets reads the targets file of o (none: an empty File) and makes
// o's executable absolute.
func loadTargets(o *Options) (File, error) {
	var tf File
	if o.File != "" {
		f, err := Load(o.File)
		if err != nil {
			return tf, inputErrorf("targets file %v", err)
		}
		tf = *f
	}
	if o.Executable != "" {
		abs, err := filepath.Abs(o.Executable)
		if err != nil {
			return tf, inputErrorf("--gmark: %v", err)
		}
		o.Executable = abs
	}
	return tf, nil
}

// recordedInto reads a resumed run's recorded target configuration into
// a target's, unless its run directory was given anew; false when it did
// not.
func recordedInto(o Options, recorded []byte) func(any) bool {
	return func(v any) bool {
		return len(recorded) > 0 && !o.NewRunDir && json.Unmarshal(recorded, v) == nil
	}
}

func newLocal(o Options, tf File, fromRecord func(any) bool) (submitter.Target, any, error) {
	var cfg local.Config
	if tf.Local != nil {
		cfg = *tf.Local
	}
	if !fromRecord(&cfg) {
		cfg.Dir = filepath.Join(o.RunDir, "local")
	}
	if o.Processors != 0 {
		cfg.Processors = o.Processors
	}
	if o.Executable != "" {
		cfg.Executable = o.Executable
	}
	t, err := local.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return t, t.Config(), nil
}

func newSlurm(o Options, tf File, fromRecord func(any) bool) (submitter.Target, any, error) {
	cfg, err := slurmConfig(o, tf, fromRecord)
	if err != nil {
		return nil, nil, err
	}
	t, err := slurm.New(cfg)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	return t, t.Config(), nil
}

func slurmConfig(o Options, tf File, fromRecord func(any) bool) (slurm.Config, error) {
	var cfg slurm.Config
	if o.File != "" {
		if tf.Slurm == nil {
			return cfg, inputErrorf("targets file %s: no [slurm] section", o.File)
		}
		cfg = *tf.Slurm
	} else {
		fromRecord(&cfg)
	}
	if o.Executable != "" {
		cfg.Executable = o.Executable
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(o.RunDir, "slurm")
	}
	return cfg, nil
}

func newBatch(o Options, tf File, name string, fromRecord func(any) bool) (submitter.Target, any, error) {
	var cfg batch.Config
	if name == "condor" && tf.Condor != nil {
		cfg = *tf.Condor
	}
	if name == "sge" && tf.SGE != nil {
		cfg = *tf.SGE
	}
	fromRecord(&cfg)
	if o.Executable != "" {
		cfg.Executable = o.Executable
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = filepath.Join(o.RunDir, name)
	}
	var t *batch.Target
	var err error
	if name == "condor" {
		t, err = batch.NewCondor(cfg)
	} else {
		t, err = batch.NewSGE(cfg)
	}
	if err != nil {
		return nil, nil, &InputError{err}
	}
	return t, t.Config(), nil
}

// KoalaConfig is the koala target's configuration as the provenance records
// it (never the token).
type KoalaConfig struct {
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

// newKoala connects to a core at the endpoint, or starts one for the run
// from the grid (Bundled).
func newKoala(ctx context.Context, o Options, recorded []byte) (submitter.Target, any, error) {
	cfg, tc, err := koalaConfig(o, recorded)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Endpoint == "" {
		return Bundled(ctx, cfg, tc, o.RunDir, o.Self)
	}
	t, err := koalatarget.New(tc)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	return t, cfg, nil
}

// koalaConfig is the koala target's configuration from o and a resumed
// run's record, and the client's; the token of a token file read.
func koalaConfig(o Options, recorded []byte) (KoalaConfig, koalatarget.Config, error) {
	k := o.Koala
	var cfg KoalaConfig
	if len(recorded) > 0 && !k.Endpoint.Set && !k.Grid.Set {
		_ = json.Unmarshal(recorded, &cfg)
	}
	for _, f := range []struct {
		flag Flag
		dst  *string
	}{{k.Endpoint, &cfg.Endpoint}, {k.Policy, &cfg.Policy}, {k.Priority, &cfg.Priority}, {k.Runner, &cfg.Runner}} {
		if f.flag.Set || *f.dst == "" {
			*f.dst = f.flag.Value
		}
	}
	tc := koalatarget.Config{Policy: cfg.Policy, Priority: cfg.Priority, Runner: cfg.Runner}
	if err := tc.CheckSettings(); err != nil {
		return cfg, tc, &InputError{err}
	}
	if cfg.Endpoint == "" {
		if cfg.Grid == "" || k.Grid.Set {
			cfg.Grid = k.Grid.Value
		}
		return cfg, tc, nil
	}
	tc.Endpoint = cfg.Endpoint
	switch {
	case k.TokenFile.Set:
		abs, err := filepath.Abs(k.TokenFile.Value)
		if err != nil {
			return cfg, tc, inputErrorf("--token-file: %v", err)
		}
		cfg.TokenFile = abs
	case k.Token != "":
		cfg.TokenFile = "" // given again: it wins over the recorded file
		tc.Token = k.Token
	}
	if cfg.TokenFile != "" {
		b, err := os.ReadFile(cfg.TokenFile)
		if err != nil {
			return cfg, tc, inputErrorf("--token-file: %v", err)
		}
		tc.Token = strings.TrimSpace(string(b))
	}
	return cfg, tc, nil
}

// Bundled starts the bundled core of cfg.Grid as a process of its own (self
// koala serve; self "" is this program), or reconnects to the one a killed
// submitter left running, its state in the run directory, and returns the
// target that uses it and owns it. The core outlives a kill -9 of the
// submitter, so the jobs it runs do not die with the submitter; the resumed
// run finds the same core or, if it is gone, restarts one on the same
// state, which refuses to run a job twice.
//
// A grid path naming a shipped example ("examples/das2.toml") that is not
// on disk (gmark runs outside the repository) is written into the run
// directory from the copy built into gmark, and the core reads it there.
func Bundled(ctx context.Context, cfg KoalaConfig, tc koalatarget.Config, runDir, self string) (submitter.Target, any, error) {
	var err error
	if cfg.Grid, _, err = examples.Resolve(cfg.Grid, runDir); err != nil {
		return nil, nil, err
	}
	if _, err := cfg.CoreGrid(); err != nil {
		return nil, nil, &InputError{err}
	}
	if cfg.Grid, err = filepath.Abs(cfg.Grid); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return nil, nil, err
	}
	if cfg.State == "" {
		cfg.State = filepath.Join(runDir, "koala.db")
	}
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return nil, nil, err
		}
	}
	// Its local workloads wait for the run's origin (koalatarget.Target.Origin).
	args := []string{"--await-run"}
	if cfg.Policy != "" {
		args = append(args, "--policy", cfg.Policy)
	}
	if cfg.TimeScale > 0 {
		args = append(args, "--time-scale", strconv.FormatFloat(cfg.TimeScale, 'g', -1, 64))
	}
	if cfg.ScanInterval != "" {
		args = append(args, "--scan-interval", cfg.ScanInterval)
	}
	core, err := koalatarget.StartCore(ctx, koalatarget.CoreSpec{Executable: self, Grid: cfg.Grid, State: cfg.State, Args: args})
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

// LoadGrid reads a grid file. A path naming a shipped example the way the
// repository does ("examples/das2.toml", the default of --grid) that is not
// on disk reads the copy built into gmark.
func LoadGrid(path string) (*grid.Grid, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if name, ok := examples.Lookup(path); ok {
			b, err := examples.ReadFile(name)
			if err != nil {
				return nil, err
			}
			return grid.Parse(path, b)
		}
	}
	return grid.Load(path)
}

// CoreGrid is the grid of the core Bundled starts for c: its grid file
// with the settings the core is started with over the file's.
func (c KoalaConfig) CoreGrid() (*grid.Grid, error) {
	g, err := LoadGrid(c.Grid)
	if err != nil {
		return nil, err
	}
	var o grid.Overrides
	if c.Policy != "" {
		o.Policy = &c.Policy
	}
	if c.TimeScale > 0 {
		o.TimeScale = &c.TimeScale
	}
	if c.ScanInterval != "" {
		d, err := time.ParseDuration(c.ScanInterval)
		if err != nil {
			return nil, fmt.Errorf("scan interval %q: %v", c.ScanInterval, err)
		}
		o.ScanInterval = &d
	}
	if err := g.Apply(o); err != nil {
		return nil, fmt.Errorf("%s %v", c.Grid, err)
	}
	return g, nil
}
