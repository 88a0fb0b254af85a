package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Distribution is a univariate probability distribution. Continuous
// distributions return a density from Prob; discrete ones (Constant, Zipf,
// Empirical) return the probability mass of x.
//
// Sampling takes the stream explicitly rather than holding a source, so one
// distribution value can serve many streams and is safe to share.
type Distribution interface {
	Rand(r *rand.Rand) float64
	Prob(x float64) float64
	CDF(x float64) float64
	Quantile(p float64) float64
	Mean() float64
	// Variance is +Inf where the second moment does not exist.
	Variance() float64
	// String is the distribution in WDL syntax, e.g. "W(4.25,7.86)".
	String() string
}

func formatCall(name string, params ...float64) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(p, 'g', -1, 64))
	}
	b.WriteByte(')')
	return b.String()
}

// Constant always gives Value.
type Constant struct{ Value float64 }

func (c Constant) Rand(*rand.Rand) float64 { return c.Value }
func (c Constant) Prob(x float64) float64 {
	if x == c.Value {
		return 1
	}
	return 0
}
func (c Constant) CDF(x float64) float64 {
	if x < c.Value {
		return 0
	}
	return 1
}
func (c Constant) Quantile(float64) float64 { return c.Value }
func (c Constant) Mean() float64            { return c.Value }
func (c Constant) Variance() float64        { return 0 }
func (c Constant) String() string {
	if c.Value == 0 {
		return "Zero"
	}
	return formatCall("C", c.Value)
}

// Uniform is continuous uniform on [Min, Max].
type Uniform struct{ Min, Max float64 }

func (u Uniform) d() distuv.Uniform          { return distuv.Uniform{Min: u.Min, Max: u.Max} }
func (u Uniform) Rand(r *rand.Rand) float64  { return u.Min + (u.Max-u.Min)*r.Float64() }
func (u Uniform) Prob(x float64) float64     { return u.d().Prob(x) }
func (u Uniform) CDF(x float64) float64      { return u.d().CDF(x) }
func (u Uniform) Quantile(p float64) float64 { return u.d().Quantile(p) }
func (u Uniform) Mean() float64 {
	if m := (u.Min + u.Max) / 2; !math.IsInf(m, 0) {
		return m
	}
	return u.Min/2 + u.Max/2 // the sum overflows (U(1e308, 1.7e308)); the mean does not
}
func (u Uniform) Variance() float64 { return u.d().Variance() }
func (u Uniform) String() string    { return formatCall("U", u.Min, u.Max) }

// Normal has mean Mu and standard deviation Sigma.
type Normal struct{ Mu, Sigma float64 }

func (n Normal) d() distuv.Normal           { return distuv.Normal{Mu: n.Mu, Sigma: n.Sigma} }
func (n Normal) Rand(r *rand.Rand) float64  { return n.Mu + n.Sigma*r.NormFloat64() }
func (n Normal) Prob(x float64) float64     { return n.d().Prob(x) }
func (n Normal) CDF(x float64) float64      { return n.d().CDF(x) }
func (n Normal) Quantile(p float64) float64 { return n.d().Quantile(p) }
func (n Normal) Mean() float64              { return n.Mu }
func (n Normal) Variance() float64          { return n.d().Variance() }
func (n Normal) String() string             { return formatCall("N", n.Mu, n.Sigma) }

// Exponential has rate Rate (mean 1/Rate). WDL's Poisson(mean) is an
// exponential inter-arrival time with that mean: a Poisson arrival process.
type Exponential struct{ Rate float64 }

func (e Exponential) d() distuv.Exponential      { return distuv.Exponential{Rate: e.Rate} }
func (e Exponential) Rand(r *rand.Rand) float64  { return r.ExpFloat64() / e.Rate }
func (e Exponential) Prob(x float64) float64     { return e.d().Prob(x) }
func (e Exponential) CDF(x float64) float64      { return e.d().CDF(x) }
func (e Exponential) Quantile(p float64) float64 { return e.d().Quantile(p) }
func (e Exponential) Mean() float64              { return 1 / e.Rate }
func (e Exponential) Variance() float64          { return e.d().Variance() }
func (e Exponential) String() string             { return formatCall("Exp", e.Rate) }

// HyperExponential is a mixture of exponentials: with probability Weights[i]
// the value comes from an exponential of rate Rates[i].
type HyperExponential struct{ Weights, Rates []float64 }

func (h HyperExponential) Rand(r *rand.Rand) float64 {
	return r.ExpFloat64() / h.Rates[pickBranch(h.Weights, r)]
}

// pickBranch draws a mixture's branch: i with probability weights[i] (the
// last takes what rounding leaves of the others).
func pickBranch(weights []float64, r *rand.Rand) int {
	u := r.Float64()
	i := 0
	for ; i < len(weights)-1; i++ {
		if u < weights[i] {
			break
		}
		u -= weights[i]
	}
	return i
}

