package jdf

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gmark/gmark/internal/srcerr"
	"github.com/gmark/gmark/workload"
)

// parser reads a JDF in one pass, without a token slice: requests are
// checked relation by relation as they are read (apply), the values of the
// relation being read kept in vals.
type parser struct {
	name     string
	src      string
	pos      int
	multi    bool
	gmarkApp bool // the first request runs a gmark application (isAppForm)
	nvals    int  // values read, up to MaxValues

	vals  []val           // values of the current relation, in preorder
	words []string        // arena of arguments
	files []workload.File // arena of input files
	subs  []subreq
	first [len(attrNames)]int32 // position of each relation in the current request
}

// val is one value: a literal, or a list whose elements follow it in vals up
// to end (a literal's end is its own index + 1).
type val struct {
	s    string
	pos  int
	end  int
	list bool
}

// Lexical classes. plain bytes may make up an unquoted literal.
var plain = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`()=<>!+&|"'^#$`, rune(c))
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// errorf returns an *Error at byte offset off.
func (p *parser) errorf(off int, format string, args ...any) error {
	line, col := p.lineCol(off)
	return srcerr.Errorf(srcerr.Pos{File: p.name, Line: line, Col: col}, format, args...)
}

// lineCol is the line and column (in characters, as every gmark position)
// of byte offset off.
func (p *parser) lineCol(off int) (line, col int) {
	off = min(max(off, 0), len(p.src))
	line = 1 + strings.Count(p.src[:off], "\n")
	start := strings.LastIndexByte(p.src[:off], '\n') + 1
	col = 1 + utf8.RuneCountInString(p.src[start:off])
	return line, col
}

// at formats an offset as line:col for messages.
func (p *parser) at(off int) string {
	line, col := p.lineCol(off)
	return fmt.Sprintf("%d:%d", line, col)
}

// found describes what is at p.pos, for "expected X, found Y" messages.
func (p *parser) found() string {
	if p.pos >= len(p.src) {
		return "the end of the input"
	}
	c := p.src[p.pos]
	switch {
	case plain[c]:
		end := p.pos
		for end < len(p.src) && end-p.pos < 24 && plain[p.src[end]] {
			end++
		}
		return fmt.Sprintf("%q", p.src[p.pos:end])
	case c == '"' || c == '\'' || c == '^':
		return "a quoted string"
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("control character %U", rune(c))
	}
	return fmt.Sprintf("'%c'", c)
}

// skip passes blanks and comments.
func (p *parser) skip() error {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case isBlank(c):
			p.pos++
		case c == '(' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := strings.Index(p.src[p.pos+2:], "*)")
			if end < 0 {
				return p.errorf(p.pos, "unterminated comment: expected '*)' to close the comment opened here")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

// parse reads the whole JDF into p.subs.
func (p *parser) parse() error {
	if strings.HasPrefix(p.src, "\uFEFF") {
		p.pos = 3
	}
	if err := p.skip(); err != nil {
		return err
	}
	if p.pos == len(p.src) {
		return p.errorf(p.pos, "empty JDF: expected '&' (a request) or '+' (a multi-request)")
	}
	switch c := p.src[p.pos]; c {
	case '&':
		p.subs = make([]subreq, 0, 1)
		if err := p.request(); err != nil {
			return err
		}
	case '+':
		p.multi = true
		p.subs = make([]subreq, 0, 4)
		plus := p.pos
		p.pos++
		for {
			if err := p.skip(); err != nil {
				return err
			}
			if p.pos == len(p.src) || p.src[p.pos] != '(' {
				break
			}
			open := p.pos
			p.pos++
			if err := p.skip(); err != nil {
				return err
			}
			if p.pos == len(p.src) || p.src[p.pos] != '&' {
				return p.nonRequest(fmt.Sprintf("expected '&' to start the subrequest opened at %s", p.at(open)))
			}
			if err := p.request(); err != nil {
				return err
			}
			if p.pos == len(p.src) || p.src[p.pos] != ')' {
				return p.errorf(p.pos, "expected ')' to close the subrequest opened at %s, found %s", p.at(open), p.found())
			}
			p.pos++
		}
		if len(p.subs) == 0 {
			return p.errorf(p.pos, "empty multi-request: expected '(' to start a subrequest after the '+' at %s, found %s", p.at(plus), p.found())
		}
	default:
		return p.nonRequest("expected '&' (a request) or '+' (a multi-request)")
	}
	if err := p.skip(); err != nil {
		return err
	}
	if p.pos < len(p.src) {
		return p.errorf(p.pos, "unexpected %s after the end of the request: a JDF describes one job", p.found())
	}
	return nil
}

// nonRequest is the error for something that is not the request expected.
func (p *parser) nonRequest(expected string) error {
	if p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '|':
			return p.errorf(p.pos, "%s: disjunctive requests ('|') are not supported", expected)
		case '+':
			return p.errorf(p.pos, "%s: a multi-request cannot hold another", expected)
		}
	}
	return p.errorf(p.pos, "%s, found %s", expected, p.found())
}

