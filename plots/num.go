package plots

import (
	"math"
	"strconv"
	"strings"
)

// Zero is how close to 0 a value may be and still print as 0: sums and
// differences of floats leave residues such as 1.48e-16 where the exact
// answer is 0, and no quantity gmark reports is measured that finely.
const Zero = 1e-9

// Num formats v with sig significant digits for people: "0" within Zero of
// zero, the whole part of every number from 1,000 on grouped by thousands
// with commas ("5,000" beside "12,346", never "5000" beside "10,000" on
// one axis), whole numbers of more digits than sig in full ("12,346"
// rather than "1.235e+04"), an exponent only below 0.001 or beyond 1e15
// ("2.5e-6", "3e16"), never a trailing ".000", and "–" for NaN and
// infinities.
func Num(v float64, sig int) string {
	sig = max(sig, 1)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case math.Abs(v) < Zero:
		return "0"
	case math.Abs(v) >= 1e15 || math.Abs(v) < 1e-3:
		return exponent(strconv.FormatFloat(v, 'e', sig-1, 64))
	}
	s := strconv.FormatFloat(v, 'g', sig, 64)
	if strings.ContainsRune(s, 'e') || math.Abs(v) >= 1e4 { // more whole digits than sig
		s = strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	whole, frac, _ := strings.Cut(s, ".")
	if frac != "" {
		frac = "." + frac
	}
	return group(whole) + frac
}

// exponent tidies Go's 'e' format: "2.500e-06" becomes "2.5e-6".
func exponent(s string) string {
	mant, exp, _ := strings.Cut(s, "e")
	if strings.ContainsRune(mant, '.') {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	sign := ""
	if exp[0] == '-' {
		sign = "-"
	}
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + exp
}

// group puts a comma between each three digits of a whole number.
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
