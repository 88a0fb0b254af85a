package targets

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/submitter"
)

// Spec is a target as gmark knows it: its name (--target), one line of
// doc, its section of the targets file, and how it is made and checked.
// Each target declares its Spec in a file of its own in this package
// (local.go, slurm.go, …); New, Check, the targets file's sections and
// keys, Names and the error of an unknown name all come from Targets.
type Spec struct {
	Name string
	Doc  string
	// section is the target's settings in the targets file ([Name]); nil
	// for a target that takes none there.
	section settings
	// make makes the target, with its configuration for the provenance
	// record.
	make func(ctx context.Context, m maker) (submitter.Target, any, error)
	// check is what New checks, without making anything (Check); nil for
	// a target with nothing to check beyond its section.
	check func(m maker) error
}

// Targets is the table of the targets, in the order the command line
// lists them. A new target appends its Spec from its own file:
//
//	func init() { Targets = append(Targets, Spec{Name: "pbs", …}) }
var Targets = []Spec{dryrunTarget, localTarget, slurmTarget, condorTarget, sgeTarget, koalaTarget, arcTarget, gramTarget}

// Names are the targets New makes, in the table's order.
func Names() []string {
	out := make([]string, len(Targets))
	for i, s := range Targets {
		out[i] = s.Name
	}
	return out
}

// List is the targets' names for a usage string: "dryrun, local, …".
func List() string { return strings.Join(Names(), ", ") }

// Lookup is the target name; an unknown name is an *InputError naming
// the known ones and the nearest.
func Lookup(name string) (Spec, error) {
	if s, ok := byName()[name]; ok {
		return s, nil
	}
	msg := "unknown target %q (known: %s)"
	if near := names.Closest(name, Names()); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return Spec{}, inputErrorf(msg, name, List())
}

// byName indexes Targets once every target's file has appended its Spec;
// two targets of one name are a bug: it panics.
var byName = sync.OnceValue(func() map[string]Spec {
	return names.Index(Targets, func(s Spec) []string { return []string{s.Name} }, false)
})

// sectionSpec is the target whose section of the targets file is name.
func sectionSpec(name string) (Spec, bool) {
	s, ok := byName()[name]
	return s, ok && s.section != nil
}

// sections are the names of the targets file's sections.
func sections() []string {
	var out []string
	for _, s := range Targets {
		if s.section != nil {
			out = append(out, s.Name)
		}
	}
	return out
}

// maker is what a target is made from: the options, the targets file
// (empty without one) and a resumed run's recorded configuration.
type maker struct {
	o        Options
	file     *File
	recorded []byte
}

// fromRecord reads a resumed run's recorded target configuration into
// a target's, unless its run directory was given anew; false when it did
// not.
func (m maker) fromRecord(v any) bool {
	return len(m.recorded) > 0 && !m.o.NewRunDir && json.Unmarshal(m.recorded, v) == nil
}

// sectionOr is the target's section of the targets file, or the zero
// settings when the file has none.
func sectionOr[T any](m maker, name string) T {
	var v T
	if s := Section[T](m.file, name); s != nil {
		v = *s
	}
	return v
}
