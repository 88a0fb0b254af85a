package output

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
)

// docKey makes s a key of the documented alphabet, [a-z0-9_.]+.
func docKey(s string) string {
	k := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' {
			return r
		}
		return -1
	}, strings.ToLower(s))
	if k == "" {
		return "k"
	}
	return k
}

// FuzzRecord: a record line written with any values reads back with the
// same kind, keys in order and values (a value's blanks and '=' made '_',
// an empty one '-', as Str documents); any line is read without a panic,
// and a line read as a record has keys that are not empty.
func FuzzRecord(f *testing.F) {
	f.Add("step", "app", "sser", int64(3), 1.25, "gmark-step v1 app=sser rank=0 t=0.5")
	f.Add("counter", "name", "a b=c\td", int64(-1), math.Inf(1), "gmark-x v2")
	f.Add("hello", "x.y", "", int64(math.MaxInt64), math.NaN(), "gmark- v1 =a")
	f.Add("k", "v", "\xff\r\n", int64(0), -0.0, `{"v":1}`)
	f.Fuzz(func(t *testing.T, kind, key, value string, n int64, x float64, line string) {
		kind, key = docKey(kind), docKey(key)
		r := NewRecord(kind).Str(key, value).Int(key+"_n", n).Float(key+"_x", x)
		got, ok, err := ParseRecord(r.Line())
		if !ok || err != nil {
			t.Fatalf("%q: ok %v, %v", r.Line(), ok, err)
		}
		want := strings.Map(func(c rune) rune {
			if c == ' ' || c == '=' || c == '\t' || c == '\n' || c == '\r' {
				return '_'
			}
			return c
		}, value)
		if value == "" {
			want = "-"
		}
		if got.Kind != kind || got.Version != Version || strings.Join(got.Keys, " ") != key+" "+key+"_n "+key+"_x" || got.Fields[key] != want {
			t.Fatalf("%q read back as %+v, want %s=%q", r.Line(), got, key, want)
		}
		if v, err := got.Int(key + "_n"); err != nil || v != n {
			t.Fatalf("%q: int %d %v, want %d", r.Line(), v, err, n)
		}
		if v, err := got.Float(key + "_x"); err != nil || !(v == x || math.IsNaN(x) && math.IsNaN(v) || math.Abs(v-x) <= 5e-7) {
			t.Fatalf("%q: float %v %v, want %v", r.Line(), v, err, x)
		}

		rec, ok, err := ParseRecord(line)
		switch {
		case ok && err != nil:
			t.Fatalf("%q: a record with an error: %v", line, err)
		case !ok && err == nil && rec.Kind != "" && rec.Fields != nil:
			t.Fatalf("%q: not a record, yet read as %+v", line, rec)
		case err != nil && !strings.Contains(err.Error(), strconv.Quote(strings.TrimRight(line, "\r\n"))):
			t.Fatalf("%q: error %q does not quote the line", line, err)
		case ok:
			if rec.Kind == "" || strings.ContainsAny(rec.Kind, " ") {
				t.Fatalf("%q: kind %q", line, rec.Kind)
			}
			for _, k := range rec.Keys {
				if _, has := rec.Fields[k]; k == "" || !has {
					t.Fatalf("%q: key %q", line, k)
				}
			}
		}
	})
}

// FuzzSummary: a summary written with any text and numbers is the last
// line of the output and reads back with the same fields (text made valid
// UTF-8, as encoding/json writes it; a float that is not finite null);
// any output is read without a panic, and what is read has "v" and "app".
func FuzzSummary(f *testing.F) {
	f.Add("sser", "error", "walltime\n{", 2.5, []byte("gmark-step v1 a=1\n{\"v\":1,\"app\":\"x\",\"ok\":true}\n"))
	f.Add("\xff", "x", "", math.NaN(), []byte("{\"v\":1}"))
	f.Add("", "app", "a\u2028b", 1e308, []byte("\n\n{\"app\":1,\"v\":\"2\"}\r\n"))
	f.Fuzz(func(t *testing.T, app, key, text string, x float64, out []byte) {
		var b bytes.Buffer
		w := NewWriter(&b)
		_ = w.Write(NewRecord("step").Str("app", app))
		key = "f_" + docKey(key)
		s := NewSummary(app).Set(key, text).Set(key+"_x", x)
		if err := w.WriteSummary(s); err != nil {
			t.Fatal(err)
		}
		m, err := ParseSummary(b.Bytes())
		if err != nil {
			t.Fatalf("%q: %v", b.String(), err)
		}
		valid := func(s string) string { return string([]rune(s)) }
		var wantX any = x
		if math.IsNaN(x) || math.IsInf(x, 0) {
			wantX = nil
		}
		if m["app"] != valid(app) || m[key] != valid(text) || m[key+"_x"] != wantX || m["v"] != float64(Version) || m["ok"] != true {
			t.Fatalf("%q read back as %v", b.String(), m)
		}

		if m, err := ParseSummary(out); err == nil {
			if _, ok := m["v"]; !ok {
				t.Fatalf("%q: no v in %v", out, m)
			}
			if _, ok := m["app"]; !ok {
				t.Fatalf("%q: no app in %v", out, m)
			}
		} else if !strings.Contains(err.Error(), "summary") {
			t.Fatalf("%q: error %q does not say it is about the summary", out, err)
		}
	})
}
