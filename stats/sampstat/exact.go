package sampstat

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/combin"
)

// Exact is the result of an exact (or exactly resampled) one-sided test:
// its p-value and the smallest p-value the test could give for samples of
// these sizes, whatever their values (MinP): a test whose MinP is not
// below the significance level cannot reject anything, however large the
// change, and says so rather than "no change".
type Exact struct {
	P, MinP float64
}

// FisherLess is Fisher's exact test, one-sided, of "the proportion of y is
// smaller than that of x" (kx successes of nx, ky of ny): conditional on
// the margins, the successes of y follow the hypergeometric distribution of
// ny draws from nx + ny items of which kx + ky are successes, and the
// p-value is the chance of ky or fewer, P(X ≤ ky). It is exact for any
// sample size; an empty sample gives p = 1 (no evidence).
func FisherLess(kx, nx, ky, ny int) Exact {
	if nx <= 0 || ny <= 0 || kx < 0 || ky < 0 || kx > nx || ky > ny {
		return Exact{P: 1, MinP: 1}
	}
	n, k := nx+ny, kx+ky
	lo := max(0, ny-(n-k)) // the fewest successes y can draw
	logTotal := combin.LogGeneralizedBinomial(float64(n), float64(ny))
	pmf := func(x int) float64 {
		return math.Exp(combin.LogGeneralizedBinomial(float64(k), float64(x)) +
			combin.LogGeneralizedBinomial(float64(n-k), float64(ny-x)) - logTotal)
	}
	p := 0.0
	for x := lo; x <= ky; x++ {
		p += pmf(x)
	}
	return Exact{P: min(1, p), MinP: min(1, pmf(lo))}
}

// permutationExactMax bounds the splits PermutationGreater enumerates; above
// it, it draws permutationDraws of them at random.
const (
	permutationExactMax = 200000
	permutationDraws    = 20000
)

// PermutationGreater is the two-sample permutation test, one-sided, of "the
// mean of y is larger than that of x": under the null hypothesis the
// values are exchangeable between the samples, and the p-value is the share
// of the ways to split the pooled values into samples of their sizes whose
// y has a sum at least the observed one (the difference of the means grows
// with it). Every split is enumerated when there are at most 200,000 (two
// samples of 9: 48,620); beyond, 20,000 splits are drawn (seeded: the same
// data give the same p), and p = (k + 1)/(B + 1). An empty sample gives
// p = 1.
func PermutationGreater(x, y []float64, seed uint64) Exact {
	nx, ny := len(x), len(y)
	if nx == 0 || ny == 0 {
		return Exact{P: 1, MinP: 1}
	}
	pool := append(append(make([]float64, 0, nx+ny), x...), y...)
	n := len(pool)
	obs, scale := 0.0, 0.0
	for _, v := range y {
		obs += v
	}
	for _, v := range pool {
		scale += math.Abs(v)
	}
	tol := 1e-12 * scale // sums equal but for rounding count as equal
	if combin.GeneralizedBinomial(float64(n), float64(ny)) <= permutationExactMax {
		atLeast, top, total := 0, 0, 0
		best := math.Inf(-1)
		g := combin.NewCombinationGenerator(n, ny)
		idx := make([]int, ny)
		for g.Next() {
			g.Combination(idx)
			s := 0.0
			for _, i := range idx {
				s += pool[i]
			}
			total++
			if s >= obs-tol {
				atLeast++
			}
			switch {
			case s > best+tol:
				best, top = s, 1
			case s >= best-tol:
				top++
			}
		}
		return Exact{P: float64(atLeast) / float64(total), MinP: float64(top) / float64(total)}
	}
	r := rand.New(rand.NewPCG(seed, 0xbb67ae8584caa73b))
	perm := make([]int, n)
	atLeast := 0
	for range permutationDraws {
		for i := range perm {
			perm[i] = i
		}
		s := 0.0
		for i := range ny { // a partial Fisher–Yates shuffle: y's ny values
			j := i + r.IntN(n-i)
			perm[i], perm[j] = perm[j], perm[i]
			s += pool[perm[i]]
		}
		if s >= obs-tol {
			atLeast++
		}
	}
	return Exact{P: float64(atLeast+1) / float64(permutationDraws+1), MinP: 1 / float64(permutationDraws+1)}
}
