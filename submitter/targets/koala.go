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
	"github.com/gmark/gmark/submitter/koalatarget"
)

// koalaTarget submits to the bundled core, started for the run from a grid
// file, or to a running core; its settings are the command line's
// (KoalaOptions), not a section of the targets file.
var koalaTarget = Spec{
	Name: "koala",
	Doc:  "the bundled KOALA-style core, started for the run or at --endpoint",
	make: newKoala,
	check: func(m maker) error {
		cfg, tc, err := koalaConfig(m)
		if err != nil {
			return err
		}
		if cfg.Endpoint == "" {
			_, err = cfg.CoreGrid() // the bundled core's grid
		} else {
			_, err = koalatarget.New(tc)
		}
		return inputError(err)
	},
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
func newKoala(ctx context.Context, m maker) (submitter.Target, any, error) {
	cfg, tc, err := koalaConfig(m)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Endpoint == "" {
		return Bundled(ctx, cfg, tc, m.o.RunDir, m.o.Self)
	}
	t, err := koalatarget.New(tc)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	return t, cfg, nil
}

// koalaConfig is the koala target's configuration from o and a resumed
// run's record, and the client's; the token of a token file read.
func koalaConfig(m maker) (KoalaConfig, koalatarget.Config, error) {
	k, recorded := m.o.Koala, m.recorded
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
