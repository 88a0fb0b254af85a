package experiment

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/sim/topology"
)

// A [settings] table gives settings of sim.Config by their keys: the
// engine's and every architecture's, each declared once, with its key,
// default and check, in its group (sim.Config.Settings). A section of it,
// [settings.dmm], gives settings of the groups one architecture reads to
// that architecture's runs (its own, and those it shares with others, as
// condor's match_period). This file reads the tables into the groups by
// the fields' types; it knows no setting by name.
//
// A setting given in the [settings] table itself goes to every
// architecture's configuration, those that do not read it too (a run's
// digest has always held every setting); a section's goes to its
// architecture, and to those that do not read its group, as the flat
// table's would, so that a setting spelt either way makes the same runs
// (the same digests). The architectures that read the group too keep
// their own values; and when sections of several of them give one
// setting different values, which the flat table cannot say, those that
// do not read it keep its default. A scenario's settings are over the
// experiment's, key by key: the scenario's section over its table, then
// the experiment's section over its table.

// setting is one setting a scenario gives: its key, where it was written,
// the section's architecture ("": the [settings] table itself), whether
// the scenario gave it (else the experiment), the Config holding its
// value, and its canonical text.
type setting struct {
	key      string
	at       string
	arch     string
	scenario bool
	from     *sim.Config
	text     string
	index    []int // in sim.Config
	group    reflect.Type
	own      bool
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

// sections splits a [settings] table into its own settings and its
// architectures' sections, reporting the keys that are neither a setting
// nor an architecture's section, and the settings a section cannot hold:
// the engine's (every architecture's: the table's), and another
// architecture's. at is the table's path, prefix the table as the file
// names it.
func (p *parser) sections(t settingsSpec, at, prefix string) (settingsSpec, map[string]settingsSpec) {
	known := settingsByKey(new(sim.Config))
	archs := sim.ArchNames()
	flat, secs := settingsSpec{}, map[string]settingsSpec{}
	for _, key := range sortedKeys(t) {
		if _, ok := known[key]; ok {
			flat[key] = t[key]
			continue
		}
		sec, isTable := t[key].(map[string]any)
		switch {
		case !slices.Contains(archs, key) && isTable:
			p.errorf(at+key, "[%s%s]: unknown architecture %q (known: %s)", prefix, excerpt(key), excerpt(key), strings.Join(archs, ", "))
			continue
		case !slices.Contains(archs, key):
			p.errorf(at+key, "unknown setting %s%s (see docs/sim.md for the experiment file)", prefix, key)
			continue
		case !isTable:
			path := at + key
			if _, ok := p.lines[path+"[0]"]; ok { // [[settings.dmm]]
				path += "[0]"
			}
			p.errorf(path, "%s%s = %v: %s's settings are a section, [%s%s], not a value", prefix, key, tomlType(t[key]), key, prefix, key)
			continue
		}
		secs[key] = settingsSpec{}
		for _, k := range sortedKeys(sec) {
			s, ok := known[k]
			readers := sim.Readers(s.Group)
			switch {
			case !ok:
				p.errorf(at+key+"."+k, "unknown setting %s%s.%s (see docs/sim.md for the experiment file)", prefix, key, k)
			case len(readers) == len(archs):
				p.errorf(at+key+"."+k, "%s is every architecture's: give it in [%s], not [%s%s]", k, strings.TrimSuffix(prefix, "."), prefix, key)
			case !slices.Contains(readers, key):
				p.errorf(at+key+"."+k, "%s is a setting of %s, not %s: give it in [%s%s]", k, strings.Join(readers, " and "), key, prefix, readers[0])
			default:
				secs[key][k] = sec[k]
			}
		}
	}
	return flat, secs
}

func sortedKeys(t settingsSpec) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// settingsTable is one level's settings (the experiment's or a
// scenario's): its table and sections, with their paths.
type settingsTable struct {
	flat     settingsSpec
	sections map[string]settingsSpec
	at       string // the path of the [settings] table
	name     string // the table as the file names it
	scenario bool
}

// settings reads the scenario's settings and the experiment's into a
// Config's groups: the settings given, in declaration order, each key's
// in the order they take precedence (the scenario's section, the
// scenario's table, the experiment's section, the experiment's table),
// and their canonical text for the scenario's record (a section's key
// prefixed with its architecture, "dmm.dttl").
func (p *parser) settings(levels []settingsTable) ([]setting, map[string]string) {
	var out []setting
	text := map[string]string{}
	type table struct {
		t    settingsSpec
		at   string
		arch string
		c    *sim.Config
	}
	var tables [][]table // per level
	for _, l := range levels {
		var ts []table
		for _, arch := range sortedKeys(anyTables(l.sections)) {
			ts = append(ts, table{l.sections[arch], l.at + "." + arch + ".", arch, ptr(sim.DefaultConfig(""))})
		}
		ts = append(ts, table{l.flat, l.at + ".", "", ptr(sim.DefaultConfig(""))})
		tables = append(tables, ts)
	}
	for _, s := range new(sim.Config).Settings() { // declaration order
		for li, ts := range tables {
			flatAt := ""
			if v := ts[len(ts)-1].t[s.Key]; v != nil {
				flatAt = ts[len(ts)-1].at + s.Key
			}
			for _, t := range ts {
				v := t.t[s.Key]
				if v == nil {
					continue
				}
				path := t.at + s.Key
				if t.arch != "" && flatAt != "" {
					p.errorf(path, "%s is given twice: here, in [%s.%s], and at line %d, in [%s]: give it once",
						s.Key, levels[li].name, t.arch, p.lines.line(flatAt), levels[li].name)
					continue
				}
				field := reflect.ValueOf(t.c).Elem().FieldByIndex(s.Index)
				canon, ok := p.setValue(field, v, s.Key, path)
				if !ok {
					continue
				}
				name := s.Key
				if t.arch != "" {
					name = t.arch + "." + s.Key
				}
				if _, over := text[name]; !over {
					text[name] = canon
				}
				out = append(out, setting{key: s.Key, at: path, arch: t.arch, scenario: levels[li].scenario, from: t.c, text: canon,
					index: s.Index, group: s.Group, own: s.Own})
			}
		}
	}
	return out, text
}

func ptr[T any](v T) *T { return &v }

// unrun reports the sections of architectures that no run of their table
// runs: settings that would change nothing.
func (p *parser) unrun(secs map[string]settingsSpec, archs []string, at, prefix, whose string) {
	for _, arch := range sortedKeys(anyTables(secs)) {
		if !slices.Contains(archs, arch) {
			p.errorf(at+arch, "[%s%s]: %s no %s (architectures: %s): its settings would change nothing", prefix, arch, whose, arch, strings.Join(archs, ", "))
		}
	}
}

// anyTables is a map's keys as a settingsSpec's, to sort them.
func anyTables(m map[string]settingsSpec) settingsSpec {
	out := settingsSpec{}
	for k := range m {
		out[k] = true
	}
	return out
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
	case []map[string]any:
		return "array of tables"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

// Config is the simulator's configuration of the scenario's runs of an
// architecture: its defaults (sim.DefaultConfig) with the scenario's
// settings over them (chosen).
func (s *Scenario) Config(arch string, seed uint64) sim.Config {
	c := sim.DefaultConfig(arch)
	c.Seed = seed
	to := reflect.ValueOf(&c).Elem()
	for _, st := range s.chosen(arch) {
		to.FieldByIndex(st.index).Set(reflect.ValueOf(st.from).Elem().FieldByIndex(st.index))
	}
	c.Settle()
	return c
}

// chosen are the settings an architecture's runs take, one per key: of a
// group it reads, the first of its section's and the table's (the
// scenario's, then the experiment's); of a group it does not read that is
// the group's own (sim:"own"), none, so that its runs stay shared with
// the scenarios that do not give it; of another group, the one the flat
// table would carry (see the top of this file).
func (s *Scenario) chosen(arch string) []*setting {
	var out []*setting
	for i := 0; i < len(s.settings); {
		j := i + 1
		for j < len(s.settings) && s.settings[j].key == s.settings[i].key {
			j++
		}
		if st := pick(s.settings[i:j], arch); st != nil {
			out = append(out, st)
		}
		i = j
	}
	return out
}

// pick is the setting of one key an architecture's runs take (nil: the
// default), from the given ones in order of precedence.
func pick(given []setting, arch string) *setting {
	if sim.Reads(arch, given[0].group) {
		for k := range given {
			if g := &given[k]; g.arch == "" || g.arch == arch {
				return g
			}
		}
		return nil
	}
	if given[0].own {
		return nil
	}
	var carried *setting
	for k := range given {
		g := &given[k]
		switch {
		case g.scenario != given[0].scenario: // the scenario's, over the experiment's
			return carried
		case g.arch == "":
			return g
		case carried == nil:
			carried = g
		case carried.text != g.text:
			return nil
		}
	}
	return carried
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
	type problem struct{ path, msg string }
	var carried []problem // of a section's setting, under an architecture that only carries it
	for _, arch := range sc.Architectures {
		_, err := sim.Run(sc.Config(arch, 0), top, &sim.SliceSource{})
		if err == nil {
			continue
		}
		path := at
		msg := fmt.Sprintf("scenario %q, architecture %s: %v", sc.Name, arch, err)
		var se *sim.SettingError
		if errors.As(err, &se) {
			if said[se.Msg] {
				continue
			}
			var from *setting
			for _, st := range sc.chosen(arch) {
				if st.key == se.Key {
					from, path = st, st.at
				}
			}
			if from != nil && from.arch != "" && from.arch != arch && slices.Contains(sc.Architectures, from.arch) {
				carried = append(carried, problem{path, se.Msg}) // told under the section's architecture, if it fails there
				continue
			}
			said[se.Msg] = true
		}
		p.errorf(path, "%s", msg)
	}
	for _, c := range carried {
		if !said[c.msg] {
			said[c.msg] = true
			p.errorf(c.path, "%s", fmt.Sprintf("scenario %q: %s", sc.Name, c.msg))
		}
	}
}
