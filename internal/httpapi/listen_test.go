package httpapi

import "testing"

func TestCheckListen(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:7070": true, "localhost:0": true, "[::1]:65535": true,
		"127.0.0.1:99999": false, "127.0.0.1:-1": false, "127.0.0.1:http": false, "127.0.0.1": false, "": false,
	} {
		if err := CheckListen(addr); (err == nil) != ok {
			t.Errorf("CheckListen(%q) = %v, want ok %v", addr, err, ok)
		}
	}
}
