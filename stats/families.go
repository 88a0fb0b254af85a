package stats

import (
	"fmt"
	"math"
)

// families is the one table of distribution families: GrenchMark's
// AIRandomUtils with the parameter orders of the original (and of the
// thesis's tables), the Chapter 4 additions, and the mixtures gmark fits.
// The fittable ones come in the order FitAll tries them by default.
//
// To add a family: a type with the Distribution methods (dist.go), an entry
// here, a row in docs/wdl.md (and docs/models.md when it is fitted), and a
// case in the property tests (propertyCases in dist_test.go), which fail
// until every family has one.
var families = []*Family{
	{Name: "C", Aliases: []string{"Constant"}, Doc: "constant value a",
		Params: []ParamSpec{{"a", Time, NonNegative}},
		New:    func(p []float64) (Distribution, error) { return Constant{p[0]}, nil }},
	{Name: "Zero", Doc: "always 0",
		New: func([]float64) (Distribution, error) { return Constant{0}, nil }},
	{Name: "U", Aliases: []string{"Uniform"}, Doc: "uniform on [a,b]",
		Params: []ParamSpec{{"a", Time, NonNegative}, {"b", Time, NonNegative}},
		New: func(p []float64) (Distribution, error) {
			if p[1] < p[0] {
				return nil, fmt.Errorf("U: b (%g) must not be smaller than a (%g)", p[1], p[0])
			}
			return Uniform{p[0], p[1]}, nil
		}},
	{Name: "Exp", Aliases: []string{"Exponential"}, Doc: "exponential with the given rate (per second)",
		Params: []ParamSpec{{"rate", Rate, Positive}},
		New:    func(p []float64) (Distribution, error) { return Exponential{p[0]}, nil },
		fit:    fitExp},
	{Name: "N", Aliases: []string{"Normal"}, Doc: "normal with mean mu and standard deviation sigma",
		Params: []ParamSpec{{"mu", Time, Finite}, {"sigma", Time, Positive}},
		New:    func(p []float64) (Distribution, error) { return Normal{p[0], p[1]}, nil },
		fit:    fitNormal},
	{Name: "LogNorm", Aliases: []string{"LogNormal", "LN"}, Doc: "log-normal: exp of a normal(mu, sigma), parameters in log-seconds",
		Params: []ParamSpec{{"mu", Number, Finite}, {"sigma", Number, Positive}},
		New:    func(p []float64) (Distribution, error) { return LogNormal{p[0], p[1]}, nil },
		fit:    fitLogNormal, positive: true},
	{Name: "W", Aliases: []string{"Weibull"}, Doc: "Weibull with shape alpha and scale beta",
		Params: []ParamSpec{{"shape", Number, Positive}, {"scale", Time, Positive}},
		New:    func(p []float64) (Distribution, error) { return Weibull{p[0], p[1]}, nil },
		fit:    fitWeibull, positive: true},
	{Name: "Gamma", Aliases: []string{"G"}, Doc: "gamma with shape k and scale theta (mean k*theta)",
		Params: []ParamSpec{{"shape", Number, Positive}, {"scale", Time, Positive}},
		New:    func(p []float64) (Distribution, error) { return Gamma{p[0], p[1]}, nil },
		fit:    fitGamma, positive: true},
	{Name: "Pareto", Doc: "Pareto with shape alpha and minimum xm",
		Params: []ParamSpec{{"alpha", Number, Positive}, {"xm", Time, Positive}},
		New:    func(p []float64) (Distribution, error) { return Pareto{p[0], p[1]}, nil },
		fit:    fitPareto, positive: true},
	{Name: "HExp2", Aliases: []string{"HyperExponential", "HyperExp2", "HExp"}, Doc: "hyper-exponential: rate1 with probability p, else rate2",
		Params: []ParamSpec{{"p", Probability, UnitInterval}, {"rate1", Rate, Positive}, {"rate2", Rate, Positive}},
		New: func(p []float64) (Distribution, error) {
			return HyperExponential{Weights: []float64{p[0], 1 - p[0]}, Rates: []float64{p[1], p[2]}}, nil
		},
		fit: func(s *sample) (fitResult, error) { return fitHyperExp(s, 2) }, free: 3, positive: true},
	{Name: "HExp3", Aliases: []string{"HyperExp3"}, Doc: "hyper-exponential of three branches: rate_i with probability p_i (the p_i sum to 1)",
		Params: []ParamSpec{{"p1", Probability, UnitInterval}, {"p2", Probability, UnitInterval}, {"p3", Probability, UnitInterval},
			{"rate1", Rate, Positive}, {"rate2", Rate, Positive}, {"rate3", Rate, Positive}},
		New: func(p []float64) (Distribution, error) {
			if err := sumsToOne("HExp3", p[:3]); err != nil {
				return nil, err
			}
			return HyperExponential{Weights: append([]float64(nil), p[:3]...), Rates: append([]float64(nil), p[3:]...)}, nil
		},
		fit: func(s *sample) (fitResult, error) { return fitHyperExp(s, 3) }, free: 5, positive: true},
	{Name: "HGamma2", Aliases: []string{"HyperGamma", "HGamma"}, Doc: "hyper-gamma: gamma(shape1, scale1) with probability p, else gamma(shape2, scale2)",
		Params: []ParamSpec{{"p", Probability, UnitInterval}, {"shape1", Number, Positive}, {"scale1", Number, Positive},
			{"shape2", Number, Positive}, {"scale2", Number, Positive}},
		New: func(p []float64) (Distribution, error) {
			h, err := NewHyperGamma([]float64{p[0], 1 - p[0]}, []float64{p[1], p[3]}, []float64{p[2], p[4]})
			if err != nil {
				return nil, err
			}
			return h, nil
		},
		fit: fitHyperGamma, free: 5, positive: true},
	{Name: "Poisson", Doc: "Poisson arrivals: exponential inter-arrival times with the given mean",
		Params: []ParamSpec{{"mean", Time, Positive}},
		New:    func(p []float64) (Distribution, error) { return Exponential{1 / p[0]}, nil }},
	{Name: "HPoisson2", Doc: "hyper-exponential by means: mean1 with probability p, else mean2",
		Params: []ParamSpec{{"p", Probability, UnitInterval}, {"mean1", Time, Positive}, {"mean2", Time, Positive}},
		New: func(p []float64) (Distribution, error) {
			return HyperExponential{Weights: []float64{p[0], 1 - p[0]}, Rates: []float64{1 / p[1], 1 / p[2]}}, nil
		}},
	{Name: "Zipf", Aliases: []string{"Z"}, Doc: "Zipf on 1..n with P(k) proportional to k^-s",
		Params: []ParamSpec{{"s", Number, Positive}, {"n", Count, WholeCount}},
		New: func(p []float64) (Distribution, error) {
			z, err := NewZipf(p[0], int(p[1]))
			if err != nil {
				return nil, err
			}
			return z, nil
		}},
	{Name: "RSD", Doc: "the Realistic Synthetic Distribution of job sizes on lo..hi: P(s) ∝ q^s, three times that when s is a power of two (1 counts)",
		Params: []ParamSpec{{"lo", Count, WholeCount}, {"hi", Count, WholeCount}, {"q", Probability, UnitInterval}},
		New: func(p []float64) (Distribution, error) {
			d, err := NewRSD(int(p[0]), int(p[1]), p[2])
			if err != nil {
				return nil, err
			}
			return d, nil
		}},
}

// sumsToOne checks a mixture's branch probabilities.
func sumsToOne(family string, weights []float64) error {
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("%s: the branch probabilities sum to %g, not 1", family, sum)
	}
	return nil
}
