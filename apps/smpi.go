package apps

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gmark/gmark/apps/peer"
	"github.com/gmark/gmark/apps/rendezvous"
)

func init() {
	register(&app{
		name:    "smpi",
		aliases: []string{"smpi1"},
		short:   "parallel synthetic application: sser's work plus an all-to-all exchange per superstep",
		long: `Every process of the job (GMARK_SIZE of them, across all components) does
sser's work and, after each superstep's computation, sends X elements (--exchange)
to every other process and receives X from each, over TCP: per process
N × X × (P−1) elements sent and as many received. The processes find each other
through the rendezvous at GMARK_RENDEZVOUS; without one, rank 0 starts one and
publishes its address in GMARK_RENDEZVOUS_FILE (default
<workdir>/.gmark-rendezvous-<job>). A peer that dies is noticed at once, one that
stays silent after --peer-timeout: every remaining process then stops, naming
the rank, with ok:false and exit status 1. A single process (no GMARK_SIZE)
runs alone and exchanges nothing.`,
		define: func(fs *flagSet) instance {
			var p bspParams
			p.define(fs)
			var x int64
			var peerTimeout, rdvTimeout time.Duration
			fs.Int(&x, "exchange", "X", 1000, 0, 32<<20, "elements sent to each other process per superstep")
			fs.Duration(&peerTimeout, "peer-timeout", 30*time.Second, "longest a peer may stay silent (or not take data) before this process gives up")
			fs.Duration(&rdvTimeout, "rendezvous-timeout", 2*time.Minute, "longest to wait for all processes of the job to start and connect")
			return instance{work: func(procs int) Work { return smpiWork(p, x, procs) }, run: func(r *runner) error {
				if peerTimeout <= 0 {
					return &UsageError{App: r.app, Msg: "--peer-timeout must be a duration > 0"}
				}
				if rdvTimeout <= 0 {
					return &UsageError{App: r.app, Msg: "--rendezvous-timeout must be a duration > 0"}
				}
				return runSMPI(r, p, int(x), peerTimeout, rdvTimeout)
			}}
		},
	})
}

func runSMPI(r *runner, p bspParams, x int, peerTimeout, rdvTimeout time.Duration) error {
	mem, err := p.memory(r)
	if err != nil {
		return err
	}
	r.sum.Set("exchange", x).Set("peers", r.env.Size-1).Set("sent_elements", int64(0)).
		Set("received_elements", int64(0)).Set("exchange_s", 0.0)
	s := &stepper{r: r, p: p, mem: mem}
	if r.env.Size == 1 {
		return s.run()
	}

	mesh, err := connect(r, peerTimeout, rdvTimeout)
	if err != nil {
		return err
	}
	// A lost peer must stop the computation too, not only the next exchange.
	go func() {
		select {
		case <-mesh.Failed():
			r.stop.Store(true)
		case <-r.ctx.Done():
		}
	}()
	peerFailure := func(e *peer.Error) error {
		r.sum.Set("missing_rank", e.Rank)
		mesh.Abort(e, e.Root)
		return &Failure{App: r.app, Reason: e.Reason(), Err: e}
	}
	send := make([]float64, x)
	s.interrupted = func() error {
		if e := mesh.Err(); e != nil {
			return peerFailure(e)
		}
		return nil
	}
	s.exchange = func(step int) (int64, int64, error) {
		mesh.SetStep(step)
		off := int64(step) * int64(x)
		mem.Window(off, send)
		recv, err := mesh.Exchange(r.ctx, step, send)
		if err != nil {
			var pe *peer.Error
			if errors.As(err, &pe) {
				return 0, 0, peerFailure(pe)
			}
			mesh.Abort(nil, fmt.Sprintf("rank %d stopped (walltime or signal)", r.env.Rank))
			return 0, 0, stopped("during the exchange of superstep %d", step)
		}
		var got int64
		for _, data := range recv {
			if data != nil {
				mem.Mix(off, data)
				got += int64(len(data))
			}
		}
		sent := int64(x) * int64(mesh.Peers())
		r.sum.Set("sent_elements", s.sent+sent).Set("received_elements", s.received+got).
			Set("exchange_s", s.exchangeTotal)
		return sent, got, nil
	}
	if err := s.run(); err != nil {
		if mesh.Err() == nil {
			mesh.Abort(nil, fmt.Sprintf("rank %d stopped (walltime or signal)", r.env.Rank))
		}
		return err
	}
	r.sum.Set("exchange_s", s.exchangeTotal)
	if err := mesh.Close(); err != nil {
		// The work is complete and every exchange succeeded; a peer that
		// vanished after its last superstep is worth a warning only.
		fmt.Fprintf(r.stderr, "gmark app smpi: rank %d: warning: %v\n", r.env.Rank, err)
	}
	return nil
}

