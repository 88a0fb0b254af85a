package apps

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// A small flag parser rather than the standard flag package, for one reason:
// messages. A job that fails because of a bad parameter must say which flag
// is wrong and what it accepts ("--supersteps must be a whole number >= 1,
// got -3"), in words the generator's own checks use. It accepts "--name
// value", "--name=value" and "-name value", like the flag package.

// errHelp is returned by parse for -h, -help and --help.
var errHelp = errors.New("help requested")

type flagDef struct {
	name  string
	kind  flagKind
	arg   string // placeholder in the help: "N", "KB", "DURATION"; "" for booleans
	usage string
	def   string // shown in the help
	set   func(string) error
	value func() string // the value parsed (or the default), for path flags
}

// flagKind is what a flag's value is. A value that names a file or a
// directory is a path flag (Path), never a free string: Paths lists them,
// and whoever confines a job (the bundled core's process execution)
// screens every one.
type flagKind int

const (
	kindInt flagKind = iota
	kindFloat
	kindDuration
	kindChoice
	kindBool
	kindSize
	kindPath
)

type flagSet struct {
	app  string
	defs []*flagDef
	by   map[string]*flagDef
}

func newFlagSet(app string) *flagSet { return &flagSet{app: app, by: map[string]*flagDef{}} }

func (fs *flagSet) add(d *flagDef) {
	if _, dup := fs.by[d.name]; dup {
		panic("apps: flag defined twice: " + d.name)
	}
	fs.defs = append(fs.defs, d)
	fs.by[d.name] = d
}

// Int defines a whole-number flag within [lo, hi].
func (fs *flagSet) Int(p *int64, name, arg string, def, lo, hi int64, usage string) {
	*p = def
	fs.add(&flagDef{name: name, kind: kindInt, arg: arg, usage: usage, def: strconv.FormatInt(def, 10), set: func(v string) error {
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil || i < lo || i > hi {
			if hi >= math.MaxInt32 {
				return fmt.Errorf("must be a whole number >= %d", lo)
			}
			return fmt.Errorf("must be a whole number from %d to %d", lo, hi)
		}
		*p = i
		return nil
	}})
}

// Float defines a decimal flag: >= lo, or > lo when strict.
func (fs *flagSet) Float(p *float64, name, arg string, def, lo float64, strict bool, usage string) {
	*p = def
	fs.add(&flagDef{name: name, kind: kindFloat, arg: arg, usage: usage, def: strconv.FormatFloat(def, 'g', -1, 64), set: func(v string) error {
		f, ok := parseDecimal(v)
		if !ok || f < lo || (strict && f == lo) {
			op := ">="
			if strict {
				op = ">"
			}
			return fmt.Errorf("must be a number %s %s", op, strconv.FormatFloat(lo, 'g', -1, 64))
		}
		*p = f
		return nil
	}})
}

