// Package cliflag holds command-line flags that urfave/cli lacks, and asks
// whether a flag was given by the variable it binds (Given), not by its name.
package cliflag

import (
	"flag"

	"github.com/urfave/cli/v2"
)

// Repeated is a string flag that may be given several times, each value
// kept whole: unlike cli.StringSliceFlag, a value is never split at commas
// (a path may hold one). Its values go to All, the last one to Destination;
// given none, its one value is the default (Value). Each parse of a command
// line gets values of its own, so that nothing carries over from one run of
// the app to the next.
type Repeated struct {
	cli.StringFlag
	All *[]string
}

// Apply implements cli.Flag.
func (f *Repeated) Apply(set *flag.FlagSet) error {
	v := &values{def: f.Value, last: f.Destination, all: f.All}
	v.bind()
	for _, name := range f.Names() {
		set.Var(v, name, f.Usage)
	}
	return nil
}

// bound tells Given whether dest is the flag's All (its Destination is
// found as any flag's is).
func (f *Repeated) bound(dest any) bool {
	all, ok := dest.(*[]string)
	return ok && all == f.All && all != nil
}

type values struct {
	def  string
	got  []string
	last *string   // the flag's Destination, or nil
	all  *[]string // its All, or nil
}

func (v *values) Set(s string) error {
	v.got = append(v.got, s)
	v.bind()
	return nil
}

// bind stores the values in the variables the flag binds.
func (v *values) bind() {
	if v.last != nil {
		*v.last = v.String()
	}
	if v.all != nil {
		*v.all, _ = v.Get().([]string)
	}
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
