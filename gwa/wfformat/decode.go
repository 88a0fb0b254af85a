package wfformat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gmark/gmark/internal/srcerr"
)

// Decode reads one instance from r; name names the input in errors. The
// instance's graph is checked: every parent and child a task of the
// instance, no task id twice, no cycle.
func Decode(r io.Reader, name string) (*Instance, error) {
	return DecodeLimit(r, name, MaxInput)
}

// DecodeLimit is Decode with a bound on the bytes read.
func DecodeLimit(r io.Reader, name string, limit int64) (*Instance, error) {
	d := &decoder{name: name, pr: newPosReader(r, limit), keys: map[string]bool{}}
	d.dec = json.NewDecoder(d.pr)
	d.dec.UseNumber()
	d.inst = &Instance{Makespan: math.NaN(), Files: map[string]int64{}}
	if err := d.top(); err != nil {
		return nil, err
	}
	d.done = true
	if tok, off, err := d.next(); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, d.errAt(off, "%s after the instance: a file holds one instance", describe(tok))
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	return d.inst, nil
}

// decoder walks the JSON tokens of an instance.
type decoder struct {
	dec  *json.Decoder
	pr   *posReader
	name string
	inst *Instance
	keys map[string]bool
	// What the walk collects before the instance can be put together.
	spec    []specTask
	exec    []execTask
	layout  string // "1.4" or "1.5": which keys "workflow" has
	layoutK string // the key that told, for messages
	version pos    // where schemaVersion's value is
	fileAt  map[string]pos
	done    bool // the instance is read: the input may end
}

// pos is a line and column of the input, from 1.
type pos struct{ line, col int }

// specTask is a task as the specification (or 1.4's task list) gives it,
// with where its values are: problems found once the whole instance is
// read are reported there.
type specTask struct {
	Task
	at, parentsAt, childrenAt, idAt pos
	inline                          []inlineFile // 1.4's files
	id14                            string       // 1.4's id key, which parents may name
}

type execTask struct {
	Task
	at pos
}

type inlineFile struct {
	id     string
	size   int64
	output bool
	at     pos
}

// posAt is the position of offset off (at or after the last one asked).
func (d *decoder) posAt(off int64) pos {
	line, col := d.pr.at(off)
	return pos{line, col}
}

// errAt is a problem at offset off of the input.
func (d *decoder) errAt(off int64, format string, args ...any) error {
	return d.errPos(d.posAt(off), format, args...)
}

// errPos is a problem at p.
func (d *decoder) errPos(p pos, format string, args ...any) error {
	return &srcerr.Error{Pos: srcerr.Pos{File: d.name, Line: p.line, Col: p.col}, Msg: fmt.Sprintf(format, args...)}
}

// next reads the next token and the offset where it starts.
func (d *decoder) next() (json.Token, int64, error) {
	// The token's bytes are in the posReader once the decoder has read
	// it: its start is the first byte after the previous token's end that
	// is not white space or punctuation.
	prev := d.dec.InputOffset()
	tok, err := d.dec.Token()
	off := d.pr.valueStart(prev)
	d.pr.advance(off)
	if err == nil {
		return tok, off, nil
	}
	var big errTooLarge
	var syn *json.SyntaxError
	switch {
	case err == io.EOF && d.done:
		return nil, off, io.EOF
	case err == io.EOF && d.pr.total == 0:
		return nil, off, d.errAt(off, "the input is empty: no WfFormat instance")
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return nil, d.pr.total, d.errAt(d.pr.total, "the instance ends before its last value does (cut short?)")
	case errors.As(err, &big):
		return nil, off, d.errAt(off, "the instance is larger than %d MiB: gmark reads no larger one", big.limit>>20)
	case errors.As(err, &syn):
		at := max(syn.Offset-1, d.pr.base)
		return nil, at, d.errAt(at, "not JSON: %s", strings.TrimPrefix(syn.Error(), "invalid character "))
	}
	return nil, off, d.errAt(off, "%v", err)
}

// describe names a token for messages.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			return "an object"
		case '[':
			return "an array"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// key records a key path as present.
