// Package readlimit reads a file that gmark takes whole (a WDL spec, a grid
// or targets file, a manifest) up to a bound. It reads through the bound
// rather than trusting the size a stat reports, so a device or a FIFO
// (/dev/zero given as a grid) is refused as too large instead of filling the
// memory.
package readlimit

import (
	"errors"
	"io"
	"os"
)

// ErrTooLarge is returned for a file of more than the bound's bytes.
var ErrTooLarge = errors.New("file too large")

// File reads the file at path if it holds at most max bytes.
func File(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, ErrTooLarge
	}
	return b, nil
}