// request reads "&" and its relations, appending a subreq; it stops after
// the blanks that follow the last relation.
func (p *parser) request() error {
	r := subreq{pos: p.pos, count: 1, site: workload.AnySite,
		exePos: -1, argsPos: -1, idPos: -1, typePos: -1, filesPos: -1}
	r.args = [2]int{len(p.words), len(p.words)}
	r.files = [2]int{len(p.files), len(p.files)}
	p.pos++
	var seen uint64
	n := 0
	for {
		if err := p.skip(); err != nil {
			return err
		}
		if p.pos == len(p.src) || p.src[p.pos] != '(' {
			break
		}
		attr, namePos, err := p.relation()
		if err != nil {
			return err
		}
		if seen&(1<<attr) != 0 {
			return p.errorf(namePos, "duplicate relation %s (first at %s): a request gives each relation once",
				attrNames[attr], p.at(int(p.first[attr])))
		}
		seen |= 1 << attr
		p.first[attr] = int32(namePos)
		if err := p.apply(&r, attr, namePos); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return p.errorf(p.pos, "expected '(' to start a relation after the '&' at %s, found %s", p.at(r.pos), p.found())
	}
	if err := p.check(&r); err != nil {
		return err
	}
	p.subs = append(p.subs, r)
	return nil
}

// relation reads "(attribute = values)" into p.vals; p.pos is at its '('.
func (p *parser) relation() (attr, namePos int, err error) {
	open := p.pos
	p.pos++
	if err := p.skip(); err != nil {
		return 0, 0, err
	}
	namePos = p.pos
	if p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '&', '|', '+':
			return 0, 0, p.errorf(p.pos, "expected an attribute name after the '(' at %s: requests inside a request are not supported", p.at(open))
		}
	}
	if !p.atLiteral() {
		return 0, 0, p.errorf(p.pos, "expected an attribute name after the '(' at %s, found %s", p.at(open), p.found())
	}
	name, err := p.literal()
	if err != nil {
		return 0, 0, err
	}
	attr = lookupAttr(name)
	if attr < 0 {
		return 0, 0, p.errorf(namePos, "unknown relation %q: expected one of resourceManagerContact, count, maxWallTime, executable, arguments, environment, koalaRequestType, koalaInputFiles or an ignored GRAM relation (label, jobType, directory, stdout, stderr, …)", name)
	}
	if err := p.skip(); err != nil {
		return 0, 0, err
	}
	if p.pos == len(p.src) || p.src[p.pos] != '=' {
		if op := p.operator(); op != "" {
			return 0, 0, p.errorf(p.pos, "expected '=' after %s, found '%s': only '=' relations describe a job", attrNames[attr], op)
		}
		return 0, 0, p.errorf(p.pos, "expected '=' after %s, found %s", attrNames[attr], p.found())
	}
	p.pos++
	p.vals = p.vals[:0]
	for {
		if err := p.skip(); err != nil {
			return 0, 0, err
		}
		if p.pos == len(p.src) {
			return 0, 0, p.errorf(p.pos, "expected ')' to close the relation opened at %s, found the end of the input", p.at(open))
		}
		if p.src[p.pos] == ')' {
			break
		}
		if err := p.value(1, open); err != nil {
			if err == errNotValue {
				return 0, 0, p.errorf(p.pos, "expected a value or ')' to close the relation opened at %s, found %s", p.at(open), p.found())
			}
			return 0, 0, err
		}
	}
	if len(p.vals) == 0 {
		return 0, 0, p.errorf(p.pos, "expected a value for %s before ')'", attrNames[attr])
	}
	p.pos++
	return attr, namePos, nil
}

// operator returns the RSL relation operator other than '=' at p.pos, if any.
func (p *parser) operator() string {
	rest := p.src[p.pos:]
	for _, op := range []string{"!=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(rest, op) {
			return op
		}
	}
	return ""
}

