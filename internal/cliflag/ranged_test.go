package cliflag

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// A ranged flag given outside its range is refused with both bounds and the
// value; inside it, at its bounds, or not given (whatever its default), it
// is not.
func TestCheckRanges(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"x", "run"}, ""},
		{[]string{"x", "run", "--workers", "1", "--backoff", "10m"}, ""},
		{[]string{"x", "run", "--workers", "10000", "--backoff", "1ms"}, ""},
		{[]string{"x", "run", "--workers", "0"}, "--workers must be between 1 and 10000, not 0"},
		{[]string{"x", "run", "--workers", "-3"}, "--workers must be between 1 and 10000, not -3"},
		{[]string{"x", "run", "--workers", "10001"}, "--workers must be between 1 and 10000, not 10001"},
		{[]string{"x", "run", "--backoff", "0s"}, "--backoff must be between 1ms and 10m0s, not 0s"},
		{[]string{"x", "run", "--backoff", "11m"}, "--backoff must be between 1ms and 10m0s, not 11m0s"},
		{[]string{"x", "run", "--backoff", "0s", "--workers", "0"}, "--workers must be between 1 and 10000, not 0"},
	} {
		var got error
		app := &cli.App{Commands: []*cli.Command{{Name: "run", Flags: []cli.Flag{
			&IntRange{IntFlag: cli.IntFlag{Name: "workers", Value: 0, Usage: "w"}, Min: 1, Max: 10_000},
			&DurationRange{DurationFlag: cli.DurationFlag{Name: "backoff", Usage: "b"}, Min: time.Millisecond, Max: 10 * time.Minute},
		}, Action: func(c *cli.Context) error { got = CheckRanges(c); return nil }}}}
		if err := app.Run(tc.args); err != nil {
			t.Fatal(err)
		}
		if msg := errString(got); msg != tc.want {
			t.Errorf("%v: CheckRanges = %q, want %q", tc.args[2:], msg, tc.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// With a Zero, a given 0 stores Zero (from the command line or the
// environment, last given wins), reads as 0 and is in range; not given,
// the default; the help shows the default.
func TestRangeZero(t *testing.T) {
	for _, tc := range []struct {
		env   string
		args  []string
		tries int
		wait  time.Duration
		read  string
	}{
		{"", nil, 4, 2 * time.Minute, "4 2m0s"},
		{"", []string{"--tries", "0", "--for", "0s"}, -1, -1, "0 0s"},
		{"", []string{"--tries", "0", "--tries", "2", "--for", "0"}, 2, -1, "2 0s"},
		{"", []string{"--tries", "3", "--tries", "0", "--for", "1s"}, -1, time.Second, "0 1s"},
		{"0", nil, -1, 2 * time.Minute, "0 2m0s"},
		{"0", []string{"--tries", "5"}, 5, 2 * time.Minute, "5 2m0s"},
	} {
		t.Setenv("CLIFLAG_TEST_TRIES", tc.env)
		if tc.env == "" {
			os.Unsetenv("CLIFLAG_TEST_TRIES")
		}
		var tries int
		var wait time.Duration
		var read string
		var check error
		app := &cli.App{Name: "x", Flags: []cli.Flag{
			&IntRange{IntFlag: cli.IntFlag{Name: "tries", Value: 4, EnvVars: []string{"CLIFLAG_TEST_TRIES"}, Destination: &tries, Usage: "t"}, Min: 0, Max: 9, Zero: -1},
			&DurationRange{DurationFlag: cli.DurationFlag{Name: "for", Value: 2 * time.Minute, Destination: &wait, Usage: "f"}, Min: 0, Max: time.Hour, Zero: -1},
		}, Action: func(c *cli.Context) error {
			read, check = fmt.Sprint(c.Int("tries"), " ", c.Duration("for")), CheckRanges(c)
			return nil
		}}
		if err := app.Run(append([]string{"x"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		if tries != tc.tries || wait != tc.wait || read != tc.read || check != nil {
			t.Errorf("%v env %q: stored %d %v, read %q, check %v; want %d %v, %q", tc.args, tc.env, tries, wait, read, check, tc.tries, tc.wait, tc.read)
		}
	}
	var help bytes.Buffer
	app := &cli.App{Name: "x", Writer: &help, Flags: []cli.Flag{
		&IntRange{IntFlag: cli.IntFlag{Name: "tries", Value: 4, Usage: "t"}, Zero: -1},
		&DurationRange{DurationFlag: cli.DurationFlag{Name: "for", Value: 2 * time.Minute, Usage: "f"}, Zero: -1}}}
	if err := app.Run([]string{"x", "--help"}); err != nil {
		t.Fatal(err)
	}
	if h := help.String(); !strings.Contains(h, "--tries value  t (default: 4)") || !strings.Contains(h, "--for value    f (default: 2m0s)") {
		t.Errorf("help:\n%s", h)
	}
}
