package wdl

import (
	"errors"
	"fmt"
	"github.com/gmark/gmark/internal/readlimit"
	"io/fs"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gmark/gmark/stats"
)

// The ranges of the numbers a WDL file, its extension files and its fit
// files may give. Each number is checked where it is read, before anything
// is allocated for it or scheduled by it, so that a slip such as
// NSites=10000000 is an error at its column rather than gigabytes of
// memory. docs/wdl.md#limits lists them all; keep the two in step.
const (
	// MaxFileBytes bounds a WDL, extension or fit file (and so its lines).
	MaxFileBytes = 16 << 20
	// MaxUnits bounds the unit lines of one WDL file.
	MaxUnits = 10000
	// MaxUnitID bounds a unit's ID (it names the unit's jobs).
	MaxUnitID = 999_999_999
	// MaxJobs bounds NTimes: the jobs (composite jobs, arrivals, replays) of one unit.
	MaxJobs = 1_000_000_000
	// MaxProcessors bounds the processors of a job, of a component and of a grid.
	MaxProcessors = 1 << 24
	// MaxComponents bounds the components of a co-allocated job (NSites,
	// NComponentsWithWeights, SiteInfo entries).
	MaxComponents = 1024
	// MaxTasks bounds the tasks of a composite job or a bag of tasks.
	MaxTasks = 100_000
	// MaxWeight bounds one weight of a weighted list.
	MaxWeight = 1e12
	// MaxBytes bounds a file size (InputFile=name:size): 1 PiB.
	MaxBytes = 1 << 50
	// MaxInputBytes bounds what a spec and all the files it includes hold.
	MaxInputBytes = 64 << 20
	// MaxListItems bounds the items of a list or a weighted list.
	MaxListItems = 100_000
	// MaxPairs bounds the Key=Value pairs of one unit line or extension file.
	MaxPairs = 10_000
	// MaxKeyLen bounds a key's length (the longest documented key has 27
	// characters), so an error about a key quotes no more than that: twice an
	// excerpt of a value.
	MaxKeyLen = 48
	// MaxWarnings bounds the warnings kept: past it, they repeat a mistake.
	MaxWarnings = 100
	// MaxSeconds bounds every duration and every submit offset: a workload
	// spanning more than a century is a slip in the spec (e.g. C(1e12)), and
	// the bound keeps nanosecond counts far from int64 overflow.
	MaxSeconds = 100 * 365 * 86400
)

// MaxDuration is MaxSeconds as a Duration.
const MaxDuration = MaxSeconds * time.Second

// Limit is the documented range of one kind of number, and the one place
// where a number read or drawn as a float becomes a Duration or an int: a
// float64 beyond the range of int64 converts to an arbitrary value (a
// negative run time, or 0), so every such conversion goes through Check.
type Limit struct {
	What     string  // what the number is, for messages: "a run time"
	Min, Max float64 // the range, inclusive
	Unit     string  // "s" for seconds, "" for plain numbers
}

// The limits shared by the parser and the generator.
var (
	// Durations are the fixed durations of OtherInfo and every submit offset.
	Durations = Limit{What: "a duration", Min: 0, Max: MaxSeconds, Unit: "s"}
	// RunTimes are drawn run times: a negative one is a mistake, not a 0.
	RunTimes = Limit{What: "a run time", Min: 0, Max: MaxSeconds, Unit: "s"}
	// Deadlines are drawn start deadlines, from each job's submission.
	Deadlines = Limit{What: "a start deadline", Min: 0, Max: MaxSeconds, Unit: "s"}
	// InterArrivals are drawn inter-arrival times. Negative draws (a normal
	// can give them) count as 0, as in GrenchMark; only the upper end is
	// a limit.
	InterArrivals = Limit{What: "an inter-arrival time", Min: math.Inf(-1), Max: MaxSeconds, Unit: "s"}
)

func (l Limit) format(v float64) string {
	text := strconv.FormatFloat(v, 'g', 4, 64)
	if l.Unit == "" {
		return text
	}
	if year := 365 * 86400.0; l.Unit == "s" && math.Abs(v) >= year && !math.IsInf(v, 0) {
		return fmt.Sprintf("%s s (%.3g years)", text, v/year)
	}
	return text + " " + l.Unit
}

func (l Limit) rangeText() string {
	if math.IsInf(l.Min, -1) {
		return "at most " + l.format(l.Max)
	}
	return "from " + l.format(l.Min) + " to " + l.format(l.Max)
}

// Check tells whether v is a number in the range.
func (l Limit) Check(v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("%s is not a number (NaN)", l.What)
	case v < l.Min || v > l.Max:
		return fmt.Errorf("%s of %s is out of range: it must be %s", l.What, l.format(v), l.rangeText())
	}
	return nil
}

// Duration converts secs to a Duration rounded to the millisecond, after
// checking it against the range. Submit offsets and run times in gmark have
// millisecond resolution: far finer than the 1 s recording accuracy the
// thesis asks for, and it keeps workload files short and exact.
func (l Limit) Duration(secs float64) (time.Duration, error) {
	if err := l.Check(secs); err != nil {
		return 0, err
	}
	if secs < 0 || secs > MaxSeconds {
		return 0, fmt.Errorf("%s of %s does not fit a duration of 0 to 100 years", l.What, l.format(secs))
	}
	return time.Duration(math.Round(secs*1000)) * time.Millisecond, nil
}

