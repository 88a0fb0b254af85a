package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/gmark/gmark/internal/decimal"
	"github.com/gmark/gmark/internal/srcerr"
)

// The workload.jsonl format: one job per line, a JSON object whose fields
// always come in this order, times in seconds:
//
//	{"id":"1-0","unit":1,"index":0,"kind":"unitary","type":"sser","submit":12.5,
//	 "site_type":"single","walltime":600,"runtime":0,"deadline":900,"user":"u1","group":"g1","warm":true,
//	 "app":{"name":"sser","params":{"n":"5"}},"components":[{"site":"*","count":1}],
//	 "files":[{"name":"f","size":1024}],"tasks":[…],"deps":[{"from":"…","to":"…"}]}
//
// Zero-valued optional fields are left out, but for a known run time of 0
// ("runtime":0; a job without "runtime" has an unknown run time). Params
// keep their order (it is the program's argument order), which is why jobs
// are encoded here rather than by
// encoding/json: the standard encoder sorts map keys and re-validates the output
// of every MarshalJSON method, and generation is bound by this encoder's speed.

// AppendJSON appends the job's JSON encoding (without a newline) to b.
func (j *Job) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, j.ID)
	b = append(b, `,"unit":`...)
	b = decimal.AppendInt(b, int64(j.Unit))
	b = append(b, `,"index":`...)
	b = decimal.AppendInt(b, int64(j.Index))
	b = append(b, `,"kind":`...)
	b = appendString(b, string(j.Kind))
	b = append(b, `,"type":`...)
	b = appendString(b, j.Type)
	b = append(b, `,"submit":`...)
	b = AppendSeconds(b, j.Submit)
	if j.SiteType != "" {
		b = append(b, `,"site_type":`...)
		b = appendString(b, string(j.SiteType))
	}
	if j.WallTime != 0 {
		b = append(b, `,"walltime":`...)
		b = AppendSeconds(b, j.WallTime)
	}
	if j.RunTime != 0 || j.ZeroRunTime {
		// A known run time of 0 is written; an unknown one is left out.
		b = append(b, `,"runtime":`...)
		b = AppendSeconds(b, j.RunTime)
	}
	if j.Deadline != 0 {
		b = append(b, `,"deadline":`...)
		b = AppendSeconds(b, j.Deadline)
	}
	if j.User != "" {
		b = append(b, `,"user":`...)
		b = appendString(b, j.User)
	}
	if j.Group != "" {
		b = append(b, `,"group":`...)
		b = appendString(b, j.Group)
	}
	if j.Warm {
		b = append(b, `,"warm":true`...)
	}
	if j.App.Name != "" {
		b = append(b, `,"app":{"name":`...)
		b = appendString(b, j.App.Name)
		b = append(b, `,"params":{`...)
		for i, p := range j.App.Params {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, p.Key)
			b = append(b, ':')
			b = appendString(b, p.Value)
		}
		b = append(b, "}}"...)
	}
	if len(j.Components) > 0 {
		b = append(b, `,"components":[`...)
		for i, c := range j.Components {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"site":`...)
			b = appendString(b, c.Site)
			b = append(b, `,"count":`...)
			b = decimal.AppendInt(b, int64(c.Count))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendFiles(b, "files", j.Files)
	b = appendFiles(b, "outputs", j.Outputs)
	if len(j.Tasks) > 0 {
		b = append(b, `,"tasks":[`...)
		for i := range j.Tasks {
			if i > 0 {
				b = append(b, ',')
			}
			b = j.Tasks[i].AppendJSON(b)
		}
		b = append(b, ']')
	}
	if len(j.Deps) > 0 {
		b = append(b, `,"deps":[`...)
		for i, d := range j.Deps {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"from":`...)
			b = appendString(b, d.From)
			b = append(b, `,"to":`...)
			b = appendString(b, d.To)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// AppendSeconds appends d as a decimal number of seconds, exact to the
// nanosecond and without trailing zeros ("12", "0.25", "-1.000000001").
func AppendSeconds(b []byte, d time.Duration) []byte {
	if d < 0 {
		b = append(b, '-')
		if d == math.MinInt64 { // cannot be negated; no workload gets here
			return append(b, "9223372036.854775808"...)
		}
		d = -d
	}
	b = decimal.AppendInt(b, int64(d/time.Second))
	frac := int64(d % time.Second)
	if frac == 0 {
		return b
	}
	// The trailing zeros dropped first, by whole milli- or microseconds
	// when the fraction is one (generated times mostly are), then the n
	// digits left, leading zeros kept.
	n := 9
	switch {
	case frac%1e6 == 0:
		frac, n = frac/1e6, 3
	case frac%1e3 == 0:
		frac, n = frac/1e3, 6
	}
	for frac%10 == 0 {
		frac, n = frac/10, n-1
	}
	var digits [9]byte
	for i := n - 1; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}

// ParseSeconds is the inverse of AppendSeconds: a decimal number of seconds,
// with at most nine fractional digits, to an exact duration.
func ParseSeconds(s string) (time.Duration, error) {
	orig := s
	neg := false
	if s != "" && s[0] == '-' {
		neg, s = true, s[1:]
	}
	intPart, fracPart := s, ""
	if i := indexByte(s, '.'); i >= 0 {
		intPart, fracPart = s[:i], s[i+1:]
		if fracPart == "" {
			return 0, fmt.Errorf("bad seconds value %q", orig)
		}
	}
	if intPart == "" || len(fracPart) > 9 {
		return 0, fmt.Errorf("bad seconds value %q (at most 9 decimals)", orig)
	}
	whole, err := strconv.ParseUint(intPart, 10, 63)
	if err != nil || whole > math.MaxInt64/uint64(time.Second)-1 {
		return 0, fmt.Errorf("bad seconds value %q", orig)
	}
	var frac int64
	for i := 0; i < 9; i++ {
		frac *= 10
		if i < len(fracPart) {
			c := fracPart[i]
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("bad seconds value %q", orig)
			}
			frac += int64(c - '0')
		}
	}
	d := time.Duration(whole)*time.Second + time.Duration(frac)
	if neg {
		d = -d
	}
	return d, nil
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// appendString appends s as a JSON string, escaping what JSON requires and
// replacing invalid UTF-8 the way encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	// The common case, a string of nothing to escape (ids, keys, numbers),
	// in one look-up a byte and one copy.
	i := 0
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	if i == len(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainByte tells the bytes a JSON string holds as they are: ASCII but
// the control characters, '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// jobJSON mirrors the file format for decoding.
type jobJSON struct {
	ID         *string           `json:"id"`
	Unit       int               `json:"unit"`
	Index      int               `json:"index"`
	Kind       Kind              `json:"kind"`
	Type       string            `json:"type"`
	Submit     *json.Number      `json:"submit"`
	SiteType   SiteType          `json:"site_type"`
	WallTime   json.Number       `json:"walltime"`
	RunTime    json.Number       `json:"runtime"`
	Deadline   json.Number       `json:"deadline"`
	User       string            `json:"user"`
	Group      string            `json:"group"`
	Warm       bool              `json:"warm"`
	App        *appJSON          `json:"app"`
	Components []Component       `json:"components"`
	Files      []File            `json:"files"`
	Outputs    []File            `json:"outputs"`
	Tasks      []json.RawMessage `json:"tasks"`
	Deps       []Dependency      `json:"deps"`
}

type appJSON struct {
	Name   string      `json:"name"`
	Params orderedStrs `json:"params"`
}

// orderedStrs decodes a JSON object of strings keeping its key order.
type orderedStrs []Param

func (o *orderedStrs) UnmarshalJSON(data []byte) error {
	if ps, ok := compactStrs(data); ok {
		*o = ps
		return nil
	}
	return o.unmarshalTokens(data)
}

// compactStrs reads the form gmark writes, {"k":"v",...} with no space
// and no escape in its strings, directly: the token decoder's allocations
// were a fifth of reading a workload (`koala simulate` of a million jobs).
// Anything else (spaces, escapes, control characters, invalid UTF-8,
// values that are not strings, malformed input) is not ok, and goes to
// the token decoder, so the result is always the token decoder's
// (FuzzOrderedStrs).
func compactStrs(data []byte) (orderedStrs, bool) {
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		return nil, false
	}
	rest := data[1 : len(data)-1]
	var out orderedStrs // nil for {}, as the token decoder leaves it
	for len(rest) > 0 {
		key, r, ok := plainString(rest)
		if !ok || len(r) == 0 || r[0] != ':' {
			return nil, false
		}
		val, r, ok := plainString(r[1:])
		if !ok {
			return nil, false
		}
		out = append(out, Param{Key: key, Value: val})
		if len(r) == 0 {
			return out, true
		}
		if r[0] != ',' || len(r) == 1 {
			return nil, false
		}
		rest = r[1:]
	}
	return out, true
}

// plainString reads a JSON string with no escape at the start of b: its
// text and what follows it.
func plainString(b []byte) (string, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			if !utf8.Valid(b[1:i]) {
				return "", nil, false
			}
			return string(b[1:i]), b[i+1:], true
		case c == '\\' || c < 0x20:
			return "", nil, false
		}
	}
	return "", nil, false
}

// unmarshalTokens is the general reading of a params object.
func (o *orderedStrs) unmarshalTokens(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("params: want an object")
	}
	*o = (*o)[:0]
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return err
		}
		val, ok := vt.(string)
		if !ok {
			return fmt.Errorf("params: value of %q must be a string", key)
		}
		*o = append(*o, Param{Key: key, Value: val})
	}
	_, err = dec.Token()
	return err
}

