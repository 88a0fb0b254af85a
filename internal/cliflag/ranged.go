package cliflag

import (
	"cmp"
	"flag"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"
)

// IntRange is an int flag whose value, when given, must be from Min to Max
// (CheckRanges): the range is declared with the flag, not in a table of
// names beside it.
type IntRange struct {
	cli.IntFlag
	Min, Max int
	// Zero, when not 0, is what a given 0 stores in Destination, for a
	// setting whose zero value means its default: the value that means
	// none (as -1 does for submitter.Settings.SubmitRetries). The flag
	// still reads as 0, and its help shows its default (Value).
	Zero int
}

// DurationRange is a duration flag whose value, when given, must be from
// Min to Max (CheckRanges).
type DurationRange struct {
	cli.DurationFlag
	Min, Max time.Duration
	Zero     time.Duration // as IntRange.Zero
}

// Apply implements cli.Flag.
func (f *IntRange) Apply(set *flag.FlagSet) error {
	return applyZero(set, f.IntFlag.Apply, f.Names(), f.Destination, f.Zero, &f.HasBeenSet)
}

// Apply implements cli.Flag.
func (f *DurationRange) Apply(set *flag.FlagSet) error {
	return applyZero(set, f.DurationFlag.Apply, f.Names(), f.Destination, f.Zero, &f.HasBeenSet)
}

// applyZero applies a flag with apply; with a Zero, its value is urfave/cli's
// wrapped in a zeroAs. fromEnv tells, after apply, whether the environment
// gave the flag.
func applyZero[T comparable](set *flag.FlagSet, apply func(*flag.FlagSet) error, names []string, dest *T, zero T, fromEnv *bool) error {
	var none T
	if zero == none || dest == nil {
		return apply(set)
	}
	own := flag.NewFlagSet(names[0], flag.ContinueOnError)
	if err := apply(own); err != nil {
		return err
	}
	z := &zeroAs[T]{Value: own.Lookup(names[0]).Value, dest: dest, zero: zero}
	if *fromEnv {
		z.settle()
	}
	for _, n := range names {
		set.Var(z, n, own.Lookup(n).Usage)
	}
	return nil
}

// zeroAs is a flag's value that stores zero in dest for a given 0, and
// still reads as that 0.
type zeroAs[T comparable] struct {
	flag.Value
	dest  *T
	zero  T
	shown string // the 0 given, as it reads; "" when none was
}

func (z *zeroAs[T]) Set(s string) error {
	z.shown = ""
	if err := z.Value.Set(s); err != nil {
		return err
	}
	z.settle()
	return nil
}

func (z *zeroAs[T]) settle() {
	if var0 := *new(T); *z.dest == var0 {
		z.shown, *z.dest = z.Value.String(), z.zero
	}
}

func (z *zeroAs[T]) String() string {
	switch {
	case z == nil || z.Value == nil:
		return ""
	case z.shown != "":
		return z.shown
	}
	return z.Value.String()
}

func (f *IntRange) check(c *cli.Context) error {
	return checkRange(c, f.Name, c.Int(f.Name), f.Min, f.Max)
}

func (f *DurationRange) check(c *cli.Context) error {
	return checkRange(c, f.Name, c.Duration(f.Name), f.Min, f.Max)
}

func checkRange[T cmp.Ordered](c *cli.Context, name string, v, lo, hi T) error {
	if c.IsSet(name) && (v < lo || v > hi) {
		return fmt.Errorf("--%s must be between %v and %v, not %v", name, lo, hi, v)
	}
	return nil
}

// CheckRanges checks the ranged flags of c's command that were given, in
// the order the command declares them; the defaults are not checked.
func CheckRanges(c *cli.Context) error {
	for _, f := range c.Command.Flags {
		if r, ok := f.(interface{ check(*cli.Context) error }); ok {
			if err := r.check(c); err != nil {
				return err
			}
		}
	}
	return nil
}
