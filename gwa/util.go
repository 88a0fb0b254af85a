package gwa

import (
	"errors"
	"io"
)

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// errEOF is io.EOF, named for readers that end early.
var errEOF = io.EOF

// ForEach calls fn with every record of r, in order, until the end of the
// trace, a read error or an error of fn, which it returns. n is the count
// of records given to fn.
func ForEach(r Reader, fn func(*Record) error) (n int64, err error) {
	for {
		rec, err := r.Next()
		if isEOF(err) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
		if err := fn(&rec); err != nil {
			return n, err
		}
	}
}
