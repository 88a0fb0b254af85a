// Package sampstat holds the sample statistics gmark's reports and its
// regression gate use: quantiles, summaries with 95% confidence intervals
// (percentile bootstrap), the Mann–Whitney U test, the two-proportion z
// test, and the exact tests of small samples: Fisher's (FisherLess) and the
// permutation test of the means (PermutationGreater). Means and standard
// deviations come from gonum/stat, binomial coefficients from gonum's
// stat/combin.
package sampstat

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Quantile is the p-quantile of sorted (ascending) data by linear
// interpolation between the closest ranks: h = (n−1)p, x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1]−x[⌊h⌋])
// (Hyndman and Fan's type 7, the default of R and NumPy). The median of
// 1, 2, 3, 4 is 2.5. NaN for no data.
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if p <= 0 {
		return sorted[0]
	}
	if p >= 1 {
		return sorted[n-1]
	}
	h := float64(n-1) * p
	i := int(h)
	if i+1 >= n {
		return sorted[n-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// Summary describes a sample. CIs are 95% confidence intervals.
type Summary struct {
	N        int        `json:"n"`
	Mean     float64    `json:"mean"`
	Std      float64    `json:"std"`
	Min      float64    `json:"min"`
	P25      float64    `json:"p25"`
	P50      float64    `json:"p50"`
	P75      float64    `json:"p75"`
	P90      float64    `json:"p90"`
	P95      float64    `json:"p95"`
	P99      float64    `json:"p99"`
	Max      float64    `json:"max"`
	MeanCI   [2]float64 `json:"mean_ci"`
	MedianCI [2]float64 `json:"median_ci"`
	CIMethod string     `json:"ci_method"` // "bootstrap" or "normal"
}

// BootstrapMax is the largest sample whose CIs are bootstrapped; beyond it
// the CIs use the normal approximation (for the mean) and the order
// statistics of the binomial approximation (for the median), which at that
// size agree with the bootstrap to the digits a report shows and cost
// nothing.
const BootstrapMax = 20000

// BootstrapResamples is the number of bootstrap resamples.
const BootstrapResamples = 1000

// Summarize describes x, which it sorts in place. The bootstrap is seeded,
// so the same data give the same intervals.
func Summarize(x []float64) Summary {
	s := Summary{N: len(x)}
	nan := math.NaN()
	if len(x) == 0 {
		s.Mean, s.Std, s.Min, s.P25, s.P50, s.P75, s.P90, s.P95, s.P99, s.Max = nan, nan, nan, nan, nan, nan, nan, nan, nan, nan
		s.MeanCI, s.MedianCI = [2]float64{nan, nan}, [2]float64{nan, nan}
		return s
	}
	slices.Sort(x)
	s.Mean = stat.Mean(x, nil)
	if len(x) > 1 {
		s.Std = stat.StdDev(x, nil)
	}
	s.Min, s.Max = x[0], x[len(x)-1]
	s.P25, s.P50, s.P75 = Quantile(x, 0.25), Quantile(x, 0.5), Quantile(x, 0.75)
	s.P90, s.P95, s.P99 = Quantile(x, 0.9), Quantile(x, 0.95), Quantile(x, 0.99)
	if len(x) <= BootstrapMax {
		s.CIMethod = "bootstrap"
		s.MeanCI = BootstrapCI(x, func(v []float64) float64 { return stat.Mean(v, nil) }, 0.95, 1)
		s.MedianCI = BootstrapCI(x, func(v []float64) float64 { slices.Sort(v); return Quantile(v, 0.5) }, 0.95, 2)
	} else {
		s.CIMethod = "normal"
		h := 1.959963984540054 * s.Std / math.Sqrt(float64(len(x)))
		s.MeanCI = [2]float64{s.Mean - h, s.Mean + h}
		s.MedianCI = QuantileCI(x, 0.5)
	}
	return s
}

// MeanCI is the Student t confidence interval (level, e.g. 0.95) of the
// mean of a sample of n values with mean and sample standard deviation
// sd: mean ∓ t(n−1, (1+level)/2)·sd/√n. Both ends are NaN for fewer than
// two values, where the sample says nothing of its spread.
func MeanCI(mean, sd float64, n int, level float64) [2]float64 {
	if n < 2 || math.IsNaN(mean) || math.IsNaN(sd) {
		return [2]float64{math.NaN(), math.NaN()}
	}
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1+level)/2) * sd / math.Sqrt(float64(n))
	return [2]float64{mean - h, mean + h}
}

