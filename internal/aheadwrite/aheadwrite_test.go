package aheadwrite

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Whatever the sizes of the writes against the buffer's, the bytes arrive
// whole, in order, and hashed as they are.
func TestWritesArriveInOrder(t *testing.T) {
	cases := []struct {
		name       string
		size       int
		writes     []int
		wantChunks bool
	}{
		{"nothing", 8, nil, false},
		{"empty writes", 8, []int{0, 0, 0}, false},
		{"less than a buffer", 8, []int{3}, false},
		{"exactly a buffer", 8, []int{8}, false},
		{"one byte over", 8, []int{9}, true},
		{"many small", 7, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, true},
		{"one write of many buffers", 4, []int{1001}, true},
		{"buffer of one byte", 1, []int{5, 0, 3}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want bytes.Buffer
			var got recorder
			h := sha256.New()
			a := New(&got, h, tc.size)
			r := rand.New(rand.NewPCG(1, uint64(tc.size)))
			for _, n := range tc.writes {
				p := make([]byte, n)
				for i := range p {
					p[i] = byte(r.IntN(256))
				}
				want.Write(p)
				if k, err := a.Write(p); k != n || err != nil {
					t.Fatalf("Write of %d bytes: %d, %v", n, k, err)
				}
			}
			if err := a.Flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.b.Bytes(), want.Bytes()) {
				t.Fatalf("wrote %d bytes, not the %d given", got.b.Len(), want.Len())
			}
			if s := sha256.Sum256(want.Bytes()); !bytes.Equal(h.Sum(nil), s[:]) {
				t.Error("the hash is not of the bytes written")
			}
			if a.Written() != int64(want.Len()) {
				t.Errorf("Written %d, want %d", a.Written(), want.Len())
			}
			for _, c := range got.chunks {
				if c > tc.size {
					t.Errorf("a write of %d bytes from buffers of %d", c, tc.size)
				}
			}
			if (len(got.chunks) > 1) != tc.wantChunks {
				t.Errorf("%d writes underneath", len(got.chunks))
			}
		})
	}
}

// Lines appended to AvailableBuffer's slice, mixed with ordinary writes,
// and lines longer than the room asked for or than the whole buffer
// (append moves them elsewhere: copied as any) all arrive whole, in order,
// hashed as they are.
func TestAvailableBuffer(t *testing.T) {
	var want bytes.Buffer
	var got recorder
	h := sha256.New()
	const size = 64
	a := New(&got, h, size)
	r := rand.New(rand.NewPCG(5, 6))
	inPlace := 0
	for i := 0; i < 3000; i++ {
		n := r.IntN(20)
		switch i % 100 {
		case 7:
			n = size - 1
		case 8:
			n = 3 * size
		}
		line := make([]byte, n)
		for k := range line {
			line[k] = byte(r.IntN(256))
		}
		want.Write(line)
		if i%5 == 4 {
			a.Write(line)
			continue
		}
		b := a.AvailableBuffer(16)
		if cap(b) < 16 {
			t.Fatalf("AvailableBuffer(16) gave room for %d bytes", cap(b))
		}
		b = append(b, line...)
		if n > 0 && n <= 16 {
			inPlace++
		}
		if k, err := a.Write(b); k != len(b) || err != nil {
			t.Fatalf("Write: %d, %v", k, err)
		}
	}
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.b.Bytes(), want.Bytes()) {
		t.Fatalf("wrote %d bytes, not the %d given (or not in order)", got.b.Len(), want.Len())
	}
	if s := sha256.Sum256(want.Bytes()); !bytes.Equal(h.Sum(nil), s[:]) {
		t.Error("the hash is not of the bytes written")
	}
	if a.Written() != int64(want.Len()) {
		t.Errorf("Written %d, want %d", a.Written(), want.Len())
	}
	if inPlace == 0 {
		t.Error("no line went in place")
	}
	// After an error: nil, and Write reports it.
	e := New(failAfter{err: errors.New("disk full")}, nil, 4)
	e.Write([]byte("abcdefgh"))
	e.Flush()
	if b := e.AvailableBuffer(1); b != nil {
		t.Errorf("AvailableBuffer after an error: %d bytes of room", cap(b))
	}
}

// The in-place path copies nothing: a line written in place is in the
// buffer handed on, at the address it was appended at.
func TestAvailableBufferNoCopy(t *testing.T) {
	a := New(io.Discard, nil, 1024)
	b := append(a.AvailableBuffer(8), "line\n"...)
	if _, err := a.Write(b); err != nil {
		t.Fatal(err)
	}
	if &a.buf[0] != &b[0] || string(a.buf) != "line\n" {
		t.Errorf("the line was copied: buffer %q", a.buf)
	}
	a.Flush()
}