// Int rounds v to the nearest whole number after checking it against the
// range (which must lie within the range of int).
func (l Limit) Int(v float64) (int, error) {
	if err := l.Check(v); err != nil {
		return 0, err
	}
	r := math.Round(v)
	if r < math.MinInt32 || r > math.MaxInt64/2 {
		return 0, fmt.Errorf("%s of %s does not fit a whole number", l.What, l.format(v))
	}
	return int(r), nil
}

// Tail is the most probability a distribution may put outside a limit's
// range, at each end, for CheckDist to accept it. Real fitted models have
// such tails: the run-time fit of the LCG trace, 2^HGamma2 of a censored
// fit, passes 100 years with a probability of about 6·10⁻⁶. Draw redraws
// the values out there, which changes the distribution by at most this much.
const Tail = 1e-4

// maxRedraws bounds the draws Draw makes for one value.
const maxRedraws = 100

// CheckDist tells whether the draws of d stay in the range, as far as that
// can be known before drawing: d must have a finite mean (or its draws grow
// without bound: sooner or later one passes any limit), and at most Tail of
// its mass may lie below Min or above Max. The message says what to change.
func (l Limit) CheckDist(d stats.Distribution) error {
	if m := d.Mean(); math.IsNaN(m) || math.IsInf(m, 0) {
		return fmt.Errorf("%s has no finite mean, so its draws grow without bound and one passes %s sooner or later; "+
			"as %s give it a lighter tail (Pareto: alpha > 1; LogNorm and Pow2: a smaller mu or sigma)", d, l.format(l.Max), l.What)
	}
	if hi := d.Quantile(1 - Tail); !(hi <= l.Max) {
		return fmt.Errorf("%s gives values above %s (its %gth percentile is %s); as %s it must stay %s: lower its scale",
			d, l.format(l.Max), 100*(1-Tail), l.format(hi), l.What, l.rangeText())
	}
	if !math.IsInf(l.Min, -1) {
		if lo := d.Quantile(Tail); !(lo >= l.Min) {
			below := d.CDF(math.Nextafter(l.Min, math.Inf(-1)))
			return fmt.Errorf("%s gives values below %s (with probability %.2g); as %s it must stay %s: use a distribution of positive values (LogNorm, W, Gamma) or move it up",
				d, l.format(l.Min), below, l.What, l.rangeText())
		}
	}
	return nil
}

// Draw draws from d a value in the range: d truncated to the range. A
// distribution that passed CheckDist puts at most Tail of its mass outside,
// so a draw out there is rare, and it is drawn again; a draw that is not a
// number, or maxRedraws draws in a row out of the range, is an error.
func (l Limit) Draw(d stats.Distribution, r *rand.Rand) (float64, error) {
	var last error
	for range maxRedraws {
		v := d.Rand(r)
		if math.IsNaN(v) {
			return 0, fmt.Errorf("%s drew NaN, not a number", d)
		}
		if last = l.Check(v); last == nil {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%d draws in a row of %s were out of range, the last: %v", maxRedraws, d, last)
}

// ReadFile reads a WDL, extension or fit file of at most MaxFileBytes. It
// reads through a limit rather than trusting the size a stat reports, so
// that a device or a FIFO (ExternalFile=/dev/zero) is refused too instead of
// filling the memory.
func ReadFile(path string) ([]byte, error) {
	b, err := readlimit.File(path, MaxFileBytes)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return nil, ErrTooLarge
	}
	return b, err
}

// ErrTooLarge is the error of ReadFile for a file beyond MaxFileBytes.
var ErrTooLarge = readlimit.TooLargef("larger than 16 MiB: not a workload description, extension or fit file")

// readError is what an error says about a file that could not be read:
// the reason, without the path the caller names itself.
func readError(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, readlimit.ErrNotRegular) && errors.As(err, &pe):
		return excerpt(pe.Err.Error(), maxPathExcerpt) // "a FIFO (named pipe), not a regular file"
	case errors.As(err, &pe):
		return excerpt(pe.Op+": "+pe.Err.Error(), maxPathExcerpt)
	}
	return excerpt(err.Error(), maxPathExcerpt)
}

// maxExcerpt is the most characters of input an error message quotes, and
// maxPathExcerpt of a path it names.
const (
	maxExcerpt     = 24
	maxPathExcerpt = 128
)

// Excerpt is what an error message may quote of a text read from outside:
// its first characters, with an ellipsis when it was longer, and control
// characters and invalid UTF-8 replaced. An error about a file that is no
// WDL at all (ExternalFile=/etc/passwd) must not echo its lines.
func Excerpt(s string) string { return excerpt(s, maxExcerpt) }

// ExcerptPath is Excerpt for a path an error names: longer, for paths are
// long, but as printable (a spec may name any file).
func ExcerptPath(path string) string { return excerpt(path, maxPathExcerpt) }

// excerpt is Excerpt of at most max characters.
func excerpt(s string, max int) string {
	out := make([]rune, 0, max+1)
	for i, n := 0, 0; i < len(s); n++ {
		if n == max {
			out = append(out, '…')
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			r = '\uFFFD'
		}
		out = append(out, r)
	}
	return string(out)
}
