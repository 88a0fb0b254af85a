package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Null is a number that the JSON form writes as null: NaN or infinite in
// gmark (an undefined metric), which JSON cannot carry.
type Null struct {
	Path   string `json:"path"`   // where, in JSON names: runs[0].metrics.utilization
	Reason string `json:"reason"` // why it is undefined
}

// NullReasoner is implemented by the types that know why some of their
// numbers are undefined (see docs/metrics.md). NullReason gets the JSON
// name of a field that is NaN or infinite and says why, or "" when it does
// not know; given "", it says why every number of the value is undefined
// (a summary of no values), or "".
type NullReasoner interface {
	NullReason(field string) string
}

// MarshalJSON encodes v, indented, with every NaN and infinite number as
// null; when v encodes as an object and has such numbers, a member "nulls"
// lists each (or the struct holding only such numbers) with the reason.
// encoding/json refuses NaN and infinities. v is not changed. Numbers in
// maps and in the promoted fields of unexported embedded structs cannot be
// replaced (the report has none): such a NaN is an error, never written.
func MarshalJSON(v any) ([]byte, error) {
	root := reflect.ValueOf(v)
	if root.Kind() != reflect.Pointer || root.IsNil() {
		// A copy that can be set: struct fields passed by value cannot.
		p := reflect.New(root.Type())
		p.Elem().Set(root)
		root = p
	}
	var w nullWalk
	w.walk(root, "", nil, "")
	defer func() { // give v its numbers back
		for _, c := range w.changed {
			c.v.SetFloat(c.old)
		}
	}()
	var b []byte
	// A stand-in number marks the nulls in the encoding. It must not
	// appear there otherwise (as a number of v, or inside a string): the
	// count of its occurrences tells, and another is tried if it does.
	for k := 0; ; k++ {
		stand := -1.234567890123e300 * (1 + float64(k)*1e-6)
		for _, c := range w.changed {
			c.v.SetFloat(stand)
		}
		var err error
		if b, err = json.Marshal(root.Interface()); err != nil {
			return nil, err
		}
		text, _ := json.Marshal(stand)
		if bytes.Count(b, text) == len(w.changed) {
			b = bytes.ReplaceAll(b, text, []byte("null"))
			break
		}
	}
	if len(w.nulls) > 0 && len(b) >= 2 && b[0] == '{' {
		nb, err := json.Marshal(w.nulls)
		if err != nil {
			return nil, err
		}
		sep := ","
		if len(b) == 2 { // {}
			sep = ""
		}
		b = append(append(append(b[:len(b)-1:len(b)-1], sep+`"nulls":`...), nb...), '}')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type nullWalk struct {
	changed []struct {
		v   reflect.Value
		old float64
	}
	nulls []Null
}

// walk finds the NaN and infinite numbers of v, at path; why is the
// struct holding v when v is (in) a field of one, named field.
func (w *nullWalk) walk(v reflect.Value, path string, why NullReasoner, field string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), path, why, field)
		}
	case reflect.Struct:
		var r NullReasoner
		if v.CanAddr() && v.Addr().CanInterface() {
			r, _ = v.Addr().Interface().(NullReasoner)
		}
		if r != nil {
			if whole := r.NullReason(""); whole != "" {
				changed, nulls := len(w.changed), len(w.nulls)
				w.fields(v, path, nil)
				if len(w.changed) > changed { // one entry for the struct
					w.nulls = append(w.nulls[:nulls], Null{Path: path, Reason: whole})
				}
				return
			}
		}
		w.fields(v, path, r)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i), why, field)
		}
	case reflect.Float64, reflect.Float32:
		f := v.Float()
		if !math.IsNaN(f) && !math.IsInf(f, 0) || !v.CanSet() {
			return
		}
		w.changed = append(w.changed, struct {
			v   reflect.Value
			old float64
		}{v, f})
		reason := ""
		if why != nil {
			reason = why.NullReason(field)
		}
		if reason == "" {
			reason = "undefined for these data (docs/metrics.md says when each metric is)"
			if math.IsInf(f, 0) {
				reason = "infinite"
			}
		}
		w.nulls = append(w.nulls, Null{Path: path, Reason: strconv.FormatFloat(f, 'g', -1, 64) + ": " + reason})
	}
}

// fields walks the exported, encoded fields of the struct v, by their JSON
// names; embedded structs without a name are flattened, as encoding/json
// does.
func (w *nullWalk) fields(v reflect.Value, path string, r NullReasoner) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			w.walk(v.Field(i), path, r, "")
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := name
		if path != "" {
			p = path + "." + name
		}
		w.walk(v.Field(i), p, r, name)
	}
}
