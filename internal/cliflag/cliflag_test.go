package cliflag

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// The values as given, whole (commas kept), the default alone when none is
// given, the last for c.String; and nothing carried from one run of the app
// to the next.
func TestRepeated(t *testing.T) {
	var got []string
	var last string
	app := &cli.App{Name: "x", Flags: []cli.Flag{&Repeated{cli.StringFlag{Name: "db", Value: "results.db", Usage: "a store"}}},
		Action: func(c *cli.Context) error {
			got, last = Values(c, "db"), c.String("db")
			return nil
		}}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"results.db"}},
		{[]string{"--db", "a.db"}, []string{"a.db"}},
		{[]string{"--db", "a,b.db", "--db=c.db"}, []string{"a,b.db", "c.db"}},
		{[]string{"--db", ""}, []string{""}},
		{nil, []string{"results.db"}}, // after runs that set it
	} {
		if err := app.Run(append([]string{"x"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) || last != tc.want[len(tc.want)-1] {
			t.Errorf("%q: values %q, last %q; want %q", tc.args, got, last, tc.want)
		}
	}
	var help bytes.Buffer
	app.Writer = &help
	if err := app.Run([]string{"x", "--help"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help.String(), "--db value") || !strings.Contains(help.String(), `(default: "results.db")`) {
		t.Errorf("help:\n%s", help.String())
	}
}

// No default: no value until one is given.
func TestRepeatedNoDefault(t *testing.T) {
	var got []string
	app := &cli.App{Name: "x", Flags: []cli.Flag{&Repeated{cli.StringFlag{Name: "db"}}},
		Action: func(c *cli.Context) error { got = Values(c, "db"); return nil }}
	if err := app.Run([]string{"x"}); err != nil || got != nil {
		t.Errorf("values %q, %v", got, err)
	}
}

// A subcommand's flag is its own when given, else its parent's when the
// parent was given it, else its own default.
func TestInherited(t *testing.T) {
	var got string
	app := &cli.App{Name: "x", Flags: []cli.Flag{&cli.StringFlag{Name: "db", Value: "parent.db"}},
		Commands: []*cli.Command{{Name: "sql", Flags: []cli.Flag{&cli.StringFlag{Name: "db", Value: "results.db"}},
			Action: func(c *cli.Context) error { got = Inherited(c, "db"); return nil }}}}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sql"}, "results.db"},
		{[]string{"sql", "--db", "a.db"}, "a.db"},
		{[]string{"--db", "p.db", "sql"}, "p.db"},
		{[]string{"--db", "p.db", "sql", "--db", "a.db"}, "a.db"},
	} {
		if err := app.Run(append([]string{"x"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestIfSet: an optional bound is nil unless the command line or the
// environment gave it, even when the value given is the default.
func TestIfSet(t *testing.T) {
	t.Setenv("CLIFLAG_TEST_MIN", "")
	for _, tc := range []struct {
		args []string
		env  string
		want *int
	}{
		{[]string{"x"}, "", nil},
		{[]string{"x", "--min", "0"}, "", ptr(0)},
		{[]string{"x", "--min", "7"}, "", ptr(7)},
		{[]string{"x"}, "3", ptr(3)},
	} {
		var v int
		var got *int
		app := &cli.App{Flags: []cli.Flag{&cli.IntFlag{Name: "min", EnvVars: []string{"CLIFLAG_TEST_MIN"}, Destination: &v}},
			Action: func(c *cli.Context) error { got = IfSet(c, "min", &v); return nil }}
		t.Setenv("CLIFLAG_TEST_MIN", tc.env)
		if tc.env == "" {
			os.Unsetenv("CLIFLAG_TEST_MIN")
		}
		if err := app.Run(tc.args); err != nil {
			t.Fatal(err)
		}
		if (got == nil) != (tc.want == nil) || (got != nil && (got != &v || *got != *tc.want)) {
			t.Errorf("%v env %q: IfSet = %v, want %v", tc.args, tc.env, got, tc.want)
		}
	}
}

func ptr(i int) *int { return &i }
