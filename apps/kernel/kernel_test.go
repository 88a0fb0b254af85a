package kernel

import (
	"fmt"
	"sync/atomic"
	"testing"
)

func TestSuperstepCountsUpdates(t *testing.T) {
	cases := []struct {
		p     Params
		slots int64
	}{
		{Params{Items: 1000, Elements: 3, Compute: 2}, 1000},
		{Params{Items: 2000, Elements: 10, Compute: 1}, 2000},
		// Capped: 10 items of 100 elements fit in 8000 bytes.
		{Params{Items: 1000, Elements: 100, Compute: 3, MaxBytes: 8000}, 10},
		// The cap is smaller than one item: one slot, reused.
		{Params{Items: 5, Elements: 1000, Compute: 2, MaxBytes: 10}, 1},
	}
	for _, c := range cases {
		m, err := New(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if m.Slots() != c.slots {
			t.Errorf("%+v: %d slots, want %d", c.p, m.Slots(), c.slots)
		}
		if m.Bytes() != c.slots*int64(c.p.Elements)*8 {
			t.Errorf("%+v: %d bytes", c.p, m.Bytes())
		}
		updates, sum, ok := m.Superstep(nil)
		want := c.p.Items * int64(c.p.Elements) * int64(c.p.Compute)
		if !ok || updates != want || sum <= 0 {
			t.Errorf("%+v: updates %d (want %d), sum %v, complete %v", c.p, updates, want, sum, ok)
		}
	}
}

func TestSuperstepIsDeterministic(t *testing.T) {
	run := func() float64 {
		m, _ := New(Params{Items: 300, Elements: 7, Compute: 5, MaxBytes: 7 * 8 * 100})
		var total float64
		for range 3 {
			_, s, _ := m.Superstep(nil)
			total += s
		}
		return total
	}
	if a, b := run(), run(); a != b {
		t.Fatalf("two identical runs give checksums %v and %v", a, b)
	}
}

func TestSuperstepStops(t *testing.T) {
	m, _ := New(Params{Items: 1 << 20, Elements: 10, Compute: 10})
	var stop atomic.Bool
	stop.Store(true)
	updates, _, ok := m.Superstep(&stop)
	if ok || updates != 0 {
		t.Fatalf("stopped superstep: updates %d, complete %v", updates, ok)
	}
}

func TestTooLarge(t *testing.T) {
	if _, err := New(Params{Items: 1 << 40, Elements: 1 << 20, Compute: 1 << 10}); err == nil {
		t.Fatal("no error for an overflowing size")
	}
}

func TestWindowMixFill(t *testing.T) {
	m, _ := New(Params{Items: 2, Elements: 3, Compute: 1})
	got := make([]float64, 8) // wraps around the 6 elements
	m.Window(4, got)
	if got[0] != m.buf[4] || got[2] != m.buf[0] {
		t.Fatalf("window did not wrap: %v vs %v", got, m.buf)
	}
	before := m.buf[5]
	m.Mix(5, []float64{1})
	if m.buf[5] != (before+1)/2 {
		t.Fatal("mix did not average")
	}
	p := make([]byte, 20)
	if next := m.Fill(0, p); next != 3 {
		t.Fatalf("fill of 20 bytes ends at element %d, want 3", next)
	}
	empty, _ := New(Params{})
	empty.Window(0, got)
	if got[0] != 0 {
		t.Fatal("window of empty memory is not zero")
	}
}

// BenchmarkUpdateItem measures the cost model of docs/apps.md: nanoseconds
// per element update, for the item sizes S of the value set.
func BenchmarkUpdateItem(b *testing.B) {
	for _, s := range []int{3, 10, 100, 1000} {
		for _, c := range []int{2, 100} {
			b.Run(fmt.Sprintf("S=%d/C=%d", s, c), func(b *testing.B) {
				item := make([]float64, s)
				var sink float64
				for b.Loop() {
					sink += UpdateItem(item, c)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s*c), "ns/update")
				_ = sink
			})
		}
	}
}

// BenchmarkSuperstep measures a whole superstep over 8 MB of memory (the
// generator's defaults: M=100, S=10, C=10), memory traffic included.
func BenchmarkSuperstep(b *testing.B) {
	m, _ := New(Params{Items: 100_000, Elements: 10, Compute: 10})
	var updates int64
	for b.Loop() {
		u, _, _ := m.Superstep(nil)
		updates += u
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(updates), "ns/update")
}
