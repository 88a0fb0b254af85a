package cliflag

import (
	"cmp"
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
}

// DurationRange is a duration flag whose value, when given, must be from
// Min to Max (CheckRanges).
type DurationRange struct {
	cli.DurationFlag
	Min, Max time.Duration
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