func (d *decoder) key(path string) {
	if !d.keys[path] {
		d.keys[path] = true
		d.inst.Keys = append(d.inst.Keys, path)
	}
}

// object reads an object at path, calling field for each key (which must
// read the key's value); at is where the object starts. null is an absent
// object: ok is false.
func (d *decoder) object(path string, field func(key, path string) error) (at pos, ok bool, err error) {
	tok, off, err := d.next()
	if err != nil {
		return at, false, err
	}
	at = d.posAt(off)
	if tok == nil {
		return at, false, nil
	}
	if tok != json.Delim('{') {
		if path == "" {
			return at, false, d.errPos(at, "%s, not an object: a WfFormat instance is one JSON object", describe(tok))
		}
		return at, false, d.errPos(at, "%s is %s, not an object", path, describe(tok))
	}
	for d.dec.More() {
		tok, off, err := d.next()
		if err != nil {
			return at, false, err
		}
		k, isKey := tok.(string)
		if !isKey {
			return at, false, d.errAt(off, "%s: a key must be a string", path)
		}
		p := k
		if path != "" {
			p = path + "." + k
		}
		d.key(p)
		if err := field(k, p); err != nil {
			return at, false, err
		}
	}
	_, _, err = d.next()
	return at, true, err
}

// array reads an array at path, calling elem for each element (which must
// read it); at is where the array starts. null is an absent array.
func (d *decoder) array(path string, elem func(path string) error) (at pos, err error) {
	tok, off, err := d.next()
	if err != nil {
		return at, err
	}
	at = d.posAt(off)
	if tok == nil {
		return at, nil
	}
	if tok != json.Delim('[') {
		return at, d.errPos(at, "%s is %s, not an array", path, describe(tok))
	}
	for d.dec.More() {
		if err := elem(path + "[]"); err != nil {
			return at, err
		}
	}
	_, _, err = d.next()
	return at, err
}

// skip reads any value, recording the keys of the objects in it.
func (d *decoder) skip(path string) error {
	tok, _, err := d.next()
	if err != nil {
		return err
	}
	return d.skipRest(path, tok)
}

func (d *decoder) skipRest(path string, tok json.Token) error {
	switch tok {
	case json.Delim('{'):
		for d.dec.More() {
			k, _, err := d.next()
			if err != nil {
				return err
			}
			p := path + "." + k.(string)
			d.key(p)
			if err := d.skip(p); err != nil {
				return err
			}
		}
		_, _, err := d.next()
		return err
	case json.Delim('['):
		for d.dec.More() {
			if err := d.skip(path + "[]"); err != nil {
				return err
			}
		}
		_, _, err := d.next()
		return err
	}
	return nil
}

// str reads a string (null: "").
func (d *decoder) str(path string) (string, int64, error) {
	tok, off, err := d.next()
	if err != nil {
		return "", off, err
	}
	switch v := tok.(type) {
	case string:
		return v, off, nil
	case nil:
		return "", off, nil
	}
	return "", off, d.errAt(off, "%s is %s, not a string", path, describe(tok))
}

// num reads a number in [lo, hi] (null: NaN).
func (d *decoder) num(path string, lo, hi float64) (float64, int64, error) {
	tok, off, err := d.next()
	if err != nil {
		return 0, off, err
	}
	switch v := tok.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return 0, off, d.errAt(off, "%s %s is out of range", path, truncate(string(v)))
		}
		if f < lo || f > hi {
			return 0, off, d.errAt(off, "%s %s is out of range (%s to %s)", path, truncate(string(v)), fmtNum(lo), fmtNum(hi))
		}
		return f, off, nil
	case nil:
		return math.NaN(), off, nil
	}
	return 0, off, d.errAt(off, "%s is %s, not a number", path, describe(tok))
}

// strs reads an array of strings; at is where it starts.
func (d *decoder) strs(path string) ([]string, pos, error) {
	var out []string
	at, err := d.array(path, func(p string) error {
		s, off, err := d.str(p)
		if err == nil && s == "" {
			err = d.errAt(off, "%s: an empty string names nothing", p)
		}
		out = append(out, s)
		return err
	})
	return out, at, err
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// truncate shortens a value for a message.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:37] + "…"
	}
	return s
}
