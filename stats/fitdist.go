package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mathext"
)

// The distributions fitting needs beyond the WDL families: the hyper-gamma
// (Lublin–Feitelson's runtime model, and a fitted family), the distribution
// of 2^Y (how a model fitted on log2 data is sampled back), and a spliced
// distribution (a fitted model plus the values set apart below the floor).

// HyperGamma is a mixture of gamma distributions: with probability
// Weights[i] the value comes from a gamma of shape Shapes[i] and scale
// Scales[i] (mean Shapes[i]·Scales[i]).
type HyperGamma struct{ Weights, Shapes, Scales []float64 }

// NewHyperGamma checks the parameters: weights in [0,1] summing to 1 (within
// 1e-9), shapes and scales > 0.
func NewHyperGamma(weights, shapes, scales []float64) (HyperGamma, error) {
	if len(weights) == 0 || len(weights) != len(shapes) || len(weights) != len(scales) {
		return HyperGamma{}, fmt.Errorf("HGamma: %d weights, %d shapes and %d scales; give one of each per branch", len(weights), len(shapes), len(scales))
	}
	branch := []ParamSpec{{"p", Probability, UnitInterval}, {"shape", Number, Positive}, {"scale", Number, Positive}}
	for i := range weights {
		for j, v := range []float64{weights[i], shapes[i], scales[i]} {
			if err := branch[j].check("HGamma", v); err != nil {
				return HyperGamma{}, err
			}
		}
	}
	if err := sumsToOne("HGamma", weights); err != nil {
		return HyperGamma{}, err
	}
	return HyperGamma{Weights: weights, Shapes: shapes, Scales: scales}, nil
}

func (h HyperGamma) Rand(r *rand.Rand) float64 {
	i := pickBranch(h.Weights, r)
	return Gamma{h.Shapes[i], h.Scales[i]}.Rand(r)
}

func (h HyperGamma) Prob(x float64) float64 {
	if x < 0 {
		return 0
	}
	return mixtureSum(h.Weights, func(i int) float64 { return Gamma{h.Shapes[i], h.Scales[i]}.Prob(x) })
}

func (h HyperGamma) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Min(mixtureSum(h.Weights, func(i int) float64 { return mathext.GammaIncReg(h.Shapes[i], x/h.Scales[i]) }), 1)
}

// survival is 1 − CDF computed from the branches' upper tails, accurate far
// in the right tail.
func (h HyperGamma) survival(x float64) float64 {
	if x <= 0 {
		return 1
	}
	return math.Min(mixtureSum(h.Weights, func(i int) float64 { return mathext.GammaIncRegComp(h.Shapes[i], x/h.Scales[i]) }), 1)
}

// Quantile inverts the CDF numerically between the branches' quantiles.
func (h HyperGamma) Quantile(p float64) float64 {
	if p <= 0 {
		return 0
	}
	if p >= 1 {
		return math.Inf(1)
	}
	return mixtureQuantile(p, len(h.Weights), func(i int) float64 { return Gamma{h.Shapes[i], h.Scales[i]}.Quantile(p) }, h.CDF)
}

func (h HyperGamma) Mean() float64 {
	m := 0.0
	for i, w := range h.Weights {
		m += w * h.Shapes[i] * h.Scales[i]
	}
	return m
}

// Variance is E[X²] − E[X]², E[X²] = Σ w_i·k_i(k_i+1)θ_i².
func (h HyperGamma) Variance() float64 {
	m2 := 0.0
	for i, w := range h.Weights {
		m2 += w * h.Shapes[i] * (h.Shapes[i] + 1) * h.Scales[i] * h.Scales[i]
	}
	m := h.Mean()
	return m2 - m*m
}

// String is HGamma2(p,shape1,scale1,shape2,scale2) for two branches (the
// WDL form), HGamma(p1,…,pk;shape1,…;scale1,…) otherwise.
func (h HyperGamma) String() string {
	if len(h.Weights) == 2 {
		return formatCall("HGamma2", h.Weights[0], h.Shapes[0], h.Scales[0], h.Shapes[1], h.Scales[1])
	}
	return "HGamma(" + joinFloats(h.Weights) + ";" + joinFloats(h.Shapes) + ";" + joinFloats(h.Scales) + ")"
}

func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// Pow2 is the distribution of 2^Y for Y distributed as Of: how a model
// fitted to log2 of the data (as the thesis fits every workload
// characteristic) is sampled in the data's own units. Y = log2 X, so
// CDF(x) = Of.CDF(log2 x) and Prob(x) = Of.Prob(log2 x) / (x ln 2).
type Pow2 struct{ Of Distribution }

