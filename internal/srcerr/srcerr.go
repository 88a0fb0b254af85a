// Package srcerr is the one positioned error of gmark's parsers: a problem
// at a file, a line and a column, written "file:line:col: what is wrong".
// Every reader of outside files reports through it (the WDL and its
// extension and fit files, JDFs, traces, grid and targets TOML,
// workload.jsonl), so positions mean the same everywhere: lines from 1,
// columns from 1 counting characters (as editors do), not bytes.
package srcerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a place in a file. Line and Col are 1-based; Col counts
// characters. A Col of 0 means the line as a whole, a Line of 0 the file.
type Pos struct {
	File string
	Line int
	Col  int
}

// String is "file:line:col", "file:line" without a column, or "file".
func (p Pos) String() string {
	switch {
	case p.Line <= 0:
		return p.File
	case p.Col <= 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a problem at a position.
type Error struct {
	Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errorf makes an Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// At is the position of byte offset off of line (its text, without the
// newline): the column counts the characters before it.
func At(file string, line int, text string, off int) Pos {
	off = min(max(off, 0), len(text))
	return Pos{File: file, Line: line, Col: 1 + utf8.RuneCountInString(text[:off])}
}

// List is every problem found in one pass. Reporting them all at once
// saves the user an edit-run cycle per mistake.
type List []*Error

func (l List) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Sort orders the list by file, line and column.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns the list, sorted, as an error, or nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Offset is the position of byte offset off of src, a whole file: its
// line, and its column in characters.
func Offset(file string, src []byte, off int64) Pos {
	off = min(max(off, 0), int64(len(src)))
	before := src[:off]
	line := 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	return Pos{File: file, Line: line, Col: 1 + utf8.RuneCount(before[start:])}
}

// JSON positions an error of encoding/json's decoding of src (a file read
// whole): a syntax error or a value of the wrong type gets the line and
// column of the offset the decoder gives ("manifest.json:3:14: invalid
// character …"); another error gets the file alone.
func JSON(file string, src []byte, err error) *Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// The offset is just past the byte that broke the syntax.
		return &Error{Pos: Offset(file, src, syn.Offset-1), Msg: syn.Error()}
	case errors.As(err, &typ):
		// Past the value of the wrong type: the position is its end.
		return &Error{Pos: Offset(file, src, typ.Offset), Msg: typ.Error()}
	}
	return &Error{Pos: Pos{File: file}, Msg: err.Error()}
}
