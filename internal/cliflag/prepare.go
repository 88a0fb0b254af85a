package cliflag

import (
	"fmt"
	"strings"

	"github.com/gmark/gmark/internal/names"
	"github.com/urfave/cli/v2"
)

// Prepare applies gmark's command-line conventions to app and every one of
// its commands, whatever file declared them: usage wraps an error of the
// user's input (exit 2).
//
//   - A flag the command does not know, or a value that does not parse, is
//     bad usage, with the flag the user probably meant ("did you mean").
//   - The app and each command that only groups subcommands show their help
//     when given no command, on standard error, and that is bad usage too;
//     an unknown command is bad usage, with the nearest names.
//   - A boolean flag shows no "(default: false)"; a flag read from the
//     environment shows it as its default, "(default: $NAME)".
//   - The old spelling of a flag (Deprecated) warns when it is used.
func Prepare(app *cli.App, usage func(error) error) {
	cli.FlagStringer = flagString
	app.OnUsageError = onUsage(usage)
	if app.Action == nil {
		app.Action = unknownCommand(usage)
	}
	prepareFlags(app.Flags)
	prepareCommands(app.Commands, usage)
}

func prepareCommands(cmds []*cli.Command, usage func(error) error) {
	for _, c := range cmds {
		c.OnUsageError = onUsage(usage)
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = unknownCommand(usage)
		}
		prepareFlags(c.Flags)
		if deps := deprecatedOf(c.Flags); len(deps) > 0 && c.Before == nil {
			c.Before = func(ctx *cli.Context) error {
				for _, d := range deps {
					if ctx.IsSet(d.Name) {
						fmt.Fprintln(ctx.App.ErrWriter, ctx.App.Name+":", d.Warning())
					}
				}
				return nil
			}
		}
		prepareCommands(c.Subcommands, usage)
	}
}

func prepareFlags(flags []cli.Flag) {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok {
			b.DisableDefaultText = true
		}
	}
}

func deprecatedOf(flags []cli.Flag) []*Deprecated {
	var out []*Deprecated
	for _, f := range flags {
		if d, ok := f.(*Deprecated); ok {
			out = append(out, d)
		}
	}
	return out
}

// urfaveString is urfave/cli's own help line of a flag.
var urfaveString = cli.FlagStringer

// flagString is the help line of a flag: urfave/cli's, but with the
// environment variables it is read from shown as its default, in the
// notation the usage texts use, "(default: $NAME)", instead of "[$NAME]".
func flagString(f cli.Flag) string {
	s := urfaveString(f)
	df, ok := f.(cli.DocGenerationFlag)
	if !ok || len(df.GetEnvVars()) == 0 {
		return s
	}
	vars := make([]string, len(df.GetEnvVars()))
	for i, v := range df.GetEnvVars() {
		vars[i] = "$" + v
	}
	if i := strings.LastIndex(s, " ["); i >= 0 && strings.HasSuffix(s, "]") {
		s = s[:i]
	}
	return s + " (default: " + strings.Join(vars, " or ") + ")"
}

// onUsage makes a flag error bad usage, naming the flag that was probably
// meant when the flag is unknown.
func onUsage(usage func(error) error) cli.OnUsageErrorFunc {
	return func(c *cli.Context, err error, _ bool) error {
		const unknown = "flag provided but not defined: "
		if name, ok := strings.CutPrefix(err.Error(), unknown); ok {
			var known []string
			for _, f := range flagsOf(c) {
				if v, ok := f.(cli.VisibleFlag); !ok || v.IsVisible() {
					known = append(known, f.Names()...)
				}
			}
			if hint := didYouMean(strings.TrimLeft(name, "-"), known, Dashed); hint != "" {
				err = fmt.Errorf("%w (%s)", err, hint)
			}
		}
		return usage(err)
	}
}

func flagsOf(c *cli.Context) []cli.Flag {
	if c.Command != nil && c.Command.Name != "" {
		return append(c.Command.Flags, cli.HelpFlag)
	}
	return append(c.App.Flags, cli.HelpFlag, cli.VersionFlag)
}

// didYouMean is "did you mean X?" (or "X or Y"), for the candidates
// nearest to name; "" when none is near.
func didYouMean(name string, candidates []string, show func(string) string) string {
	near := names.Closest(name, candidates)
	if len(near) == 0 {
		return ""
	}
	for i, n := range near {
		near[i] = show(n)
	}
	return "did you mean " + strings.Join(near, " or ") + "?"
}

// unknownCommand is the action of the app and of the commands that only
// group subcommands: given no command, the help, on standard error, and
// bad usage; given an unknown one, bad usage with the nearest names.
func unknownCommand(usage func(error) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		sub := c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name
		name, cmds := c.App.Name, c.App.Commands
		if sub {
			name, cmds = name+" "+c.Command.FullName(), c.Command.Subcommands
		}
		if c.NArg() == 0 {
			w := c.App.Writer
			c.App.Writer = c.App.ErrWriter
			if sub {
				_ = cli.ShowSubcommandHelp(c)
			} else {
				_ = cli.ShowAppHelp(c)
			}
			c.App.Writer = w
			return usage(fmt.Errorf("%s needs a command (listed above); run '%s COMMAND --help' for one", name, name))
		}
		var known []string
		for _, cmd := range cmds {
			if !cmd.Hidden {
				known = append(known, cmd.Names()...)
			}
		}
		msg := fmt.Sprintf("%q is not a command of %s", c.Args().First(), name)
		if hint := didYouMean(c.Args().First(), known, func(s string) string { return "'" + s + "'" }); hint != "" {
			msg += "; " + hint
		} else {
			msg += fmt.Sprintf("; run '%s --help' for the list", name)
		}
		return usage(fmt.Errorf("%s", msg))
	}
}

// IsUsage tells whether err is an error of usage that urfave/cli returns
// without calling OnUsageError: a required flag not given ("Required flag
// "group" not set"), whose type it does not export.
func IsUsage(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "Required flag ")
}