func (p Pow2) Rand(r *rand.Rand) float64 { return math.Exp2(p.Of.Rand(r)) }

func (p Pow2) Prob(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return p.Of.Prob(math.Log2(x)) / (x * math.Ln2)
}

func (p Pow2) CDF(x float64) float64 {
	if !(x > 0) {
		return p.Of.CDF(math.Inf(-1))
	}
	return p.Of.CDF(math.Log2(x))
}

func (p Pow2) Quantile(q float64) float64 { return math.Exp2(p.Of.Quantile(q)) }

// Mean is E[2^Y]: in closed form where there is one, +Inf where it does not
// exist (log-normal, Pareto, Weibull of shape < 1 on log2 data: their
// back-transformed tails are heavier than any power), and otherwise by
// numerical integration over the quantile function.
func (p Pow2) Mean() float64 {
	t := math.Ln2
	switch d := p.Of.(type) {
	case Constant:
		return math.Exp2(d.Value)
	case Normal:
		return math.Exp(t*d.Mu + t*t*d.Sigma*d.Sigma/2)
	case Uniform:
		if d.Max == d.Min {
			return math.Exp2(d.Min)
		}
		return (math.Exp2(d.Max) - math.Exp2(d.Min)) / (t * (d.Max - d.Min))
	case Exponential:
		if d.Rate <= t {
			return math.Inf(1)
		}
		return d.Rate / (d.Rate - t)
	case Gamma:
		if t*d.Scale >= 1 {
			return math.Inf(1)
		}
		return math.Pow(1-t*d.Scale, -d.Shape)
	case HyperExponential:
		m := 0.0
		for i, w := range d.Weights {
			m += w * Pow2{Exponential{d.Rates[i]}}.Mean()
		}
		return m
	case HyperGamma:
		m := 0.0
		for i, w := range d.Weights {
			m += w * Pow2{Gamma{d.Shapes[i], d.Scales[i]}}.Mean()
		}
		return m
	case LogNormal, Pareto:
		return math.Inf(1)
	case Weibull:
		switch {
		case d.Shape < 1 || (d.Shape == 1 && t*d.Scale >= 1):
			return math.Inf(1)
		case d.Shape == 1:
			return Pow2{Exponential{1 / d.Scale}}.Mean()
		}
		return weibullPow2Mean(d)
	}
	return quantileMean(func(u float64) float64 { return math.Exp2(p.Of.Quantile(u)) })
}

// weibullPow2Mean is E[2^X] for X Weibull of shape > 1, integrated over x:
// the mean is finite (the tail exp(−(x/λ)^k) beats 2^x), but a fitted run
// time such as 2^W(2.53, 8.97) owes a part of it (1.4·10⁻⁷) to values beyond
// the quantiles float64 can resolve, which quantileMean would take for a
// mean that does not exist. The integrand 2^x·f(x) is smooth and unimodal;
// it is integrated with Gauss–Legendre panels up to where its logarithm has
// fallen 745 below the largest value seen (exp underflows to 0 there).
func weibullPow2Mean(w Weibull) float64 {
	k, lam := w.Shape, w.Scale
	logG := func(x float64) float64 { // log(2^x · f(x))
		if x <= 0 {
			return math.Inf(-1)
		}
		z := x / lam
		return x*math.Ln2 + math.Log(k/lam) + (k-1)*math.Log(z) - math.Pow(z, k)
	}
	// The integrand peaks where its log's derivative is 0, beyond which it
	// falls at least as fast as (x/λ)^k grows past ln2·x: step out in
	// doublings from the scale until it has fallen far enough.
	hi := lam
	top := logG(hi)
	for i := 0; i < 2000; i++ {
		g := logG(hi)
		top = math.Max(top, g)
		if g < top-745 && hi > lam {
			break
		}
		hi *= 1.5
		if math.IsInf(hi, 1) || math.IsInf(top, 1) {
			return math.Inf(1)
		}
	}
	const panels = 256
	sum := 0.0
	for j := 0; j < panels; j++ {
		a, b := hi*float64(j)/panels, hi*float64(j+1)/panels
		s := 0.0
		for i, x := range glNodes8 {
			s += glWeights8[i] * math.Exp(logG(a+(b-a)*(x+1)/2))
		}
		sum += s * (b - a) / 2
	}
	return sum
}

