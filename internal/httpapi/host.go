package httpapi

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// HostCheck passes on the requests whose Host names the server in a way no
// other site's page can: localhost, an IP address, or one of names (the
// host name the server listens on, when it was given one), and every
// request that carries the token. Others get 403: a page of another site
// whose name was rebound to this machine's address (DNS rebinding) sends
// its own name as Host, and the browser would let it read the answers.
func HostCheck(token string, names []string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, names) && !hasToken(r, token) {
			w.Header().Set("Connection", "close")
			Fail(w, http.StatusForbidden, "Host %q: this server answers a request without its token only under localhost or an IP address "+
				"(a page of another site can be given this machine's address under its own name)", r.Host)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// hostAllowed tells whether host (HOST or HOST:PORT) is localhost, an IP
// address or one of names.
func hostAllowed(host string, names []string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil {
		return true
	}
	for _, n := range names {
		if strings.EqualFold(host, n) {
			return true
		}
	}
	return false
}

// hasToken tells whether r carries token as its bearer token.
func hasToken(r *http.Request, token string) bool {
	got, ok := BearerToken(r.Header.Get("Authorization"))
	return ok && token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// ListenNames are the names HostCheck allows besides localhost and IP
// addresses for a server listening on addr (HOST:PORT): HOST, when it is a
// name.
func ListenNames(addr string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || net.ParseIP(host) != nil {
		return nil
	}
	return []string{host}
}
