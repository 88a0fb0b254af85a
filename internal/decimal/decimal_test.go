package decimal

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func check(t *testing.T, n int64) {
	t.Helper()
	if got, want := string(AppendInt([]byte("x"), n)), "x"+strconv.FormatInt(n, 10); got != want {
		t.Fatalf("AppendInt(%d) = %s, want %s", n, got[1:], want[1:])
	}
	u := uint64(n)
	if got, want := string(AppendUint([]byte("y"), u)), "y"+strconv.FormatUint(u, 10); got != want {
		t.Fatalf("AppendUint(%d) = %s, want %s", u, got[1:], want[1:])
	}
	if got := Digits(u); got != len(strconv.FormatUint(u, 10)) {
		t.Fatalf("Digits(%d) = %d", u, got)
	}
}

// AppendInt and AppendUint write what strconv writes: every power of ten
// and its neighbours, the extremes, and random numbers of every length,
// into destinations with and without room.
func TestAgainstStrconv(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 9, 10, 11, 99, 100, 101, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		check(t, n)
	}
	for p := int64(1); p <= 1e18; p *= 10 {
		for _, n := range []int64{p - 1, p, p + 1, -p + 1, -p, -p - 1} {
			check(t, n)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 200000; i++ {
		n := r.Int64() >> r.IntN(64)
		check(t, n)
		check(t, -n)
		room := make([]byte, 3, 3+r.IntN(25))
		if got, want := string(AppendInt(room, n)), "\x00\x00\x00"+strconv.FormatInt(n, 10); got != want {
			t.Fatalf("AppendInt(%d) into room %d = %q, want %q", n, cap(room), got, want)
		}
	}
}

func FuzzAppendInt(f *testing.F) {
	for _, n := range []int64{0, -1, 99, 100, math.MinInt64, math.MaxInt64} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int64) { check(t, n) })
}

func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		buf = AppendInt(buf[:0], int64(i)*7919)
	}
}

func BenchmarkStrconvAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		buf = strconv.AppendInt(buf[:0], int64(i)*7919, 10)
	}
}