// parseDecimal accepts plain decimal numbers only (no hex, no infinities,
// no NaN): the form the generator writes.
func parseDecimal(s string) (float64, bool) {
	if s == "" || strings.Trim(s, "0123456789.+-eE") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// Duration defines a duration flag >= 0: Go syntax ("90s", "1m30s",
// "200ms") or a bare number of seconds.
func (fs *flagSet) Duration(p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.add(&flagDef{name: name, kind: kindDuration, arg: "DURATION", usage: usage, def: def.String(), set: func(v string) error {
		d, err := parseDuration(v)
		if err != nil || d < 0 {
			return errors.New(`must be a duration >= 0 such as 90s, 2m or 200ms (a bare number is seconds)`)
		}
		*p = d
		return nil
	}})
}

func parseDuration(v string) (time.Duration, error) {
	if f, ok := parseDecimal(v); ok {
		if f > math.MaxInt64/float64(time.Second) {
			return 0, errors.New("too long")
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	return time.ParseDuration(v)
}

// Choice defines a flag that takes one of words.
func (fs *flagSet) Choice(p *string, name string, def string, words []string, usage string) {
	*p = def
	fs.add(&flagDef{name: name, kind: kindChoice, arg: strings.Join(words, "|"), usage: usage, def: def, set: func(v string) error {
		for _, w := range words {
			if v == w {
				*p = v
				return nil
			}
		}
		return fmt.Errorf("must be one of %s", strings.Join(words, ", "))
	}})
}

// Path defines a flag that names a file or a directory the application
// opens (arg says which: FILE, DIR); without a default (def "") it is
// required. It is the only kind of flag whose value is free text, so that
// Paths finds every path a command line gives.
func (fs *flagSet) Path(p *string, name, arg, def, usage string) {
	*p = def
	fs.add(&flagDef{name: name, kind: kindPath, arg: arg, usage: usage, def: def, value: func() string { return *p }, set: func(v string) error {
		if v == "" {
			return errors.New("must not be empty")
		}
		*p = v
		return nil
	}})
}

// Bool defines a boolean flag: "--quiet", or "--quiet=false".
func (fs *flagSet) Bool(p *bool, name, usage string) {
	fs.add(&flagDef{name: name, kind: kindBool, usage: usage, set: func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("takes no value, or =true or =false")
		}
		*p = b
		return nil
	}})
}

// Size defines a byte-size flag: a whole number of bytes, or with a unit
// K, M, G (or KiB, MiB, GiB; all binary). It must be >= lo.
func (fs *flagSet) Size(p *int64, name string, def, lo int64, usage string) {
	*p = def
	fs.add(&flagDef{name: name, kind: kindSize, arg: "SIZE", usage: usage, def: formatSize(def), set: func(v string) error {
		n, ok := parseSize(v)
		if !ok || n < lo {
			return fmt.Errorf("must be a size >= %s such as 512MiB or 2G", formatSize(lo))
		}
		*p = n
		return nil
	}})
}

func parseSize(v string) (int64, bool) {
	num := strings.TrimRight(v, "KMGiBkmgb")
	unit := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(v[len(num):], "B"), "b"))
	unit = strings.TrimSuffix(unit, "I")
	mult := map[string]int64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if mult == 0 || err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, false
	}
	return n * mult, true
}

func formatSize(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// parse reads args. Errors are *UsageError naming the flag.
func (fs *flagSet) parse(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return fs.usagef("unexpected argument %q: %s takes only flags", args[i+1], fs.app)
			}
			return nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return fs.usagef("unexpected argument %q: %s takes only flags (see 'gmark app %s --help')", a, fs.app, fs.app)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		value, hasValue := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = k, v, true
		}
		if name == "h" || name == "help" {
			return errHelp
		}
		d := fs.by[name]
		if d == nil {
			return fs.usagef("unknown flag --%s: %s takes %s (see 'gmark app %s --help')", name, fs.app, fs.names(), fs.app)
		}
		if !hasValue {
			if d.arg == "" {
				value = "true"
			} else {
				if i+1 >= len(args) {
					return fs.usagef("--%s needs a value (%s)", name, d.arg)
				}
				i++
				value = args[i]
			}
		}
		if err := d.set(value); err != nil {
			return fs.usagef("--%s %s, got %q", name, err, value)
		}
	}
	for _, d := range fs.defs {
		if d.kind == kindPath && d.value() == "" {
			return fs.usagef("--%s %s is required (%s)", d.name, d.arg, d.usage)
		}
	}
	return nil
}

func (fs *flagSet) names() string {
	names := make([]string, len(fs.defs))
	for i, d := range fs.defs {
		names[i] = "--" + d.name
	}
	return strings.Join(names, ", ")
}

func (fs *flagSet) usagef(format string, args ...any) error {
	return &UsageError{App: fs.app, Msg: fmt.Sprintf(format, args...)}
}

// printDefaults writes one line per flag.
func (fs *flagSet) printDefaults(w io.Writer) {
	width := 0
	label := func(d *flagDef) string {
		if d.arg == "" {
			return "--" + d.name
		}
		return "--" + d.name + " " + d.arg
	}
	for _, d := range fs.defs {
		width = max(width, len(label(d)))
	}
	for _, d := range fs.defs {
		fmt.Fprintf(w, "  %-*s  %s", width, label(d), d.usage)
		if d.def != "" && d.arg != "" {
			fmt.Fprintf(w, " (default %s)", d.def)
		}
		fmt.Fprintln(w)
	}
}
