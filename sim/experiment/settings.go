package experiment

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/sim/topology"
)

// setting is one sim.Config setting a scenario gives: its key, its value
// (bool, time.Duration, float64, int or string), and where it was written.
type setting struct {
	key   string
	value any
	at    string
}

// settingKeys are the keys of [settings], each with the sim.Config field
// it sets (the name Config.Check's messages use).
var settingKeys = []struct {
	key, field string
	kind       byte // b bool, d duration, f float, i integer, s string
	get        func(*settingsSpec) any
	set        func(*sim.Config, any)
}{
	{"cool_down", "CoolDown", 'b', func(s *settingsSpec) any { return deref(s.CoolDown) }, func(c *sim.Config, v any) { c.CoolDown = v.(bool) }},
	{"cool_down_limit", "CoolDownLimit", 'd', func(s *settingsSpec) any { return s.CoolDownLimit }, func(c *sim.Config, v any) { c.CoolDownLimit = v.(time.Duration) }},
	{"match_period", "MatchPeriod", 'd', func(s *settingsSpec) any { return s.MatchPeriod }, func(c *sim.Config, v any) { c.MatchPeriod = v.(time.Duration) }},
	{"delegation_period", "DelegationPeriod", 'd', func(s *settingsSpec) any { return s.DelegationPeriod }, func(c *sim.Config, v any) { c.DelegationPeriod = v.(time.Duration) }},
	{"aligned_cycles", "AlignedCycles", 'b', func(s *settingsSpec) any { return deref(s.AlignedCycles) }, func(c *sim.Config, v any) { c.AlignedCycles = v.(bool) }},
	{"info_period", "InfoPeriod", 'd', func(s *settingsSpec) any { return s.InfoPeriod }, func(c *sim.Config, v any) { c.InfoPeriod = v.(time.Duration) }},
	{"info_delay", "InfoDelay", 'd', func(s *settingsSpec) any { return s.InfoDelay }, func(c *sim.Config, v any) { c.InfoDelay = v.(time.Duration) }},
	{"central_reserve", "CentralReserve", 'b', func(s *settingsSpec) any { return deref(s.CentralReserve) }, func(c *sim.Config, v any) { c.CentralReserve = v.(bool) }},
	{"placement", "Placement", 's', func(s *settingsSpec) any { return deref(s.Placement) }, func(c *sim.Config, v any) { c.Placement = v.(string) }},
	{"distribution", "Distribution", 's', func(s *settingsSpec) any { return deref(s.Distribution) }, func(c *sim.Config, v any) { c.Distribution = v.(string) }},
	{"keep_alive_period", "KeepAlivePeriod", 'd', func(s *settingsSpec) any { return s.KeepAlivePeriod }, func(c *sim.Config, v any) { c.KeepAlivePeriod = v.(time.Duration) }},
	{"lease_term", "LeaseTerm", 'd', func(s *settingsSpec) any { return s.LeaseTerm }, func(c *sim.Config, v any) { c.LeaseTerm = v.(time.Duration) }},
	{"slowdown_bound", "SlowdownBound", 'd', func(s *settingsSpec) any { return s.SlowdownBound }, func(c *sim.Config, v any) { c.SlowdownBound = v.(time.Duration) }},
	{"threshold", "Threshold", 'f', func(s *settingsSpec) any { return deref(s.Threshold) }, func(c *sim.Config, v any) { c.Threshold = v.(float64) }},
	{"dttl", "DTTL", 'i', func(s *settingsSpec) any { return deref(s.DTTL) }, func(c *sim.Config, v any) { c.DTTL = v.(int) }},
	{"seen_memory", "SeenMemory", 'd', func(s *settingsSpec) any { return s.SeenMemory }, func(c *sim.Config, v any) { c.SeenMemory = v.(time.Duration) }},
	{"half_life", "HalfLife", 'd', func(s *settingsSpec) any { return s.HalfLife }, func(c *sim.Config, v any) { c.HalfLife = v.(time.Duration) }},
	{"local_scheduler", "LocalScheduler", 's', func(s *settingsSpec) any { return deref(s.LocalScheduler) }, func(c *sim.Config, v any) { c.LocalScheduler = v.(string) }},
	{"selection", "Selection", 's', func(s *settingsSpec) any { return deref(s.Selection) }, func(c *sim.Config, v any) { c.Selection = v.(string) }},
	{"dispatch", "Dispatch", 's', func(s *settingsSpec) any { return deref(s.Dispatch) }, func(c *sim.Config, v any) { c.Dispatch = v.(string) }},
	{"delegation_order", "DelegationOrder", 's', func(s *settingsSpec) any { return deref(s.DelegationOrder) }, func(c *sim.Config, v any) { c.DelegationOrder = v.(string) }},
	{"target_order", "TargetOrder", 's', func(s *settingsSpec) any { return deref(s.TargetOrder) }, func(c *sim.Config, v any) { c.TargetOrder = v.(string) }},
	{"dmm_information", "DMMInformation", 's', func(s *settingsSpec) any { return deref(s.DMMInformation) }, func(c *sim.Config, v any) { c.DMMInformation = dmmInformation(v.(string)) }},
	{"dmm_pass_on", "DMMPassOn", 'b', func(s *settingsSpec) any { return deref(s.DMMPassOn) }, func(c *sim.Config, v any) { c.DMMPassOn = v.(bool) }},
	{"central_model", "CentralModel", 's', func(s *settingsSpec) any { return deref(s.CentralModel) }, func(c *sim.Config, v any) { c.CentralModel = v.(string) }},
	{"core_grid", "CoreGrid", 'g', func(s *settingsSpec) any { return deref(s.CoreGrid) }, func(c *sim.Config, v any) { c.CoreGrid = v.(*grid.Grid) }},
	{"deadline_policy", "CoreDeadlinePolicy", 's', func(s *settingsSpec) any { return deref(s.DeadlinePolicy) }, func(c *sim.Config, v any) { c.CoreDeadlinePolicy = v.(string) }},
	{"deadline_l", "CoreDeadlineL", 'f', func(s *settingsSpec) any { return deref(s.DeadlineL) }, func(c *sim.Config, v any) { c.CoreDeadlineL = v.(float64) }},
	{"deadline_priority", "CoreDeadlinePriority", 's', func(s *settingsSpec) any { return deref(s.DeadlinePriority) }, func(c *sim.Config, v any) { c.CoreDeadlinePriority = v.(string) }},
	{"local_load", "CoreLocalLoad", 'f', func(s *settingsSpec) any { return deref(s.LocalLoad) }, func(c *sim.Config, v any) { c.CoreLocalLoad = v.(float64) }},
	{"gp_kill", "CoreGPKill", 's', func(s *settingsSpec) any { return deref(s.GPKill) }, func(c *sim.Config, v any) { c.CoreGPKill = v.(string) }},
	{"waitx_first_try", "CoreWaitXFirstTry", 's', func(s *settingsSpec) any { return deref(s.WaitXFirstTry) }, func(c *sim.Config, v any) { c.CoreWaitXFirstTry = v.(string) }},
	{"local_warmup", "CoreLocalWarmup", 'd', func(s *settingsSpec) any { return s.LocalWarmup }, func(c *sim.Config, v any) { c.CoreLocalWarmup = v.(time.Duration) }},
	{"failures", "Failures", 's', func(s *settingsSpec) any { return deref(s.Failures) }, func(c *sim.Config, v any) { c.Failures = v.(string) }},
	{"failure_scale", "FailureScale", 'f', func(s *settingsSpec) any { return deref(s.FailureScale) }, func(c *sim.Config, v any) { c.FailureScale = v.(float64) }},
	{"growth", "Growth", 's', func(s *settingsSpec) any { return deref(s.Growth) }, func(c *sim.Config, v any) { c.Growth = v.(string) }},
	{"growth_per_year", "GrowthPerYear", 'f', func(s *settingsSpec) any { return deref(s.GrowthPerYear) }, func(c *sim.Config, v any) { c.GrowthPerYear = v.(float64) }},
	{"growth_size_per_year", "GrowthSizePerYear", 'f', func(s *settingsSpec) any { return deref(s.GrowthSizePerYear) }, func(c *sim.Config, v any) { x := v.(float64); c.GrowthSizePerYear = &x }},
	{"growth_span", "GrowthSpan", 'd', func(s *settingsSpec) any { return s.GrowthSpan }, func(c *sim.Config, v any) { c.GrowthSpan = v.(time.Duration) }},
}

