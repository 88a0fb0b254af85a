package wdl

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/stats"
)

// The value parsers of the WDL and of its Key=Value extension language:
// booleans, integers, numbers, durations with units, integer ranges, plain
// lists and weighted lists. Each returns an error that says what was expected;
// callers add the position.

// timeUnits are the units a duration may carry; a bare number is seconds.
var timeUnits = []struct {
	suffix  string
	seconds float64
}{
	{"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400},
}

// ParseSeconds reads a duration such as "120", "120s", "2m", "1.5h", "250ms"
// and returns it in seconds. hasUnit tells whether a unit was written.
func ParseSeconds(s string) (secs float64, hasUnit bool, err error) {
	num, mult := s, 1.0
	for _, u := range timeUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, mult, hasUnit = s[:len(s)-len(u.suffix)], u.seconds, true
			// "ms" must win over "s": it is listed first, so stop at the first match.
			break
		}
	}
	v, err := parseFloat(num)
	if err != nil {
		return 0, false, fmt.Errorf("%q is not a duration (a number with an optional unit ms, s, m, h or d)", Excerpt(s))
	}
	return v * mult, hasUnit, nil
}

// ParseDuration reads a duration (see ParseSeconds) from 0 to MaxSeconds.
func ParseDuration(s string) (time.Duration, error) {
	secs, _, err := ParseSeconds(s)
	if err != nil {
		return 0, err
	}
	if secs < 0 {
		return 0, fmt.Errorf("duration %q must not be negative", Excerpt(s))
	}
	if secs > MaxSeconds {
		return 0, fmt.Errorf("duration %q is too long: durations are at most %d s (100 years)", Excerpt(s), MaxSeconds)
	}
	return Durations.Duration(secs)
}

// parseFloat accepts decimal numbers only: no hex, no underscores, no
// infinities, so "1e3" is the most exotic form a WDL number takes.
func parseFloat(s string) (float64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty number")
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789.+-eE", c) {
			return 0, fmt.Errorf("%q is not a number", Excerpt(s))
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", Excerpt(s))
	}
	return v, nil
}

// ParseFloat reads a decimal number.
func ParseFloat(s string) (float64, error) {
	v, err := parseFloat(s)
	if err != nil && strings.Contains(s, ",") {
		return 0, fmt.Errorf("%q is not a number (use a decimal point, not a comma)", Excerpt(s))
	}
	return v, err
}

// ParseInt reads a decimal integer.
func ParseInt(s string) (int, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q is too large: whole numbers here are at most %d", Excerpt(s), math.MaxInt32)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", Excerpt(s))
	}
	return int(v), nil
}

// ParseBool reads true/false, yes/no, on/off or 1/0, in any case.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (true or false)", Excerpt(s))
}

// Range is an inclusive integer range; "40" is the range 40-40.
type Range struct{ Min, Max int }

// ParseRange reads "lo-hi" or a single whole number, both >= 0 (and of
// 32 bits: callers check their own, smaller, upper bounds).
func ParseRange(s string) (Range, error) {
	lo, hi, isRange := strings.Cut(s, "-")
	a, err := ParseInt(lo)
	if err != nil || a < 0 {
		return Range{}, fmt.Errorf("%q is not a range (N or MIN-MAX, whole numbers >= 0)", Excerpt(s))
	}
	if !isRange {
		return Range{a, a}, nil
	}
	b, err := ParseInt(hi)
	if err != nil || b < 0 {
		return Range{}, fmt.Errorf("%q is not a range (N or MIN-MAX, whole numbers >= 0)", Excerpt(s))
	}
	if b < a {
		return Range{}, fmt.Errorf("range %q is empty: %d > %d", Excerpt(s), a, b)
	}
	return Range{a, b}, nil
}

// Intersect is the overlap of two ranges; ok is false when they do not overlap.
func (r Range) Intersect(o Range) (Range, bool) {
	x := Range{max(r.Min, o.Min), min(r.Max, o.Max)}
	return x, x.Min <= x.Max
}

func (r Range) String() string {
	if r.Min == r.Max {
		return strconv.Itoa(r.Min)
	}
	return fmt.Sprintf("%d-%d", r.Min, r.Max)
}

// ParseList splits "a;b;c" into its non-empty, trimmed items.
func ParseList(s string) ([]string, error) {
	if err := checkItems(s); err != nil {
		return nil, err
	}
	var items []string
	for _, it := range strings.Split(s, ";") {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, fmt.Errorf("list %q has an empty item", Excerpt(s))
		}
		items = append(items, it)
	}
	return items, nil
}

