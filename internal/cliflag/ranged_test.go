package cliflag

import (
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