// deref is the value of a pointer, nil (no setting) for a nil one.
func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// settings merges the scenario's [settings] over the experiment's and
// reads every value; the second result is their canonical text, for the
// scenario's record.
func (p *parser) settings(top, own *settingsSpec, at string) ([]setting, map[string]string) {
	var out []setting
	text := map[string]string{}
	for _, k := range settingKeys {
		v, path := k.get(own), at+".settings."+k.key
		if v == nil || at == "" {
			v, path = k.get(top), "settings."+k.key
		}
		if v == nil {
			continue
		}
		s := setting{key: k.key, at: path}
		switch k.kind {
		case 'd':
			d, ok := p.duration(v, path)
			if !ok {
				continue
			}
			s.value = d
			text[k.key] = d.String()
		case 'i':
			n := v.(int64)
			if n < 0 || n > sim.MaxDTTL {
				p.errorf(path, "%s = %d: must be from 0 to %d", k.key, n, sim.MaxDTTL)
				continue
			}
			s.value = int(n)
			text[k.key] = strconv.FormatInt(n, 10)
		case 'f':
			s.value = v
			text[k.key] = strconv.FormatFloat(v.(float64), 'g', -1, 64)
		case 'b':
			s.value = v
			text[k.key] = strconv.FormatBool(v.(bool))
		case 'g':
			g, ok := p.coreGrid(v.(string), path)
			if !ok {
				continue
			}
			s.value = g
			text[k.key] = strconv.Quote(v.(string))
		default:
			if ok := checkReading(k.key, v.(string)); ok != "" {
				p.errorf(path, "%s = %q: must be %s", k.key, excerpt(v.(string)), ok)
				continue
			}
			s.value = v
			text[k.key] = strconv.Quote(v.(string))
		}
		out = append(out, s)
	}
	return out, text
}

