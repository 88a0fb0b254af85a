package httpapi

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
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

// EndpointError is CheckEndpoint's: bad input.
type EndpointError struct{ msg string }

func (e *EndpointError) Error() string { return e.msg }

// ExitCode is 2: a command line that asks its errors for an exit code
// (urfave/cli's ExitCoder) reports bad input.
func (e *EndpointError) ExitCode() int { return 2 }

// CheckEndpoint checks the URL of a server's API given from outside (an
// --endpoint): http or https with a host, and nothing secret in it, as it
// is printed in messages and recorded with a run — no user:password@, no
// query, no fragment (a token there would be shown to whoever reads them).
// what names the server in the messages; no message repeats a secret. Its
// error is an *EndpointError.
func CheckEndpoint(what, raw string) error {
	bad := func(format string, args ...any) error { return &EndpointError{fmt.Sprintf(format, args...)} }
	u, err := url.Parse(raw)
	if err != nil {
		return bad("the %s endpoint is not a URL", what)
	}
	shown := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("%s endpoint %q is not an http:// URL", what, shown)
	}
	if u.User != nil {
		return bad("%s endpoint %s carries credentials: give the token in a file (--token-file) or the environment",
			what, (&url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host, Path: u.Path}).Redacted())
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.RawFragment != "" {
		return bad("%s endpoint %s carries a query or a fragment (?…, #…), which would be printed and recorded with the run: "+
			"give the endpoint as http://HOST:PORT, and the token in a file (--token-file) or the environment", what, shown)
	}
	return nil
}