func (h HyperExponential) Prob(x float64) float64 {
	if x < 0 {
		return 0
	}
	s := 0.0 // (w·rate)·e^(−rate·x), in this order, as the fits were computed
	for i, w := range h.Weights {
		s += w * h.Rates[i] * math.Exp(-h.Rates[i]*x)
	}
	return s
}

func (h HyperExponential) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return mixtureSum(h.Weights, func(i int) float64 { return -math.Expm1(-h.Rates[i] * x) })
}

// Quantile inverts the CDF numerically: a mixture's p-quantile lies between
// the smallest and the largest of its branches' p-quantiles.
func (h HyperExponential) Quantile(p float64) float64 {
	if p <= 0 {
		return 0
	}
	if p >= 1 {
		return math.Inf(1)
	}
	return mixtureQuantile(p, len(h.Rates), func(i int) float64 { return -math.Log1p(-p) / h.Rates[i] }, h.CDF)
}

// mixtureQuantile inverts a mixture's CDF at p in (0, 1): its p-quantile
// lies between the smallest and the largest of its n branches'
// p-quantiles (branchQ).
func mixtureQuantile(p float64, n int, branchQ func(i int) float64, cdf func(float64) float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for i := range n {
		q := branchQ(i)
		lo, hi = math.Min(lo, q), math.Max(hi, q)
	}
	return invertCDF(cdf, p, lo, hi)
}

// mixtureSum is Σ wᵢ·f(i), a mixture's density, distribution or moment
// from its branches'.
func mixtureSum(weights []float64, f func(i int) float64) float64 {
	s := 0.0
	for i, w := range weights {
		s += w * f(i)
	}
	return s
}

func (h HyperExponential) Mean() float64 {
	s := 0.0
	for i, w := range h.Weights {
		s += w / h.Rates[i]
	}
	return s
}

// Variance is E[X²] − E[X]², E[X²] = Σ w_i·2/rate_i².
func (h HyperExponential) Variance() float64 {
	m2 := 0.0
	for i, w := range h.Weights {
		m2 += w * 2 / (h.Rates[i] * h.Rates[i])
	}
	m := h.Mean()
	return m2 - m*m
}

func (h HyperExponential) String() string {
	if len(h.Weights) == 2 {
		return formatCall("HExp2", h.Weights[0], h.Rates[0], h.Rates[1])
	}
	params := append([]float64{}, h.Weights...)
	return formatCall("HExp", append(params, h.Rates...)...)
}

