// Package output writes and reads what the synthetic applications print on
// standard output, in the formats docs/apps.md documents for the analyzer:
//
//   - record lines, one per event, "gmark-KIND v1 key=value key=value ...":
//     KIND is step (one per superstep), counter (application- and
//     service-level counters) or hello; keys are [a-z0-9_.]+; values contain
//     no spaces and no '='.
//   - exactly one summary line, the last line of the output: a JSON object
//     whose first keys are "v":1, "app" and "ok".
//
// Versioning: a reader accepts the versions it knows and skips lines of any
// other version, so a new format is a new version, never a change to v1.
package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Version is the version of the record and summary formats written here.
const Version = 1

// Writer writes record lines and the summary to one stream, a line at a
// time, from any goroutine. After the summary it writes nothing more, so the
// summary stays the last line.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	done bool
	err  error
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Record is one record line being built: kind and ordered fields.
type Record struct {
	kind string
	b    []byte
}

// NewRecord starts a record line of the given kind ("step", "counter").
func NewRecord(kind string) *Record {
	r := &Record{kind: kind}
	r.b = append(r.b, "gmark-"...)
	r.b = append(r.b, kind...)
	r.b = append(r.b, " v"...)
	r.b = strconv.AppendInt(r.b, Version, 10)
	return r
}

// Str adds key=value; spaces and '=' in value are replaced by '_' so the
// line stays parseable.
func (r *Record) Str(key, value string) *Record {
	r.key(key)
	if value == "" {
		value = "-"
	}
	r.b = append(r.b, strings.Map(func(c rune) rune {
		if c == ' ' || c == '=' || c == '\t' || c == '\n' || c == '\r' {
			return '_'
		}
		return c
	}, value)...)
	return r
}

// Int adds key=integer.
func (r *Record) Int(key string, v int64) *Record {
	r.key(key)
	r.b = strconv.AppendInt(r.b, v, 10)
	return r
}

// Float adds key=number with up to 6 decimals (seconds to the microsecond).
func (r *Record) Float(key string, v float64) *Record {
	r.key(key)
	r.b = strconv.AppendFloat(r.b, v, 'f', 6, 64)
	return r
}

func (r *Record) key(k string) {
	r.b = append(r.b, ' ')
	r.b = append(r.b, k...)
	r.b = append(r.b, '=')
}

// Line is the record's text, without the newline.
func (r *Record) Line() string { return string(r.b) }

// Write writes a record line. It is dropped once the summary is written.
func (w *Writer) Write(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	return w.write(append(r.b, '\n'))
}

// Println writes a free-form line (hello's greeting). Free-form lines must
// not start with "gmark-" or "{".
func (w *Writer) Println(s string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	return w.write([]byte(s + "\n"))
}

func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	_, w.err = w.w.Write(b)
	return w.err
}

// Summary is the final JSON line, built in order: "v", "app", "ok", then
// whatever fields are added, in the order added.
type Summary struct {
	keys   []string
	values map[string]any
}

// NewSummary starts the summary of app.
func NewSummary(app string) *Summary {
	s := &Summary{values: map[string]any{}}
	s.Set("v", Version)
	s.Set("app", app)
	s.Set("ok", true)
	return s
}

// Set sets a field; a field set again keeps its first position. Floats that
// are not finite are written as null (JSON has no NaN).
func (s *Summary) Set(key string, v any) *Summary {
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		v = nil
	}
	if _, ok := s.values[key]; !ok {
		s.keys = append(s.keys, key)
	}
	s.values[key] = v
	return s
}

// Get returns a field.
func (s *Summary) Get(key string) any { return s.values[key] }

// MarshalJSON writes the fields in order.
func (s *Summary) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range s.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(s.values[k])
		if err != nil {
			return nil, fmt.Errorf("summary field %s: %w", k, err)
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// WriteSummary writes the summary line; nothing is written after it.
func (w *Writer) WriteSummary(s *Summary) error {
	b, err := s.MarshalJSON()
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errors.New("summary already written")
	}
	w.done = true
	return w.write(append(b, '\n'))
}

// ParsedRecord is a record line read back.
type ParsedRecord struct {
	Kind    string
	Version int
	Keys    []string // in line order
	Fields  map[string]string
}

// Int reads an integer field.
func (p ParsedRecord) Int(key string) (int64, error) {
	return strconv.ParseInt(p.Fields[key], 10, 64)
}

// Float reads a numeric field.
func (p ParsedRecord) Float(key string) (float64, error) {
	return strconv.ParseFloat(p.Fields[key], 64)
}

// ParseRecord reads a record line. ok is false for lines that are not
// records (the summary, free-form lines); err is set for a line that starts
// like a record but is malformed.
func ParseRecord(line string) (rec ParsedRecord, ok bool, err error) {
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, "gmark-") {
		return rec, false, nil
	}
	words := strings.Split(line, " ")
	rec.Kind = strings.TrimPrefix(words[0], "gmark-")
	if rec.Kind == "" || len(words) < 2 || !strings.HasPrefix(words[1], "v") {
		return rec, false, fmt.Errorf("malformed record line %q", line)
	}
	v, err := strconv.Atoi(words[1][1:])
	if err != nil {
		return rec, false, fmt.Errorf("malformed record version in %q", line)
	}
	rec.Version = v
	rec.Fields = make(map[string]string, len(words)-2)
	for _, w := range words[2:] {
		k, val, found := strings.Cut(w, "=")
		if !found || k == "" {
			return rec, false, fmt.Errorf("malformed field %q in %q", w, line)
		}
		rec.Keys = append(rec.Keys, k)
		rec.Fields[k] = val
	}
	return rec, true, nil
}

// ParseSummary reads the summary: the last non-empty line of out, which must
// be a JSON object with "v" and "app". Numbers are float64, as in
// encoding/json.
func ParseSummary(out []byte) (map[string]any, error) {
	out = bytes.TrimRight(out, "\r\n\t ")
	i := bytes.LastIndexByte(out, '\n')
	last := out[i+1:]
	if len(last) == 0 || last[0] != '{' {
		return nil, errors.New("no summary: the last line of the output is not a JSON object")
	}
	var m map[string]any
	if err := json.Unmarshal(last, &m); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	if _, ok := m["v"]; !ok {
		return nil, errors.New("summary has no version field \"v\"")
	}
	if _, ok := m["app"]; !ok {
		return nil, errors.New("summary has no \"app\" field")
	}
	return m, nil
}
