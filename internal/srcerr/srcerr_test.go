package srcerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestPositions(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{Errorf(Pos{File: "a.wdl", Line: 3, Col: 7}, "bad %s", "x"), "a.wdl:3:7: bad x"},
		{Errorf(Pos{File: "a.swf", Line: 12}, "field 4: not a number"), "a.swf:12: field 4: not a number"},
		{Errorf(Pos{File: "a.swf"}, "not a trace"), "a.swf: not a trace"},
		// Columns count characters: "é" is two bytes, one column.
		{Errorf(At("j.jdf", 2, "(éxecutable=x)", 3), "here"), "j.jdf:2:3: here"},
		{Errorf(At("j.jdf", 1, "abc", 99), "past the end"), "j.jdf:1:4: past the end"},
		{Errorf(At("j.jdf", 1, "abc", -5), "before the start"), "j.jdf:1:1: before the start"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
		var e *Error
		if !errors.As(fmt.Errorf("wrapped: %w", tc.err), &e) {
			t.Errorf("%v is not an *Error through wrapping", tc.err)
		}
	}
}

func TestListSortsAndJoins(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("an empty list is an error")
	}
	l = append(l, Errorf(Pos{File: "b", Line: 1, Col: 1}, "3"), Errorf(Pos{File: "a", Line: 2, Col: 5}, "2"), Errorf(Pos{File: "a", Line: 2, Col: 1}, "1"))
	if got, want := l.Err().Error(), "a:2:1: 1\na:2:5: 2\nb:1:1: 3"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

// A JSON decoding error is placed at its line and column: a syntax error
// at the byte that broke it, a wrong type at the end of its value.
func TestJSONPositions(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"{\n  \"a\": 1,\n  \"b\": x\n}", "m.json:3:8: invalid character 'x' looking for beginning of value"},
		{"{\"é\": 1 2}", "m.json:1:9: invalid character '2' after object key:value pair"},
		{"{\n\"n\": \"text\"}", "m.json:2:12: json: cannot unmarshal string into Go struct field .n of type int"},
		{"", "m.json:1:1: unexpected end of JSON input"},
	}
	for _, tc := range tests {
		var v struct {
			N int `json:"n"`
		}
		err := json.Unmarshal([]byte(tc.src), &v)
		if got := JSON("m.json", []byte(tc.src), err).Error(); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
}
