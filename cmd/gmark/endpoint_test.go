package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A token in --endpoint's query or fragment is refused as user:password@
// is (exit 2), and shown nowhere: not in the message, not in the store.
func TestEndpointSecretsRefused(t *testing.T) {
	dir := t.TempDir()
	wl := genWorkload(t, dir, "1\tunitary\t2\thello\tsingle\t1\t*:1\tC(1s)\n")
	db := filepath.Join(dir, "results.db")
	for _, ep := range []string{"http://127.0.0.1:1/?token=s3cret", "http://127.0.0.1:1?s3cret", "http://127.0.0.1:1/#s3cret",
		"http://127.0.0.1:1/x?a=1&token=s3cret#s3cret"} {
		for _, args := range [][]string{
			{"submit", wl, "--db", db, "--target", "koala", "--endpoint", ep, "--token", "t", "-q"},
			{"koala", "jobs", "--endpoint", ep},
		} {
			stdout, stderr, code := run(t, dir, args...)
			if code != 2 || !strings.Contains(stderr, "carries a query or a fragment") || strings.Contains(stdout+stderr, "s3cret") {
				t.Errorf("gmark %s %s: exit %d:\n%s%s", args[0], ep, code, stdout, stderr)
			}
		}
	}
	// Nothing of it reached the store (or its journal).
	files, _ := filepath.Glob(db + "*")
	for _, f := range files {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte("s3cret")) {
			t.Errorf("%s holds the secret", f)
		}
	}
}
