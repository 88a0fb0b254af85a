package cliflag

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// The conventions of gmark's flags, the same in every command
// (CONTRIBUTING.md, "The command line"); Check holds a command to them.
var (
	// Shorts are the one-letter flags: each stands for one long flag,
	// whatever the command.
	Shorts = map[string]string{"o": "output", "q": "quiet", "f": "force", "t": "target", "j": "parallel", "g": "group", "h": "help", "v": "version"}
	// Everywhere are the long flags that carry their letter in every
	// command that has them: -o, -q and -f mean the same everywhere.
	Everywhere = []string{"output", "quiet", "force", "help"}
	// Synonyms are long names not to use, with the one gmark uses for the
	// same thing.
	Synonyms = map[string]string{"out": "output", "outdir": "output", "silent": "quiet", "overwrite": "force", "replace": "force"}
)

var (
	envName     = regexp.MustCompile(`\$\{?[A-Z][A-Z0-9_]*\}?|%[A-Z][A-Z0-9_]*%`)
	envWellKept = regexp.MustCompile(`^\$[A-Z][A-Z0-9_]*$`)
)

// Check returns what in the flags of the command named path breaks the
// conventions:
//
//   - a usage text says nothing of the default: the default is the flag's
//     value, or its DefaultText when it is not a plain value ("the number
//     of CPUs"), and the help shows it once, "(default: …)";
//   - environment variables are written $NAME, and a flag read from one
//     declares it (EnvVars; the help shows it as the default) and has no
//     other default;
//   - a one-letter flag stands for its long flag of Shorts, and the flags
//     of Everywhere carry their letter;
//   - no long name of Synonyms;
//   - a deprecated spelling stands for a flag of the same command.
func Check(path string, flags []cli.Flag) []string {
	var bad []string
	fail := func(f cli.Flag, format string, args ...any) {
		bad = append(bad, fmt.Sprintf("%s --%s: %s", path, f.Names()[0], fmt.Sprintf(format, args...)))
	}
	declared := map[string]bool{}
	for _, f := range flags {
		for _, n := range f.Names() {
			declared[n] = true
		}
	}
	for _, f := range flags {
		if d, ok := f.(*Deprecated); ok {
			if !declared[d.For.Names()[0]] {
				fail(f, "a deprecated spelling of --%s, which the command does not have", d.For.Names()[0])
			}
			continue
		}
		checkNames(f, fail)
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			fail(f, "not a urfave/cli flag with a help line")
			continue
		}
		checkUsage(f, df, fail)
	}
	return bad
}

func checkNames(f cli.Flag, fail func(cli.Flag, string, ...any)) {
	long := f.Names()[0]
	if len(long) < 2 {
		fail(f, "a flag's first name is its long name")
	}
	if use, ok := Synonyms[long]; ok {
		fail(f, "gmark calls this --%s", use)
	}
	letters := map[string]bool{}
	for _, n := range f.Names()[1:] {
		if len(n) != 1 {
			if use, ok := Synonyms[n]; ok {
				fail(f, "alias --%s: gmark calls this --%s", n, use)
			}
			continue
		}
		letters[n] = true
		if want, ok := Shorts[n]; !ok {
			fail(f, "-%s is no letter of Shorts", n)
		} else if want != long {
			fail(f, "-%s stands for --%s in every command", n, want)
		}
	}
	for short, l := range Shorts {
		if l == long && slices.Contains(Everywhere, long) && !letters[short] {
			fail(f, "--%s carries -%s in every command", long, short)
		}
	}
}

func checkUsage(f cli.Flag, df cli.DocGenerationFlag, fail func(cli.Flag, string, ...any)) {
	usage := df.GetUsage()
	if usage == "" {
		fail(f, "no usage text")
	}
	if strings.Contains(strings.ToLower(usage), "default") {
		fail(f, "the usage text speaks of the default (%q): give it as the value or as DefaultText, shown once", usage)
	}
	if strings.HasSuffix(usage, ".") {
		fail(f, "the usage text ends with a full stop")
	}
	for _, m := range envName.FindAllString(usage, -1) {
		if !envWellKept.MatchString(m) {
			fail(f, "environment variable written %s: write $NAME", m)
		}
	}
	if env := df.GetEnvVars(); len(env) > 0 {
		if df.GetValue() != "" || (df.GetDefaultText() != "" && df.GetDefaultText() != df.GetValue()) {
			fail(f, "read from $%s, which is its default, and it has another (%q)", env[0], df.GetDefaultText())
		}
	}
	if line := FlagStringer(f); strings.Count(line, "(default") > 1 || strings.Contains(line, "[$") {
		fail(f, "the help line shows its default more than once or in another notation: %s", line)
	}
}

// FlagStringer is the help line of a flag as Prepare makes the help show it.
func FlagStringer(f cli.Flag) string { return flagString(f) }
