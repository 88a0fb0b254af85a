package stats

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// ParamKind says what a distribution parameter measures, so that the WDL can
// accept time units exactly where they make sense.
type ParamKind int

const (
	// Time parameters are durations in seconds; the WDL accepts units on them.
	Time ParamKind = iota
	// Number parameters are dimensionless (shapes, log-space values).
	Number
	// Rate parameters are per second.
	Rate
	// Probability parameters lie in [0, 1].
	Probability
	// Count parameters are positive integers.
	Count
)

// ParamSpec describes one parameter of a family.
type ParamSpec struct {
	Name string
	Kind ParamKind
}

// Family is a named parametric distribution family, as written in the WDL:
// Name(p1,p2,…).
type Family struct {
	Name    string
	Aliases []string
	Doc     string
	Params  []ParamSpec
	New     func(p []float64) (Distribution, error)
}

// Signature is the family's WDL form, e.g. "W(shape,scale)".
func (f *Family) Signature() string {
	names := make([]string, len(f.Params))
	for i, p := range f.Params {
		names[i] = p.Name
	}
	if len(names) == 0 {
		return f.Name
	}
	return f.Name + "(" + strings.Join(names, ",") + ")"
}

func positive(family, name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s must be > 0, got %g", family, name, v)
	}
	return nil
}

func nonNegative(family, name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s must be >= 0, got %g", family, name, v)
	}
	return nil
}

func finite(family, name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s must be a finite number, got %g", family, name, v)
	}
	return nil
}

