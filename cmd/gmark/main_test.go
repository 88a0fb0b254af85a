package main

import (
	"strings"
	"testing"
)

// Exit codes as the README documents them: 0 ok, 1 failure, 2 bad usage or
// bad input. urfave/cli's own codes (3 for an unknown help topic or
// subcommand) and a flag error's 1 are mapped to 2.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		msg  string // in stderr
	}{
		{[]string{"--help"}, 0, ""},
		{[]string{}, 2, "gmark needs a command"},
		{[]string{"koala"}, 2, "gmark koala needs a command"},
		{[]string{"genrate", "x.wdl"}, 2, "did you mean 'generate'?"},
		{[]string{"generate", "--seeed", "3", "x.wdl"}, 2, "did you mean --seed?"},
		{[]string{"report", "-f", "bogus"}, 2, "-f is deprecated"},
		{[]string{"bogus"}, 2, `"bogus" is not a command of gmark`},
		{[]string{"help", "bogus"}, 2, "No help topic"},
		{[]string{"trace", "bogus"}, 2, `"bogus" is not a command of gmark trace`},
		{[]string{"koala", "bogus"}, 2, `"bogus" is not a command of gmark koala`},
		{[]string{"generate", "--bogus", "x.wdl"}, 2, "flag provided but not defined"},
		{[]string{"generate", "--seed", "notanumber", "x.wdl"}, 2, "invalid value"},
		{[]string{"report", "sql", "--nope"}, 2, "flag provided but not defined"},
		{[]string{"generate", "does-not-exist.wdl"}, 2, "does-not-exist.wdl"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := run(t, dir, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if strings.Contains(stderr, "goroutine ") {
				t.Errorf("a stack trace: %s", stderr)
			}
		})
	}
}
