// Package decimal appends integers in base 10, as strconv.AppendInt does,
// writing the digits straight into the destination: `gmark generate`
// formats a dozen integers a job, and strconv's digits, made in a buffer
// of its own and then copied, were a tenth of its time.
package decimal

import "math/bits"

// pairs holds "00" … "99".
const pairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// AppendInt appends n in base 10: strconv.AppendInt(b, n, 10).
func AppendInt(b []byte, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		return AppendUint(b, uint64(-n)) // -MinInt64 is itself, as a uint64 its magnitude
	}
	return AppendUint(b, uint64(n))
}

// AppendUint appends u in base 10: strconv.AppendUint(b, u, 10).
func AppendUint(b []byte, u uint64) []byte {
	if u < 10 {
		return append(b, byte('0'+u))
	}
	n := Digits(u)
	l := len(b)
	if cap(b)-l < n {
		b = append(b, make([]byte, n)...)
	} else {
		b = b[:l+n]
	}
	d := b[l : l+n]
	i := n
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		d[i], d[i+1] = pairs[r], pairs[r+1]
		u = q
	}
	if u >= 10 {
		d[0], d[1] = pairs[u*2], pairs[u*2+1]
	} else {
		d[0] = byte('0' + u)
	}
	return b
}

// powers10[i] is 10^i.
var powers10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// Digits is the number of decimal digits of u (1 for 0).
func Digits(u uint64) int {
	// log10(2) ≈ 1233/4096: the digits of 2^(bits-1) … 2^bits-1 are this or one more.
	n := (bits.Len64(u) * 1233) >> 12
	if n < len(powers10) && u >= powers10[n] {
		n++
	}
	if n == 0 {
		return 1
	}
	return n
}
