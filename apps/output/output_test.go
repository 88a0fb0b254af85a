package output

import (
	"bytes"
	"strings"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	r := NewRecord("counter").Str("app", "lunar").Int("rank", 3).Float("t", 1.5).
		Int("app.states_explored", 12345).Str("note", "a b=c")
	line := r.Line()
	want := "gmark-counter v1 app=lunar rank=3 t=1.500000 app.states_explored=12345 note=a_b_c"
	if line != want {
		t.Fatalf("line %q, want %q", line, want)
	}
	p, ok, err := ParseRecord(line)
	if !ok || err != nil || p.Kind != "counter" || p.Version != 1 {
		t.Fatalf("%+v %v %v", p, ok, err)
	}
	if n, _ := p.Int("app.states_explored"); n != 12345 {
		t.Errorf("states %d", n)
	}
	if f, _ := p.Float("t"); f != 1.5 {
		t.Errorf("t %v", f)
	}
	if strings.Join(p.Keys, ",") != "app,rank,t,app.states_explored,note" {
		t.Errorf("keys %v", p.Keys)
	}
	for _, notRecord := range []string{`{"v":1}`, "hello", ""} {
		if _, ok, err := ParseRecord(notRecord); ok || err != nil {
			t.Errorf("%q: %v %v", notRecord, ok, err)
		}
	}
	for _, bad := range []string{"gmark-step", "gmark-step vx", "gmark-step v1 novalue"} {
		if _, _, err := ParseRecord(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestSummaryIsLastAndOrdered(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write(NewRecord("step").Int("step", 1))
	s := NewSummary("sser").Set("rank", 0).Set("checksum", 1.25)
	s.Set("ok", false)
	if err := w.WriteSummary(s); err != nil {
		t.Fatal(err)
	}
	w.Write(NewRecord("step").Int("step", 2)) // dropped: the summary is last
	if err := w.WriteSummary(s); err == nil {
		t.Error("a second summary was accepted")
	}
	want := "gmark-step v1 step=1\n" + `{"v":1,"app":"sser","ok":false,"rank":0,"checksum":1.25}` + "\n"
	if b.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", b.String(), want)
	}
	m, err := ParseSummary(b.Bytes())
	if err != nil || m["app"] != "sser" || m["ok"] != false {
		t.Fatalf("%v %v", m, err)
	}
	if _, err := ParseSummary([]byte("gmark-step v1 step=1\n")); err == nil {
		t.Error("no error without a summary")
	}
}
