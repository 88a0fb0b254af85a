package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/koala/jdf"
)

// HTTPLimits bound what one client can hold of the server: a slow or idle
// client is cut off, and connections beyond MaxConns wait in the kernel's
// backlog until one is freed. docs/koala.md documents the defaults.
type HTTPLimits = httpapi.Limits

// DefaultHTTPLimits are the limits of `gmark koala serve`.
var DefaultHTTPLimits = httpapi.DefaultLimits

// Body limits: a submission may carry a JDF of jdf.MaxSize bytes (one more
// byte lets the parser say what is too large); every other request is small.
const (
	MaxSubmitBody = jdf.MaxSize + 1
	MaxOtherBody  = 64 << 10
)

// limitBodies caps the body of every request, whether its handler reads it
// or not.
func limitBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int64(MaxOtherBody)
		if r.Method == http.MethodPost && r.URL.Path == "/v1/jobs" {
			n = MaxSubmitBody
		}
		r.Body = http.MaxBytesReader(w, r.Body, n)
		h.ServeHTTP(w, r)
	})
}

// bodyError answers a body that could not be read: 413 when it is too
// large, 400 otherwise.
func bodyError(w http.ResponseWriter, err error) { httpapi.BodyError(w, err) }

// HTTPServer is an http.Server for the API with the server's limits. Serve
// it on a listener from Listen.
func (s *Server) HTTPServer() *http.Server { return s.cfg.HTTP.Server(s.Handler()) }

// Listen listens on addr (TCP) and serves at most the server's MaxConns
// connections at once. A host name in addr is a Host the API answers
// without the token, as it answers localhost and IP addresses.
func (s *Server) Listen(addr string) (net.Listener, error) {
	s.mu.Lock()
	s.listenNames = httpapi.ListenNames(addr)
	s.mu.Unlock()
	return s.cfg.HTTP.Listen(addr)
}

// Serve runs the scheduler and serves its API on ln (calling serving once
// both are started) until ctx is done or either fails (stop cancels ctx);
// then it shuts the HTTP server down and waits for the scheduler's final
// commit.
func (s *Server) Serve(ctx context.Context, stop func(), ln net.Listener, serving func()) error {
	httpSrv := s.HTTPServer()
	errc := make(chan error, 2)
	go func() { errc <- s.Run(ctx) }()
	go func() {
		if err := httpSrv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	serving()
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
		stop()
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(shutCtx)
	if runErr == nil {
		runErr = <-errc // the driver's final commit
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	return nil
}
