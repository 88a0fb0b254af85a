package targets

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/internal/srcerr"
)

// The documented ranges (docs/submit.md, "The targets file").
const (
	MaxFileSize   = 1 << 20 // a targets file is a few lines
	MaxProcessors = 1_000_000
	MaxClusters   = 1_000
	MaxArgs       = 100 // sbatch_args, submit_args, env
	MaxString     = 4096
)

var (
	pollRange        = [2]time.Duration{100 * time.Millisecond, time.Hour}
	unreachableRange = [2]time.Duration{time.Second, 7 * 24 * time.Hour}
	timeoutRange     = [2]time.Duration{time.Second, time.Hour}
	claimRetryRange  = [2]time.Duration{time.Second, 24 * time.Hour}
)

// settings is a target's section of the targets file: a struct of the
// target's own package (its fields' toml tags are the section's keys, a
// field that is a list of structs a list of tables, as [[slurm.clusters]];
// a key left out keeps its zero value, which the target's constructor
// takes for its default), and the check of every value the file gives,
// run before any target is made. Made by sectionOf.
type settings interface {
	decode(md toml.MetaData, p toml.Primitive) (any, error)
	check(c *checker, v any)
	typ() reflect.Type
}

// sectionOf is the section whose settings are a T, checked by check: a
// problem is reported with c.fail (or the range helpers), naming the key,
// which puts it at the key's line.
type sectionOf[T any] func(c *checker, v *T)

func (s sectionOf[T]) decode(md toml.MetaData, p toml.Primitive) (any, error) {
	v := new(T)
	return v, md.PrimitiveDecode(p, v)
}

func (s sectionOf[T]) check(c *checker, v any) { s(c, v.(*T)) }

func (sectionOf[T]) typ() reflect.Type { return reflect.TypeFor[T]() }

// keysOf are the keys a struct of type t takes, in field order.
func keysOf(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if name := tomlKey(t.Field(i)); name != "" {
			keys = append(keys, name)
		}
	}
	return keys
}

func tomlKey(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// tableOf is the struct type of the table at key (of a struct of type t),
// through lists and pointers; false when key holds no table.
func tableOf(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		if tomlKey(t.Field(i)) != key {
			continue
		}
		ft := t.Field(i).Type
		for ft.Kind() == reflect.Slice || ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		return ft, ft.Kind() == reflect.Struct
	}
	return nil, false
}

// checker records the first error of a section's check, with the line of
// the key it is about.
type checker struct {
	name string // the targets file, for errors
	src  []byte
	md   toml.MetaData
	sec  string // the section being checked
	err  error
}

// fail reports msg about key (inside the section), at its line.
func (c *checker) fail(msg string, key ...string) {
	if c.err == nil {
		key = append([]string{c.sec}, key...)
		c.err = srcerr.Errorf(srcerr.Pos{File: c.name, Line: keyLine(c.src, key)}, "%s: %s", strings.Join(key, "."), msg)
	}
}

// count checks an integer that was given against [lo, hi].
func (c *checker) count(v, lo, hi int, key ...string) {
	if c.md.IsDefined(append([]string{c.sec}, key...)...) && (v < lo || v > hi) {
		c.fail(fmt.Sprintf("%d is out of range (%d to %d)", v, lo, hi), key...)
	}
}

// duration checks a duration that was given against r.
func (c *checker) duration(v time.Duration, r [2]time.Duration, key ...string) {
	if c.md.IsDefined(append([]string{c.sec}, key...)...) && (v < r[0] || v > r[1]) {
		c.fail(fmt.Sprintf("%s is out of range (%s to %s; a bare number is nanoseconds)", v, r[0], r[1]), key...)
	}
}

func (c *checker) str(v string, key ...string) {
	if len(v) > MaxString || strings.ContainsRune(v, 0) {
		c.fail(fmt.Sprintf("longer than %d bytes or holds a NUL", MaxString), key...)
	}
}

func (c *checker) list(v []string, key ...string) {
	if len(v) > MaxArgs {
		c.fail(fmt.Sprintf("%d items; at most %d", len(v), MaxArgs), key...)
	}
	for _, s := range v {
		c.str(s, key...)
	}
}

// ceName checks the name of a CE (its key: ce.name).
func (c *checker) ceName(name string, seen map[string]bool) {
	switch {
	case name == "":
		c.fail("a CE has no name", "ce")
	case !clusterName(name):
		c.fail(fmt.Sprintf("CE name %q: use letters, digits, '-' and '_'", name), "ce", "name")
	case seen[name]:
		c.fail(fmt.Sprintf("CE %s is named twice", name), "ce", "name")
	}
	seen[name] = true
}

func clusterName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b == '-' || b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z') {
			return false
		}
	}
	return true
}
