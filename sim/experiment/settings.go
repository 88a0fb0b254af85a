package experiment

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/sim/topology"
)

// A [settings] table gives settings of sim.Config by their keys: the
// engine's and every architecture's, each declared once, with its key,
// default and check, in its group (sim.Config.Settings). This file reads
// a table into the groups by the fields' types; it knows no setting by
// name.

// setting is one setting a scenario gives: its key and where it was
// written.
type setting struct {
	key   string
	at    string
	index []int // in sim.Config
	group reflect.Type
	own   bool
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	gridType     = reflect.TypeOf((*grid.Grid)(nil))
)

// settingsByKey indexes a Config's settings by key.
func settingsByKey(c *sim.Config) map[string]sim.Setting {
	out := map[string]sim.Setting{}
	for _, s := range c.Settings() {
		out[s.Key] = s
	}
	return out
}

// unknownSettings reports the keys of a [settings] table that are no
// setting; prefix is the table's path as the file names it.
func (p *parser) unknownSettings(t settingsSpec, at, prefix string) {
	known := settingsByKey(new(sim.Config))
	for _, key := range sortedKeys(t) {
		if _, ok := known[key]; !ok {
			p.errorf(at+key, "unknown setting %s%s (see docs/sim.md for the experiment file)", prefix, key)
		}
	}
}

func sortedKeys(t settingsSpec) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// settings merges the scenario's [settings] over the experiment's and
// reads every value into a Config's groups: the Config holding them, the
// settings given, and their canonical text, for the scenario's record.
func (p *parser) settings(top, own settingsSpec, at string) (*sim.Config, []setting, map[string]string) {
	given := sim.DefaultConfig("")
	var out []setting
	text := map[string]string{}
	for _, s := range given.Settings() { // declaration order
		v, path := own[s.Key], at+".settings."+s.Key
		if v == nil || at == "" {
			v, path = top[s.Key], "settings."+s.Key
		}
		if v == nil {
			continue
		}
		t, ok := p.setValue(s.Field, v, s.Key, path)
		if !ok {
			continue
		}
		text[s.Key] = t
		out = append(out, setting{key: s.Key, at: path, index: s.Index, group: s.Group, own: s.Own})
	}
	return &given, out, text
}

// setValue reads a setting's value v into field by the field's type, and
// gives its canonical text.
func (p *parser) setValue(field reflect.Value, v any, key, path string) (string, bool) {
	mismatch := func(want string) (string, bool) {
		p.errorf(path, "%s: incompatible types: TOML value has type %s; the setting is %s", key, tomlType(v), want)
		return "", false
	}
	switch t := field.Type(); {
	case t == durationType:
		d, ok := p.duration(v, path)
		if !ok {
			return "", false
		}
		field.SetInt(int64(d))
		return d.String(), true
	case t == gridType:
		name, ok := v.(string)
		if !ok {
			return mismatch("the name of a grid file")
		}
		g, ok := p.coreGrid(name, path)
		if !ok {
			return "", false
		}
		field.Set(reflect.ValueOf(g))
		return strconv.Quote(name), true
	case t.Kind() == reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return mismatch("a boolean")
		}
		field.SetBool(b)
		return strconv.FormatBool(b), true
	case t.Kind() == reflect.String:
		s, ok := v.(string)
		if !ok {
			return mismatch("a string")
		}
		field.SetString(s)
		return strconv.Quote(s), true
	case t.Kind() == reflect.Int:
		n, ok := v.(int64)
		if !ok {
			return mismatch("an integer")
		}
		if int64(int(n)) != n {
			p.errorf(path, "%s = %d: too large", key, n)
			return "", false
		}
		field.SetInt(n)
		return strconv.FormatInt(n, 10), true
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Float64:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			if x < -1<<53 || x > 1<<53 {
				p.errorf(path, "%s = %d: too large for a float", key, x)
				return "", false
			}
			f = float64(x)
		default:
			return mismatch("a float")
		}
		if t.Kind() == reflect.Pointer {
			field.Set(reflect.ValueOf(&f))
		} else {
			field.SetFloat(f)
		}
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	p.errorf(path, "%s: an experiment file cannot give this setting", key)
	return "", false
}

// tomlType names the TOML type of a decoded value.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "datetime"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

// Config is the simulator's configuration of the scenario's runs of an
// architecture: its defaults (sim.DefaultConfig) with the scenario's
// settings over them, but for the settings of groups the architecture
// does not read that are their groups' own (sim:"own"): those keep their
// defaults, so that the other architectures' runs stay shared.
func (s *Scenario) Config(arch string, seed uint64) sim.Config {
	c := sim.DefaultConfig(arch)
	c.Seed = seed
	if len(s.settings) > 0 {
		from, to := reflect.ValueOf(s.given).Elem(), reflect.ValueOf(&c).Elem()
		for _, st := range s.settings {
			if !st.own || sim.Reads(arch, st.group) {
				to.FieldByIndex(st.index).Set(from.FieldByIndex(st.index))
			}
		}
	}
	c.Settle()
	return c
}

// coreGrid reads a grid setting: a grid file of the bundled core
// (koala/grid), relative to the experiment file, for central's core model.
func (p *parser) coreGrid(name, path string) (*grid.Grid, bool) {
	file := name
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(p.file), file)
	}
	g, err := grid.Load(file)
	if err != nil {
		p.errorf(path, "%s %q: %v", lastKey(path), excerpt(name), unwrapPath(err))
		return nil, false
	}
	return g, true
}

// dryRun checks every architecture's configuration of the scenario and
// runs it on no jobs, as the real runs will; a problem of a setting is
// reported where the setting was given.
func (p *parser) dryRun(sc *Scenario, top *topology.Topology, at string) {
	said := map[string]bool{} // a setting's problem under every architecture is told once
	for _, arch := range sc.Architectures {
		_, err := sim.Run(sc.Config(arch, 0), top, &sim.SliceSource{})
		if err == nil {
			continue
		}
		path := at
		var se *sim.SettingError
		if errors.As(err, &se) {
			if said[se.Msg] {
				continue
			}
			said[se.Msg] = true
			for _, st := range sc.settings {
				if st.key == se.Key {
					path = st.at
				}
			}
		}
		p.errorf(path, "%s", fmt.Sprintf("scenario %q, architecture %s: %v", sc.Name, arch, err))
	}
}
