package wdl

import (
	"unicode/utf8"

	"github.com/gmark/gmark/internal/srcerr"
)

// Pos is a place in a WDL, extension or fit file: gmark's one position
// (srcerr), lines and columns from 1, columns counting characters.
type Pos = srcerr.Pos

// Error is a problem found in a WDL file, at a position.
type Error = srcerr.Error

// Errorf makes an Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error { return srcerr.Errorf(pos, format, args...) }

// ErrorList is every problem found in one pass, in file order.
type ErrorList = srcerr.List

// maxErrors bounds the list so a binary file fed as WDL does not flood the terminal.
const maxErrors = 20

// lineRef is one source line, to turn byte offsets into positions.
type lineRef struct {
	file string
	num  int
	text string
	// lastOff is the last offset turned into a column, lastCol its column
	// (0: none yet): a line's offsets are mostly asked for in order, and
	// counting on from there keeps a long line of many pairs linear rather
	// than quadratic. Copies of a lineRef each keep their own.
	lastOff, lastCol int
}

func newLineRef(file string, num int, text string) lineRef {
	return lineRef{file: file, num: num, text: text}
}

// at is the position of the byte at offset off of the line.
func (l *lineRef) at(off int) Pos {
	if off > len(l.text) {
		off = len(l.text)
	}
	if off < 0 {
		off = 0
	}
	from, col := 0, 1
	if l.lastCol > 0 && l.lastOff <= off {
		from, col = l.lastOff, l.lastCol
	}
	col += utf8.RuneCountInString(l.text[from:off])
	l.lastOff, l.lastCol = off, col
	return Pos{File: l.file, Line: l.num, Col: col}
}
