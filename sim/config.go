package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/gmark/gmark/koala/grid"
)

// Config is one run's settings. Start from DefaultConfig: its values are
// the thesis's where it gives them, and gmark's documented choices where
// it does not (docs/sim.md).
type Config struct {
	Arch string // sep-c, condor, fcondor, cern, central, dmm, hier
	Seed uint64 // seeds the cycle phases and the home of jobs that name no cluster

	// CoolDown runs until every job has ended; by default a run stops at
	// the last arrival, as in the thesis's Ch. 8 (Sec. 8.4.1).
	CoolDown bool
	// CoolDownLimit bounds the cool-down after the last arrival (jobs that
	// can never start, e.g. behind a cluster that never comes back).
	CoolDownLimit time.Duration

	MatchPeriod      time.Duration // matchmaking cycle of condor, fcondor and DMM (300 s)
	DelegationPeriod time.Duration // DMM's delegation cycle (60 s; the thesis says only "shorter than 300 s")
	// AlignedCycles starts every site manager's cycles at time 0; by
	// default each one's phase is drawn uniformly within its period.
	AlignedCycles bool

	// The information service: a snapshot of every cluster's idle
	// processors every InfoPeriod (0: every change is reported), visible
	// InfoDelay (δ) after it is taken. central reads it to place jobs, DMM
	// to order its targets.
	InfoPeriod time.Duration
	InfoDelay  time.Duration
	// CentralReserve: central counts processors it sent to a cluster
	// against the cluster's idle count until a snapshot shows them (KOALA's
	// soft reservation). Without it central sends jobs to a cluster as long
	// as the last snapshot shows it idle, and the cluster queues them (the
	// reading under which the thesis's T1 curves shift by exactly δ).
	CentralReserve bool
	Placement      string // central's placement policy (koala/placement): WF, CF, CM, FCM
	Distribution   string // hier's multi-level distribution: worst-fit, best-fit, round-robin, load

	KeepAlivePeriod time.Duration // lease renewal of a running job (300 s)
	LeaseTerm       time.Duration // a lease not renewed for this long expires (1,800 s)
	SlowdownBound   time.Duration // τ of the bounded slowdown (10 s)

	Threshold  float64       // DMM's delegation threshold (1.0)
	DTTL       int           // DMM's delegation time-to-live (5)
	SeenMemory time.Duration // how long a site that rejected a request is not asked again (1 h)
	HalfLife   time.Duration // fcondor's fair-share usage decay half-life (1 day)

	LocalScheduler  string // cluster queues: "" (as the topology says), "fcfs", "easy" or "conservative"
	Selection       string // job selection: "all" or "window:N"
	Dispatch        string // local dispatch of the matchmaking site managers: "fcfs" (condor's default) or "fcfs-bypass" (fcondor's and DMM's)
	DelegationOrder string // fcfs, lifo, largest, smallest
	TargetOrder     string // keep-local, most-free, best-fit, fixed

	// DMMInformation is what a DMM site manager knows when it ranks its
	// targets: "local" (the thesis's Sec. 8.3.2, "the site schedulers base
	// their decision only on local information"; dmm's default) — its own
	// cluster and the last reports of its directly connected clusters, and
	// of an administrative neighbour only that it is there — or "global"
	// (""): the room of every cluster reachable through an administrative
	// neighbour, as the information service shows it. DMMPassOn: a loaded
	// cluster SM offered a request it cannot take delegates it further
	// (within the DTTL) before it rejects it (Sec. 8.3.2: "an SM may not
	// find suitable resources, both locally or through delegation"; dmm's
	// default); without it, it rejects it at once. The zero values are the
	// readings gmark had before these settings, so a Config without them
	// has the JSON (an experiment run's digest) it had.
	DMMInformation string `json:",omitempty"`
	DMMPassOn      bool   `json:",omitempty"`

	Outages []Outage // cluster failures

	// CentralModel is what central is: "" or "placement" (DGSim's koala
	// plug-in, the default) or "core" (the bundled core, koala/core: what
	// 'gmark koala simulate' runs). CoreGrid is the core's grid (its
	// scheduler settings, background and local load; its clusters must be
	// the topology's); nil builds one from the topology with Placement as
	// its policy. Core hands in a core made by the caller instead.
	CentralModel string     `json:",omitempty"`
	CoreGrid     *grid.Grid `json:",omitempty"`
	Core         *CoreModel `json:"-"`
	// Settings of the core model over its grid's (docs/deadlines.md): the
	// deadline policy (rpp, wait-X), L_p, global or local priority, and
	// every cluster's local load U_l (a fraction; its other local settings
	// as the grid gives them, else the defaults). Zero values leave the
	// grid's.
	CoreDeadlinePolicy   string  `json:",omitempty"`
	CoreDeadlineL        float64 `json:",omitempty"`
	CoreDeadlinePriority string  `json:",omitempty"`
	CoreLocalLoad        float64 `json:",omitempty"`
	// The paper's two open readings (gp_kill, waitx_first_try of the
	// grid's [scheduler]); "" leaves the grid's.
	CoreGPKill        string `json:",omitempty"`
	CoreWaitXFirstTry string `json:",omitempty"`
	// How long the local workloads run before the run's time 0 (the grid's
	// [scheduler] local_warmup): the core starts that much earlier, and
	// its deadline figures count from time 0.
	CoreLocalWarmup time.Duration `json:",omitempty"`

	// Horizon cuts the run at this time (0: no cut): nothing due after it
	// happens, and the measurement window ends there.
	Horizon time.Duration `json:",omitempty"`

	// Generated dynamics (dynamics.go, docs/sim.md); the zero values mean
	// none, and leave the JSON of a Config (an experiment run's digest) as
	// it was without them.
	Failures          string        `json:",omitempty"` // "" or "none", or "thesis": the thesis's failure model (Sec. 4.3.1)
	FailureScale      float64       `json:",omitempty"` // multiplies the failure rate (0: 1)
	Growth            string        `json:",omitempty"` // "" or "none", or "thesis": clusters join at GrowthPerYear (default 20%, thesis Ch. 7)
	GrowthPerYear     float64       `json:",omitempty"` // clusters added, compounded yearly (0: none, or 0.2 with Growth "thesis")
	GrowthSizePerYear *float64      `json:",omitempty"` // new clusters' size growth a year (nil: dynamics.DefaultSizePerYear)
	GrowthSpan        time.Duration `json:",omitempty"` // how long clusters keep joining (0: a year)
}

