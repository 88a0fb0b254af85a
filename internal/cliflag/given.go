package cliflag

import (
	"reflect"

	"github.com/urfave/cli/v2"
)

// Given tells whether the flag that binds dest (its Destination) was
// given, on the command line or by its environment variable, to c's
// command or to one of the commands above it. It names the flag by the
// variable it binds, not by its name: a misspelt variable does not
// compile, where a misspelt name reads as "not given". A variable that no
// flag of those commands binds was not given: options shared by commands
// that each declare some of their flags.
func Given[T any](c *cli.Context, dest *T) bool {
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil {
			continue
		}
		for _, f := range ctx.Command.Flags {
			if binds(f, dest) {
				return ctx.IsSet(f.Names()[0])
			}
		}
	}
	return false
}

// IfSet is v, the variable a flag binds, when the flag was given (Given),
// and nil when not: an optional bound value.
func IfSet[T any](c *cli.Context, v *T) *T {
	if Given(c, v) {
		return v
	}
	return nil
}

// Inherited is the value of a subcommand's flag that binds own, or of its
// parent's that binds parent when only the parent was given it: 'gmark
// report --db F sql QUERY' reads F, where urfave/cli would give the
// subcommand's own default.
func Inherited[T any](c *cli.Context, own, parent *T) T {
	if !Given(c, own) && Given(c, parent) {
		return *parent
	}
	return *own
}

// binds tells whether flag f binds dest: its Destination (urfave/cli's
// flags and the flags here that embed one) or, for a flag with more than
// one, one of its own.
func binds(f cli.Flag, dest any) bool {
	if b, ok := f.(interface{ bound(any) bool }); ok && b.bound(dest) {
		return true
	}
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	d := v.Elem().FieldByName("Destination")
	return d.IsValid() && d.Type() == reflect.TypeOf(dest) && !d.IsNil() && d.Pointer() == reflect.ValueOf(dest).Pointer()
}
