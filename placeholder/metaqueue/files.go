package metaqueue

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
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

// Split pins jobs to sites in order, as the thesis's static partitioning
// ("user scripts") does: spec "a:17,b:16,c:17" gives the first 17 jobs to
// site a, the next 16 to b, the last 17 to c. The counts must add up to the
// number of jobs.
func Split(jobs []NewJob, spec string) error {
	i := 0
	for _, part := range strings.Split(spec, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), ":")
		count, err := strconv.Atoi(n)
		if !ok || name == "" || err != nil || count < 0 {
			return fmt.Errorf("split %q: give SITE:COUNT,... (e.g. a:17,b:16,c:17)", spec)
		}
		if i+count > len(jobs) {
			return fmt.Errorf("split %q: more than the %d jobs", spec, len(jobs))
		}
		for k := i; k < i+count; k++ {
			jobs[k].Site = name
		}
		i += count
	}
	if i != len(jobs) {
		return fmt.Errorf("split %q: %d jobs split, of %d", spec, i, len(jobs))
	}
	return nil
}