// invertCDF finds x in [lo, hi] with cdf(x) = p by bisection; cdf must be
// continuous and non-decreasing with cdf(lo) <= p <= cdf(hi).
func invertCDF(cdf func(float64) float64, p, lo, hi float64) float64 {
	for i := 0; i < 200 && hi-lo > 1e-12*math.Max(1, math.Abs(hi)); i++ {
		mid := lo + (hi-lo)/2
		if cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// Weibull has shape Shape (α) and scale Scale (β), the parameter order of the
// thesis's tables and of GrenchMark's W(α,β).
type Weibull struct{ Shape, Scale float64 }

func (w Weibull) d() distuv.Weibull { return distuv.Weibull{K: w.Shape, Lambda: w.Scale} }

// Rand inverts the CDF on a standard exponential E: Scale·E^(1/Shape),
// computed as exp(log(E)/Shape), which is faster than math.Pow.
func (w Weibull) Rand(r *rand.Rand) float64 {
	e := r.ExpFloat64()
	if w.Shape == 1 {
		return w.Scale * e
	}
	return w.Scale * math.Exp(math.Log(e)/w.Shape)
}
func (w Weibull) Prob(x float64) float64     { return w.d().Prob(x) }
func (w Weibull) CDF(x float64) float64      { return w.d().CDF(x) }
func (w Weibull) Quantile(p float64) float64 { return w.d().Quantile(p) }
func (w Weibull) Mean() float64              { return w.d().Mean() }
func (w Weibull) Variance() float64          { return w.d().Variance() }
func (w Weibull) String() string             { return formatCall("W", w.Shape, w.Scale) }

// LogNormal is the distribution of exp(X) for X normal with mean Mu and
// standard deviation Sigma.
type LogNormal struct{ Mu, Sigma float64 }

func (l LogNormal) d() distuv.LogNormal        { return distuv.LogNormal{Mu: l.Mu, Sigma: l.Sigma} }
func (l LogNormal) Rand(r *rand.Rand) float64  { return math.Exp(l.Mu + l.Sigma*r.NormFloat64()) }
func (l LogNormal) Prob(x float64) float64     { return l.d().Prob(x) }
func (l LogNormal) Quantile(p float64) float64 { return l.d().Quantile(p) }
func (l LogNormal) Mean() float64              { return l.d().Mean() }
func (l LogNormal) Variance() float64          { return l.d().Variance() }
func (l LogNormal) String() string             { return formatCall("LogNorm", l.Mu, l.Sigma) }

// CDF is 0 below 0 (gonum's gives NaN there: the log of a negative number).
func (l LogNormal) CDF(x float64) float64 {
	if x < 0 {
		return 0
	}
	return l.d().CDF(x)
}

// Gamma has shape Shape (k) and scale Scale (θ), mean kθ. (The thesis's tables
// give gamma as shape and rate; rate = 1/scale.)
type Gamma struct{ Shape, Scale float64 }

func (g Gamma) d(r *rand.Rand) distuv.Gamma {
	d := distuv.Gamma{Alpha: g.Shape, Beta: 1 / g.Scale}
	if r != nil {
		d.Src = r
	}
	return d
}
func (g Gamma) Rand(r *rand.Rand) float64  { return g.d(r).Rand() }
func (g Gamma) Prob(x float64) float64     { return g.d(nil).Prob(x) }
func (g Gamma) CDF(x float64) float64      { return g.d(nil).CDF(x) }
func (g Gamma) Quantile(p float64) float64 { return g.d(nil).Quantile(p) }
func (g Gamma) Mean() float64              { return g.Shape * g.Scale }
func (g Gamma) Variance() float64          { return g.Shape * g.Scale * g.Scale }
func (g Gamma) String() string             { return formatCall("Gamma", g.Shape, g.Scale) }

// Pareto has shape Alpha and scale (minimum) Xm.
type Pareto struct{ Alpha, Xm float64 }

func (p Pareto) d() distuv.Pareto           { return distuv.Pareto{Xm: p.Xm, Alpha: p.Alpha} }
func (p Pareto) Rand(r *rand.Rand) float64  { return p.Xm * math.Exp(r.ExpFloat64()/p.Alpha) }
func (p Pareto) Prob(x float64) float64     { return p.d().Prob(x) }
func (p Pareto) CDF(x float64) float64      { return p.d().CDF(x) }
func (p Pareto) Quantile(q float64) float64 { return p.d().Quantile(q) }
func (p Pareto) Mean() float64              { return p.d().Mean() }
func (p Pareto) Variance() float64          { return p.d().Variance() }
func (p Pareto) String() string             { return formatCall("Pareto", p.Alpha, p.Xm) }

// Zipf is the discrete distribution on 1..N with P(k) proportional to k^-S,
// the thesis's model of user ranks.
type Zipf struct {
	S   float64
	N   int
	cum []float64 // cum[k-1] = P(X <= k)
}

// maxZipfN bounds the precomputed table (8 MB); user populations and ranks
// in the thesis's models are in the hundreds.
const maxZipfN = 1 << 20

// NewZipf returns Zipf(s, n); it precomputes the CDF, O(n) memory.
func NewZipf(s float64, n int) (*Zipf, error) {
	if !(s > 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("Zipf: exponent must be > 0, got %g", s)
	}
	if n < 1 || n > maxZipfN {
		return nil, fmt.Errorf("Zipf: n must be in 1..%d, got %d", maxZipfN, n)
	}
	cum := make([]float64, n)
	total := 0.0
	for k := 1; k <= n; k++ {
		total += math.Pow(float64(k), -s)
		cum[k-1] = total
	}
	for i := range cum {
		cum[i] /= total
	}
	cum[n-1] = 1
	return &Zipf{S: s, N: n, cum: cum}, nil
}

func (z *Zipf) Rand(r *rand.Rand) float64 {
	u := r.Float64()
	return float64(sort.SearchFloat64s(z.cum, u) + 1)
}

func (z *Zipf) Prob(x float64) float64 {
	k := int(x)
	if float64(k) != x || k < 1 || k > z.N {
		return 0
	}
	if k == 1 {
		return z.cum[0]
	}
	return z.cum[k-1] - z.cum[k-2]
}

func (z *Zipf) CDF(x float64) float64 {
	if x < 1 {
		return 0
	}
	if x >= float64(z.N) {
		return 1
	}
	return z.cum[int(x)-1]
}

func (z *Zipf) Quantile(p float64) float64 {
	if p <= 0 {
		return 1
	}
	return float64(sort.SearchFloat64s(z.cum, p) + 1)
}

func (z *Zipf) Mean() float64 {
	m := 0.0
	for k := 1; k <= z.N; k++ {
		m += float64(k) * z.Prob(float64(k))
	}
	return m
}

func (z *Zipf) Variance() float64 {
	m, m2 := 0.0, 0.0
	for k := 1; k <= z.N; k++ {
		p := z.Prob(float64(k))
		m += float64(k) * p
		m2 += float64(k) * float64(k) * p
	}
	return m2 - m*m
}

// String writes n as a whole number (formatCall's %g would give 1.048576e+06).
func (z *Zipf) String() string {
	return "Zipf(" + strconv.FormatFloat(z.S, 'g', -1, 64) + "," + strconv.Itoa(z.N) + ")"
}

// Empirical is a discrete distribution over given values with given
// weights: GrenchMark's "…WithWeights" lists and the WDL's Emp(v/w;…).
type Empirical struct {
	values  []float64 // in the order given; sampling walks this order
	choice  *Choice
	sorted  []float64 // distinct values, ascending, for CDF and Quantile
	sortCum []float64 // P(X <= sorted[i])
}

// NewEmpirical returns the distribution taking values[i] with probability
// weights[i] / sum(weights).
func NewEmpirical(values, weights []float64) (*Empirical, error) {
	if len(values) != len(weights) {
		return nil, fmt.Errorf("empirical: %d values but %d weights", len(values), len(weights))
	}
	c, err := NewChoice(weights)
	if err != nil {
		return nil, err
	}
	e := &Empirical{values: append([]float64(nil), values...), choice: c}
	mass := map[float64]float64{}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("empirical: value %g is not finite", v)
		}
		if _, seen := mass[v]; !seen {
			e.sorted = append(e.sorted, v)
		}
		mass[v] += c.Prob(i)
	}
	sort.Float64s(e.sorted)
	cum := 0.0
	for _, v := range e.sorted {
		cum += mass[v]
		e.sortCum = append(e.sortCum, cum)
	}
	e.sortCum[len(e.sortCum)-1] = 1
	return e, nil
}

