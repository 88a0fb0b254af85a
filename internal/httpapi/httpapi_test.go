package httpapi

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7070": true, "127.8.9.1:1": true, "[::1]:80": true, "localhost:7070": true,
		"0.0.0.0:7070": false, "10.0.0.1:80": false, "example.org:80": false, "127.0.0.1": false, "": false, ":7070": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// The state's token is made once and read back after.
func TestStateToken(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	tok, file, err := StateToken(state)
	if err != nil || len(tok) != 32 || file != state+".token" {
		t.Fatalf("%q %q %v", tok, file, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	again, _, err := StateToken(state)
	if err != nil || again != tok {
		t.Fatalf("second read %q %v, want %q", again, err, tok)
	}
	if _, _, err := StateToken(filepath.Join(state, "no", "such", "dir")); err == nil {
		t.Error("a token beside a state in a missing directory was written")
	}
}
