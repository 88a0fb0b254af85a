package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
)

// IsLoopback tells whether a listen address (host:port) is on the loopback
// interface: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// StateToken is the token kept beside the state database (STATE.token),
// made on first use; it returns the token and the file.
func StateToken(state string) (token, file string, err error) {
	file = state + ".token"
	if b, err := os.ReadFile(file); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), file, nil
	}
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		return "", "", err
	}
	token = hex.EncodeToString(buf)
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("writing the token: %v", err)
	}
	return token, file, nil
}

// ReadTokenFile reads a token from a file (--token-file): one word,
// blanks around it ignored. Its errors never show the file's content.
func ReadTokenFile(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(b))
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return "", fmt.Errorf("%s: the file must hold one token (one word)", file)
	}
	return token, nil
}
