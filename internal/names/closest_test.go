package names

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	flags := []string{"seed", "output", "format", "force", "quiet", "speedup", "scenario", "db", "target", "targets"}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"seeed", []string{"seed"}},    // an insertion
		{"sede", []string{"seed"}},     // a swap of neighbours
		{"fromat", []string{"format"}}, // a swap
		{"Quiet", []string{"quiet"}},   // case
		{"target", []string{"target"}}, // itself
		{"tagret", []string{"target"}}, // a swap, not targets (two edits)
		{"out", []string{"output"}},    // a prefix, nothing as close
		{"colour", nil},                // nothing near
		{"x", nil},                     // one letter: no guess
		{"", nil},                      // nothing given
		{"forc", []string{"force"}},    // a deletion
		{"fore", []string{"force"}},    // force at 1, format at 3
	} {
		if got := Closest(c.name, flags); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	// Ties are all given, sorted, at most three.
	if got := Closest("ab", []string{"ac", "ad", "ae", "af", "ab2"}); !slices.Equal(got, []string{"ab2", "ac", "ad"}) {
		t.Errorf("ties: %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}, {"héllo", "hello", 1}} {
		if got := distance(c.a, c.b); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := distance(c.b, c.a); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d (not symmetric)", c.b, c.a, got, c.d)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 units", 1: "1 unit", 2: "2 units", 1000: "1000 units"} {
		if got := Count(n, "unit"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
