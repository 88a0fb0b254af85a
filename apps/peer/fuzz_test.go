package peer

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/gmark/gmark/apps/rendezvous"
)

// expectedData reads what a peer sent as the wire format says, apart from
// the code under test: heartbeats, then the data frame of superstep 0 with
// two elements. ok is false when the bytes hold no such frame first; rest
// is what follows it.
func expectedData(b []byte) (data []float64, ok bool, rest []byte) {
	for len(b) > 0 && b[0] == frameHeartbeat {
		b = b[1:]
	}
	if len(b) < 9+16 || b[0] != frameData || binary.LittleEndian.Uint32(b[1:]) != 0 || binary.LittleEndian.Uint32(b[5:]) != 2 {
		return nil, false, nil
	}
	return []float64{math.Float64frombits(binary.LittleEndian.Uint64(b[9:])), math.Float64frombits(binary.LittleEndian.Uint64(b[17:]))}, true, b[25:]
}

// FuzzMesh plays rank 1 of a job of two against a real rank 0: it greets
// with any hello (a bad one is dropped, and a good one follows so that the
// mesh forms), then sends any bytes and goes away. Rank 0's superstep 0
// either gets exactly the data frame the bytes begin with, or fails with a
// named peer failure; no input makes it panic or hang.
func FuzzMesh(f *testing.F) {
	data := func(step, count uint32, vals ...float64) []byte {
		b := []byte{frameData, 0, 0, 0, 0, 0, 0, 0, 0}
		binary.LittleEndian.PutUint32(b[1:], step)
		binary.LittleEndian.PutUint32(b[5:], count)
		for _, v := range vals {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	f.Add(1, "j", 1, append([]byte("HH"), data(0, 2, 1.5, math.NaN())...))
	f.Add(1, "j", 1, data(1, 2, 1, 2))
	f.Add(1, "other", 0, data(0, 1, 1))
	f.Add(2, "j", 1, data(0, 2, 1))
	f.Add(1, "j", 1, data(0, 1<<30))
	f.Add(1, "j", 1, append([]byte{frameAbort, 0xff, 0xff, 0xff, 0xff, 1, 9, 0, 0, 0}, "gave up\xff"...))
	// A peer that finished before superstep 0's data left Exchange waiting
	// for ever (until the walltime, when there was one).
	f.Add(1, "j", 1, []byte{frameFinish})
	f.Add(1, "j", 1, []byte("Zx"))
	f.Fuzz(func(t *testing.T, v int, job string, rank int, wire []byte) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		table := []rendezvous.Member{{Rank: 0, Addr: addr}, {Rank: 1, Addr: "127.0.0.1:1"}}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		type connected struct {
			m   *Mesh
			err error
		}
		done := make(chan connected, 1)
		go func() {
			m, err := Connect(ctx, Config{Job: "j", Rank: 0, Table: table, Listener: ln, Timeout: 5 * time.Second})
			done <- connected{m, err}
		}()
		greet := func(h hello) net.Conn {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(h)
			c.Write(append(b, '\n'))
			return c
		}
		first := greet(hello{V: v, Job: job, Rank: rank})
		c := first
		if v != Version || job != "j" || rank != 1 {
			// Dropped, and the answer is the connection closing.
			first.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := first.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) && !isReset(err) {
				t.Fatalf("a stray hello %d %q %d was answered: %d %v", v, job, rank, n, err)
			}
			first.Close()
			c = greet(hello{V: Version, Job: "j", Rank: 1})
		}
		defer c.Close()
		go io.Copy(io.Discard, c)
		got := <-done
		if got.err != nil {
			t.Fatalf("no mesh after a good hello: %v", got.err)
		}
		m := got.m
		// The peer's last frame is its finish ('F'), then it goes away.
		full := append(slices.Clip(wire), frameFinish)
		c.Write(full)
		c.(*net.TCPConn).CloseWrite()
		recv, err := m.Exchange(ctx, 0, []float64{7, 8})
		// What the mesh reads is the bytes and the finish: a frame cut
		// short takes the finish's byte as its last.
		want, ok, rest := expectedData(full)
		var pe *Error
		switch {
		case err != nil && ok && string(rest) != string([]byte{frameFinish}):
			// The data came, then something the mesh may fail on (another
			// frame, or the end without a finish) before or after this
			// superstep takes the data: either is right.
		case err == nil && !ok:
			t.Fatalf("%q: superstep 0 got %v, though no data frame of it came first", wire, recv)
		case err == nil && !slices.EqualFunc(recv[1], want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }):
			t.Fatalf("%q: got %v, want %v", wire, recv[1], want)
		case err != nil && ok:
			t.Fatalf("%q: the data frame of superstep 0 came, then the finish, yet %v", wire, err)
		case err != nil && !errors.As(err, &pe):
			t.Fatalf("%q: %v is not a peer failure", wire, err)
		case err != nil && (pe.Msg == "" || !slices.Contains([]string{"lost", "timeout", "aborted", "protocol", "send"}, pe.Kind) || pe.Kind != "aborted" && pe.Rank != 1):
			t.Fatalf("%q: failure %+v", wire, pe)
		}
		m.Abort(nil, "the fuzz input is done")
	})
}

func isReset(err error) bool {
	var ne *net.OpError
	return errors.As(err, &ne)
}
