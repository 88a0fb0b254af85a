package cliflag

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

type usageErr struct{ error }

func testApp(action cli.ActionFunc) (*cli.App, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	force := &cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "replace"}
	format := &cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"}
	app := &cli.App{Name: "x", Writer: &out, ErrWriter: &errb, ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			{Name: "gen", Flags: []cli.Flag{force, &cli.IntFlag{Name: "seed", Value: 1, Usage: "seed"}}, Action: action},
			{Name: "report", Flags: append(Renamed(format, "f", "fmt"), &cli.BoolFlag{Name: "quiet", Usage: "quiet"}), Action: action},
			{Name: "group", Subcommands: []*cli.Command{{Name: "one", Action: action}}},
		}}
	Prepare(app, func(err error) error { return usageErr{err} })
	return app, &out, &errb
}

// The old spelling sets the new flag (value and IsSet), bool or not, warns,
// and is hidden from the help; the new spelling does not warn.
func TestDeprecated(t *testing.T) {
	var format string
	var set bool
	app, out, errb := testApp(func(c *cli.Context) error {
		format, set = c.String("format"), c.IsSet("format")
		return nil
	})
	for _, tc := range []struct {
		args       []string
		format     string
		set, warns bool
	}{
		{[]string{"report"}, "text", false, false},
		{[]string{"report", "--format", "json"}, "json", true, false},
		{[]string{"report", "-f", "json"}, "json", true, true},
		{[]string{"report", "--fmt=csv"}, "csv", true, true},
	} {
		errb.Reset()
		if err := app.Run(append([]string{"x"}, tc.args...)); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		warned := strings.Contains(errb.String(), "is deprecated")
		if format != tc.format || set != tc.set || warned != tc.warns {
			t.Errorf("%v: format %q set %v warned %v (%q); want %q %v %v", tc.args, format, set, warned, errb.String(), tc.format, tc.set, tc.warns)
		}
	}
	out.Reset()
	if err := app.Run([]string{"x", "report", "--help"}); err != nil {
		t.Fatal(err)
	}
	if h := out.String(); strings.Contains(h, ", -f") || strings.Contains(h, "fmt") || !strings.Contains(h, "--format") || strings.Contains(h, "(default: false)") {
		t.Errorf("help shows an old spelling or a bool's default:\n%s", h)
	}
	// A deprecated bool: -f forwards to a bool without taking a value.
	var force bool
	app2 := &cli.App{Name: "y", ExitErrHandler: func(*cli.Context, error) {}, ErrWriter: &bytes.Buffer{},
		Flags: Renamed(&cli.BoolFlag{Name: "force", Usage: "replace"}, "f"), Action: func(c *cli.Context) error {
			force = c.Bool("force") && c.Args().First() == "arg"
			return nil
		}}
	Prepare(app2, func(err error) error { return err })
	if err := app2.Run([]string{"y", "-f", "arg"}); err != nil || !force {
		t.Errorf("-f arg: force %v, %v", force, err)
	}
}

// Unknown flags and commands are usage errors naming the nearest; no
// command is a usage error after the help, on standard error.
func TestPrepareUsage(t *testing.T) {
	app, out, errb := testApp(func(*cli.Context) error { return nil })
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"gen", "--sede", "2"}, "did you mean --seed?"},
		{[]string{"gen", "--colour"}, "flag provided but not defined: -colour"},
		{[]string{"gne"}, `"gne" is not a command of x; did you mean 'gen'?`},
		{[]string{"group", "on"}, `"on" is not a command of x group; did you mean 'one'?`},
		{[]string{"group", "zzzzzz"}, "run 'x group --help' for the list"},
		{nil, "x needs a command"},
		{[]string{"group"}, "x group needs a command"},
	} {
		out.Reset()
		errb.Reset()
		err := app.Run(append([]string{"x"}, tc.args...))
		var ue usageErr
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.msg)
		}
		if strings.Contains(tc.msg, "needs a command") && (out.Len() > 0 || !strings.Contains(errb.String(), "USAGE")) {
			t.Errorf("%v: the help went to stdout (%q) or nowhere (%q)", tc.args, out.String(), errb.String())
		}
		if strings.Contains(tc.msg, "colour") && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%v: a far guess: %v", tc.args, err)
		}
	}
}

// Check finds each kind of breach of the conventions.
func TestCheck(t *testing.T) {
	out := &cli.StringFlag{Name: "out", Usage: "where"}
	for _, tc := range []struct {
		flag cli.Flag
		want string // in the problem; "" for none
	}{
		{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "where"}, ""},
		{&cli.StringFlag{Name: "output", Usage: "where"}, "carries -o"},
		{out, "gmark calls this --output"},
		{&cli.BoolFlag{Name: "format", Aliases: []string{"f"}, Usage: "x"}, "-f stands for --force"},
		{&cli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "x"}, "no letter of Shorts"},
		{&cli.IntFlag{Name: "procs", Usage: "processors (default: all)"}, "speaks of the default"},
		{&cli.IntFlag{Name: "procs", DefaultText: "all", Usage: "processors"}, ""},
		{&cli.StringFlag{Name: "token", EnvVars: []string{"TOK"}, Usage: "the token"}, ""},
		{&cli.StringFlag{Name: "token", EnvVars: []string{"TOK"}, Value: "x", Usage: "the token"}, "and it has another"},
		{&cli.StringFlag{Name: "conf", Usage: "the file, else ${SLURM_CONF}"}, "write $NAME"},
		{&cli.StringFlag{Name: "conf", Usage: "the file, else $SLURM_CONF"}, ""},
		{&cli.StringFlag{Name: "conf", Usage: "the file."}, "full stop"},
		{&cli.StringFlag{Name: "conf"}, "no usage text"},
		{Deprecate("old", &cli.StringFlag{Name: "missing"}), "which the command does not have"},
	} {
		problems := Check("x", []cli.Flag{tc.flag})
		got := strings.Join(problems, "\n")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.flag.Names()[0], got, tc.want)
		}
	}
}
