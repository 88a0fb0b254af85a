package gwa

import (
	"math"
	"strconv"

	"github.com/gmark/gmark/internal/decimal"
)

// appendNum appends v as the trace formats write a number: a whole one in
// full (below 10^15 in magnitude), any other as the shortest decimal that
// reads back as v, never with an exponent (strconv's 'f' with precision
// -1, which it always equals: FuzzAppendNum).
//
// Generated traces are mostly whole numbers and milliseconds, and the
// shortest formatting cost more than the rest of a record: a value that is
// the double nearest some n/1000 with |n| < 10^15 is written as that
// decimal directly. It is then the shortest: every decimal of at most 15
// significant digits reads back as itself after a round trip through a
// double (DBL_DIG), so no two of them share one, and n/1000 has at most
// 15.
func appendNum(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return appendInt(b, int64(v))
	}
	if m := math.Round(v * 1000); math.Abs(m) < 1e15 && m/1000 == v {
		return appendMillis(b, int64(m))
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// appendMillis appends n thousandths as a decimal without trailing zeros;
// n is not a multiple of 1000 (appendNum writes whole numbers as such).
func appendMillis(b []byte, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	b = decimal.AppendInt(b, n/1000)
	f := n % 1000
	d := [3]byte{byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
	k := 3
	for k > 0 && d[k-1] == '0' {
		k--
	}
	if k == 0 {
		return b
	}
	b = append(b, '.')
	return append(b, d[:k]...)
}

// appendInt is decimal.AppendInt, with -1 (a missing field,
// most of a generated record) written directly.
func appendInt(b []byte, n int64) []byte {
	if n == -1 {
		return append(b, '-', '1')
	}
	return decimal.AppendInt(b, n)
}
