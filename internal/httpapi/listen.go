package httpapi

import (
	"fmt"
	"net"
	"strconv"
)

// CheckListen checks that addr is an address a server can listen on,
// HOST:PORT with a port from 0 to 65535, before the server writes its
// state: a bad --listen is bad usage, found first.
func CheckListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %v (write HOST:PORT, e.g. 127.0.0.1:7070)", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--listen %q: the port must be a number from 0 to 65535", addr)
	}
	return nil
}
