package store

import (
	"os"
	"testing"
)

// TestMain runs the test binary either as the tests or, when the tests start
// it again as a helper process, as that helper.
func TestMain(m *testing.M) {
	if path := os.Getenv(helperDBEnv); path != "" {
		os.Exit(helperOpen(path))
	}
	if path := os.Getenv(unprivilegedEnv); path != "" {
		os.Exit(helperRead(path))
	}
	os.Exit(m.Run())
}