// Outage takes a cluster down at At for For (0: for good).
type Outage struct {
	Cluster string
	At, For time.Duration
}

// DefaultConfig is the thesis's setting for an architecture (Sec. 8.4.4,
// Table 8.1), with gmark's choices where the thesis gives no value.
func DefaultConfig(arch string) Config {
	c := Config{
		Arch:             arch,
		CoolDownLimit:    365 * 24 * time.Hour,
		MatchPeriod:      300 * time.Second,
		DelegationPeriod: 60 * time.Second,
		CentralReserve:   true,
		Placement:        "WF",
		Distribution:     "worst-fit",
		KeepAlivePeriod:  300 * time.Second,
		LeaseTerm:        1800 * time.Second,
		SlowdownBound:    10 * time.Second,
		Threshold:        1.0,
		DTTL:             5,
		SeenMemory:       time.Hour,
		HalfLife:         24 * time.Hour,
		Selection:        "all",
		Dispatch:         "fcfs",
		DelegationOrder:  "fcfs",
		TargetOrder:      "keep-local",
	}
	switch arch {
	case "central", "hier":
		c.InfoPeriod = 60 * time.Second
	case "fcondor":
		c.Dispatch = "fcfs-bypass"
	case "dmm":
		c.Dispatch = "fcfs-bypass"
		c.DMMInformation, c.DMMPassOn = DMMLocal, true
	}
	return c
}

// UsesCoreSettings tells whether the Config sets anything of central's
// core model: a grid or one of the core's settings.
func (c *Config) UsesCoreSettings() bool {
	return c.CoreGrid != nil || c.CoreDeadlinePolicy != "" || c.CoreDeadlineL != 0 || c.CoreDeadlinePriority != "" || c.CoreLocalLoad != 0 ||
		c.CoreLocalWarmup != 0 || c.CoreGPKill != "" || c.CoreWaitXFirstTry != ""
}

// The readings of DMMInformation.
const (
	DMMLocal  = "local"
	DMMGlobal = "global"
)

// The documented ranges of the settings (docs/sim.md).
const (
	MinPeriod    = time.Second
	MaxPeriod    = 7 * 24 * time.Hour
	MaxDTTL      = 64
	MaxThreshold = 100.0
	MaxOutages   = 1_000_000
	MaxHorizon   = 100 * 365 * 24 * time.Hour
)

