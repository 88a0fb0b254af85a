package metaqueue

import (
	"errors"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/srcerr"
)

// positioned tells whether err is reported as file:line: (srcerr), as
// every error of these readers must be.
func positioned(err error) bool {
	var e *srcerr.Error
	var l srcerr.List
	return errors.As(err, &e) || errors.As(err, &l)
}

// FuzzParseCommands: a commands file never panics; it is read or refused
// with a position, and every job it gives is a trimmed, non-empty line.
func FuzzParseCommands(f *testing.F) {
	for _, s := range []string{"", "echo a\n# c\n\n  sleep 1  \r\n", "\x00", "a\xff", strings.Repeat("x", MaxCommand+1)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		jobs, err := ParseCommands("cmds.txt", src)
		if err != nil {
			if !positioned(err) || !strings.HasPrefix(err.Error(), "cmds.txt:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		for _, j := range jobs {
			if j.Command == "" || strings.TrimSpace(j.Command) != j.Command || strings.HasPrefix(j.Command, "#") {
				t.Fatalf("job %q", j.Command)
			}
		}
	})
}

// FuzzParseGroups: a groups file never panics, and what it accepts passes
// the group checks.
func FuzzParseGroups(f *testing.F) {
	for _, s := range []string{
		"[[group]]\nname = \"g\"\n[[group.site]]\nname = \"a\"\nkind = \"zinf\"\n",
		"[[group]]\nname = \"g\"\npolicy = \"dag\"\n[[group.site]]\nname = \"s\"\nkind = \"slurm\"\nwall_time = \"2h\"\ncpus = 4\n",
		"[[group]]\nname = 3\n", "x = 1\n", "", "[[group]]\nname = \"g\"\nbogus = 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		groups, err := ParseGroups("groups.toml", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "groups.toml") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		for _, g := range groups {
			if err := g.check(); err != nil {
				t.Fatalf("accepted a group that fails its check: %v", err)
			}
		}
	})
}

// The readers' errors, table-driven.
func TestParseFilesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		groups          bool
	}{
		{"nul", "ok\nbad\x00\n", "cmds:2: a NUL byte", false},
		{"utf8", "\xff\n", "cmds:1: not UTF-8", false},
		{"long", strings.Repeat("x", MaxCommand+1), "longer than", false},
		{"no group", "", "no [[group]]", true},
		{"unknown key", "[[group]]\nname = \"g\"\nbogus = 1\n", "groups:3: unknown key", true},
		{"bad kind", "[[group]]\nname = \"g\"\n[[group.site]]\nname = \"a\"\nkind = \"pbs\"\n", "not zinf, slurm or koala", true},
		{"twice", "[[group]]\nname = \"g\"\n[[group]]\nname = \"g\"\n", "given twice", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.groups {
				_, err = ParseGroups("groups", []byte(tc.src))
			} else {
				_, err = ParseCommands("cmds", []byte(tc.src))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
	jobs, err := ParseCommands("cmds", []byte("# header\n\necho  a \r\n  sleep 1\n"))
	if err != nil || len(jobs) != 2 || jobs[0].Command != "echo  a" || jobs[1].Command != "sleep 1" {
		t.Fatalf("%+v %v", jobs, err)
	}
}
