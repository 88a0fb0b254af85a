package main

import (
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"
)

// Each app makes its own commands of makers: no flag of one app binds to a
// variable a flag of another app binds to, so that runs in one process (the
// tests, t.Parallel) never share values, and every command with bound flags
// is made so.
func TestMakersBindPerApp(t *testing.T) {
	first, second := destinations(newApp().Commands, "gmark"), destinations(newApp().Commands, "gmark")
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("%d and %d bound flags in two apps", len(first), len(second))
	}
	for p, name := range first {
		if other, ok := second[p]; ok {
			t.Errorf("%s binds to the variable that %s of another app binds to", name, other)
		}
	}
}

// destinations are the variables the flags of cmds bind to (Destination),
// each with the flag's command path and name.
func destinations(cmds []*cli.Command, path string) map[uintptr]string {
	out := map[uintptr]string{}
	for _, c := range cmds {
		for _, f := range c.Flags {
			v := reflect.ValueOf(f)
			if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
				continue
			}
			if d := v.Elem().FieldByName("Destination"); d.IsValid() && !d.IsNil() {
				out[d.Pointer()] = path + " " + c.Name + " --" + f.Names()[0]
			}
		}
		for p, n := range destinations(c.Subcommands, path+" "+c.Name) {
			out[p] = n
		}
	}
	return out
}
