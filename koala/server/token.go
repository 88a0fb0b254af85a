package server

import "github.com/gmark/gmark/internal/httpapi"

// IsLoopback tells whether a listen address (host:port) is on the loopback
// interface: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(addr string) bool { return httpapi.IsLoopback(addr) }

// StateToken is the token kept beside the state database (STATE.token),
// made on first use; it returns the token and the file.
func StateToken(state string) (token, file string, err error) { return httpapi.StateToken(state) }
