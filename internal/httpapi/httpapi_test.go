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

// A server's token: the given file's, else the state's; a missing or
// empty file is an error.
func TestServeToken(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.db")
	own := filepath.Join(dir, "own.token")
	if err := os.WriteFile(own, []byte("  secret \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tok, file, err := ServeToken(state, own)
	if err != nil || tok != "secret" || file != own {
		t.Errorf("given file: %q %q %v", tok, file, err)
	}
	tok, file, err = ServeToken(state, "")
	if err != nil || len(tok) != 32 || file != state+".token" {
		t.Errorf("state's: %q %q %v", tok, file, err)
	}
	for _, f := range []string{filepath.Join(dir, "missing"), empty} {
		if tok, _, err := ServeToken(state, f); err == nil {
			t.Errorf("%s: token %q", f, tok)
		}
	}
}

func TestHostAllowed(t *testing.T) {
	names := ListenNames("grid-head:7070")
	if len(names) != 1 || names[0] != "grid-head" {
		t.Fatalf("ListenNames: %v", names)
	}
	for _, addr := range []string{"127.0.0.1:7070", "[::1]:7070", "0.0.0.0:7070", ":7070", "nonsense"} {
		if n := ListenNames(addr); n != nil {
			t.Errorf("ListenNames(%q) = %v, want none", addr, n)
		}
	}
	for host, want := range map[string]bool{
		"127.0.0.1:7070": true, "127.0.0.1": true, "[::1]:7070": true, "::1": true, "localhost": true, "LOCALHOST:1": true,
		"192.0.2.7:80": true, "grid-head:7070": true, "Grid-Head": true,
		"": false, ":7070": false, "evil.example:7070": false, "localhost.evil.example": false, "grid-head.evil.example": false,
		"127.0.0.1.evil.example": false, "[evil]:1": false,
	} {
		if got := hostAllowed(host, names); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestStreamCap(t *testing.T) {
	for _, c := range []struct{ conns, streams, want int }{{512, 64, 64}, {8, 64, 4}, {2, 64, 1}, {1, 64, 1}, {4096, 64, 64}} {
		if got := (Limits{MaxConns: c.conns, MaxStreams: c.streams}).StreamCap(); got != c.want {
			t.Errorf("%d connections, %d streams: cap %d, want %d", c.conns, c.streams, got, c.want)
		}
	}
}
