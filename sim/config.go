package sim

import (
	"fmt"
	"time"
)

// Config is one run's settings. Start from DefaultConfig: its values are
// the thesis's where it gives them, and gmark's documented choices where
// it does not (docs/sim.md). The settings are declared once, in groups:
// the engine's (EngineSettings, here), the dynamics' (dynamics.go), the
// matchmaking site managers' and the job routers' reservations
// (sitemanager.go), and each architecture's in its own file; embedded
// here, each group's fields read as the Config's (cfg.DTTL). Its JSON, a
// run's digest, is the layout of gmark-sim-run/1 (digest.go).
type Config struct {
	Arch string // sep-c, condor, fcondor, cern, central, dmm, hier
	Seed uint64 // seeds the cycle phases and the home of jobs that name no cluster

	EngineSettings
	DynamicsSettings
	MatchSettings
	ReserveSettings
	CentralSettings
	HierSettings
	FCondorSettings
	DMMSettings
}

// EngineSettings are the engine's own settings, every architecture's.
type EngineSettings struct {
	// CoolDown runs until every job has ended; by default a run stops at
	// the last arrival, as in the thesis's Ch. 8 (Sec. 8.4.1).
	CoolDown bool `toml:"cool_down"`
	// CoolDownLimit bounds the cool-down after the last arrival (jobs that
	// can never start, e.g. behind a cluster that never comes back).
	CoolDownLimit time.Duration `toml:"cool_down_limit"`
	// AlignedCycles starts every site manager's cycles at time 0; by
	// default each one's phase is drawn uniformly within its period.
	AlignedCycles bool `toml:"aligned_cycles"`

	// The information service: a snapshot of every cluster's idle
	// processors every InfoPeriod (0: every change is reported), visible
	// InfoDelay (δ) after it is taken. central reads it to place jobs, DMM
	// to order its targets.
	InfoPeriod time.Duration `toml:"info_period"`
	InfoDelay  time.Duration `toml:"info_delay"`

	KeepAlivePeriod time.Duration `toml:"keep_alive_period"` // lease renewal of a running job (300 s)
	LeaseTerm       time.Duration `toml:"lease_term"`        // a lease not renewed for this long expires (1,800 s)
	SlowdownBound   time.Duration `toml:"slowdown_bound"`    // τ of the bounded slowdown (10 s)

	LocalScheduler string `toml:"local_scheduler"` // cluster queues: "" (as the topology says), "fcfs", "easy" or "conservative"
	Selection      string `toml:"selection"`       // job selection: "all" or "window:N"

	Outages []Outage // cluster failures

	// Horizon cuts the run at this time (0: no cut): nothing due after it
	// happens, and the measurement window ends there.
	Horizon time.Duration
}

// Outage takes a cluster down at At for For (0: for good).
type Outage struct {
	Cluster string
	At, For time.Duration
}

// DefaultConfig is the thesis's setting for an architecture (Sec. 8.4.4,
// Table 8.1), with gmark's choices where the thesis gives no value: every
// group's defaults, then the architecture's own (register).
func DefaultConfig(arch string) Config {
	c := Config{Arch: arch}
	for _, g := range c.groups() {
		g.Default()
	}
	if d := archs[arch].defaults; d != nil {
		d(&c)
	}
	return c
}

// Default: the engine's defaults.
func (e *EngineSettings) Default() {
	*e = EngineSettings{CoolDownLimit: 365 * 24 * time.Hour, KeepAlivePeriod: 300 * time.Second, LeaseTerm: 1800 * time.Second,
		SlowdownBound: 10 * time.Second, Selection: "all"}
}

// The documented ranges of the settings (docs/sim.md).
const (
	MinPeriod  = time.Second
	MaxPeriod  = 7 * 24 * time.Hour
	MaxOutages = 1_000_000
	MaxHorizon = 100 * 365 * 24 * time.Hour
)

// Check validates a Config: every group, then what holds across them.
func (c *Config) Check() error {
	for _, g := range c.groups() {
		if err := g.Check(); err != nil {
			return err
		}
	}
	if err := c.checkOwn(); err != nil {
		return err
	}
	growth := c.GrowthPerYear > 0 || c.Growth == GrowthThesis
	if c.Arch == "central" && c.CentralModel == CentralCore && (c.Failures == FailuresThesis || growth) {
		key := "growth"
		if c.Failures == FailuresThesis {
			key = "failures"
		}
		return settingErr(key, "(failures %q, growth %q, growth_per_year %g): generated failures and growth act on the engine's clusters, and the core model (central_model %q) runs its own: use central_model %q",
			c.Failures, c.Growth, c.GrowthPerYear, CentralCore, CentralPlacement)
	}
	return nil
}

// checkPeriod checks a cycle's period: in [MinPeriod, MaxPeriod], or 0
// when zeroOK.
func checkPeriod(key string, v time.Duration, zeroOK bool) error {
	if (v == 0 && zeroOK) || (v >= MinPeriod && v <= MaxPeriod) {
		return nil
	}
	return settingErr(key, "= %v is out of range: must be in [%v, %v]", v, MinPeriod, MaxPeriod)
}

// Check: the engine's settings.
func (e *EngineSettings) Check() error {
	for _, p := range []struct {
		key    string
		v      time.Duration
		zeroOK bool
	}{
		{"info_period", e.InfoPeriod, true},
		{"keep_alive_period", e.KeepAlivePeriod, false},
		{"lease_term", e.LeaseTerm, false},
	} {
		if err := checkPeriod(p.key, p.v, p.zeroOK); err != nil {
			return err
		}
	}
	switch {
	case e.InfoDelay < 0 || e.InfoDelay > MaxPeriod:
		return settingErr("info_delay", "= %v is out of range: must be in [0, %v]", e.InfoDelay, MaxPeriod)
	case e.SlowdownBound < 0 || e.SlowdownBound > MaxPeriod:
		return settingErr("slowdown_bound", "= %v is out of range: must be in [0, %v]", e.SlowdownBound, MaxPeriod)
	case e.LeaseTerm < e.KeepAlivePeriod:
		return settingErr("lease_term", "= %v is shorter than keep_alive_period = %v: every lease would expire", e.LeaseTerm, e.KeepAlivePeriod)
	case e.CoolDownLimit < 0 || e.CoolDownLimit > MaxHorizon:
		return settingErr("cool_down_limit", "= %v is out of range: must be in [0, %v]", e.CoolDownLimit, MaxHorizon)
	case e.Horizon < 0 || e.Horizon > MaxHorizon:
		return fmt.Errorf("Horizon = %v is out of range: must be in [0, %v]", e.Horizon, MaxHorizon)
	case len(e.Outages) > MaxOutages:
		return fmt.Errorf("%d outages: at most %d", len(e.Outages), MaxOutages)
	}
	switch e.LocalScheduler {
	case "", "fcfs", "easy", "conservative":
	default:
		return settingErr("local_scheduler", "%q: use \"fcfs\", \"easy\" or \"conservative\" (or nothing for the topology's)", e.LocalScheduler)
	}
	for i, o := range e.Outages {
		if o.At < 0 || o.At > MaxHorizon || o.For < 0 || o.For > MaxHorizon {
			return fmt.Errorf("outage %d of %s: at %v for %v is out of range [0, %v]", i+1, o.Cluster, o.At, o.For, MaxHorizon)
		}
	}
	if _, err := NewSelection(e.Selection); err != nil {
		return &SettingError{Key: "selection", Msg: err.Error()}
	}
	return nil
}
