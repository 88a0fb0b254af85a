package koalatarget

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzCoreRecord: koala.json, as a crash, a full disk or a hand leaves it.
// A record read names a pid a process can have and an offset in a log, and
// writes back to itself; an error names the file. Whatever the record's
// offset, the log's tail is told without a panic (a negative offset made
// logTail panic).
func FuzzCoreRecord(f *testing.F) {
	for _, s := range []string{`{"pid":1234,"log_offset":0}`, `{"pid":1234,"log_offset":-5}`, `{"pid":0}`, `{"pid":99999999}`,
		`{"pid":7,"log_offset":1} x`, `{"pid":7,"port":1}`, `{"pid":`, ``} {
		f.Add([]byte(s), []byte("gmark koala: serving http://127.0.0.1:5/v1/\n"), int64(-5))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b, log []byte, offset int64) {
		rec, err := parseCoreRecord(b)
		switch {
		case err != nil && (!strings.HasPrefix(err.Error(), CoreRecord+": ") || rec != coreRecord{}):
			t.Fatalf("%q: %v, %+v", b, err, rec)
		case err == nil && (rec.Pid <= 1 || rec.LogOffset < 0):
			t.Fatalf("%q: accepted %+v", b, rec)
		case err == nil:
			out, _ := json.Marshal(rec)
			if back, err := parseCoreRecord(out); err != nil || !reflect.DeepEqual(back, rec) {
				t.Fatalf("%q: %+v writes as %s, reads back as %+v %v", b, rec, out, back, err)
			}
		}
		path := filepath.Join(dir, CoreLog)
		if err := os.WriteFile(path, log, 0o644); err != nil {
			t.Fatal(err)
		}
		if tail := logTail(path, offset); tail == "" || len(tail) > 2000 {
			t.Fatalf("log tail %q", tail)
		}
		if ep := servingIn(path, offset); ep != "" && !strings.HasPrefix(ep, "http://") {
			t.Fatalf("serving at %q", ep)
		}
	})
}