// Config is the simulator's configuration of the scenario's runs of an
// architecture: its defaults (sim.DefaultConfig) with the scenario's
// settings over them.
func (s *Scenario) Config(arch string, seed uint64) sim.Config {
	c := sim.DefaultConfig(arch)
	c.Seed = seed
	for _, st := range s.settings {
		for _, k := range settingKeys {
			if k.key == st.key {
				k.set(&c, st.value)
			}
		}
	}
	// central_model, core_grid and the core's settings are central's;
	// any of the last implies the core model.
	if arch != "dmm" { // dmm's settings: the other architectures' runs stay shared
		c.DMMInformation, c.DMMPassOn = "", false
	}
	if arch != "central" {
		c.CentralModel, c.CoreGrid = "", nil
		c.CoreDeadlinePolicy, c.CoreDeadlineL, c.CoreDeadlinePriority, c.CoreLocalLoad, c.CoreLocalWarmup = "", 0, "", 0, 0
		c.CoreGPKill, c.CoreWaitXFirstTry = "", ""
	} else if c.UsesCoreSettings() {
		c.CentralModel = sim.CentralCore
	}
	if c.CoreGrid != nil && (c.CoreGPKill != "" || c.CoreWaitXFirstTry != "") {
		// The two readings go into the grid's [scheduler], whose JSON (the
		// run's digest) leaves out the readings grids had before the
		// settings existed: a run under them keeps its earlier digest.
		g := *c.CoreGrid
		if c.CoreGPKill != "" {
			g.Scheduler.GPKill = c.CoreGPKill
		}
		if c.CoreWaitXFirstTry != "" {
			g.Scheduler.WaitXFirstTry = c.CoreWaitXFirstTry
		}
		c.CoreGrid, c.CoreGPKill, c.CoreWaitXFirstTry = &g, "", ""
	}
	return c
}

// checkReading checks the value of a setting that names one of two
// readings: "" when it is one, else what it must be.
func checkReading(key, v string) string {
	for _, r := range [][3]string{
		{"gp_kill", grid.GPKillAtDeadline, grid.GPKillEveryTry},
		{"waitx_first_try", grid.WaitXRestart, grid.WaitXSkip},
		{"dmm_information", sim.DMMLocal, sim.DMMGlobal},
	} {
		if r[0] == key && v != r[1] && v != r[2] {
			return strconv.Quote(r[1]) + " or " + strconv.Quote(r[2])
		}
	}
	return ""
}

// dmmInformation is a dmm_information setting as sim.Config holds it:
// "global", the reading of the runs made before the setting existed, is
// its zero value, so that their digests stay as they were.
func dmmInformation(v string) string {
	if v == sim.DMMGlobal {
		return ""
	}
	return v
}

// coreGrid reads core_grid: a grid file of the bundled core (koala/grid),
// relative to the experiment file, for central's core model.
func (p *parser) coreGrid(name, path string) (*grid.Grid, bool) {
	file := name
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(p.file), file)
	}
	g, err := grid.Load(file)
	if err != nil {
		p.errorf(path, "core_grid %q: %v", excerpt(name), unwrapPath(err))
		return nil, false
	}
	return g, true
}

// dryRun runs every architecture of the scenario on no jobs: the
// simulator checks the settings as it would for the real runs, and a
// problem is reported at the setting it names.
func (p *parser) dryRun(sc *Scenario, top *topology.Topology, at string) {
	for _, arch := range sc.Architectures {
		_, err := sim.Run(sc.Config(arch, 0), top, &sim.SliceSource{})
		if err == nil {
			continue
		}
		path := at
		for _, st := range sc.settings {
			for _, k := range settingKeys {
				if k.key == st.key && strings.Contains(err.Error(), k.field) || k.key == st.key && strings.Contains(err.Error(), strings.ToLower(k.field)) {
					path = st.at
				}
			}
		}
		p.errorf(path, "%s", fmt.Sprintf("scenario %q, architecture %s: %v", sc.Name, arch, err))
	}
}
