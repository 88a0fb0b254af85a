package apps

import (
	"errors"
	"fmt"
)

// PathArg is a flag of an application's command line that names a file or
// a directory the application opens: --workdir (every application's) and
// placeholder's --config.
type PathArg struct {
	Flag  string // "workdir"
	Kind  string // what the flag names, as its help says: FILE or DIR
	Value string // as given, or the default when the flag was not given
}

// Paths reads the command line of `gmark app NAME ARGS...` (args: the flags,
// as workload.App.Args writes them) as the application would and returns
// every path it would open by its flags, in the order the flags are
// defined, defaults included ("." for --workdir). A name
// that is not a gmark application gives an error wrapping ErrUnknownApp;
// flags the application would refuse give its *UsageError.
func Paths(name string, args []string) ([]PathArg, error) {
	a := registry[name]
	if a == nil {
		return nil, fmt.Errorf("%q: %w (the applications are %v)", name, ErrUnknownApp, Names())
	}
	fs := newFlagSet(a.name)
	a.define(fs)
	var c common
	defineCommon(fs, &c)
	if err := fs.parse(args); err != nil {
		if errors.Is(err, errHelp) {
			return nil, &UsageError{App: a.name, Msg: "--help prints help: no work"}
		}
		return nil, err
	}
	var out []PathArg
	for _, d := range fs.defs {
		if d.kind != kindPath {
			continue
		}
		out = append(out, PathArg{Flag: d.name, Kind: d.arg, Value: d.value()})
	}
	return out, nil
}
