// Package examples holds the shipped examples — the WDL specs, the DAS-2
// grids and the files they read, the simulator's experiments (sim/) — built
// into the gmark binary, so that the commands' defaults (--grid
// examples/das2.toml), 'gmark run examples/quickstart.wdl' and 'gmark sim
// run examples/sim/sweep.toml' work from any directory after 'go install',
// and 'gmark examples write DIR' writes them out.
package examples

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gmark/gmark/internal/outfile"
)

//go:embed *.wdl *.toml thesis sim placeholder deadlines
var files embed.FS

// Dir is the directory of the examples in the repository: the paths the
// commands' defaults and the documentation name ("examples/das2.toml")
// start with it.
const Dir = "examples"

// DefaultGrid is the grid of the bundled core when --grid is not given.
const DefaultGrid = Dir + "/das2.toml"

// Names lists the examples by their paths under Dir, slash-separated and
// sorted: "composite.wdl", …, "thesis/fig5_4.wdl", "thesis/smpi1.xin".
func Names() []string {
	var names []string
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	sort.Strings(names)
	return names
}

// ReadFile returns the content of the example name (a path under Dir).
func ReadFile(name string) ([]byte, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("no example %q (the examples: %s)", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Lookup tells whether p names a shipped example the way the repository
// does, relative to its root ("examples/das2.toml",
// "./examples/thesis/fig5_4.wdl"), and returns the example's name.
func Lookup(p string) (string, bool) {
	if filepath.IsAbs(p) {
		return "", false
	}
	rest, ok := strings.CutPrefix(path.Clean(filepath.ToSlash(p)), Dir+"/")
	if !ok {
		return "", false
	}
	if fi, err := fs.Stat(files, rest); err != nil || fi.IsDir() {
		return "", false
	}
	return rest, true
}

// WriteAll writes every example into dir (dir/das2.toml,
// dir/thesis/fig5_4.wdl, …), creating the directories, and returns the
// paths written. A file already there is replaced (atomically).
func WriteAll(dir string, replace bool) ([]string, error) {
	var written []string
	for _, name := range Names() {
		b, err := files.ReadFile(name)
		if err != nil {
			return written, err
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		// A file of the same name that differs may be the user's edit of an
		// example: keep it unless told to replace it.
		if old, err := os.ReadFile(p); err == nil && !replace && !bytes.Equal(old, b) {
			return written, fmt.Errorf("%s exists and differs from the built-in example (an edited copy?); --force replaces it", p)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, err
		}
		if err := outfile.WriteFile(p, b); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// Resolve returns p itself when a file is there, or when p names a shipped
// example the way the repository does but no such file exists (gmark runs
// outside the repository), writes the examples into dir/examples and
// returns the example's path there, with embedded true. Any other p is
// returned as it is, for its reader to report.
func Resolve(p, dir string) (resolved string, embedded bool, err error) {
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		return p, false, nil
	}
	name, ok := Lookup(p)
	if !ok {
		return p, false, nil
	}
	out := filepath.Join(dir, Dir)
	if _, err := WriteAll(out, true); err != nil {
		return p, false, fmt.Errorf("writing the built-in examples for %s: %w", p, err)
	}
	return filepath.Join(out, filepath.FromSlash(name)), true, nil
}

// Cached is Resolve into the user's cache directory (gmark/examples there,
// or the temporary directory's when there is none): a shipped example is
// read from there by a command that writes nothing into the working
// directory for it ('gmark generate', the checks 'gmark run' makes before
// it writes anything).
func Cached(p string) (resolved string, embedded bool, err error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return Resolve(p, filepath.Join(dir, "gmark"))
}
