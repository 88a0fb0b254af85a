package main

import (
	"math"
	"time"

	"github.com/gmark/gmark/submitter"
	"github.com/urfave/cli/v2"
)

// The ranges of the submitter's numeric flags (gmark submit, gmark run),
// documented in docs/submit.md. A value outside is a usage error, before
// anything is recorded or submitted.
var (
	submitIntRanges = []struct {
		flag   string
		lo, hi int
	}{
		{"workers", 1, 10_000},
		{"max-in-flight", 0, 10_000_000},
		{"retries", 0, 100},
		{"submit-retries", 0, 1_000},
		{"processors", 1, 1_000_000},
	}
	submitDurationRanges = []struct {
		flag   string
		lo, hi time.Duration
	}{
		{"tail", 0, 30 * 24 * time.Hour},
		{"backoff", time.Millisecond, 10 * time.Minute},
		{"retry-for", 0, submitter.MaxRetryFor},
	}
	maxSpeedup = 1e6
)

// checkSubmitRanges checks the submitter's numeric flags that were given
// against their ranges (the defaults are in range).
func checkSubmitRanges(c *cli.Context) error {
	for _, r := range submitIntRanges {
		if c.IsSet(r.flag) {
			if v := c.Int(r.flag); v < r.lo || v > r.hi {
				return usageErrorf("--%s must be between %d and %d, not %d", r.flag, r.lo, r.hi, v)
			}
		}
	}
	for _, r := range submitDurationRanges {
		if c.IsSet(r.flag) {
			if v := c.Duration(r.flag); v < r.lo || v > r.hi {
				return usageErrorf("--%s must be between %s and %s, not %s", r.flag, r.lo, r.hi, v)
			}
		}
	}
	if v := c.Float64("speedup"); !(v > 0) || math.IsInf(v, 0) || v > maxSpeedup {
		return usageErrorf("--speedup must be a number above 0 and at most %g, not %g", maxSpeedup, v)
	}
	return nil
}
