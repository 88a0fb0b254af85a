// Package targets makes the targets of `gmark submit` and `gmark run` (New)
// from the targets file, the command line's settings and, on --resume, the
// configuration the run recorded.
//
// Each target is a Spec in the table Targets, declared in its own file
// here: its name, its doc, its section of the targets file (its own
// package's configuration struct and the check of its values) and how it
// is made. The targets file (--targets) has one TOML section per target
// that takes settings ([local], [slurm], [condor], [sge], [arc], [gram];
// docs/submit.md). A typo must not pass silently: an unknown section or
// key is an error naming its file and line, and every number is checked
// against its documented range before any target is made.
package targets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"
)

// File is a targets file: each target's section, decoded into the
// target's own settings (Section).
type File struct {
	sections map[string]any // by target: a *T of its Spec's settings
}

// Section is target's section of f, decoded into its settings T (the
// target's own configuration struct: Section[slurm.Config](f, "slurm"));
// nil when f has none (or f is nil).
func Section[T any](f *File, target string) *T {
	if f == nil {
		return nil
	}
	v, _ := f.sections[target].(*T)
	return v
}

var typeError = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// Load reads and checks the targets file at path.
func Load(path string) (*File, error) {
	b, err := readlimit.File(path, MaxFileSize)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return nil, readlimit.TooLargef("%s: larger than 1 MiB: not a targets file", path)
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse reads and checks a targets file; name is its path, for errors.
// Each section is decoded into its target's settings and checked by them
// (Spec.section).
func Parse(name string, src []byte) (*File, error) {
	if len(src) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than 1 MiB: not a targets file", name)
	}
	var raw map[string]toml.Primitive
	md, err := toml.Decode(string(src), &raw)
	if err != nil {
		return nil, decodeError(name, err)
	}
	f := &File{sections: map[string]any{}}
	for _, k := range md.Keys() { // in the file's order: the first error is the first in the file
		spec, ok := sectionSpec(k[0])
		if _, done := f.sections[k[0]]; done || !ok {
			continue // an unknown section is reported below, in the file's order among the others
		}
		v, err := spec.section.decode(md, raw[k[0]])
		if err != nil {
			return nil, decodeError(name, err)
		}
		f.sections[k[0]] = v
	}
	if k := unknownKey(md); k != nil {
		what := "key"
		if isTable(md, k) {
			what = "section"
		}
		return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: keyLine(src, k)}, "unknown %s %s (known: %s)", what, k, known(k))
	}
	c := checker{name: name, src: src, md: md}
	for _, s := range Targets {
		if v, ok := f.sections[s.Name]; ok && s.section != nil {
			c.sec = s.Name
			s.section.check(&c, v)
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	return f, nil
}

// decodeError is the decoder's error at its line of the targets file.
func decodeError(name string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return srcerr.Errorf(srcerr.Pos{File: name, Line: pe.Position.Line}, "%s", pe.Message)
	}
	// A value of the wrong type: "toml: line N (last key K): ...".
	if m := typeError.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "%s: %s", m[2], m[3])
	}
	return fmt.Errorf("%s: %v", name, err)
}

// unknownKey is the first key of the file (up to its unknown element) that
// no section takes: a section of no target, a key its target's settings
// do not have, or, when there is none of those, the first not spelled
// exactly as a known key (the decoder matches keys regardless of case,
// "[local] Processors", but the range checks look keys up as written: a
// key must be spelled as documented, or it is unknown like any other).
// nil when there is none.
func unknownKey(md toml.MetaData) toml.Key {
	undecoded := map[string]bool{}
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
	}
	for _, k := range md.Keys() {
		if _, ok := sectionSpec(k[0]); !ok {
			return k[:1]
		}
		if undecoded[k.String()] {
			return k
		}
	}
	for _, k := range md.Keys() {
		for i := range k {
			if !slices.Contains(knownNames(k[:i+1]), k[i]) {
				return k[:i+1]
			}
		}
	}
	return nil
}

// isTable tells whether k is a table: a [header], an inline table, or
// one a dotted key ("x.y = 1") makes.
func isTable(md toml.MetaData, k toml.Key) bool {
	if t := md.Type(k...); t == "Hash" || t == "ArrayHash" {
		return true
	}
	return slices.ContainsFunc(md.Keys(), func(l toml.Key) bool { return len(l) > len(k) && slices.Equal(l[:len(k)], k) })
}

// known lists the keys the section of k takes, for the error.
func known(k toml.Key) string {
	if len(k) == 1 {
		return "sections " + strings.Join(knownNames(k), ", ")
	}
	return strings.Join(knownNames(k), ", ")
}

// knownNames are the keys that may stand where the last element of k is:
// the sections, or the keys of the table k is in, by its target's
// settings.
func knownNames(k toml.Key) []string {
	spec, ok := sectionSpec(k[0])
	if len(k) == 1 || !ok {
		return sections()
	}
	t := spec.section.typ()
	for _, e := range k[1 : len(k)-1] {
		sub, ok := tableOf(t, e)
		if !ok {
			break
		}
		t = sub
	}
	return keysOf(t)
}

// keyLine finds the line of key in a TOML source: the line of its
// "key = " inside its table, or of its table's header. 0 when not found
// (a key inside an inline table).
func keyLine(src []byte, key []string) int {
	want := strings.Join(key, ".")
	table := ""
	first := 0
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64<<10), MaxFileSize+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			h := strings.Trim(line, "[] \t")
			if i := strings.Index(h, "]"); i >= 0 {
				h = h[:i]
			}
			table = normKey(h)
			if table == want {
				return n
			}
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		full := normKey(k)
		if table != "" {
			full = table + "." + full
		}
		if full == want {
			return n
		}
		if first == 0 && (strings.HasPrefix(want, full+".") || strings.HasPrefix(full, want+".")) {
			first = n // an inline table holding the key, or a dotted key inside the table
		}
	}
	return first
}

// normKey turns a TOML key as written (spaces, quotes) into dotted form.
func normKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
