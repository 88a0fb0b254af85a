package peer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/apps/rendezvous"
)

// meshes connects size in-process meshes through a rendezvous server.
func meshes(t *testing.T, size int, timeout time.Duration) []*Mesh {
	t.Helper()
	srv, err := rendezvous.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := make([]*Mesh, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Go(func() {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				errs[r] = err
				return
			}
			table, err := rendezvous.Join(ctx, srv.Addr(), rendezvous.Request{Job: "t", Size: size,
				Member: rendezvous.Member{Rank: r, Addr: ln.Addr().String()}})
			if err != nil {
				errs[r] = err
				return
			}
			out[r], errs[r] = Connect(ctx, Config{Job: "t", Rank: r, Table: table, Listener: ln, Timeout: timeout})
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return out
}

func TestExchangeAllToAll(t *testing.T) {
	const size, steps, x = 4, 5, 1000
	ms := meshes(t, size, 10*time.Second)
	ctx := context.Background()
	var wg sync.WaitGroup
	for r, m := range ms {
		wg.Go(func() {
			if m.Peers() != size-1 {
				t.Errorf("rank %d has %d peers", r, m.Peers())
			}
			for s := 1; s <= steps; s++ {
				send := make([]float64, x)
				for i := range send {
					send[i] = float64(r*1_000_000 + s*1000 + i)
				}
				got, err := m.Exchange(ctx, s, send)
				if err != nil {
					t.Errorf("rank %d step %d: %v", r, s, err)
					return
				}
				for p, data := range got {
					if p == r {
						if data != nil {
							t.Errorf("rank %d received from itself", r)
						}
						continue
					}
					if len(data) != x || data[7] != float64(p*1_000_000+s*1000+7) {
						t.Errorf("rank %d step %d: wrong data from rank %d", r, s, p)
					}
				}
			}
			if err := m.Close(); err != nil {
				t.Errorf("rank %d close: %v", r, err)
			}
		})
	}
	wg.Wait()
}

func TestDeadPeerIsNamed(t *testing.T) {
	ms := meshes(t, 3, 10*time.Second)
	// Rank 1 dies: its connections close without a finish frame.
	ms[1].closing.Store(true)
	ms[1].shutdown()
	for _, r := range []int{0, 2} {
		_, err := ms[r].Exchange(context.Background(), 1, make([]float64, 10))
		var pe *Error
		if !errors.As(err, &pe) || pe.Rank != 1 || !strings.Contains(err.Error(), "rank 1") {
			t.Errorf("rank %d: got %v, want an error naming rank 1", r, err)
		}
		ms[r].Abort(pe, err.Error())
	}
}

func TestSilentPeerTimesOut(t *testing.T) {
	// Rank 0 shakes hands and then says nothing: a stopped process.
	ln0, _ := net.Listen("tcp", "127.0.0.1:0")
	ln1, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln0.Close()
	table := []rendezvous.Member{{Rank: 0, Addr: ln0.Addr().String()}, {Rank: 1, Addr: ln1.Addr().String()}}
	release := make(chan struct{})
	defer close(release)
	go func() {
		c, err := ln0.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 256)
		c.Read(buf)
		fmt.Fprintf(c, "{\"v\":1,\"job\":\"t\",\"rank\":0,\"ok\":true}\n")
		<-release
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := Connect(ctx, Config{Job: "t", Rank: 1, Table: table, Listener: ln1, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Exchange(ctx, 1, make([]float64, 3))
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != "timeout" || pe.Rank != 0 || pe.Reason() != "peer-timeout" {
		t.Fatalf("got %v, want a timeout naming rank 0", err)
	}
	m.Abort(pe, err.Error())
}

func TestAbortIsRelayed(t *testing.T) {
	ms := meshes(t, 3, 10*time.Second)
	ms[0].Abort(&Error{Rank: 7, Timeout: true}, "peer rank 7 silent during superstep 3")
	for _, r := range []int{1, 2} {
		_, err := ms[r].Exchange(context.Background(), 1, make([]float64, 10))
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("rank %d: %v", r, err)
		}
		// Rank 2 may hear it first from rank 0 or from rank 1, which passes
		// it on: either way the root cause is rank 7's silence.
		if pe.Kind != "aborted" || pe.Rank != 7 || pe.Reason() != "peer-timeout" ||
			pe.Root != "peer rank 7 silent during superstep 3" || (pe.By != 0 && pe.By != 1) {
			t.Errorf("rank %d: %+v", r, pe)
		}
		ms[r].Abort(pe, pe.Root)
	}
}

// BenchmarkExchange measures one superstep's exchange between two
// processes over loopback (here two meshes in one process), per element.
func BenchmarkExchange(b *testing.B) {
	for _, x := range []int{1000, 50000} {
		b.Run(fmt.Sprintf("X=%d", x), func(b *testing.B) {
			t := &testing.T{}
			ms := meshes(t, 2, 10*time.Second)
			send := make([]float64, x)
			ctx := context.Background()
			step := 0
			for b.Loop() {
				step++
				done := make(chan error, 1)
				go func() { _, err := ms[1].Exchange(ctx, step, send); done <- err }()
				if _, err := ms[0].Exchange(ctx, step, send); err != nil {
					b.Fatal(err)
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(x), "ns/element")
			var wg sync.WaitGroup
			for _, m := range ms {
				wg.Go(func() { m.Close() })
			}
			wg.Wait()
		})
	}
}
