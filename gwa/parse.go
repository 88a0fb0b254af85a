package gwa

import (
	"strconv"
)

// Byte-level field parsing: the hot path of reading a trace. Lines are split
// and numbers parsed in place, without strings.Fields or per-field strings.

// isSpace is a field separator: space, tab, or the '\r' of CRLF files.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// nextField returns the field starting at or after i and the index after it.
func nextField(line []byte, i int) (tok []byte, next int) {
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	j := i
	for j < len(line) && !isSpace(line[j]) {
		j++
	}
	return line[i:j], j
}

// parseNumber reads a decimal number: an optional sign, digits, an optional
// fraction and exponent. Integers of up to 15 digits take a fast path.
func parseNumber(tok []byte) (float64, bool) {
	v, _, ok := parseNumberInt(tok)
	return v, ok
}

// parseNumberInt is parseNumber that also tells whether the token was a
// whole number written without fraction or exponent.
func parseNumberInt(tok []byte) (v float64, isInt, ok bool) {
	if len(tok) == 0 {
		return 0, false, false
	}
	neg := false
	i := 0
	if tok[0] == '-' || tok[0] == '+' {
		neg = tok[0] == '-'
		i = 1
	}
	if i < len(tok) && len(tok)-i <= 15 {
		var n int64
		j := i
		for ; j < len(tok); j++ {
			c := tok[j] - '0'
			if c > 9 {
				break
			}
			n = n*10 + int64(c)
		}
		if j == len(tok) && j > i {
			if neg {
				return -float64(n), true, true
			}
			return float64(n), tok[0] != '+', true
		}
	}
	// The slow path: fractions and exponents. Reject what ParseFloat would
	// take but a trace must not hold (inf, nan, hex, underscores).
	for _, c := range tok[i:] {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+') {
			return 0, false, false
		}
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, false, false
	}
	return v, isInteger(tok), true
}

// isInteger tells whether tok is an optionally negative whole number.
func isInteger(tok []byte) bool {
	i := 0
	if len(tok) > 0 && tok[0] == '-' {
		i = 1
	}
	if i == len(tok) {
		return false
	}
	for ; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return false
		}
	}
	return true
}

// smallInts are the strings of -1 … 4095, shared by every reader: most
// identifiers in SWF traces (users, groups, queues, partitions) are small
// numbers, and this saves an allocation or a map look-up per field.
var smallInts = func() []string {
	s := make([]string, 4097)
	for i := range s {
		s[i] = strconv.Itoa(i - 1)
	}
	return s
}()

// interner turns repeated field values into shared strings.
type interner struct {
	m map[string]string
}

// maxInterned bounds the table: past it (a field of unique values), strings
// are allocated each time.
const maxInterned = 1 << 16

func (in *interner) str(tok []byte) string {
	if len(tok) <= 4 {
		if tok2 := tok; len(tok2) > 0 {
			if tok2[0] == '-' && len(tok2) == 2 && tok2[1] == '1' {
				return smallInts[0]
			}
			n := 0
			ok := true
			for _, c := range tok2 {
				if c < '0' || c > '9' {
					ok = false
					break
				}
				n = n*10 + int(c-'0')
			}
			if ok && n < 4096 && (len(tok2) == 1 || tok2[0] != '0') {
				return smallInts[n+1]
			}
		}
	}
	if s, ok := in.m[string(tok)]; ok {
		return s
	}
	s := string(tok)
	if in.m == nil {
		in.m = map[string]string{}
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}