func (c *Component) UnmarshalJSON(data []byte) error {
	var v struct {
		Site  string `json:"site"`
		Count int    `json:"count"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*c = Component{Site: v.Site, Count: v.Count}
	return nil
}

func (f *File) UnmarshalJSON(data []byte) error {
	var v struct {
		Name string `json:"name"`
		Size int64  `json:"size"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*f = File{Name: v.Name, Size: v.Size}
	return nil
}

func (d *Dependency) UnmarshalJSON(data []byte) error {
	var v struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*d = Dependency{From: v.From, To: v.To}
	return nil
}

func seconds(n json.Number, field string) (time.Duration, error) {
	if n == "" {
		return 0, nil
	}
	d, err := ParseSeconds(string(n))
	if err != nil {
		return 0, fmt.Errorf("%s: %v", field, err)
	}
	return d, nil
}

// ParseJob decodes one line of workload.jsonl and validates the job.
func ParseJob(line []byte) (Job, error) {
	j, err := decodeJob(line)
	if err != nil {
		return Job{}, err
	}
	if err := j.Validate(); err != nil {
		return Job{}, err
	}
	return j, nil
}

func decodeJob(data []byte) (Job, error) {
	var v jobJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return Job{}, err
	}
	if dec.More() {
		return Job{}, errors.New("extra data after the job object")
	}
	if v.ID == nil {
		return Job{}, errors.New(`missing "id"`)
	}
	if v.Submit == nil {
		return Job{}, fmt.Errorf(`job %s: missing "submit"`, *v.ID)
	}
	j := Job{ID: *v.ID, Unit: v.Unit, Index: v.Index, Kind: v.Kind, Type: v.Type, SiteType: v.SiteType,
		User: v.User, Group: v.Group, Warm: v.Warm, Components: v.Components, Files: v.Files, Outputs: v.Outputs, Deps: v.Deps}
	var err error
	if j.Submit, err = seconds(*v.Submit, "submit"); err != nil {
		return Job{}, err
	}
	if j.WallTime, err = seconds(v.WallTime, "walltime"); err != nil {
		return Job{}, err
	}
	if j.RunTime, err = seconds(v.RunTime, "runtime"); err != nil {
		return Job{}, err
	}
	j.ZeroRunTime = v.RunTime != "" && j.RunTime == 0 // "runtime":0 is a known 0 s; no "runtime", unknown
	if j.Deadline, err = seconds(v.Deadline, "deadline"); err != nil {
		return Job{}, err
	}
	if v.App != nil {
		j.App = App{Name: v.App.Name, Params: []Param(v.App.Params)}
	}
	for _, raw := range v.Tasks {
		t, err := decodeJob(raw)
		if err != nil {
			return Job{}, fmt.Errorf("task of %s: %v", j.ID, err)
		}
		j.Tasks = append(j.Tasks, t)
	}
	return j, nil
}