// QuantileCI is the distribution-free 95% confidence interval of the
// p-quantile of sorted data: the order statistics at ranks np ∓ 1.96√(np(1−p))
// (normal approximation of the binomial).
func QuantileCI(sorted []float64, p float64) [2]float64 {
	n := float64(len(sorted))
	if n == 0 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	h := 1.959963984540054 * math.Sqrt(n*p*(1-p))
	lo := int(math.Floor(n*p - h))
	hi := int(math.Ceil(n*p + h))
	lo = max(0, min(lo, len(sorted)-1))
	hi = max(0, min(hi, len(sorted)-1))
	return [2]float64{sorted[lo], sorted[hi]}
}

// BootstrapCI is the percentile bootstrap confidence interval (level, e.g.
// 0.95) of stat over x, from BootstrapResamples resamples drawn with a
// generator seeded by seed. stat may reorder its argument.
func BootstrapCI(x []float64, statistic func([]float64) float64, level float64, seed uint64) [2]float64 {
	if len(x) == 0 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	buf := make([]float64, len(x))
	est := make([]float64, BootstrapResamples)
	for b := range est {
		for i := range buf {
			buf[i] = x[r.IntN(len(x))]
		}
		est[b] = statistic(buf)
	}
	slices.Sort(est)
	a := (1 - level) / 2
	return [2]float64{Quantile(est, a), Quantile(est, 1-a)}
}

// MannWhitney is the result of a Mann–Whitney U test of y against x.
type MannWhitney struct {
	U float64 `json:"u"` // U of y: the number of pairs (x_i, y_j) with y_j > x_i, ties counting ½
	Z float64 `json:"z"` // standardized, with continuity and tie corrections
	// P is the one-sided p-value of "y tends to be larger than x"
	// (P(Y > X) > ½), by the normal approximation.
	P float64 `json:"p"`
	// Effect is the common-language effect size U/(n_x n_y): the
	// probability that a value of y exceeds one of x (ties ½).
	Effect float64 `json:"effect"`
}

// MannWhitneyGreater tests whether y tends to be larger than x. It uses the
// normal approximation of U's distribution: mean n_x n_y / 2, variance
// n_x n_y / 12 × ((n+1) − Σ(t³−t)/(n(n−1))) with t the sizes of the groups
// of tied values (so a sample full of zero waits is handled), and a
// continuity correction of ½. The approximation is good for n_x, n_y ≥ 10;
// a test with fewer values on a side returns P = 1 (no evidence).
func MannWhitneyGreater(x, y []float64) MannWhitney {
	nx, ny := len(x), len(y)
	if nx == 0 || ny == 0 {
		return MannWhitney{P: 1, Effect: math.NaN()}
	}
	type obs struct {
		v    float64
		from int8 // 0: x, 1: y
	}
	all := make([]obs, 0, nx+ny)
	for _, v := range x {
		all = append(all, obs{v, 0})
	}
	for _, v := range y {
		all = append(all, obs{v, 1})
	}
	slices.SortFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	n := float64(nx + ny)
	rankSumY, tieSum := 0.0, 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // average of ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].from == 1 {
				rankSumY += rank
			}
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		i = j
	}
	fx, fy := float64(nx), float64(ny)
	u := rankSumY - fy*(fy+1)/2
	res := MannWhitney{U: u, Effect: u / (fx * fy), P: 1}
	mean := fx * fy / 2
	variance := fx * fy / 12 * ((n + 1) - tieSum/(n*(n-1)))
	if variance <= 0 { // every value tied
		return res
	}
	res.Z = (u - mean - 0.5) / math.Sqrt(variance)
	if nx < 10 || ny < 10 {
		return res
	}
	res.P = 1 - distuv.UnitNormal.CDF(res.Z)
	return res
}

// TwoProportionLess is the one-sided p-value of "the proportion of y is
// smaller than that of x" (k successes out of n each), by the pooled
// two-proportion z test. It returns 1 when either sample is empty or the
// pooled proportion is 0 or 1 (no variance: no evidence either way).
func TwoProportionLess(kx, nx, ky, ny int) (z, p float64) {
	if nx == 0 || ny == 0 {
		return 0, 1
	}
	px, py := float64(kx)/float64(nx), float64(ky)/float64(ny)
	pool := float64(kx+ky) / float64(nx+ny)
	se := math.Sqrt(pool * (1 - pool) * (1/float64(nx) + 1/float64(ny)))
	if se == 0 {
		return 0, 1
	}
	z = (py - px) / se
	return z, distuv.UnitNormal.CDF(z)
}

// NullReason says why the summary's numbers are undefined: a summary of no
// values has none (for the JSON form's list of nulls).
func (s *Summary) NullReason(field string) string {
	if s.N == 0 && field == "" {
		return "no values (n = 0): every statistic is undefined"
	}
	return ""
}
