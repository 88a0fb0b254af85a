package main

import (
	"math"

	"github.com/gmark/gmark/internal/cliflag"
	"github.com/urfave/cli/v2"
)

// maxSpeedup bounds --speedup of gmark submit and gmark run.
const maxSpeedup = 1e6

// checkSubmitRanges checks the submitter's numeric flags that were given
// against their ranges, declared with the flags (cliflag.IntRange,
// DurationRange) and documented in docs/submit.md: a value outside is a
// usage error, before anything is recorded or submitted.
func checkSubmitRanges(c *cli.Context, speedup float64) error {
	if err := cliflag.CheckRanges(c); err != nil {
		return usageError{err}
	}
	if v := speedup; !(v > 0) || math.IsInf(v, 0) || v > maxSpeedup {
		return usageErrorf("--speedup must be a number above 0 and at most %g, not %g", maxSpeedup, v)
	}
	return nil
}