// connect finds the other processes through the rendezvous and connects to
// all of them, within rdvTimeout (and the walltime).
func connect(r *runner, peerTimeout, rdvTimeout time.Duration) (*peer.Mesh, error) {
	ctx, cancel := context.WithTimeout(r.ctx, rdvTimeout)
	defer cancel()
	fail := func(err error) error {
		if r.ctx.Err() != nil {
			return stopped("while connecting to the other processes")
		}
		return &Failure{App: r.app, Reason: "rendezvous",
			Err: fmt.Errorf("rank %d could not meet the job's other processes (%d in all) within --rendezvous-timeout %v: %w", r.env.Rank, r.env.Size, rdvTimeout, err)}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(r.env.Bind, "0"))
	if err != nil {
		return nil, fail(fmt.Errorf("cannot listen on %s (GMARK_BIND): %w", r.env.Bind, err))
	}
	key := r.env.Key(r.getenv)
	req := rendezvous.Request{Job: key, Size: r.env.Size,
		Member: rendezvous.Member{Rank: r.env.Rank, Component: r.env.Component, Addr: ln.Addr().String()}}
	var table []rendezvous.Member
	switch {
	case r.env.Rendezvous != "":
		r.logf("joining rendezvous %s as rank %d of %d", r.env.Rendezvous, r.env.Rank, r.env.Size)
		table, err = joinRetrying(ctx, r.env.Rendezvous, req)
	default:
		path := r.env.File(r.workdir, key)
		if r.env.Rank == 0 {
			srv, err := rendezvous.StartJob(net.JoinHostPort(r.env.Bind, "0"), key)
			if err != nil {
				ln.Close()
				return nil, fail(err)
			}
			// The server must outlive the connections: the table reaches
			// every process before they can all connect to each other.
			defer srv.Close()
			if err := rendezvous.Publish(path, srv.Addr()); err != nil {
				ln.Close()
				return nil, fail(err)
			}
			defer removeIfOurs(path, srv.Addr())
			r.logf("started rendezvous %s, published in %s", srv.Addr(), path)
		}
		table, err = rendezvous.JoinFile(ctx, path, req, 50*time.Millisecond)
	}
	if err != nil {
		ln.Close()
		return nil, fail(err)
	}
	mesh, err := peer.Connect(ctx, peer.Config{Job: key, Rank: r.env.Rank, Table: table, Listener: ln, Timeout: peerTimeout})
	if err != nil {
		return nil, fail(err)
	}
	r.logf("connected to %d peers", mesh.Peers())
	return mesh, nil
}

// joinRetrying joins at a fixed address, retrying while the server is not
// up yet (the launcher may still be starting it).
func joinRetrying(ctx context.Context, addr string, req rendezvous.Request) ([]rendezvous.Member, error) {
	for {
		table, err := rendezvous.Join(ctx, addr, req)
		var re *rendezvous.Error
		if err == nil || (errors.As(err, &re) && !re.Retry) || ctx.Err() != nil {
			return table, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// removeIfOurs removes the published address unless a newer run replaced it.
func removeIfOurs(path, addr string) {
	if got, _ := rendezvous.Lookup(path); got == addr {
		os.Remove(path)
	}
}
