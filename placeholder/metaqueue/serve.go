package metaqueue

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ServeOptions run a server with its API (gmark placeholder serve).
type ServeOptions struct {
	Config
	Addr   string      // host:port to listen on
	Groups []GroupSpec // created or updated once the server listens
	// Serving is called once the API answers, with its URL.
	Serving func(url string)
}

// Serve runs the metaqueue and its API until ctx ends or either fails;
// then it stops the API and waits for the last commit.
func Serve(ctx context.Context, o ServeOptions) error {
	srv, err := New(o.Config)
	if err != nil {
		return err
	}
	ln, err := srv.Listen(o.Addr)
	if err != nil {
		srv.st.close()
		return err
	}
	return srv.serve(ctx, ln, o)
}

func (srv *Server) serve(ctx context.Context, ln net.Listener, o ServeOptions) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	httpSrv := srv.HTTPServer()
	errc := make(chan error, 2)
	go func() { errc <- srv.Run(ctx) }()
	go func() {
		if err := httpSrv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	url := "http://" + ln.Addr().String()
	err := srv.SetURL(ctx, url)
	for _, g := range o.Groups {
		if err != nil {
			break
		}
		_, err = srv.PutGroup(ctx, g)
	}
	if err == nil && o.Serving != nil {
		o.Serving(url)
	}
	if err == nil {
		select {
		case <-ctx.Done():
		case err = <-errc:
		}
	}
	stop()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(shut)
	for len(errc) > 0 {
		if e := <-errc; err == nil {
			err = e
		}
	}
	<-srv.done
	if cerr := srv.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing the state: %w", cerr)
	}
	return err
}
