package stats

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gmark/gmark/internal/names"
)

// A Family is a named parametric family of distributions, defined once for
// every use gmark makes of it: the name and aliases the WDL, fit files and
// `gmark fit --families` accept, the parameters with their units and ranges,
// the constructor of the distribution, and, for the families gmark fits,
// the maximum-likelihood fitter. The table of all of them is in families.go;
// each distribution is a type with the same method set (Distribution), in
// the manner of gonum's stat/distuv.
type Family struct {
	Name    string   // canonical, e.g. "W"
	Aliases []string // other names, e.g. "Weibull"; names are case-insensitive
	Doc     string
	Params  []ParamSpec
	// New builds the distribution from parameters in Params order whose
	// ranges are already checked; it checks what involves several
	// parameters (U's b ≥ a, a mixture's probabilities summing to 1).
	New func(p []float64) (Distribution, error)

	// Fitting; fit is nil for the families gmark does not fit.
	fit      func(s *sample) (fitResult, error)
	free     int  // free parameters, fewer than Params when they are constrained; 0: len(Params)
	positive bool // the fitted support is y > 0

	paramNames []string
}

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

// Range is the set of values a parameter may take.
type Range int

const (
	// Finite: any finite number.
	Finite Range = iota
	// NonNegative: a finite number >= 0.
	NonNegative
	// Positive: a finite number > 0.
	Positive
	// UnitInterval: a probability, in [0, 1].
	UnitInterval
	// WholeCount: a whole number from 1 to math.MaxInt32.
	WholeCount
)

// ParamSpec describes one parameter of a family.
type ParamSpec struct {
	Name  string
	Kind  ParamKind
	Range Range
}

// check tells whether v lies in the parameter's range, with the message a
// user of the given family reads when it does not.
func (ps ParamSpec) check(family string, v float64) error {
	switch ps.Range {
	case Finite:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: %s must be a finite number, got %g", family, ps.Name, v)
		}
	case NonNegative:
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: %s must be >= 0, got %g", family, ps.Name, v)
		}
	case Positive:
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: %s must be > 0, got %g", family, ps.Name, v)
		}
	case UnitInterval:
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("%s: %s must be a probability in [0,1], got %g", family, ps.Name, v)
		}
	case WholeCount:
		if v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
			return fmt.Errorf("%s: %s must be a whole number from 1 to %d, got %g", family, ps.Name, math.MaxInt32, v)
		}
	}
	return nil
}

// Signature is the family's WDL form, e.g. "W(shape,scale)".
func (f *Family) Signature() string {
	if len(f.Params) == 0 {
		return f.Name
	}
	return f.Name + "(" + strings.Join(f.ParamNames(), ",") + ")"
}

// ParamNames lists the parameters' names in order, as the WDL and fit files
// name them. The slice is shared: do not modify it.
func (f *Family) ParamNames() []string { return f.paramNames }

// Fittable tells whether gmark fits the family (FitFamily, FitAll).
func (f *Family) Fittable() bool { return f.fit != nil }

// FreeParams is the number of free parameters, as AIC and BIC count them.
func (f *Family) FreeParams() int {
	if f.free > 0 {
		return f.free
	}
	return len(f.Params)
}

// build checks each parameter's range, in order, then builds the
// distribution; params has len(f.Params) values.
func (f *Family) build(params []float64) (Distribution, error) {
	for i, ps := range f.Params {
		if err := ps.check(f.Name, params[i]); err != nil {
			return nil, err
		}
	}
	return f.New(params)
}

var familyIndex = func() map[string]*Family {
	for _, f := range families {
		f.paramNames = make([]string, len(f.Params))
		for i, p := range f.Params {
			f.paramNames[i] = p.Name
		}
	}
	return names.Index(families, func(f *Family) []string { return append([]string{f.Name}, f.Aliases...) }, true)
}()

// LookupFamily finds a family by name or alias, ignoring case.
func LookupFamily(name string) (*Family, bool) {
	f, ok := familyIndex[strings.ToLower(name)]
	return f, ok
}

// Families lists every family, in the order of the table.
func Families() []*Family { return families }

// FamilyNames lists the names a distribution may have in the WDL: the
// canonical family names and Emp, sorted, for error messages.
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
	return f.build(params)
}

// FitFamilies lists the canonical names of the fittable families, in the
// order FitAll tries them by default.
func FitFamilies() []string {
	var names []string
	for _, f := range families {
		if f.Fittable() {
			names = append(names, f.Name)
		}
	}
	return names
}

// lookupFitFamily finds a fittable family by name or alias, ignoring case;
// nil when there is none.
func lookupFitFamily(name string) *Family {
	if f, ok := LookupFamily(name); ok && f.Fittable() {
		return f
	}
	return nil
}

func unknownFitFamily(name string) error {
	return fmt.Errorf("unknown family %q (known: %s)", name, strings.Join(FitFamilies(), ", "))
}

// FitParamNames lists a fittable family's parameter names, in order.
func FitParamNames(family string) ([]string, bool) {
	f := lookupFitFamily(family)
	if f == nil {
		return nil, false
	}
	return f.ParamNames(), true
}

// CanonicalFitFamily resolves a fittable family's name or alias (any case).
func CanonicalFitFamily(name string) (string, bool) {
	f := lookupFitFamily(name)
	if f == nil {
		return "", false
	}
	return f.Name, true
}

// ParseFitFamilies reads a list of family names or aliases (gmark fit's
// --families): canonical names, each kept once, in order; at least one.
func ParseFitFamilies(names []string) ([]string, error) {
	var out []string
	for _, f := range names {
		name, ok := CanonicalFitFamily(f)
		if !ok {
			return nil, fmt.Errorf("--families: unknown family %q (known: %s)", f, strings.Join(FitFamilies(), ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--families: give at least one of %s", strings.Join(FitFamilies(), ", "))
	}
	return out, nil
}

// NewFitted builds a fitted family's distribution (on the fitted scale)
// from its parameters, in FitParamNames order.
func NewFitted(family string, params []float64) (Distribution, error) {
	f := lookupFitFamily(family)
	if f == nil {
		return nil, unknownFitFamily(family)
	}
	if len(params) != len(f.Params) {
		return nil, fmt.Errorf("%s takes %d parameters (%s), got %d", f.Name, len(f.Params), strings.Join(f.ParamNames(), ", "), len(params))
	}
	return f.build(params)
}