// checkItems refuses a list of more than MaxListItems items before it is
// split.
func checkItems(s string) error {
	if n := strings.Count(s, ";") + 1; n > MaxListItems {
		return fmt.Errorf("the list has %d items; a list has at most %d", n, MaxListItems)
	}
	return nil
}

// Weighted is one item of a weighted list.
type Weighted struct {
	Value  string
	Weight float64
	Off    int // byte offset of the item in the list text, for error positions
}

// ParseWeighted reads GrenchMark's weighted lists, "v[/w];v[/w];…": items
// separated by ';', each a value and an optional weight after the last '/'
// (default 1). Weights are finite numbers >= 0, not all 0. A list may
// instead be RSD(lo,hi,q), the Realistic Synthetic Distribution of job
// sizes: the whole numbers lo..hi, weighted q^s, three times that for the
// powers of two (stats.RSDWeights).
func ParseWeighted(s string) ([]Weighted, error) {
	if t := strings.TrimSpace(s); len(t) >= 4 && strings.EqualFold(t[:4], "rsd(") {
		return rsdItems(t, strings.Index(s, t))
	}
	if err := checkItems(s); err != nil {
		return nil, err
	}
	var items []Weighted
	off := 0
	total := 0.0
	for _, raw := range strings.Split(s, ";") {
		start := off
		off += len(raw) + 1
		it := strings.TrimSpace(raw)
		if it == "" {
			return nil, fmt.Errorf("weighted list %q has an empty item", Excerpt(s))
		}
		w := Weighted{Value: it, Weight: 1, Off: start + strings.Index(raw, it)}
		if i := strings.LastIndexByte(it, '/'); i >= 0 {
			v, ws := strings.TrimSpace(it[:i]), strings.TrimSpace(it[i+1:])
			weight, err := ParseFloat(ws)
			if err != nil {
				return nil, fmt.Errorf("weight of %q: %v", Excerpt(it), err)
			}
			if weight < 0 {
				return nil, fmt.Errorf("weight of %q must not be negative", Excerpt(it))
			}
			if weight > MaxWeight {
				return nil, fmt.Errorf("weight of %q is above %g, the largest weight", Excerpt(it), float64(MaxWeight))
			}
			if v == "" {
				return nil, fmt.Errorf("item %q has a weight but no value", Excerpt(it))
			}
			w.Value, w.Weight = v, weight
		}
		total += w.Weight
		items = append(items, w)
	}
	if total == 0 {
		return nil, fmt.Errorf("weighted list %q: all weights are 0", Excerpt(s))
	}
	return items, nil
}

// byteUnits are the size units of ParseBytes, powers of 1024.
var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1},
}

// ParseBytes reads a size such as "512", "64KB", "2GB" (units are powers of
// 1024, case-insensitive; a bare number is bytes).
func ParseBytes(s string) (int64, error) {
	up := strings.ToUpper(s)
	num, mult := up, int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(up, u.suffix) {
			num, mult = up[:len(up)-len(u.suffix)], u.mult
			break
		}
	}
	v, err := parseFloat(num)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size (a number >= 0 with an optional unit B, KB, MB, GB or TB)", Excerpt(s))
	}
	if v*float64(mult) > MaxBytes {
		return 0, fmt.Errorf("size %q is above 1 PiB, the largest size", Excerpt(s))
	}
	return int64(math.Round(v * float64(mult))), nil
}

// rsdItems expands RSD(lo,hi,q), at offset off of a list's text, into its
// weighted items.
func rsdItems(text string, off int) ([]Weighted, error) {
	d, err := ParseDistribution(text)
	if err != nil {
		return nil, err
	}
	r, ok := d.(*stats.RSD)
	if !ok { // a name that only starts like RSD
		return nil, fmt.Errorf("%q is not RSD(lo,hi,q)", Excerpt(text))
	}
	if n := r.Hi - r.Lo + 1; n > MaxListItems {
		return nil, fmt.Errorf("%s has %d sizes; a list has at most %d items", r, n, MaxListItems)
	}
	items := make([]Weighted, 0, r.Hi-r.Lo+1)
	for i, w := range stats.RSDWeights(r.Lo, r.Hi, r.Q) {
		items = append(items, Weighted{Value: strconv.Itoa(r.Lo + i), Weight: w, Off: off})
	}
	return items, nil
}
