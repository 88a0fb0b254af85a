package apps

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Every flag of every application is of a kind whose values the parser
// checks, and any flag that names a file or a directory (its help says FILE,
// DIR or PATH) is a path flag, so that Paths returns it and whoever confines
// a job screens it. A free-text flag would escape the screening: there is
// no such kind.
func TestEveryFileFlagIsAPathFlag(t *testing.T) {
	seen := 0
	for _, name := range Names() {
		fs := newFlagSet(name)
		registry[name].define(fs)
		var c common
		defineCommon(fs, &c)
		for _, d := range fs.defs {
			namesFile := d.arg == "FILE" || d.arg == "DIR" || d.arg == "PATH" ||
				strings.Contains(strings.ToLower(d.usage), "file") && d.kind != kindInt && d.kind != kindSize
			if namesFile && d.kind != kindPath {
				t.Errorf("%s --%s (%s) names a file but is not a path flag", name, d.name, d.usage)
			}
			if d.kind < kindInt || d.kind > kindPath {
				t.Errorf("%s --%s: kind %d", name, d.name, d.kind)
			}
			if d.kind == kindPath {
				seen++
				if d.value == nil {
					t.Errorf("%s --%s: a path flag without its value", name, d.name)
				}
			}
		}
	}
	if seen < len(Names()) { // --workdir at least, in every application
		t.Errorf("%d path flags over %d applications", seen, len(Names()))
	}
}

// Paths reads a command line as the application does: the last of a
// repeated flag, "=" and one-dash forms, the default of a flag not given;
// what the application would refuse is an error.
func TestPaths(t *testing.T) {
	cases := []struct {
		app  string
		args []string
		want []PathArg // nil with err
		err  string
	}{
		{"sser", nil, []PathArg{{"workdir", "DIR", "."}}, ""},
		{"sserio", []string{"--workdir", "a", "-workdir=b"}, []PathArg{{"workdir", "DIR", "b"}}, ""},
		{"placeholder", []string{"--config", "/x/agent.json", "--submitted", "3"},
			[]PathArg{{"config", "FILE", "/x/agent.json"}, {"workdir", "DIR", "."}}, ""},
		{"placeholder", nil, nil, "--config FILE is required"},
		{"placeholder", []string{"--config="}, nil, "must not be empty"},
		{"smpi1", []string{"--workdir", "/etc"}, []PathArg{{"workdir", "DIR", "/etc"}}, ""}, // an alias; screening is the caller's
		{"exec", []string{"--executable", "/bin/sh"}, nil, "not a gmark application"},
		{"sser", []string{"--config", "/etc/passwd"}, nil, "unknown flag --config"},
		{"sser", []string{"--help"}, nil, "no work"},
		{"hello", []string{"--workdir"}, nil, "needs a value"},
	}
	for _, tc := range cases {
		got, err := Paths(tc.app, tc.args)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: %v %v, want an error with %q", tc.app, tc.args, got, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s %q: %v", tc.app, tc.args, err)
		case !slices.Equal(got, tc.want):
			t.Errorf("%s %q: %v, want %v", tc.app, tc.args, got, tc.want)
		}
	}
	if _, err := Paths("exec", nil); !errors.Is(err, ErrUnknownApp) {
		t.Errorf("exec: %v, want ErrUnknownApp", err)
	}
}
