package stats

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
