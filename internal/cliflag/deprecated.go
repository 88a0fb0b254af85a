package cliflag

import (
	"flag"
	"fmt"

	"github.com/urfave/cli/v2"
)

// Deprecated is an old spelling of a flag, kept so that the scripts that use
// it go on working: hidden from the help, it sets the flag it stands for
// (c.String, c.Bool and c.IsSet of the new name see it), and Prepare makes
// the command warn on standard error that the spelling is deprecated.
type Deprecated struct {
	Name string   // the old spelling: "f", "out"
	For  cli.Flag // the flag it stands for, declared before it in the command
}

// Deprecate is the old spelling name of the flag f.
func Deprecate(name string, f cli.Flag) *Deprecated { return &Deprecated{Name: name, For: f} }

// Apply implements cli.Flag: name is a second way to set For's value.
func (d *Deprecated) Apply(set *flag.FlagSet) error {
	to := d.For.Names()[0]
	target := set.Lookup(to)
	if target == nil {
		return fmt.Errorf("%s is a deprecated spelling of --%s, which is not declared before it", Dashed(d.Name), to)
	}
	set.Var(&forward{set: set, to: to, bool: d.isBool()}, d.Name, "")
	return nil
}

// Names implements cli.Flag.
func (d *Deprecated) Names() []string { return []string{d.Name} }

// IsSet implements cli.Flag (it is never set from the environment).
func (d *Deprecated) IsSet() bool { return false }

// IsVisible hides the old spelling from the help and the completion.
func (d *Deprecated) IsVisible() bool { return false }

// TakesValue is the new spelling's: interspersed flags and the flag
// package read the old one alike.
func (d *Deprecated) TakesValue() bool { return !d.isBool() }

func (d *Deprecated) String() string { return "" }

func (d *Deprecated) isBool() bool {
	_, ok := d.For.(*cli.BoolFlag)
	return ok
}

// Warning is what the command says when the old spelling is used.
func (d *Deprecated) Warning() string {
	return fmt.Sprintf("warning: %s is deprecated (it may go in a later version): write --%s", Dashed(d.Name), d.For.Names()[0])
}

// forward is the flag.Value of an old spelling: setting it sets the new
// flag through the flag set, which marks the new name as given.
type forward struct {
	set  *flag.FlagSet
	to   string
	bool bool
}

func (f *forward) Set(s string) error { return f.set.Set(f.to, s) }
func (f *forward) IsBoolFlag() bool   { return f.bool }

func (f *forward) String() string {
	if f == nil || f.set == nil {
		return ""
	}
	if t := f.set.Lookup(f.to); t != nil {
		return t.Value.String()
	}
	return ""
}

// Dashed is a flag's name as written on a command line: -f, --force.
func Dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Renamed is the flag f followed by its old spellings, deprecated: for a
// command's flag list, f(...) before them as Deprecated needs.
func Renamed(f cli.Flag, old ...string) []cli.Flag {
	out := []cli.Flag{f}
	for _, o := range old {
		out = append(out, Deprecate(o, f))
	}
	return out
}
