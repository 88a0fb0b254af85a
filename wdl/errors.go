package wdl

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a place in a WDL or extension file. Line and Col are 1-based; Col
// counts characters, as editors do.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a problem found in a WDL file, at a position.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errorf makes an Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// ErrorList is every problem found in one pass, in file order. Reporting
// them all at once saves the user an edit-run cycle per mistake.
type ErrorList []*Error

// maxErrors bounds the list so a binary file fed as WDL does not flood the terminal.
const maxErrors = 20

func (l ErrorList) Error() string {
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
func (l ErrorList) Sort() {
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

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

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
