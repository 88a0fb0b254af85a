package plots

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// nthOfTwo is what sorting the concatenation of the two samples puts at
// each rank: samples of one value, of many ties, empty on one side, and
// interleaved.
func TestNthOfTwo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		draw := func(n int) []float64 {
			v := make([]float64, n)
			for i := range v {
				switch trial % 3 {
				case 0:
					v[i] = float64(r.IntN(4)) // ties
				case 1:
					v[i] = r.NormFloat64()
				default:
					v[i] = 7
				}
			}
			slices.Sort(v)
			return v
		}
		a, b := draw(r.IntN(20)), draw(r.IntN(20))
		all := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
		for k := range all {
			if got := nthOfTwo(a, b, k); got != all[k] {
				t.Fatalf("%v and %v, rank %d: %v, want %v", a, b, k, got, all[k])
			}
		}
	}
}