// asciiSpace is the white space around a job line; a line of nothing else
// is blank, skipped by Reader and not counted as a job by DigestJobs.
const asciiSpace = " \t\r\v\f"

// Reader streams jobs from workload.jsonl.
type Reader struct {
	name string
	sc   *bufio.Scanner
	line int
}

// NewReader reads jobs from r; name is used in error messages ("name:line: …").
func NewReader(r io.Reader, name string) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLineBytes)
	return &Reader{name: name, sc: sc}
}

// Next returns the next job, or io.EOF after the last one. Errors carry the
// file name and line number.
func (r *Reader) Next() (Job, error) {
	for r.sc.Scan() {
		r.line++
		line := bytes.Trim(r.sc.Bytes(), asciiSpace)
		if len(line) == 0 {
			continue
		}
		j, err := ParseJob(line)
		if err != nil {
			return Job{}, srcerr.Errorf(srcerr.Pos{File: r.name, Line: r.line}, "%v", err)
		}
		return j, nil
	}
	if err := r.sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return Job{}, srcerr.Errorf(srcerr.Pos{File: r.name, Line: r.line + 1}, "a line longer than %d MiB", MaxLineBytes>>20)
	} else if err != nil {
		return Job{}, srcerr.Errorf(srcerr.Pos{File: r.name, Line: r.line + 1}, "%v", err)
	}
	return Job{}, io.EOF
}

// appendFiles appends `,"key":[{"name":…,"size":…},…]` when files are
// given.
func appendFiles(b []byte, key string, files []File) []byte {
	if len(files) == 0 {
		return b
	}
	b = append(b, `,"`+key+`":[`...)
	for i, f := range files {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, f.Name)
		b = append(b, `,"size":`...)
		b = decimal.AppendInt(b, f.Size)
		b = append(b, '}')
	}
	return append(b, ']')
}