// quantileMean integrates q over (0,1) (the mean of the distribution whose
// quantile function is q) with 8-point Gauss–Legendre panels: [1/4, 3/4],
// then [2^-(j+1), 2^-j] and its mirror image for j = 2…45, finer towards
// both ends. Beyond 1 − 2^-46 float64 cannot resolve the quantile, so a mass
// of about 1e-14 of the upper tail is left out; when the last panel still
// weighs more than 1e-9 of the total, the mean is taken not to exist (+Inf).
func quantileMean(q func(float64) float64) float64 {
	panel := func(a, b float64) float64 {
		s := 0.0
		for i, x := range glNodes8 {
			s += glWeights8[i] * q(a+(b-a)*(x+1)/2)
		}
		return s * (b - a) / 2
	}
	sum := panel(0.25, 0.75)
	for j := 2; j <= 45; j++ {
		a, b := math.Ldexp(1, -(j+1)), math.Ldexp(1, -j)
		sum += panel(a, b)
		hi := panel(1-b, 1-a)
		if math.IsInf(hi, 0) || math.IsNaN(hi) {
			return math.Inf(1)
		}
		sum += hi
		if hi < 1e-16*sum && j > 8 {
			return sum
		}
		if j == 45 && hi > 1e-9*sum {
			return math.Inf(1) // still growing at the edge of float64: no mean
		}
	}
	return sum
}

var (
	glNodes8   = [8]float64{-0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498, 0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363}
	glWeights8 = [8]float64{0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620, 0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763}
)

// Variance is E[4^Y] − E[2^Y]², where E[4^Y] = E[2^(2Y)] is the mean of
// Pow2 of 2Y: in closed form where Mean has one for 2Y, else integrated
// over the quantile function.
func (p Pow2) Variance() float64 {
	m := p.Mean()
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return math.Inf(1)
	}
	var m2 float64
	if d := doubled(p.Of); d != nil {
		m2 = Pow2{d}.Mean()
	} else {
		m2 = quantileMean(func(u float64) float64 { return math.Exp2(2 * p.Of.Quantile(u)) })
	}
	return m2 - m*m
}

// doubled is the distribution of 2Y for Y distributed as d, for the types
// whose family is closed under scaling; nil for the others.
func doubled(d Distribution) Distribution {
	switch d := d.(type) {
	case Constant:
		return Constant{2 * d.Value}
	case Normal:
		return Normal{2 * d.Mu, 2 * d.Sigma}
	case Uniform:
		return Uniform{2 * d.Min, 2 * d.Max}
	case Exponential:
		return Exponential{d.Rate / 2}
	case Gamma:
		return Gamma{d.Shape, 2 * d.Scale}
	case Weibull:
		return Weibull{d.Shape, 2 * d.Scale}
	case HyperExponential:
		rates := make([]float64, len(d.Rates))
		for i, r := range d.Rates {
			rates[i] = r / 2
		}
		return HyperExponential{Weights: d.Weights, Rates: rates}
	case HyperGamma:
		scales := make([]float64, len(d.Scales))
		for i, s := range d.Scales {
			scales[i] = 2 * s
		}
		return HyperGamma{Weights: d.Weights, Shapes: d.Shapes, Scales: scales}
	}
	return nil
}

func (p Pow2) String() string { return "Pow2(" + p.Of.String() + ")" }

// Spliced joins two distributions whose supports do not overlap: with
// probability LowShare a value from Low, otherwise from High, every value of
// Low lying below every value of High. A fit uses it to put back the values
// it set apart at or below the floor (zeros under log2, for instance): Low
// is their empirical distribution, High the fitted model.
type Spliced struct {
	Low      Distribution
	LowShare float64
	High     Distribution
}

func (s Spliced) Rand(r *rand.Rand) float64 {
	if r.Float64() < s.LowShare {
		return s.Low.Rand(r)
	}
	return s.High.Rand(r)
}

func (s Spliced) Prob(x float64) float64 {
	return s.LowShare*s.Low.Prob(x) + (1-s.LowShare)*s.High.Prob(x)
}

func (s Spliced) CDF(x float64) float64 {
	return s.LowShare*s.Low.CDF(x) + (1-s.LowShare)*s.High.CDF(x)
}

func (s Spliced) Quantile(p float64) float64 {
	if p <= s.LowShare {
		if s.LowShare == 0 {
			return s.High.Quantile(0)
		}
		return s.Low.Quantile(p / s.LowShare)
	}
	return s.High.Quantile((p - s.LowShare) / (1 - s.LowShare))
}

