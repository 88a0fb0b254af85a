package sim

import (
	"fmt"
	"reflect"
	"strings"
)

// Settings is one group of a Config's settings: the engine's, the
// dynamics', or an architecture's (declared in the architecture's file and
// embedded in Config, so that its fields read as the Config's). A field
// with a `toml:"key"` tag is a setting an experiment file gives by that
// key; a field tagged `sim:"own"` belongs to the architectures that read
// the group alone (the others keep its default, and refuse another value).
// Default sets the group's defaults (an architecture adjusts them for its
// runs when it registers), Check validates the group and names the key of
// a setting that is wrong (a *SettingError).
type Settings interface {
	Default()
	Check() error
}

// settler is a group that makes its settings consistent after some were
// given (one implies another; a reading has a canonical form).
type settler interface{ Settle() }

// SettingError is a problem of one setting, named by its key.
type SettingError struct {
	Key string
	Msg string // begins with the key
}

func (e *SettingError) Error() string { return e.Msg }

// settingErr is a SettingError of key; the message follows "key ".
func settingErr(key, format string, args ...any) *SettingError {
	return &SettingError{Key: key, Msg: key + " " + fmt.Sprintf(format, args...)}
}

// Setting is one setting of a Config: its key, the field that holds it
// (and its index path in Config, for reflect.Value.FieldByIndex), the
// group it is in, and whether it is the group's own (sim:"own").
type Setting struct {
	Key   string
	Field reflect.Value // addressable
	Index []int
	Group reflect.Type
	Own   bool
}

var settingsType = reflect.TypeOf((*Settings)(nil)).Elem()

// groupIndex is the index in Config of every embedded settings group.
var groupIndex = func() []int {
	t := reflect.TypeOf(Config{})
	var out []int
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Anonymous && reflect.PointerTo(f.Type).Implements(settingsType) {
			out = append(out, i)
		}
	}
	return out
}()

// groups are the Config's settings groups, in declaration order.
func (c *Config) groups() []Settings {
	v := reflect.ValueOf(c).Elem()
	out := make([]Settings, len(groupIndex))
	for k, i := range groupIndex {
		out[k] = v.Field(i).Addr().Interface().(Settings)
	}
	return out
}

// Settings lists the settings an experiment file can give, every group's
// in declaration order; each Field is c's.
func (c *Config) Settings() []Setting {
	v := reflect.ValueOf(c).Elem()
	var out []Setting
	for _, gi := range groupIndex {
		g := v.Field(gi)
		for i := 0; i < g.NumField(); i++ {
			f := g.Type().Field(i)
			if key := f.Tag.Get("toml"); key != "" && key != "-" {
				out = append(out, Setting{Key: key, Field: g.Field(i), Index: []int{gi, i}, Group: g.Type(), Own: f.Tag.Get("sim") == "own"})
			}
		}
	}
	return out
}

// Reads tells whether architecture arch reads the settings of group (the
// engine's and the dynamics' are every architecture's).
func Reads(arch string, group reflect.Type) bool {
	if group == reflect.TypeOf(EngineSettings{}) || group == reflect.TypeOf(DynamicsSettings{}) {
		return true
	}
	for _, t := range archs[arch].reads {
		if t == group {
			return true
		}
	}
	return false
}

// Settle makes the settings consistent after some were given (see each
// group's Settle).
func (c *Config) Settle() {
	for _, g := range c.groups() {
		if s, ok := g.(settler); ok {
			s.Settle()
		}
	}
}

// checkOwn refuses a group's own settings (and other fields tagged
// sim:"own", such as a core handed in) away from their defaults under an
// architecture that does not read the group.
func (c *Config) checkOwn() error {
	def := DefaultConfig(c.Arch)
	dv := reflect.ValueOf(&def).Elem()
	for _, g := range c.groups() {
		v := reflect.ValueOf(g).Elem()
		if Reads(c.Arch, v.Type()) {
			continue
		}
		d := dv.FieldByName(v.Type().Name())
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.Tag.Get("sim") == "own" && !reflect.DeepEqual(v.Field(i).Interface(), d.Field(i).Interface()) {
				key := f.Tag.Get("toml")
				if key == "" || key == "-" {
					key = f.Name
				}
				return settingErr(key, "is a setting of %s, not %s", strings.Join(Readers(v.Type()), " and "), c.Arch)
			}
		}
	}
	return nil
}

// Readers are the architectures that read group, by name.
func Readers(group reflect.Type) []string {
	var out []string
	for _, n := range ArchNames() {
		if Reads(n, group) {
			out = append(out, n)
		}
	}
	return out
}
