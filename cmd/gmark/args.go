package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves flags written after a command's positional arguments in
// front of them ("gmark generate spec.wdl -o out" becomes "gmark generate -o
// out spec.wdl"): urfave/cli v2 stops reading flags at the first argument,
// and users write flags wherever they like. "--" still ends flag parsing.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds := app.Commands
	rest := args[1:]
	// Walk down the command path: global flags and command names.
	var cmd *cli.Command
	for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		next := findCommand(cmds, rest[0])
		if next == nil {
			break
		}
		cmd = next
		out = append(out, rest[0])
		rest = rest[1:]
		cmds = cmd.Subcommands
		if len(cmds) == 0 {
			break
		}
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return append(out, rest...)
	}
	var flags, positional []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			positional = append(positional, rest[i:]...)
			i = len(rest)
		case strings.HasPrefix(a, "-") && a != "-":
			flags = append(flags, a)
			if !strings.Contains(a, "=") && takesValue(cmd, strings.TrimLeft(a, "-")) && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
		default:
			positional = append(positional, a)
		}
	}
	out = append(out, flags...)
	return append(out, positional...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// takesValue tells whether the named flag of cmd expects a value.
func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				if tv, ok := f.(interface{ TakesValue() bool }); ok { // deprecated spellings too
					return tv.TakesValue()
				}
				return true
			}
		}
	}
	return false
}
