package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/urfave/cli/v2"
)

// The submitter's settings are recorded as the flags gave them: not given,
// their defaults; --submit-retries 0 and --retry-for 0 as none (the
// submitter's -1, its 0 being the default); --tail 0s as a tail.
func TestSubmitRecordsSettingsAsGiven(t *testing.T) {
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t1\thello\tsingle\t1\t*:1\tC(1s)\n")
	type settings struct {
		Workers       int   `json:"workers"`
		Retries       int   `json:"retries"`
		SubmitRetries int   `json:"submit_retries"`
		BackoffNS     int64 `json:"backoff_ns"`
		RetryForNS    int64 `json:"retry_for_ns"`
		TailNS        int64 `json:"tail_ns"`
		HasTail       bool  `json:"has_tail"`
	}
	for i, tc := range []struct {
		args []string
		want settings
	}{
		{nil, settings{Workers: 5, SubmitRetries: 4, BackoffNS: 5e8, RetryForNS: 120e9}},
		{[]string{"--submit-retries", "0", "--retry-for", "0"}, settings{Workers: 5, SubmitRetries: -1, BackoffNS: 5e8, RetryForNS: -1}},
		{[]string{"--submit-retries", "0", "--submit-retries", "2", "--retry-for", "0s", "--retry-for", "3s"}, settings{Workers: 5, SubmitRetries: 2, BackoffNS: 5e8, RetryForNS: 3e9}},
		{[]string{"--workers", "2", "--retries", "3", "--backoff", "1s", "--tail", "0s"}, settings{Workers: 2, Retries: 3, SubmitRetries: 4, BackoffNS: 1e9, RetryForNS: 120e9, HasTail: true}},
		{[]string{"--tail", "90s"}, settings{Workers: 5, SubmitRetries: 4, BackoffNS: 5e8, RetryForNS: 120e9, TailNS: 90e9, HasTail: true}},
	} {
		db := filepath.Join(dir, "r.db")
		args := append([]string{"submit", wl, "--target", "dryrun", "--db", db, "-q", "--run-id", "r" + string(rune('a'+i))}, tc.args...)
		if _, stderr, code := run(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		st, err := store.OpenReadOnly(db)
		if err != nil {
			t.Fatal(err)
		}
		r, err := st.Run("r" + string(rune('a'+i)))
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		var got settings
		if err := json.NewDecoder(strings.NewReader(r.Settings)).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%v: recorded %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

// The target flags mark what the command line gave, a value equal to the
// default included (a resumed run keeps its recorded grid unless --grid is
// given), and nothing else.
func TestTargetFlagsMarkGiven(t *testing.T) {
	t.Setenv("GMARK_KOALA_TOKEN", "")
	os.Unsetenv("GMARK_KOALA_TOKEN")
	type marks struct {
		endpoint, grid, tokenFile, policy, priority, runner, file bool
		gridValue, token                                          string
	}
	const das2 = "examples/das2.toml"
	for _, tc := range []struct {
		env  string
		args []string
		want marks
	}{
		{"", nil, marks{gridValue: das2}},
		{"", []string{"--grid", das2}, marks{grid: true, gridValue: das2}},
		{"", []string{"--grid", "g.toml", "--policy", "WF", "--targets", "t.toml"}, marks{grid: true, policy: true, file: true, gridValue: "g.toml"}},
		{"", []string{"--endpoint", "http://h", "--token-file", "f", "--priority", "high", "--runner", "krunner"},
			marks{endpoint: true, tokenFile: true, priority: true, runner: true, gridValue: das2}},
		{"s3cret", []string{"--policy", ""}, marks{policy: true, gridValue: das2, token: "s3cret"}},
	} {
		if tc.env != "" {
			t.Setenv("GMARK_KOALA_TOKEN", tc.env)
		}
		var o targetOptions
		app := &cli.App{Name: "x", Flags: append(koalaTargetFlags(&o), &cli.StringFlag{Name: "targets", Destination: &o.File}),
			Action: func(c *cli.Context) error { o.given(c); return nil }}
		if err := app.Run(append([]string{"x"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		os.Unsetenv("GMARK_KOALA_TOKEN")
		k := o.Koala
		got := marks{k.Endpoint.Set, k.Grid.Set, k.TokenFile.Set, k.Policy.Set, k.Priority.Set, k.Runner.Set, o.fileSet, k.Grid.Value, k.Token}
		if got != tc.want {
			t.Errorf("%v env %q: %+v, want %+v", tc.args, tc.env, got, tc.want)
		}
	}
}