type recorder struct {
	b      bytes.Buffer
	chunks []int
}

func (r *recorder) Write(p []byte) (int, error) {
	r.chunks = append(r.chunks, len(p))
	return r.b.Write(p)
}

// A failing or short underlying write is reported, at a later Write or at
// Flush, and every call after it fails with it.
func TestErrorsSurface(t *testing.T) {
	boom := errors.New("disk full")
	cases := []struct {
		name string
		w    io.Writer
		want error
	}{
		{"error", failAfter{n: 1, err: boom}, boom},
		{"short write", short{}, io.ErrShortWrite},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := New(tc.w, nil, 4)
			var err error
			for i := 0; i < 10 && err == nil; i++ {
				_, err = a.Write([]byte("abcd"))
			}
			if ferr := a.Flush(); !errors.Is(ferr, tc.want) {
				t.Fatalf("Flush: %v, want %v", ferr, tc.want)
			}
			if err != nil && !errors.Is(err, tc.want) {
				t.Errorf("Write: %v, want %v", err, tc.want)
			}
			if _, err := a.Write([]byte("x")); !errors.Is(err, tc.want) {
				t.Errorf("Write after the error: %v", err)
			}
			if err := a.Flush(); !errors.Is(err, tc.want) {
				t.Errorf("second Flush: %v", err)
			}
		})
	}
}

type failAfter struct {
	n   int
	err error
}

func (f failAfter) Write(p []byte) (int, error) { return 0, f.err }

type short struct{}

func (short) Write(p []byte) (int, error) { return len(p) / 2, nil }

// Into a real file, through /dev/full: the kernel's ENOSPC comes back.
func TestDevFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer f.Close()
	a := New(f, nil, 16)
	a.Write(bytes.Repeat([]byte("x"), 100))
	if err := a.Flush(); err == nil {
		t.Fatal("Flush into /dev/full succeeded")
	}
	path := filepath.Join(t.TempDir(), "out")
	g, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	b := New(g, nil, 0)
	b.Write([]byte("hello\n"))
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	g.Close()
	if got, _ := os.ReadFile(path); string(got) != "hello\n" {
		t.Errorf("file holds %q", got)
	}
}

// BenchmarkWrite is the producer's cost of handing 1 KiB lines on (the
// hash and the write run beside it).
func BenchmarkWrite(b *testing.B) {
	line := bytes.Repeat([]byte("j"), 1024)
	a := New(io.Discard, sha256.New(), 0)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		a.Write(line)
	}
	a.Flush()
}

// Up to Depth pieces queue behind one that is stalled without the producer
// waiting; the next waits for the oldest. They run in the order given, one
// at a time.
func TestInFlightRunsAheadOverAStall(t *testing.T) {
	for _, depth := range []int{0, 1, 2, 3, 8} {
		f := InFlight{Depth: depth}
		release := make(chan struct{})
		var order []int // appended to by the pieces: one at a time, or the race detector says so
		f.Go(func() error { <-release; order = append(order, 0); return nil })
		n := max(1, depth)
		for i := 1; i < n; i++ {
			f.Go(func() error { order = append(order, i); return nil })
		}
		queued := make(chan struct{})
		go func() {
			f.Go(func() error { order = append(order, n); return nil }) // waits for the stalled one
			close(queued)
		}()
		select {
		case <-queued:
			t.Fatalf("depth %d: a piece more than %d was queued while the first was stalled", depth, n)
		case <-time.After(20 * time.Millisecond):
		}
		close(release)
		<-queued
		if err := f.Wait(); err != nil {
			t.Fatal(err)
		}
		for i, v := range order {
			if v != i {
				t.Fatalf("depth %d: ran in the order %v", depth, order)
			}
		}
		if len(order) != n+1 {
			t.Fatalf("depth %d: %d pieces ran, want %d", depth, len(order), n+1)
		}
	}
}

// The first error is kept; the pieces queued after the one that failed do
// not run; Go and Wait after it go on reporting it.
func TestInFlightFirstErrorStopsTheRest(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	f := InFlight{Depth: 4}
	ran := 0
	f.Go(func() error { ran++; return nil })
	f.Go(func() error { ran++; return first })
	f.Go(func() error { ran++; return second })
	f.Go(func() error { ran++; return nil })
	if err := f.Wait(); err != first {
		t.Fatalf("Wait: %v, want %v", err, first)
	}
	if ran != 2 {
		t.Errorf("%d pieces ran, want 2 (those after the failure are skipped)", ran)
	}
	f.Go(func() error { ran++; return nil })
	if err := f.Wait(); err != first || ran != 2 {
		t.Errorf("after the failure: Wait %v, %d ran", err, ran)
	}
}
