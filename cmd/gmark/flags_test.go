package main

import (
	"context"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/cliflag"
	"github.com/urfave/cli/v2"
)

// Every command's flags follow one convention (cliflag.Check): a default
// shown once, environment variables written one way, one meaning per
// letter, one name per thing; and the help of every command shows it so.
func TestFlagConventions(t *testing.T) {
	app := newApp()
	n := 0
	eachCommand(app.Commands, "gmark", func(path string, c *cli.Command) {
		for _, problem := range cliflag.Check(path, c.Flags) {
			t.Error(problem)
		}
		n += len(c.Flags)
		var help, stderr strings.Builder
		args := append(strings.Fields(path), "--help")
		if code := runGmark(context.Background(), args, &help, &stderr); code != 0 {
			t.Errorf("%s --help: exit %d: %s", path, code, stderr.String())
		}
		for _, line := range strings.Split(help.String(), "\n") {
			if strings.Count(line, "(default") > 1 || strings.Contains(line, "(default: false)") || strings.Contains(line, "[$") {
				t.Errorf("%s --help: %s", path, strings.TrimSpace(line))
			}
		}
	})
	if n < 150 {
		t.Fatalf("checked %d flags: is the walk seeing every command?", n)
	}
}

// eachCommand calls f on every command and subcommand, with its path.
func eachCommand(cmds []*cli.Command, prefix string, f func(path string, c *cli.Command)) {
	for _, c := range cmds {
		if c.Name == "help" {
			continue // urfave/cli's, added to the app as it runs
		}
		path := prefix + " " + c.Name
		f(path, c)
		eachCommand(c.Subcommands, path, f)
	}
}
