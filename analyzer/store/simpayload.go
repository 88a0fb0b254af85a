package store

import (
	"bytes"
	"errors"
	"fmt"
)

// The per-job figures of a simulated run are read from its events'
// payloads, JSON objects of a dozen keys. SQLite's json_extract parses the
// payload once per key asked for, and modernc's JSON code is slow: over a
// million jobs it was half the report's time (docs/performance.md). The
// payloads are read as text instead and parsed here, once, for the five
// keys the report reads.

// simKeys are the payload keys of SimJobFacts, in the order of simValues.
var simKeys = [...]string{"placement_ns", "ftt_ns", "placement_tries", "claim_tries", "restarts"}

// simValues are the values of simKeys in a payload, and whether each was
// there and not null (json_extract's IS NOT NULL).
type simValues struct {
	v   [len(simKeys)]int64
	set [len(simKeys)]bool
}

// errNotObject: the payload is not one JSON object.
var errNotObject = errors.New("not a JSON object")

// parseSimPayload reads the top-level keys simKeys of a JSON object, as
// json_extract(payload, '$.key') reads them: the first occurrence of a key
// counts; null counts as absent; true and false are 1 and 0; any other
// value of those keys but a whole number within 64 bits is an error, as
// is a payload that is not one well-formed JSON object.
func parseSimPayload(b []byte) (simValues, error) {
	var out simValues
	var seen [len(simKeys)]bool // the first occurrence of a key counts, even a null one
	p := jsonScanner{b: b}
	p.space()
	if !p.eat('{') {
		return out, errNotObject
	}
	p.space()
	if p.eat('}') {
		return out, p.end()
	}
	for {
		p.space()
		key, err := p.str()
		if err != nil {
			return out, err
		}
		p.space()
		if !p.eat(':') {
			return out, p.errorf("no colon after a key")
		}
		p.space()
		k := simKeyIndex(key)
		start := p.i
		if err := p.value(0); err != nil {
			return out, err
		}
		if k >= 0 && !seen[k] {
			seen[k] = true
			v, null, err := simNumber(b[start:p.i])
			if err != nil {
				return out, fmt.Errorf("%s is %s: %w", simKeys[k], b[start:p.i], err)
			}
			out.v[k], out.set[k] = v, !null
		}
		p.space()
		if p.eat('}') {
			return out, p.end()
		}
		if !p.eat(',') {
			return out, p.errorf("no comma or } after a value")
		}
	}
}

// simKeyIndex is the index of key (raw, between its quotes) in simKeys,
// -1 when it is none of them. Keys are compared as written: a key spelled
// with escapes (gmark writes none) is not recognized.
func simKeyIndex(key []byte) int {
	for i, k := range simKeys {
		if string(key) == k {
			return i
		}
	}
	return -1
}

// simNumber reads a value of a simKeys key: an integer, true, false or null.
func simNumber(v []byte) (n int64, null bool, err error) {
	switch string(v) {
	case "null":
		return 0, true, nil
	case "true":
		return 1, false, nil
	case "false":
		return 0, false, nil
	}
	n, ok := atoi(v) // v is a well-formed JSON value: no leading zeros
	if !ok || len(v) == 0 {
		return 0, false, errors.New("not a whole number within 64 bits")
	}
	return n, false, nil
}

// jsonScanner checks and skips JSON text (RFC 8259), without building
// values.
type jsonScanner struct {
	b []byte
	i int
}

// maxDepth bounds the nesting of skipped values (SQLite's is 1000).
const maxDepth = 1000

func (p *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("malformed JSON at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonScanner) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonScanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end checks that nothing but space follows the object.
func (p *jsonScanner) end() error {
	p.space()
	if p.i != len(p.b) {
		return p.errorf("text after the object")
	}
	return nil
}

// str reads a string and returns its raw content (escapes left as they are).
func (p *jsonScanner) str() ([]byte, error) {
	if !p.eat('"') {
		return nil, p.errorf("a string expected")
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], nil
		case c == '\\':
			if err := p.escape(); err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, p.errorf("a control character in a string")
		default:
			p.i++
		}
	}
	return nil, p.errorf("an unterminated string")
}

func (p *jsonScanner) escape() error {
	p.i++ // the backslash
	if p.i >= len(p.b) {
		return p.errorf("an unterminated escape")
	}
	c := p.b[p.i]
	p.i++
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return nil
	case 'u':
		if p.i+4 > len(p.b) {
			return p.errorf("a short \\u escape")
		}
		for _, h := range p.b[p.i : p.i+4] {
			if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
				return p.errorf("a bad \\u escape")
			}
		}
		p.i += 4
		return nil
	}
	return p.errorf("a bad escape")
}

// value skips one value.
func (p *jsonScanner) value(depth int) error {
	if depth > maxDepth {
		return p.errorf("nested too deep")
	}
	if p.i >= len(p.b) {
		return p.errorf("a value expected")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, err := p.str()
		return err
	case c == '{' || c == '[':
		return p.container(depth)
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
			p.i += len(lit)
			return nil
		}
	}
	return p.errorf("a value expected")
}

// container skips an object or an array.
func (p *jsonScanner) container(depth int) error {
	closer := byte('}')
	if p.b[p.i] == '[' {
		closer = ']'
	}
	p.i++
	p.space()
	if p.eat(closer) {
		return nil
	}
	for {
		p.space()
		if closer == '}' {
			if _, err := p.str(); err != nil {
				return err
			}
			p.space()
			if !p.eat(':') {
				return p.errorf("no colon after a key")
			}
			p.space()
		}
		if err := p.value(depth + 1); err != nil {
			return err
		}
		p.space()
		if p.eat(closer) {
			return nil
		}
		if !p.eat(',') {
			return p.errorf("no comma after a value")
		}
	}
}

// number skips a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonScanner) number() error {
	p.eat('-')
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.eat('0') {
		// no more digits may follow a leading zero
	} else if digits() == 0 {
		return p.errorf("a number expected")
	}
	if p.eat('.') && digits() == 0 {
		return p.errorf("no digits after a decimal point")
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if digits() == 0 {
			return p.errorf("no digits in an exponent")
		}
	}
	return nil
}