func probability(family, name string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return fmt.Errorf("%s: %s must be a probability in [0,1], got %g", family, name, v)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// The families of GrenchMark's AIRandomUtils, with the parameter orders of
// the original (and of the thesis's tables), plus the Chapter 4 additions.
var families = []*Family{
	{Name: "C", Aliases: []string{"Constant"}, Doc: "constant value a",
		Params: []ParamSpec{{"a", Time}},
		New: func(p []float64) (Distribution, error) {
			return Constant{p[0]}, nonNegative("C", "a", p[0])
		}},
	{Name: "Zero", Doc: "always 0",
		New: func(p []float64) (Distribution, error) { return Constant{0}, nil }},
	{Name: "U", Aliases: []string{"Uniform"}, Doc: "uniform on [a,b]",
		Params: []ParamSpec{{"a", Time}, {"b", Time}},
		New: func(p []float64) (Distribution, error) {
			if err := firstErr(nonNegative("U", "a", p[0]), nonNegative("U", "b", p[1])); err != nil {
				return nil, err
			}
			if p[1] < p[0] {
				return nil, fmt.Errorf("U: b (%g) must not be smaller than a (%g)", p[1], p[0])
			}
			return Uniform{p[0], p[1]}, nil
		}},
	{Name: "N", Aliases: []string{"Normal"}, Doc: "normal with mean mu and standard deviation sigma",
		Params: []ParamSpec{{"mu", Time}, {"sigma", Time}},
		New: func(p []float64) (Distribution, error) {
			return Normal{p[0], p[1]}, firstErr(finite("N", "mu", p[0]), positive("N", "sigma", p[1]))
		}},
	{Name: "Exp", Aliases: []string{"Exponential"}, Doc: "exponential with the given rate (per second)",
		Params: []ParamSpec{{"rate", Rate}},
		New: func(p []float64) (Distribution, error) {
			return Exponential{p[0]}, positive("Exp", "rate", p[0])
		}},
	{Name: "Poisson", Doc: "Poisson arrivals: exponential inter-arrival times with the given mean",
		Params: []ParamSpec{{"mean", Time}},
		New: func(p []float64) (Distribution, error) {
			return Exponential{1 / p[0]}, positive("Poisson", "mean", p[0])
		}},
	{Name: "HExp2", Doc: "hyper-exponential: rate1 with probability p, else rate2",
		Params: []ParamSpec{{"p", Probability}, {"rate1", Rate}, {"rate2", Rate}},
		New: func(p []float64) (Distribution, error) {
			if err := firstErr(probability("HExp2", "p", p[0]), positive("HExp2", "rate1", p[1]), positive("HExp2", "rate2", p[2])); err != nil {
				return nil, err
			}
			return HyperExponential{Weights: []float64{p[0], 1 - p[0]}, Rates: []float64{p[1], p[2]}}, nil
		}},
	{Name: "HPoisson2", Doc: "hyper-exponential by means: mean1 with probability p, else mean2",
		Params: []ParamSpec{{"p", Probability}, {"mean1", Time}, {"mean2", Time}},
		New: func(p []float64) (Distribution, error) {
			if err := firstErr(probability("HPoisson2", "p", p[0]), positive("HPoisson2", "mean1", p[1]), positive("HPoisson2", "mean2", p[2])); err != nil {
				return nil, err
			}
			return HyperExponential{Weights: []float64{p[0], 1 - p[0]}, Rates: []float64{1 / p[1], 1 / p[2]}}, nil
		}},
	{Name: "W", Aliases: []string{"Weibull"}, Doc: "Weibull with shape alpha and scale beta",
		Params: []ParamSpec{{"shape", Number}, {"scale", Time}},
		New: func(p []float64) (Distribution, error) {
			return Weibull{p[0], p[1]}, firstErr(positive("W", "shape", p[0]), positive("W", "scale", p[1]))
		}},
	{Name: "LogNorm", Aliases: []string{"LogNormal", "LN"}, Doc: "log-normal: exp of a normal(mu, sigma), parameters in log-seconds",
		Params: []ParamSpec{{"mu", Number}, {"sigma", Number}},
		New: func(p []float64) (Distribution, error) {
			return LogNormal{p[0], p[1]}, firstErr(finite("LogNorm", "mu", p[0]), positive("LogNorm", "sigma", p[1]))
		}},
	{Name: "Gamma", Aliases: []string{"G"}, Doc: "gamma with shape k and scale theta (mean k*theta)",
		Params: []ParamSpec{{"shape", Number}, {"scale", Time}},
		New: func(p []float64) (Distribution, error) {
			return Gamma{p[0], p[1]}, firstErr(positive("Gamma", "shape", p[0]), positive("Gamma", "scale", p[1]))
		}},
	{Name: "Pareto", Doc: "Pareto with shape alpha and minimum xm",
		Params: []ParamSpec{{"alpha", Number}, {"xm", Time}},
		New: func(p []float64) (Distribution, error) {
			return Pareto{p[0], p[1]}, firstErr(positive("Pareto", "alpha", p[0]), positive("Pareto", "xm", p[1]))
		}},
	{Name: "Zipf", Aliases: []string{"Z"}, Doc: "Zipf on 1..n with P(k) proportional to k^-s",
		Params: []ParamSpec{{"s", Number}, {"n", Count}},
		New: func(p []float64) (Distribution, error) {
			return NewZipf(p[0], int(p[1]))
		}},
}

var familyIndex = func() map[string]*Family {
	m := map[string]*Family{}
	for _, f := range families {
		m[strings.ToLower(f.Name)] = f
		for _, a := range f.Aliases {
			m[strings.ToLower(a)] = f
		}
	}
	return m
}()

// LookupFamily finds a family by name or alias, ignoring case.
func LookupFamily(name string) (*Family, bool) {
	f, ok := familyIndex[strings.ToLower(name)]
	return f, ok
}

// Families lists the known families in WDL order.
func Families() []*Family { return families }

// FamilyNames lists the canonical family names, sorted, for error messages.
func FamilyNames() []string {
	names := make([]string, 0, len(families)+1)
	for _, f := range families {
		names = append(names, f.Name)
	}
	names = append(names, "Emp")
	sort.Strings(names)
	return names
}

// NewDistribution builds a distribution from a family name and its
// parameters (times already in seconds), checking arity and ranges.
func NewDistribution(name string, params []float64) (Distribution, error) {
	f, ok := LookupFamily(name)
	if !ok {
		return nil, fmt.Errorf("unknown distribution %q (known: %s)", name, strings.Join(FamilyNames(), ", "))
	}
	if len(params) != len(f.Params) {
		return nil, fmt.Errorf("%s takes %d parameter(s), %s; got %d", f.Name, len(f.Params), f.Signature(), len(params))
	}
	for i, ps := range f.Params {
		if ps.Kind == Count && (params[i] != math.Trunc(params[i]) || params[i] < 1 || params[i] > math.MaxInt32) {
			return nil, fmt.Errorf("%s: %s must be a whole number from 1 to %d, got %g", f.Name, ps.Name, math.MaxInt32, params[i])
		}
	}
	return f.New(params)
}
