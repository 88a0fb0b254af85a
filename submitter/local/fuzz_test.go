package local

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzStartRecord: a job directory's start record, as a crash, a full
// disk or a hand leaves it. A record read has a start after 1970 and pids
// a process can have, and writes back to itself; anything else is an
// error (and the adopting process completes the record again).
func FuzzStartRecord(f *testing.F) {
	for _, s := range []string{`{"start_ns":1700000000000000000,"pids":[123,124]}`, `{"start_ns":-5,"pids":[0,-1]}`,
		`{"start_ns":1}`, `{"start_ns":17`, `{"start_ns":1,"pids":[1]}`, `{"start_ns":1} {}`, `{"start_ns":1,"x":2}`, ``, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := parseStart(b)
		if err != nil {
			if !reflect.DeepEqual(rec, startRecord{}) {
				t.Fatalf("%q: %v with %+v", b, err, rec)
			}
			return
		}
		if rec.StartNS <= 0 {
			t.Fatalf("%q: start %d", b, rec.StartNS)
		}
		for _, p := range rec.Pids {
			if p <= 1 || p > maxPid {
				t.Fatalf("%q: pid %d", b, p)
			}
		}
		out, _ := json.Marshal(rec)
		if back, err := parseStart(out); err != nil || !reflect.DeepEqual(back, rec) {
			t.Fatalf("%q: %+v writes as %s, read back as %+v %v", b, rec, out, back, err)
		}
	})
}

// FuzzAdoptedOutcome: the output an adopted job's process left, read on
// --resume. The job succeeded only when its output ends with a JSON
// summary line saying "ok": true; a failure names the output file.
func FuzzAdoptedOutcome(f *testing.F) {
	for _, s := range []string{"gmark-step v1 t=1\n{\"v\":1,\"app\":\"sser\",\"ok\":true}\n", "{\"ok\":false,\"error\":\"walltime\"}",
		"{\"ok\":true}\n\n  \n", "{\"ok\":\"yes\"}\n", "{\"ok\":true} x\n", "", "{\"ok\":true}\r\n{", strings.Repeat("x", 70<<10) + "\n{\"ok\":true}"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, out []byte) {
		if err := os.WriteFile(filepath.Join(dir, "r0.out"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		_, exit, failed := adoptedOutcome(&job{dir: dir})
		if exit != nil {
			t.Fatalf("%q: an exit status %d for an adopted process", out, *exit)
		}
		last := ""
		for _, l := range strings.Split(string(out), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				last = l
			}
		}
		var m struct {
			OK *bool `json:"ok"`
		}
		okLine := json.Unmarshal([]byte(last), &m) == nil && m.OK != nil && *m.OK && strings.HasPrefix(last, "{")
		if (failed == "") != okLine {
			t.Fatalf("%q: failed %q, but its last line says ok: %v", out, failed, okLine)
		}
		if failed != "" && !strings.HasPrefix(failed, "r0.out: ") {
			t.Fatalf("%q: %q does not name the output", out, failed)
		}
	})
}
