package heappeak

import (
	"runtime"
	"testing"
	"time"
)

var sink []byte

// Work that holds 64 MiB peaks above 64 MiB; work that holds nothing stays
// well below.
func TestDuring(t *testing.T) {
	const size = 64 << 20
	held := During(func() {
		sink = make([]byte, size)
		for i := range sink {
			sink[i] = byte(i)
		}
	})
	sink = nil
	idle := During(func() {})
	t.Logf("holding 64 MiB: %d bytes; idle: %d bytes", held, idle)
	if held < size {
		t.Errorf("peak %d bytes while 64 MiB were held", held)
	}
	if idle >= size {
		t.Errorf("peak %d bytes with nothing held", idle)
	}
}

// Work that allocates 32 MiB is counted at least that; work that allocates
// nothing is counted at next to nothing.
func TestAllocated(t *testing.T) {
	const size = 32 << 20
	got := Allocated(func() { sink = make([]byte, size) })
	sink = nil
	none := Allocated(func() {})
	if got < size || none > 1<<20 {
		t.Errorf("Allocated: %d bytes for 32 MiB, %d for nothing", got, none)
	}
}

// Work that holds 64 MiB for a while and drops it before it returns is
// still counted: allocating it starts a collection, which finds it live.
func TestDuringTransient(t *testing.T) {
	const size = 64 << 20
	peak := During(func() {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(i)
		}
		time.Sleep(200 * time.Millisecond)
		runtime.KeepAlive(b)
	})
	if peak < size {
		t.Errorf("peak %d bytes while 64 MiB were held for 200 ms", peak)
	}
}
