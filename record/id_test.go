package record

import (
	"regexp"
	"strings"
	"testing"
)

// A run id from outside names a directory and job names: refused empty,
// too long, with a character a name cannot hold, or beginning with '.' or
// '-'; kept at the bound and with every character a name may hold.
func TestCheckRunID(t *testing.T) {
	for _, id := range []string{"r1", NewRunID(), "a.b_c-d", strings.Repeat("x", MaxRunIDLength)} {
		if err := CheckRunID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", "-r", ".hidden", "a b", "a\x00b", "r\n", "é", strings.Repeat("x", MaxRunIDLength+1)} {
		if err := CheckRunID(id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

// A new run id passes CheckRunID, has its documented shape, and two are
// not the same.
func TestNewRunID(t *testing.T) {
	shape := regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{6}$`)
	a, b := NewRunID(), NewRunID()
	for _, id := range []string{a, b} {
		if !shape.MatchString(id) || CheckRunID(id) != nil {
			t.Errorf("run id %q", id)
		}
	}
	if a == b {
		t.Errorf("two run ids %q", a)
	}
}

// Keys of different attempts, jobs and runs differ.
func TestKey(t *testing.T) {
	if k := Key("r", "1-0", 2); k != "r/1-0/2" {
		t.Fatalf("Key = %q", k)
	}
	seen := map[string]bool{}
	for _, k := range []string{Key("r", "j", 1), Key("r", "j", 2), Key("r", "k", 1), Key("s", "j", 1)} {
		if seen[k] {
			t.Errorf("key %q twice", k)
		}
		seen[k] = true
	}
}

// ParseKey takes Key's keys apart, a job id with '/' in it too, and
// refuses what Key does not make.
func TestParseKey(t *testing.T) {
	for _, c := range []struct {
		run, job string
		attempt  int
	}{{"r", "1-0", 1}, {"20261202T070000Z-abc123", "1-0/3", 12}, {"r", "/", 2}} {
		run, job, attempt, ok := ParseKey(Key(c.run, c.job, c.attempt))
		if !ok || run != c.run || job != c.job || attempt != c.attempt {
			t.Errorf("ParseKey(Key(%q, %q, %d)) = %q %q %d %v", c.run, c.job, c.attempt, run, job, attempt, ok)
		}
	}
	for _, k := range []string{"", "r", "r/1-0", "/1-0/1", "r//1", "r/1-0/", "r/1-0/0", "r/1-0/-1", "r/1-0/01", "r/1-0/x", "r/1-0/+1", "r/1-0/99999999999999999999"} {
		if run, job, attempt, ok := ParseKey(k); ok {
			t.Errorf("ParseKey(%q) = %q %q %d, true", k, run, job, attempt)
		}
	}
}

// ParseKey never panics, and what it accepts Key makes again.
func FuzzParseKey(f *testing.F) {
	for _, k := range []string{"r/1-0/1", "r//1", "//", "a/b/c/7", "r/j/0"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if run, job, attempt, ok := ParseKey(k); ok && Key(run, job, attempt) != k {
			t.Fatalf("ParseKey(%q) = %q %q %d: Key makes %q", k, run, job, attempt, Key(run, job, attempt))
		}
	})
}
