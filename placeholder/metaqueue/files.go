package metaqueue

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/internal/srcerr"
)

// MaxGroupsFile bounds a groups file.
const MaxGroupsFile = 1 << 20

// groupsFile is a groups file:
//
//	[[group]]
//	name = "g1"
//	policy = "fcfs"
//	[[group.site]]
//	name = "alpha"
//	kind = "slurm"
//	slurm_conf = "/path/slurm.conf"
type groupsFile struct {
	Group []GroupSpec `toml:"group"`
}

// ParseGroups reads a groups file (TOML); name is its path, for errors.
func ParseGroups(name string, src []byte) ([]GroupSpec, error) {
	if len(src) > MaxGroupsFile {
		return nil, fmt.Errorf("%s: larger than 1 MiB: not a groups file", name)
	}
	var f groupsFile
	md, err := toml.Decode(string(src), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: pe.Position.Line}, "%s", pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: keyLine(src, und[0][len(und[0])-1])}, "unknown key %s", und[0])
	}
	if len(f.Group) == 0 {
		return nil, srcerr.Errorf(srcerr.Pos{File: name}, "no [[group]]")
	}
	seen := map[string]bool{}
	for i := range f.Group {
		g := &f.Group[i]
		if err := g.check(); err != nil {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: keyLine(src, g.Name)}, "%v", err)
		}
		if seen[g.Name] {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: keyLine(src, g.Name)}, "group %s given twice", g.Name)
		}
		seen[g.Name] = true
	}
	return f.Group, nil
}

// keyLine is the first line that mentions s (0: none), to place an error.
func keyLine(src []byte, s string) int {
	if s == "" {
		return 0
	}
	for i, line := range bytes.Split(src, []byte("\n")) {
		if bytes.Contains(line, []byte(s)) {
			return i + 1
		}
	}
	return 0
}

// ParseCommands reads a commands file: one command line per line (the
// thesis's "Add these command lines to the database (one per line)");
// blank lines and lines starting with '#' are skipped.
func ParseCommands(name string, src []byte) ([]NewJob, error) {
	var jobs []NewJob
	var errs srcerr.List
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), MaxCommand+2)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimSpace(text)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			continue
		case len(trimmed) > MaxCommand:
			errs = append(errs, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "a command line longer than %d bytes", MaxCommand))
		case !utf8.ValidString(text):
			errs = append(errs, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "not UTF-8 text"))
		case strings.ContainsRune(text, 0):
			errs = append(errs, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "a NUL byte in a command line"))
		default:
			jobs = append(jobs, NewJob{Command: trimmed})
		}
		if len(errs) >= 20 {
			break
		}
		if len(jobs) > MaxJobsAdded {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "more than %d command lines", MaxJobsAdded)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: line + 1}, "a line longer than %d bytes", MaxCommand)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return jobs, nil
}
