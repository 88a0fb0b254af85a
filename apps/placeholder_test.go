package apps

import (
	"context"
	"io"
	"testing"
)

// The placeholder application needs its agent's configuration; a bad
// --submitted is refused like any bad flag.
func TestPlaceholderUsage(t *testing.T) {
	for _, args := range [][]string{
		{"placeholder"},
		{"placeholder", "--config", ""},
		{"placeholder", "--config", "a.json", "--submitted", "-1"},
		{"placeholder", "--config", "a.json", "--submitted", "soon"},
	} {
		err := Main(context.Background(), args, io.Discard, io.Discard, func(string) string { return "" })
		if ExitCode(err) != 2 {
			t.Errorf("%q: %v (exit %d); want a usage error", args, err, ExitCode(err))
		}
	}
}
