// Package httpapi holds what gmark's loopback HTTP APIs share (the bundled
// scheduler's `gmark koala serve` and the metaqueue's `gmark placeholder
// serve`): the loopback check, the token kept beside the state database and
// its bearer check, the Host check, the connection and time limits, and the
// JSON helpers.
package httpapi

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/readlimit"
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
// A STATE.token that is not a regular file (a FIFO, which would block the
// read, /dev/zero) or is larger than a token file is refused, saying it
// is the token.
func StateToken(state string) (token, file string, err error) {
	file = state + ".token"
	b, err := readlimit.File(file, MaxTokenFile)
	switch {
	case err == nil && len(strings.TrimSpace(string(b))) > 0:
		return strings.TrimSpace(string(b)), file, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", "", fmt.Errorf("%w (the server's token, kept beside its state)", err)
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

// ServeToken is a server's token: read from file when one is given, else
// the state's (StateToken). It returns the token's file too.
func ServeToken(state, file string) (token, tokenFile string, err error) {
	if file == "" {
		return StateToken(state)
	}
	token, err = ReadTokenFile(file)
	return token, file, err
}

// MaxTokenFile bounds a token file: it holds one word.
const MaxTokenFile = 4 << 10

// ReadTokenFile reads a file holding one token (one word). It must be a
// regular file of at most MaxTokenFile bytes (readlimit.File).
func ReadTokenFile(file string) (string, error) {
	b, err := readlimit.File(file, MaxTokenFile)
	if err != nil {
		return "", fmt.Errorf("%w (a token file, holding one token)", err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return "", fmt.Errorf("%s: the file must hold one token (one word)", file)
	}
	return token, nil
}

// Limits bound what one client can hold of a server: a slow or idle
// client is cut off; at MaxConns a new connection takes the place of one
// idle or silent for a second (connLimiter), else waits until one is
// freed; event streams are at most MaxStreams, and never more than half of
// MaxConns, so they always leave room for other requests.
type Limits struct {
	ReadHeaderTimeout time.Duration // the request line and headers
	ReadTimeout       time.Duration // the whole request, body included
	WriteTimeout      time.Duration // the answer; on an event stream, each write
	IdleTimeout       time.Duration // a keep-alive connection between requests
	MaxConns          int           // connections served at once
	MaxStreams        int           // event streams served at once (at most MaxConns/2)
	StreamKeepAlive   time.Duration // an idle event stream sends a comment this often, to find dead clients
}

// DefaultLimits are the limits of `gmark koala serve` (docs/koala.md).
var DefaultLimits = Limits{
	ReadHeaderTimeout: 10 * time.Second,
	ReadTimeout:       60 * time.Second,
	WriteTimeout:      60 * time.Second,
	IdleTimeout:       120 * time.Second,
	MaxConns:          512,
	MaxStreams:        64,
	StreamKeepAlive:   15 * time.Second,
}

// WithDefaults fills the limits left at zero from def.
func (l Limits) WithDefaults(def Limits) Limits {
	for _, f := range []struct{ v, def *time.Duration }{
		{&l.ReadHeaderTimeout, &def.ReadHeaderTimeout}, {&l.ReadTimeout, &def.ReadTimeout}, {&l.WriteTimeout, &def.WriteTimeout},
		{&l.IdleTimeout, &def.IdleTimeout}, {&l.StreamKeepAlive, &def.StreamKeepAlive},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if l.MaxConns <= 0 {
		l.MaxConns = def.MaxConns
	}
	if l.MaxStreams <= 0 {
		l.MaxStreams = def.MaxStreams
	}
	return l
}

// StreamCap is how many event streams may be served at once: MaxStreams,
// and at most half of MaxConns (at least 1).
func (l Limits) StreamCap() int {
	return max(1, min(l.MaxStreams, l.MaxConns/2))
}

// Server is an http.Server for handler with the limits.
func (l Limits) Server(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnState:         connState, // what the listener of Listen reclaims at its cap
	}
}

// Listen listens on addr (TCP) and serves at most l.MaxConns connections at
// once; at the cap, a new connection takes the place of one that does
// nothing (connLimiter). Serve it with l.Server's server.
func (l Limits) Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return newConnLimiter(ln, l.MaxConns), nil
}

// Error is the body of every error answer.
type Error struct {
	Error string `json:"error"`
	ID    string `json:"id,omitempty"`
}

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Fail answers an error as JSON.
func Fail(w http.ResponseWriter, status int, format string, args ...any) {
	WriteJSON(w, status, Error{Error: fmt.Sprintf(format, args...)})
}

// RequireToken passes on only the requests that carry token as
// "Authorization: Bearer TOKEN" (401 without one, 403 with another). A
// refused request's connection is closed after the answer, so that a
// client without the token holds no connection.
func RequireToken(token, realm string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got, ok := BearerToken(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`"`)
			w.Header().Set("Connection", "close")
			Fail(w, http.StatusUnauthorized, "this request needs the server's token: send it as 'Authorization: Bearer TOKEN'")
			return
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			w.Header().Set("Connection", "close")
			Fail(w, http.StatusForbidden, "wrong token")
			return
		}
		h(w, r)
	}
}

// BearerToken reads "Bearer TOKEN"; the scheme is case-insensitive
// (RFC 7235, section 2.1) and may be followed by several blanks.
func BearerToken(header string) (string, bool) {
	scheme, tok, ok := strings.Cut(header, " ")
	tok = strings.TrimLeft(tok, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", false
	}
	return tok, true
}

// DecodeJSON reads exactly one JSON value with only known fields from a
// body: trailing data, even a second value, is refused, so that a client
// bug never passes silently.
func DecodeJSON(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// BodyError answers a body that could not be read: 413 when it is too
// large, 400 otherwise (the client stalled past the read timeout, or went).
func BodyError(w http.ResponseWriter, err error) {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		Fail(w, http.StatusRequestEntityTooLarge, "the request body is larger than %d bytes", tooLarge.Limit)
		return
	}
	Fail(w, http.StatusBadRequest, "reading the request body: %v", err)
}