// Check validates a Config.
func (c *Config) Check() error {
	period := func(name string, v time.Duration, zeroOK bool) error {
		if (v == 0 && zeroOK) || (v >= MinPeriod && v <= MaxPeriod) {
			return nil
		}
		return fmt.Errorf("%s = %v is out of range: must be in [%v, %v]", name, v, MinPeriod, MaxPeriod)
	}
	for _, p := range []struct {
		name   string
		v      time.Duration
		zeroOK bool
	}{
		{"MatchPeriod", c.MatchPeriod, false},
		{"DelegationPeriod", c.DelegationPeriod, false},
		{"InfoPeriod", c.InfoPeriod, true},
		{"KeepAlivePeriod", c.KeepAlivePeriod, false},
		{"LeaseTerm", c.LeaseTerm, false},
		{"SeenMemory", c.SeenMemory, true},
		{"HalfLife", c.HalfLife, false},
	} {
		if err := period(p.name, p.v, p.zeroOK); err != nil {
			return err
		}
	}
	switch {
	case c.InfoDelay < 0 || c.InfoDelay > MaxPeriod:
		return fmt.Errorf("InfoDelay = %v is out of range: must be in [0, %v]", c.InfoDelay, MaxPeriod)
	case c.SlowdownBound < 0 || c.SlowdownBound > MaxPeriod:
		return fmt.Errorf("SlowdownBound = %v is out of range: must be in [0, %v]", c.SlowdownBound, MaxPeriod)
	case c.LeaseTerm < c.KeepAlivePeriod:
		return fmt.Errorf("LeaseTerm = %v is shorter than KeepAlivePeriod = %v: every lease would expire", c.LeaseTerm, c.KeepAlivePeriod)
	case !(c.Threshold > 0 && c.Threshold <= MaxThreshold) || math.IsNaN(c.Threshold):
		return fmt.Errorf("Threshold = %g is out of range: must be in (0, %g]", c.Threshold, MaxThreshold)
	case c.DTTL < 0 || c.DTTL > MaxDTTL:
		return fmt.Errorf("DTTL = %d is out of range: must be in [0, %d]", c.DTTL, MaxDTTL)
	case c.CoolDownLimit < 0 || c.CoolDownLimit > MaxHorizon:
		return fmt.Errorf("CoolDownLimit = %v is out of range: must be in [0, %v]", c.CoolDownLimit, MaxHorizon)
	case c.Horizon < 0 || c.Horizon > MaxHorizon:
		return fmt.Errorf("Horizon = %v is out of range: must be in [0, %v]", c.Horizon, MaxHorizon)
	case len(c.Outages) > MaxOutages:
		return fmt.Errorf("%d outages: at most %d", len(c.Outages), MaxOutages)
	}
	switch c.CentralModel {
	case "", CentralPlacement, CentralCore:
	default:
		return fmt.Errorf("CentralModel %q: use %q or %q", c.CentralModel, CentralPlacement, CentralCore)
	}
	if (c.Core != nil || c.UsesCoreSettings()) && (c.Arch != "central" || c.CentralModel != CentralCore) {
		return fmt.Errorf("a core's grid is for the central architecture's core model (CentralModel %q), not %s/%q", CentralCore, c.Arch, c.CentralModel)
	}
	switch c.DMMInformation {
	case "", DMMLocal, DMMGlobal:
	default:
		return fmt.Errorf("DMMInformation %q: use %q or %q", c.DMMInformation, DMMLocal, DMMGlobal)
	}
	if (c.DMMInformation != "" || c.DMMPassOn) && c.Arch != "dmm" {
		return fmt.Errorf("DMMInformation and DMMPassOn are settings of dmm, not %s", c.Arch)
	}
	switch c.LocalScheduler {
	case "", "fcfs", "easy", "conservative":
	default:
		return fmt.Errorf("LocalScheduler %q: use \"fcfs\", \"easy\" or \"conservative\" (or nothing for the topology's)", c.LocalScheduler)
	}
	for i, o := range c.Outages {
		if o.At < 0 || o.At > MaxHorizon || o.For < 0 || o.For > MaxHorizon {
			return fmt.Errorf("outage %d of %s: at %v for %v is out of range [0, %v]", i+1, o.Cluster, o.At, o.For, MaxHorizon)
		}
	}
	if err := c.checkDynamics(); err != nil {
		return err
	}
	if _, err := NewSelection(c.Selection); err != nil {
		return err
	}
	if _, err := NewDispatch(c.Dispatch); err != nil {
		return err
	}
	if _, err := NewDelegationOrder(c.DelegationOrder); err != nil {
		return err
	}
	_, err := NewTargetOrder(c.TargetOrder)
	return err
}