func (e *Empirical) Rand(r *rand.Rand) float64 { return e.values[e.choice.Pick(r)] }

func (e *Empirical) Prob(x float64) float64 {
	p := 0.0
	for i, v := range e.values {
		if v == x {
			p += e.choice.Prob(i)
		}
	}
	return p
}

func (e *Empirical) CDF(x float64) float64 {
	i := sort.Search(len(e.sorted), func(i int) bool { return e.sorted[i] > x })
	if i == 0 {
		return 0
	}
	return e.sortCum[i-1]
}

func (e *Empirical) Quantile(p float64) float64 {
	i := sort.SearchFloat64s(e.sortCum, p)
	if i >= len(e.sorted) {
		i = len(e.sorted) - 1
	}
	return e.sorted[i]
}

func (e *Empirical) Mean() float64 {
	m := 0.0
	for i, v := range e.values {
		m += v * e.choice.Prob(i)
	}
	return m
}

func (e *Empirical) Variance() float64 {
	m := e.Mean()
	v := 0.0
	for i, x := range e.values {
		v += (x - m) * (x - m) * e.choice.Prob(i)
	}
	return v
}

func (e *Empirical) String() string {
	var b strings.Builder
	b.WriteString("Emp(")
	for i, v := range e.values {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		b.WriteByte('/')
		b.WriteString(strconv.FormatFloat(e.choice.Weight(i), 'g', -1, 64))
	}
	b.WriteByte(')')
	return b.String()
}

// Choice picks an index with probability proportional to its weight: exact
// weighted sampling (GrenchMark drew an integer in [0, total·1000], which
// distorts small weights).
type Choice struct {
	weights []float64
	cum     []float64
	total   float64
}

// NewChoice checks that the weights are finite, non-negative and not all zero.
func NewChoice(weights []float64) (*Choice, error) {
	if len(weights) == 0 {
		return nil, fmt.Errorf("empty weighted list")
	}
	c := &Choice{weights: append([]float64(nil), weights...), cum: make([]float64, len(weights))}
	for i, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weight %g of item %d must be a finite number >= 0", w, i+1)
		}
		c.total += w
		c.cum[i] = c.total
	}
	if c.total == 0 {
		return nil, fmt.Errorf("all weights are 0")
	}
	return c, nil
}

// Pick returns an index in [0, Len()).
func (c *Choice) Pick(r *rand.Rand) int {
	if len(c.cum) == 1 {
		return 0
	}
	u := r.Float64() * c.total
	i := sort.Search(len(c.cum), func(i int) bool { return c.cum[i] > u })
	if i == len(c.cum) { // u rounded up to total
		i--
	}
	for c.weights[i] == 0 { // never return a zero-weight item
		i--
	}
	return i
}

// Len is the number of items.
func (c *Choice) Len() int { return len(c.weights) }

// Prob is the probability of index i.
func (c *Choice) Prob(i int) float64 { return c.weights[i] / c.total }

// Weight is the weight of index i as given.
func (c *Choice) Weight(i int) float64 { return c.weights[i] }
