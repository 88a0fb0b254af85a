package stats

import (
	"fmt"
	"strconv"
)

// RSDWeights are the weights of the sizes lo..hi (index i is size lo+i)
// under the Realistic Synthetic Distribution of job sizes (Bucur and Epema,
// CCGrid 2003, as Ballier et al. 2006 use it): q^s for a size s, three
// times that when s is a power of two (1 = 2^0 counts as one: only so is
// the mean on [1, 32] at q = 0.9 the paper's 6.95). Pick sizes with
// NewChoice(RSDWeights(…)). lo ≥ 1, hi ≥ lo and 0 < q < 1 are the caller's
// to check.
func RSDWeights(lo, hi int, q float64) []float64 {
	w := make([]float64, 0, hi-lo+1)
	p := 1.0
	for s := 1; s <= hi; s++ {
		p *= q
		if s < lo {
			continue
		}
		if s&(s-1) == 0 {
			w = append(w, 3*p)
		} else {
			w = append(w, p)
		}
	}
	return w
}

// RSDMean is the mean size of the Realistic Synthetic Distribution on
// lo..hi with parameter q.
func RSDMean(lo, hi int, q float64) float64 {
	sum, mean := 0.0, 0.0
	for i, w := range RSDWeights(lo, hi, q) {
		sum += w
		mean += w * float64(lo+i)
	}
	return mean / sum
}

// RSD is the Realistic Synthetic Distribution of job sizes as a
// distribution: the whole numbers Lo..Hi with the weights RSDWeights(Lo,
// Hi, Q). Its draws are those of NewChoice(RSDWeights(…)), so a size drawn
// through it and one drawn by the bundled core's local workloads come from
// the same law by the same steps.
type RSD struct {
	Lo, Hi int
	Q      float64
	*Empirical
}

// maxRSDHi bounds the table of sizes, as maxZipfN bounds Zipf's.
const maxRSDHi = 1 << 20

// NewRSD returns RSD(lo, hi, q): 1 ≤ lo ≤ hi ≤ 2^20 and 0 < q ≤ 1 (the
// paper has q < 1; q = 1 weighs every size alike but the powers of two,
// three times as much).
func NewRSD(lo, hi int, q float64) (*RSD, error) {
	switch {
	case lo < 1 || hi > maxRSDHi || hi < lo:
		return nil, fmt.Errorf("RSD: the sizes must satisfy 1 ≤ lo ≤ hi ≤ %d, got lo %d, hi %d", maxRSDHi, lo, hi)
	case !(q > 0 && q <= 1):
		return nil, fmt.Errorf("RSD: q must be in (0, 1], got %g", q)
	}
	w := RSDWeights(lo, hi, q)
	if w[0] == 0 {
		// q^lo underflows: every weight is 0.
		return nil, fmt.Errorf("RSD: q = %g is too small for sizes from %d (q^%d is below the smallest float)", q, lo, lo)
	}
	values := make([]float64, len(w))
	for i := range values {
		values[i] = float64(lo + i)
	}
	e, err := NewEmpirical(values, w)
	if err != nil {
		return nil, fmt.Errorf("RSD: %v", err)
	}
	return &RSD{Lo: lo, Hi: hi, Q: q, Empirical: e}, nil
}

// String is the distribution in WDL syntax, e.g. "RSD(4,32,0.9)".
func (d *RSD) String() string {
	return "RSD(" + strconv.Itoa(d.Lo) + "," + strconv.Itoa(d.Hi) + "," + strconv.FormatFloat(d.Q, 'g', -1, 64) + ")"
}
