package gwa

import (
	"errors"
	"io"
)

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// errEOF is io.EOF, named for readers that end early.
var errEOF = io.EOF