// errNotValue reports that p.pos is not at the start of a value.
var errNotValue = fmt.Errorf("not a value")

// value reads one value into p.vals; depth is its list depth if it is a
// list, rel the offset of the enclosing relation's '('.
func (p *parser) value(depth, rel int) error {
	if p.nvals++; p.nvals > MaxValues {
		return p.errorf(p.pos, "more than %d values in one JDF", MaxValues)
	}
	c := p.src[p.pos]
	switch {
	case c == '(':
		return p.list(depth, rel)
	case c == '$':
		return p.errorf(p.pos, "RSL variable references ($(NAME)) are not supported: write the value out")
	case c == '#':
		return p.errorf(p.pos, "RSL concatenation ('#') is not supported: write the value as one literal")
	case !p.atLiteral():
		return errNotValue
	}
	pos := p.pos
	s, err := p.literal()
	if err != nil {
		return err
	}
	p.vals = append(p.vals, val{pos: pos, s: s, end: len(p.vals) + 1})
	if p.pos < len(p.src) && p.src[p.pos] == '#' {
		return p.errorf(p.pos, "RSL concatenation ('#') is not supported: write the value as one literal")
	}
	return nil
}

// list reads a parenthesised value list; p.pos is at its '('.
func (p *parser) list(depth, rel int) error {
	open := p.pos
	if depth > MaxDepth {
		return p.errorf(open, "value lists nested more than %d deep", MaxDepth)
	}
	p.pos++
	idx := len(p.vals)
	p.vals = append(p.vals, val{pos: open, list: true})
	for {
		if err := p.skip(); err != nil {
			return err
		}
		if p.pos == len(p.src) {
			return p.errorf(p.pos, "expected ')' to close the list opened at %s, found the end of the input", p.at(open))
		}
		c := p.src[p.pos]
		if c == ')' {
			break
		}
		if c == '=' && depth == 1 {
			// "(count=1 (jobType=single)": the relation was never closed.
			return p.errorf(open, "expected ')' to close the relation opened at %s before the next relation", p.at(rel))
		}
		if err := p.value(depth+1, rel); err != nil {
			if err == errNotValue {
				return p.errorf(p.pos, "expected a value or ')' to close the list opened at %s, found %s", p.at(open), p.found())
			}
			return err
		}
	}
	if idx == len(p.vals)-1 {
		return p.errorf(open, "empty list '()': expected at least one value")
	}
	p.pos++
	p.vals[idx].end = len(p.vals)
	return nil
}

// atLiteral reports whether a literal starts at p.pos.
func (p *parser) atLiteral() bool {
	if p.pos >= len(p.src) {
		return false
	}
	c := p.src[p.pos]
	return plain[c] || c == '"' || c == '\'' || c == '^'
}

// literal reads the literal at p.pos (atLiteral is true).
func (p *parser) literal() (string, error) {
	start := p.pos
	c := p.src[start]
	if plain[c] {
		end := start
		for end < len(p.src) && plain[p.src[end]] {
			end++
		}
		s := p.src[start:end]
		if !utf8.ValidString(s) {
			return "", p.errorf(start, "invalid UTF-8 in %q", s)
		}
		p.pos = end
		return s, nil
	}
	body := start + 1
	q := c
	if c == '^' {
		if body >= len(p.src) || p.src[body] <= ' ' || p.src[body] >= 0x7f {
			return "", p.errorf(start, "expected a delimiter character after '^' (RSL's user-delimited literal ^D…D)")
		}
		q = p.src[body]
		body++
	}
	// The common case: no doubled delimiter, the literal is a substring.
	i := body
	var b []byte
	for {
		k := strings.IndexByte(p.src[i:], q)
		if k < 0 {
			return "", p.errorf(start, "unterminated quoted string: expected a closing %c", q)
		}
		k += i
		if k+1 < len(p.src) && p.src[k+1] == q { // doubled: one q
			b = append(b, p.src[i:k+1]...)
			i = k + 2
			continue
		}
		var s string
		if b == nil {
			s = p.src[body:k]
		} else {
			s = string(append(b, p.src[i:k]...))
		}
		for j := body; j < k; j++ {
			if c := p.src[j]; c < 0x20 || c == 0x7f {
				return "", p.errorf(j, "control character %U in a quoted string: gmark values are single-line", rune(c))
			}
		}
		if !utf8.ValidString(s) {
			return "", p.errorf(start, "invalid UTF-8 in a quoted string")
		}
		p.pos = k + 1
		return s, nil
	}
}
