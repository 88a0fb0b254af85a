package gwa

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// numReference is how the trace writers wrote numbers before appendNum's
// shortcuts: what appendNum must always equal.
func numReference(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func checkNum(t *testing.T, v float64) {
	t.Helper()
	if got, want := string(appendNum([]byte("x"), v)), "x"+numReference(v); got != want {
		t.Fatalf("appendNum(%b = %v) = %q, want %q", math.Float64bits(v), v, got[1:], want[1:])
	}
}

// appendNum writes every number as strconv's shortest formatting does:
// milliseconds (the shortcut), the doubles next to them (one ulp off, as
// Duration.Seconds gives), micro- and nanoseconds, whole numbers, the
// edges of the shortcut's range, the special values and random bits.
func TestAppendNumIsShortest(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), -1, 1, 0.5, -0.5, 0.001, -0.001, 0.0005, 0.0015, 0.999, 1.999, 45863.81, 5.488,
		1e12 - 0.001, 1e12 + 0.001, 999999999999.999, -999999999999.999, 1e15, 1e15 - 1, 1e15 + 2, -1e15, 1e21, 1e-7, 5e-324,
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(),
		631152000.001, 9007199.254740993, 0.1 + 0.2, 1.0 / 3} {
		checkNum(t, v)
		checkNum(t, math.Nextafter(v, math.Inf(1)))
		checkNum(t, math.Nextafter(v, math.Inf(-1)))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		// Milliseconds at every magnitude up to the shortcut's 10^15.
		n := r.Int64N(int64(math.Pow(10, float64(1+r.IntN(15)))))
		if r.IntN(2) == 0 {
			n = -n
		}
		ms := float64(n) / 1000
		checkNum(t, ms)
		checkNum(t, math.Nextafter(ms, math.Inf(1)))
		checkNum(t, math.Nextafter(ms, math.Inf(-1)))
		checkNum(t, float64(n)/1e6)
		checkNum(t, float64(n)/1e9)
		checkNum(t, (time.Duration(n) * time.Millisecond).Seconds())
		checkNum(t, seconds(time.Duration(n)*time.Microsecond))
		checkNum(t, math.Float64frombits(r.Uint64()))
	}
}

func FuzzAppendNum(f *testing.F) {
	for _, v := range []float64{0, -1, 45863.81, 0.001, 1e15, math.NaN(), 1e12 - 0.001} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		checkNum(t, math.Float64frombits(bits))
		// the milliseconds near it, when it has a magnitude they reach
		if v := math.Float64frombits(bits); math.Abs(v) < 1e12 {
			checkNum(t, math.Round(v*1000)/1000)
		}
	})
}
