package procexec

import (
	"reflect"
	"regexp"
	"testing"
)

var startedErr = regexp.MustCompile(`^rec:[0-9]+: `)

// A record Cleanup reads: an error names the record and its line; an
// accepted record writes back to the same processes.
func FuzzParseStarted(f *testing.F) {
	f.Add([]byte(startedHeader + "0b5c-77\n123 456\n124 456\n"))
	f.Add([]byte(startedHeader + "b\n"))
	f.Add([]byte(startedHeader + "b\n+1 2\n"))
	f.Add([]byte("123\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseStarted("rec", b)
		if err != nil {
			if !startedErr.MatchString(err.Error()) {
				t.Fatalf("error %q does not locate its line", err)
			}
			return
		}
		again, err := parseStarted("rec", []byte(s.String()))
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("%+v written as %q reads back as %+v, %v", s, s.String(), again, err)
		}
		for _, p := range s.procs {
			if p.pid <= 1 || p.start == 0 {
				t.Fatalf("accepted %+v", p)
			}
		}
	})
}

// /proc/PID/stat lines: never a panic, a start time only from a line with
// its fields.
func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("123 (a b) c) S 1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 200"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := parseProcStat(b); (err == nil) != (n > 0) {
			t.Fatalf("%d, %v", n, err)
		}
	})
}
