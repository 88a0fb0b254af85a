// Package testbin builds the gmark binary for tests that run the
// applications as real processes.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Build compiles github.com/gmark/gmark/cmd/gmark into a new temporary
// directory and returns the binary's path and a function that removes it.
// Call it once, from TestMain.
func Build() (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "gmark-apps-test-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "gmark")
	goTool, err := exec.LookPath("go")
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building gmark for the tests needs the go command: %w", err)
	}
	cmd := exec.Command(goTool, "build", "-o", path, "github.com/gmark/gmark/cmd/gmark")
	if out, err := cmd.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("go build github.com/gmark/gmark/cmd/gmark: %v\n%s", err, out)
	}
	return path, cleanup, nil
}

// Main is a test package's TestMain: it builds the binary into *path, runs
// the tests and removes the binary; a failed build fails the package.
func Main(m *testing.M, path *string) {
	p, cleanup, err := Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*path = p
	code := m.Run()
	cleanup()
	os.Exit(code)
}
