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
// given, the last in Destination (and for c.String); and nothing carried
// from one run of the app to the next.
func TestRepeated(t *testing.T) {
	var all []string
	var last, read string
	app := &cli.App{Name: "x", Flags: []cli.Flag{&Repeated{StringFlag: cli.StringFlag{Name: "db", Value: "results.db", Usage: "a store", Destination: &last}, All: &all}},
		Action: func(c *cli.Context) error {
			read = c.String("db")
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
		if want := tc.want[len(tc.want)-1]; !slices.Equal(all, tc.want) || last != want || read != want {
			t.Errorf("%q: values %q, last %q, read %q; want %q", tc.args, all, last, read, tc.want)
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

func TestRepeatedNoDefault(t *testing.T) {
	all := []string{"stale"}
	app := &cli.App{Name: "x", Flags: []cli.Flag{&Repeated{StringFlag: cli.StringFlag{Name: "db"}, All: &all}},
		Action: func(c *cli.Context) error { return nil }}
	if err := app.Run([]string{"x"}); err != nil || all != nil {
		t.Errorf("values %q, %v", all, err)
	}
}

// Given finds the flag by the variable it binds, in the command or above
// it, whatever its type; a parent's flag and a subcommand's of the same
// name are told apart; an alias or the environment counts as given.
func TestGiven(t *testing.T) {
	t.Setenv("CLIFLAG_TEST_SEED", "")
	os.Unsetenv("CLIFLAG_TEST_SEED")
	type vars struct {
		top, db, subDB string
		dbs            []string
		seed           uint64
		n              int
		tags           cli.StringSlice
		force          bool
	}
	type given struct{ top, db, subDB, dbs, seed, n, tags, force bool }
	run := func(env string, args ...string) (got given) {
		var v vars
		app := &cli.App{Name: "x", Flags: []cli.Flag{&cli.StringFlag{Name: "top", Destination: &v.top}},
			Commands: []*cli.Command{{Name: "report",
				Flags: []cli.Flag{&Repeated{StringFlag: cli.StringFlag{Name: "db", Value: "a.db", Destination: &v.db}, All: &v.dbs},
					&cli.Uint64Flag{Name: "seed", EnvVars: []string{"CLIFLAG_TEST_SEED"}, Destination: &v.seed},
					&IntRange{IntFlag: cli.IntFlag{Name: "n", Aliases: []string{"j"}, Destination: &v.n}, Min: 0, Max: 9},
					&cli.StringSliceFlag{Name: "tag", Destination: &v.tags}},
				Subcommands: []*cli.Command{{Name: "sql",
					Flags: []cli.Flag{&cli.StringFlag{Name: "db", Value: "a.db", Destination: &v.subDB}, &cli.BoolFlag{Name: "force", Destination: &v.force}},
					Action: func(c *cli.Context) error {
						got = given{Given(c, &v.top), Given(c, &v.db), Given(c, &v.subDB), Given(c, &v.dbs), Given(c, &v.seed), Given(c, &v.n), Given(c, &v.tags), Given(c, &v.force)}
						return nil
					}}}}}}
		if env != "" {
			t.Setenv("CLIFLAG_TEST_SEED", env)
			defer os.Unsetenv("CLIFLAG_TEST_SEED")
		}
		if err := app.Run(append([]string{"x"}, args...)); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, tc := range []struct {
		env  string
		args []string
		want given
	}{
		{"", []string{"report", "sql"}, given{}},
		{"", []string{"--top", "t", "report", "sql"}, given{top: true}},
		{"", []string{"report", "--db", "a.db", "sql"}, given{db: true, dbs: true}},
		{"", []string{"report", "sql", "--db", "b.db", "--force"}, given{subDB: true, force: true}},
		{"", []string{"report", "-j", "0", "--tag", "a", "sql"}, given{n: true, tags: true}},
		{"7", []string{"report", "sql"}, given{seed: true}},
	} {
		if got := run(tc.env, tc.args...); got != tc.want {
			t.Errorf("%v env %q: given %+v, want %+v", tc.args, tc.env, got, tc.want)
		}
	}
}

// A variable that a flag of another command binds, or none, is not given.
func TestGivenUnbound(t *testing.T) {
	var bound, elsewhere, unbound int
	got := []bool{true, true}
	app := &cli.App{Name: "x", Flags: []cli.Flag{&cli.IntFlag{Name: "n", Destination: &bound}, &cli.IntFlag{Name: "m"}},
		Commands: []*cli.Command{{Name: "a", Flags: []cli.Flag{&cli.IntFlag{Name: "m"}},
			Action: func(c *cli.Context) error {
				got = []bool{Given(c, &elsewhere), Given(c, &unbound)}
				return nil
			}}, {Name: "b", Flags: []cli.Flag{&cli.IntFlag{Name: "m", Destination: &elsewhere}}}}}
	if err := app.Run([]string{"x", "--n", "1", "a", "--m", "1"}); err != nil {
		t.Fatal(err)
	}
	if got[0] || got[1] {
		t.Errorf("given %v, want neither", got)
	}
}

func TestInherited(t *testing.T) {
	var got, parent, own string
	app := &cli.App{Name: "x", Commands: []*cli.Command{{Name: "report", Flags: []cli.Flag{&cli.StringFlag{Name: "format", Value: "html", Destination: &parent}},
		Subcommands: []*cli.Command{{Name: "sql", Flags: []cli.Flag{&cli.StringFlag{Name: "format", Value: "text", Destination: &own}},
			Action: func(c *cli.Context) error { got = Inherited(c, &own, &parent); return nil }}}}}}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "sql"}, "text"},
		{[]string{"report", "sql", "--format", "csv"}, "csv"},
		{[]string{"report", "--format", "json", "sql"}, "json"},
		{[]string{"report", "--format", "json", "sql", "--format", "csv"}, "csv"},
	} {
		if err := app.Run(append([]string{"x"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// IfSet is the variable when the flag was given, even as its zero value
// or by the environment, and nil when not.
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
			Action: func(c *cli.Context) error { got = IfSet(c, &v); return nil }}
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
