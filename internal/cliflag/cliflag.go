// Package cliflag holds command-line flags that urfave/cli lacks.
package cliflag

import (
	"flag"

	"github.com/urfave/cli/v2"
)

// Repeated is a string flag that may be given several times, each value
// kept whole: unlike cli.StringSliceFlag, a value is never split at commas
// (a path may hold one). Its values are Values(c, name); c.String(name) is
// the last one. Given none, its one value is the default (Value). Each
// parse of a command line gets values of its own, so that nothing carries
// over from one run of the app to the next.
type Repeated struct {
	cli.StringFlag
}

// Apply implements cli.Flag.
func (f *Repeated) Apply(set *flag.FlagSet) error {
	v := &values{def: f.Value}
	for _, name := range f.Names() {
		set.Var(v, name, f.Usage)
	}
	return nil
}

// Values are the values of the Repeated flag name.
func Values(c *cli.Context, name string) []string {
	if v, ok := c.Value(name).([]string); ok {
		return v
	}
	return nil
}

// Inherited is the string flag name of a subcommand, or its parent's when
// only the parent was given it: 'gmark report --db F sql QUERY' reads F,
// where urfave/cli would give the subcommand's own default.
func Inherited(c *cli.Context, name string) string {
	if l := c.Lineage(); !c.IsSet(name) && len(l) > 1 && l[1].IsSet(name) {
		return l[1].String(name)
	}
	return c.String(name)
}

type values struct {
	def string
	got []string
}

func (v *values) Set(s string) error {
	v.got = append(v.got, s)
	return nil
}

// Get implements flag.Getter: the values given, or the default alone.
func (v *values) Get() any {
	if len(v.got) == 0 {
		if v.def == "" {
			return []string(nil)
		}
		return []string{v.def}
	}
	return append([]string(nil), v.got...)
}

// String is the last value (the default when none was given).
func (v *values) String() string {
	if v == nil {
		return ""
	}
	if len(v.got) == 0 {
		return v.def
	}
	return v.got[len(v.got)-1]
}

// IfSet is v, the bound value of the flag name, when the command line or
// the environment gave it, and nil when not: an optional bound.
func IfSet[T any](c *cli.Context, name string, v *T) *T {
	if c.IsSet(name) {
		return v
	}
	return nil
}
