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
