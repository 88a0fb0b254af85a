// Package readlimit opens the files gmark reads (a WDL spec, a grid or
// targets file, a trace, a workload's workload.jsonl, a SQLite store) and
// reads a file taken whole up to a bound. Only regular files are read: a
// FIFO would block in open(2) itself and a device such as /dev/zero never
// ends, so both are refused, by the file's mode, before anything is read
// (standard input, which a command reads on purpose when given "-", is the
// caller's). A bounded read goes through its bound rather than trusting the
// size a stat reports.
package readlimit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/gmark/gmark/internal/outfile"
)

// ErrTooLarge is returned (errors.Is) for a file of more than the bound's
// bytes.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is returned (errors.Is) for a path that is not a regular
// file: a directory, a FIFO, a device, a socket, a loop of symbolic links.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError says what a refused path is; it comes wrapped in an
// *fs.PathError naming the path ("open in.fifo: a FIFO (named pipe), not a
// regular file"), as the os package's own errors do.
type NotRegularError struct {
	What string // "a FIFO (named pipe)", "a loop of symbolic links", …
}

func (e *NotRegularError) Error() string { return e.What + ", not a regular file" }

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError is File's error for a file beyond its bound, wrapped in an
// *fs.PathError naming the path.
type TooLargeError struct{ Max int }

func (e *TooLargeError) Error() string { return fmt.Sprintf("larger than %d bytes", e.Max) }

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

func notRegular(path, what string) error {
	return &fs.PathError{Op: "open", Path: path, Err: &NotRegularError{What: what}}
}

// Check returns nil when path names a regular file (through symbolic
// links), a *NotRegularError when it names something else, and the stat's
// error (fs.ErrNotExist, …) when it names nothing; errors are
// *fs.PathErrors.
func Check(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, syscall.ELOOP) {
		return notRegular(path, "a loop of symbolic links")
	}
	if err != nil {
		return err
	}
	return checkMode(path, fi.Mode())
}

// CheckIfExists is Check for a file that is made when it does not exist
// (a results store, a server's state): nil for a path that names nothing.
func CheckIfExists(path string) error {
	if err := Check(path); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func checkMode(path string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return notRegular(path, outfile.Kind(m))
}

// Open opens a regular file for reading. It never blocks: the path is
// opened without waiting for a FIFO's writer (O_NONBLOCK), and what it
// opened is checked by its descriptor, so a path swapped after a check
// is refused too.
func Open(path string) (*os.File, error) {
	// Another error (no such file) is left to the open, which says it as
	// the os package does ("open PATH: no such file or directory").
	if err := Check(path); errors.Is(err, ErrNotRegular) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, notRegular(path, "a loop of symbolic links")
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkMode(path, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// File reads the regular file at path if it holds at most max bytes.
func File(path string, max int) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if len(b) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Max: max}}
	}
	return b, nil
}

// IsInput reports whether err is one of this package's refusals of a
// file: not a regular file, or too large. Such an error is the input's,
// never the machine's.
func IsInput(err error) bool {
	return errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)
}

// TooLargef is an error of the text given that is ErrTooLarge
// (errors.Is): for a reader that says in its own words what a file beyond
// its bound is not ("g.toml: larger than 1 MiB; this is not a grid
// description"), keeping the refusal an input's.
func TooLargef(format string, args ...any) error {
	return &tooLarge{msg: fmt.Sprintf(format, args...)}
}

type tooLarge struct{ msg string }

func (e *tooLarge) Error() string        { return e.msg }
func (e *tooLarge) Is(target error) bool { return target == ErrTooLarge }
