package gwa

import (
	"bufio"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// GWF has no quoting of its own: a field is whatever lies between
// separators, and a line whose first character is '#' is a comment. A
// string field that would not survive that (a job id starting with '#',
// whitespace inside or at either end, a line break) is written as a
// Go-syntax quoted string with spaces written \x20, so that the field holds
// no whitespace at all and whitespace-splitting readers still count the
// columns right. The reader unquotes a field that starts and ends with '"'
// and is valid Go syntax; anything else is taken literally, as before, so
// foreign traces read as they always did. A value that itself starts with
// '"' is quoted too, so that reading it back never unquotes it by mistake.

// needsQuote tells whether a string field must be quoted to read back as
// itself.
func needsQuote(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '#' || s[0] == '"' {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return true
		}
	}
	// The reader trims Unicode white space around a tab-separated field.
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(first) || unicode.IsSpace(last)
}

// field is a string field as a whitespace-separated format writes it: "-1"
// when missing, quoted when it must be (see above), else as it is.
func field(s string) string {
	if missingString(s) {
		return "-1"
	}
	if !needsQuote(s) {
		return s
	}
	// strconv.Quote escapes every non-printable rune and invalid byte; the
	// ASCII space is the one white-space character it leaves as it is.
	return strings.ReplaceAll(strconv.Quote(s), " ", `\x20`)
}

// unquoteField reads a field written by field: a quoted one is unquoted,
// anything else is returned as it is (ok false).
func unquoteField(tok []byte) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", false
	}
	s, err := strconv.Unquote(string(tok))
	if err != nil {
		return "", false
	}
	return s, true
}

// oneLine is a header line with every line break in it (a bare CR, or a
// GWF-SQLite gmark_header row's LF) made a space: written as a comment line
// it stays one line, which no reader can take for a record, and a key keeps
// its value ("UnixStartTime:\r1132444805" is UnixStartTime's, read or
// written). Readers read header lines the same way.
func oneLine(line string) string {
	if !strings.ContainsAny(line, "\r\n") {
		return line
	}
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, line)
}

// writeComments writes h's header lines (see Header.writerLines) as comment
// lines starting with mark.
func writeComments(w *bufio.Writer, mark string, h *Header) {
	for _, hl := range h.writerLines() {
		w.WriteString(mark)
		if l := oneLine(hl); l != "" {
			w.WriteString(" " + l)
		}
		w.WriteByte('\n')
	}
}
