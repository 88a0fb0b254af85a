package gramcli

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// What a component's script writes on standard error, among the
// application's own lines, and what is made of odd ones.
func TestReadReport(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text     string
		started, ended int64
		status         int // -1: none
	}{
		{"ended", "gmark-job v1 started=1700000000\nsmpi: rank 0\ngmark-job v1 status=3 ended=1700000009\n", 1700000000, 1700000009, 3},
		{"running", "gmark-job v1 started=1700000000\n", 1700000000, 0, -1},
		{"empty", "", 0, 0, -1},
		{"garbage", "gmark-job v1 status=x ended=-4 started=\ngmark-job v2 status=0\n", 0, 0, -1},
		{"status out of range", "gmark-job v1 status=999\n", 0, 0, -1},
		{"a line of its own", "xgmark-job v1 status=0\n", 0, 0, -1},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := ReadReport(p)
		if got := r.Started.Unix(); (c.started == 0) != r.Started.IsZero() || c.started != 0 && got != c.started {
			t.Errorf("%s: started %v", c.name, r.Started)
		}
		if got := r.Ended.Unix(); (c.ended == 0) != r.Ended.IsZero() || c.ended != 0 && got != c.ended {
			t.Errorf("%s: ended %v", c.name, r.Ended)
		}
		if (c.status < 0) != (r.Status == nil) || r.Status != nil && *r.Status != c.status {
			t.Errorf("%s: status %v", c.name, r.Status)
		}
	}
	if r := ReadReport(filepath.Join(dir, "none")); r.Status != nil || !r.Started.IsZero() {
		t.Errorf("a missing file: %+v", r)
	}
}

func TestParseContact(t *testing.T) {
	out := "globus_gram_client_callback_allow successful\nGRAM Job submission successful\nhttps://localhost:40235/16963/1701476/\nGLOBUS_GRAM_PROTOCOL_JOB_STATE_PENDING\n"
	if got := ParseContact([]byte(out)); got != "https://localhost:40235/16963/1701476/" {
		t.Errorf("%q", got)
	}
	if got := ParseContact([]byte("GRAM Job submission failed because the connection to the server failed (error code 12)")); got != "" {
		t.Errorf("%q", got)
	}
}

// FuzzReadReport: any standard error is a report, never a panic.
func FuzzReadReport(f *testing.F) {
	f.Add([]byte("gmark-job v1 started=1700000000\ngmark-job v1 status=0 ended=1700000001\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "err")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := ReadReport(p)
		if r.Status != nil && (*r.Status < 0 || *r.Status > 255) || r.Started.Before(time.Unix(0, 0)) {
			t.Fatalf("%+v", r)
		}
	})
}
