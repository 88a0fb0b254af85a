package printers

import (
	"fmt"
	"strings"
)

// A reader of Globus RSL, enough to check what the rsl and koala printers
// write: requests ("&", "|" and "+" over parenthesised sub-specifications),
// relations "(attribute = value …)", values that are bare literals, quoted
// literals ("" for an embedded quote) or parenthesised sequences, and
// "(* … *)" comments. It is strict: anything else is an error with its
// offset, so an unbalanced parenthesis or a bad quote fails the tests.

// rslSpec is an RSL specification: a request over sub-specifications (op is
// "&", "|" or "+"), or a relation (op is "").
type rslSpec struct {
	op       string
	subs     []*rslSpec
	attr     string
	relOp    string
	values   []rslValue
	position int
}

// rslValue is a literal or a parenthesised sequence of values.
type rslValue struct {
	text   string
	quoted bool
	seq    []rslValue
	isSeq  bool
}

func (v rslValue) String() string {
	if !v.isSeq {
		return v.text
	}
	parts := make([]string, len(v.seq))
	for i, s := range v.seq {
		parts[i] = s.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// relation returns the values of the first relation of a request on attr,
// comparing names as RSL does: ignoring case and underscores.
func (s *rslSpec) relation(attr string) ([]rslValue, bool) {
	want := rslAttrKey(attr)
	for _, sub := range s.subs {
		if sub.op == "" && rslAttrKey(sub.attr) == want {
			return sub.values, true
		}
	}
	return nil, false
}

// relations counts the relations of a request on attr.
func (s *rslSpec) relations(attr string) int {
	n, want := 0, rslAttrKey(attr)
	for _, sub := range s.subs {
		if sub.op == "" && rslAttrKey(sub.attr) == want {
			n++
		}
	}
	return n
}

func rslAttrKey(a string) string { return strings.ToLower(strings.ReplaceAll(a, "_", "")) }

type rslParser struct {
	src string
	pos int
}

func parseRSL(src string) (*rslSpec, error) {
	p := &rslParser{src: src}
	spec, err := p.spec()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(p.src) {
		return nil, p.errorf("unexpected %q after the specification", p.src[p.pos:min(p.pos+10, len(p.src))])
	}
	return spec, nil
}

func (p *rslParser) errorf(format string, args ...any) error {
	return fmt.Errorf("rsl offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// skip passes blanks and comments.
func (p *rslParser) skip() error {
	for p.pos < len(p.src) {
		switch {
		case strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])):
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "(*"):
			end := strings.Index(p.src[p.pos+2:], "*)")
			if end < 0 {
				return p.errorf("unterminated comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *rslParser) peek() (byte, error) {
	if err := p.skip(); err != nil {
		return 0, err
	}
	if p.pos >= len(p.src) {
		return 0, p.errorf("unexpected end")
	}
	return p.src[p.pos], nil
}

func (p *rslParser) expect(c byte) error {
	got, err := p.peek()
	if err != nil {
		return err
	}
	if got != c {
		return p.errorf("want %q, found %q", c, got)
	}
	p.pos++
	return nil
}

func (p *rslParser) spec() (*rslSpec, error) {
	c, err := p.peek()
	if err != nil {
		return nil, err
	}
	if c == '&' || c == '|' || c == '+' {
		s := &rslSpec{op: string(c), position: p.pos}
		p.pos++
		for {
			if c, err := p.peek(); err != nil || c != '(' {
				break // the end, or the ')' closing this request
			}
			p.pos++
			sub, err := p.spec()
			if err != nil {
				return nil, err
			}
			if err := p.expect(')'); err != nil {
				return nil, err
			}
			s.subs = append(s.subs, sub)
		}
		if len(s.subs) == 0 {
			return nil, p.errorf("%s with no sub-specification", s.op)
		}
		return s, nil
	}
	return p.relation()
}

func (p *rslParser) relation() (*rslSpec, error) {
	s := &rslSpec{position: p.pos}
	attr, quoted, err := p.literal()
	if err != nil {
		return nil, err
	}
	if quoted || attr == "" {
		return nil, p.errorf("want an attribute name")
	}
	s.attr = attr
	if _, err := p.peek(); err != nil {
		return nil, err
	}
	for _, op := range []string{"!=", ">=", "<=", "=", "<", ">"} {
		if strings.HasPrefix(p.src[p.pos:], op) {
			s.relOp = op
			p.pos += len(op)
			break
		}
	}
	if s.relOp == "" {
		return nil, p.errorf("want a relation operator after %s", attr)
	}
	s.values, err = p.values()
	return s, err
}

// values reads a value sequence up to (not including) a closing parenthesis.
func (p *rslParser) values() ([]rslValue, error) {
	var vs []rslValue
	for {
		c, err := p.peek()
		if err != nil {
			return nil, err
		}
		switch c {
		case ')':
			return vs, nil
		case '(':
			p.pos++
			seq, err := p.values()
			if err != nil {
				return nil, err
			}
			if err := p.expect(')'); err != nil {
				return nil, err
			}
			vs = append(vs, rslValue{seq: seq, isSeq: true})
		default:
			text, quoted, err := p.literal()
			if err != nil {
				return nil, err
			}
			vs = append(vs, rslValue{text: text, quoted: quoted})
		}
	}
}

// literal reads a quoted or bare literal.
func (p *rslParser) literal() (string, bool, error) {
	if _, err := p.peek(); err != nil {
		return "", false, err
	}
	if p.src[p.pos] == '"' {
		var sb strings.Builder
		for i := p.pos + 1; i < len(p.src); i++ {
			if p.src[i] != '"' {
				sb.WriteByte(p.src[i])
				continue
			}
			if i+1 < len(p.src) && p.src[i+1] == '"' {
				sb.WriteByte('"')
				i++
				continue
			}
			p.pos = i + 1
			return sb.String(), true, nil
		}
		return "", false, p.errorf("unterminated quoted literal")
	}
	start := p.pos
	for p.pos < len(p.src) && !strings.ContainsRune(" \t\r\n()\"=<>!&|+^$#", rune(p.src[p.pos])) {
		p.pos++
	}
	if p.pos == start {
		return "", false, p.errorf("want a literal, found %q", p.src[p.pos])
	}
	return p.src[start:p.pos], false, nil
}