func (s Spliced) Mean() float64 {
	return s.LowShare*s.Low.Mean() + (1-s.LowShare)*s.High.Mean()
}

// Variance is the law of total variance over the two parts.
func (s Spliced) Variance() float64 {
	ml, mh, m := s.Low.Mean(), s.High.Mean(), s.Mean()
	return s.LowShare*(s.Low.Variance()+(ml-m)*(ml-m)) + (1-s.LowShare)*(s.High.Variance()+(mh-m)*(mh-m))
}

func (s Spliced) String() string {
	return "Spliced(" + strconv.FormatFloat(s.LowShare, 'g', -1, 64) + ";" + s.Low.String() + ";" + s.High.String() + ")"
}

// Truncated is Of conditioned on values below Max: the draws of a model
// fitted to data right-censored at Max (a wall-time limit killed the
// longest jobs), which said nothing of the model past Max. Of's mass at or
// above Max (Beyond) is spread over the rest in proportion.
type Truncated struct {
	Of  Distribution
	Max float64
}

// NewTruncated is Of below max; an error when Of puts no mass there.
func NewTruncated(of Distribution, max float64) (Truncated, error) {
	t := Truncated{Of: of, Max: max}
	if !(t.below() > 0) {
		return t, fmt.Errorf("the model has no mass below %g", max)
	}
	return t, nil
}

// below is Of's probability below Max.
func (t Truncated) below() float64 { return t.Of.CDF(t.Max) }

// Beyond is the share of Of's mass at or above Max, which the truncation
// leaves out.
func (t Truncated) Beyond() float64 { return 1 - t.below() }

// truncRejects bounds the draws Rand rejects before it inverts the CDF: a
// few when Beyond is small, as for a fit censored at a wall-time limit.
const truncRejects = 64

func (t Truncated) Rand(r *rand.Rand) float64 {
	for range truncRejects {
		if v := t.Of.Rand(r); v < t.Max {
			return v
		}
	}
	return t.Quantile(r.Float64())
}

func (t Truncated) Prob(x float64) float64 {
	if x >= t.Max {
		return 0
	}
	return t.Of.Prob(x) / t.below()
}

func (t Truncated) CDF(x float64) float64 {
	if x >= t.Max {
		return 1
	}
	return math.Min(1, t.Of.CDF(x)/t.below())
}

func (t Truncated) Quantile(p float64) float64 {
	return math.Min(t.Of.Quantile(p*t.below()), t.Max)
}

// Mean integrates the quantile function: the support ends at Max, so the
// mean exists whatever Of's tail.
func (t Truncated) Mean() float64 { return quantileMean(t.Quantile) }

func (t Truncated) Variance() float64 {
	m := t.Mean()
	return quantileMean(func(u float64) float64 { q := t.Quantile(u); return q * q }) - m*m
}

func (t Truncated) String() string {
	return "Trunc(" + t.Of.String() + "," + strconv.FormatFloat(t.Max, 'g', -1, 64) + ")"
}

// Capped is Of with every value at or above Max drawn as Max: the values a
// system with a limit at Max records (the jobs a wall-time limit killed
// end at the limit), as a trace censored there recorded them. Of's mass at
// or above Max becomes a point mass at Max.
type Capped struct {
	Of  Distribution
	Max float64
}

// Beyond is the share of Of's mass at or above Max: the point mass at Max.
func (c Capped) Beyond() float64 { return 1 - c.Of.CDF(c.Max) }

func (c Capped) Rand(r *rand.Rand) float64 { return math.Min(c.Of.Rand(r), c.Max) }

// Prob is Of's density below Max, the point mass at Max, and 0 above.
func (c Capped) Prob(x float64) float64 {
	switch {
	case x < c.Max:
		return c.Of.Prob(x)
	case x == c.Max:
		return c.Beyond()
	}
	return 0
}

func (c Capped) CDF(x float64) float64 {
	if x >= c.Max {
		return 1
	}
	return c.Of.CDF(x)
}

func (c Capped) Quantile(p float64) float64 { return math.Min(c.Of.Quantile(p), c.Max) }

func (c Capped) Mean() float64 { return quantileMean(c.Quantile) }

func (c Capped) Variance() float64 {
	m := c.Mean()
	return quantileMean(func(u float64) float64 { q := c.Quantile(u); return q * q }) - m*m
}

func (c Capped) String() string {
	return "Cap(" + c.Of.String() + "," + strconv.FormatFloat(c.Max, 'g', -1, 64) + ")"
}
