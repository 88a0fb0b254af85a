package wfformat

import (
	"io"
	"unicode/utf8"
)

// posReader passes the input to the JSON decoder and keeps the bytes the
// decoder has read but not yet consumed, so that the line and column of an
// offset the decoder reports can be told: positions are counted up to the
// last offset asked for, and the bytes before it dropped. It holds about
// the decoder's own buffer.
type posReader struct {
	r     io.Reader
	buf   []byte // input from offset base on
	base  int64
	line  int // of base, from 1
	col   int // of base, from 1, in characters
	total int64
	limit int64 // the most bytes read; past it Read fails
}

func newPosReader(r io.Reader, limit int64) *posReader {
	return &posReader{r: r, line: 1, col: 1, limit: limit}
}

// errTooLarge is the input past its limit.
type errTooLarge struct{ limit int64 }

func (e errTooLarge) Error() string { return "" }

func (p *posReader) Read(b []byte) (int, error) {
	if p.total >= p.limit {
		return 0, errTooLarge{p.limit}
	}
	if int64(len(b)) > p.limit-p.total {
		b = b[:p.limit-p.total]
	}
	n, err := p.r.Read(b)
	p.buf = append(p.buf, b[:n]...)
	p.total += int64(n)
	return n, err
}

// advance counts lines and columns up to off and drops the bytes before it.
func (p *posReader) advance(off int64) {
	if off <= p.base {
		return
	}
	k := int(min(off-p.base, int64(len(p.buf))))
	for _, c := range p.buf[:k] {
		switch {
		case c == '\n':
			p.line, p.col = p.line+1, 1
		case utf8.RuneStart(c):
			p.col++
		}
	}
	p.base += int64(k)
	// Slide the rest down now and then rather than at every token.
	if k > len(p.buf)/2 {
		p.buf = append(p.buf[:0], p.buf[k:]...)
	} else {
		p.buf = p.buf[k:]
	}
}

// valueStart is the offset of the first byte at or after off that is not
// white space, a colon or a comma: where the value after off begins.
func (p *posReader) valueStart(off int64) int64 {
	for i := max(off-p.base, 0); i < int64(len(p.buf)); i++ {
		switch p.buf[i] {
		case ' ', '\t', '\n', '\r', ':', ',':
			continue
		}
		return p.base + i
	}
	return p.base + int64(len(p.buf))
}

// at is the line and column of offset off (at or after the last advance).
func (p *posReader) at(off int64) (line, col int) {
	p.advance(off)
	return p.line, p.col
}
