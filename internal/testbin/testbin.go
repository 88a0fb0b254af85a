// Package testbin builds the gmark binary for tests that run the
// applications as real processes.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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

// Lazy builds the binary the first time a test asks for it, so a run of
// tests that never start it does not pay for the build. The test
// package's TestMain calls Remove after m.Run, so no binary is left in the
// temporary directory.
type Lazy struct {
	once    sync.Once
	path    string
	cleanup func()
	err     error
}

// Path returns the binary's path, building it on first use; a failed
// build fails the test.
func (l *Lazy) Path(t testing.TB) string {
	t.Helper()
	l.once.Do(func() { l.path, l.cleanup, l.err = Build() })
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.path
}

// Remove deletes the binary if it was built.
func (l *Lazy) Remove() {
	if l.cleanup != nil {
		l.cleanup()
	}
}

// MainLazy is a test package's TestMain for a Lazy binary: it runs the
// tests, then removes the binary.
func MainLazy(m *testing.M, l *Lazy) {
	code := m.Run()
	l.Remove()
	os.Exit(code)
}
