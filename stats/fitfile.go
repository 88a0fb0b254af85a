package stats

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// FitRecord is a fitted model as `gmark fit` writes it: one TOML table per
// field (runtime, interarrival, …) of a fit file, read back by the WDL's
// Fit(file,key) distribution and Model= key. Parameters are named, never
// positional, so that the parameter-order slips of the thesis's tables
// (normal printed as (σ, μ), gamma as (shape, rate)) cannot recur:
//
//	[runtime]
//	family = "W"           # Exp N LogNorm W Gamma Pareto HExp2 HExp3 HGamma2
//	log2 = true            # the model is of log2(x): x = 2^Y
//	params = { shape = 1.82, scale = 9.37 }
//	below = 0.003          # share of values at or below the floor …
//	below_values = [0, 1]  # … and their distribution
//	below_weights = [521, 367]
//
// The other keys (n, d, p, ad, loglik, aic, bic, stderr, censor_at, …) are
// provenance: they are written for the reader and not needed to rebuild the
// distribution. docs/models.md describes them all.
type FitRecord struct {
	Family       string             `toml:"family" json:"family"`
	Log2         bool               `toml:"log2" json:"log2"`
	Params       map[string]float64 `toml:"params" json:"params"`
	StdErr       map[string]float64 `toml:"stderr,omitempty" json:"stderr,omitempty"`
	Below        float64            `toml:"below,omitzero" json:"below,omitempty"`
	BelowValues  []float64          `toml:"below_values,omitempty" json:"below_values,omitempty"`
	BelowWeights []float64          `toml:"below_weights,omitempty" json:"below_weights,omitempty"`
	Floor        float64            `toml:"floor" json:"floor"`
	CensorAt     float64            `toml:"censor_at,omitzero" json:"censor_at,omitempty"`
	// Tail says how a model fitted with censoring is drawn: TailTruncated
	// (the default: conditioned on values below CensorAt), TailCapped
	// (values at or above CensorAt drawn as CensorAt, as the censored data
	// recorded them) or TailUncensored (the whole model, past CensorAt
	// too); "" is the default. Beyond is the model's mass at or above
	// CensorAt (provenance, written by gmark fit).
	Tail     string   `toml:"tail,omitempty" json:"tail,omitempty"`
	Beyond   float64  `toml:"beyond,omitzero" json:"beyond,omitempty"`
	N        int      `toml:"n" json:"n"`
	Censored int      `toml:"censored,omitzero" json:"censored,omitempty"`
	D        float64  `toml:"d" json:"d"`
	P        float64  `toml:"p" json:"p"`
	AD       float64  `toml:"ad" json:"ad"`
	LogL     float64  `toml:"loglik" json:"loglik"`
	AIC      float64  `toml:"aic" json:"aic"`
	BIC      float64  `toml:"bic" json:"bic"`
	Traces   int      `toml:"traces,omitzero" json:"traces,omitempty"` // > 1: an average-system model
	Source   []string `toml:"source,omitempty" json:"source,omitempty"`
	Field    string   `toml:"field,omitempty" json:"field,omitempty"`
}

// The ways a censored fit is drawn (FitRecord.Tail).
const (
	TailTruncated  = "truncated"
	TailCapped     = "capped"
	TailUncensored = "uncensored"
)

// Censored is what truncating or capping a model at a censoring point
// leaves out of it.
type Censored interface {
	Distribution
	Beyond() float64 // the model's mass at or above the point
}

// finiteOr0 keeps NaN and ±Inf out of the file (TOML has them, but readers
// of the provenance would trip on them).
func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Record is the fit as a fit-file entry.
func (f *Fit) Record() FitRecord {
	r := FitRecord{Family: f.Family, Log2: f.Log2, Params: map[string]float64{}, Floor: f.Floor,
		CensorAt: f.CensorAt, N: f.N, Censored: f.Censored, D: finiteOr0(f.D), P: finiteOr0(f.P),
		AD: finiteOr0(f.AD), LogL: finiteOr0(f.LogL), AIC: finiteOr0(f.AIC), BIC: finiteOr0(f.BIC)}
	if math.IsInf(f.Floor, -1) {
		r.Floor = 0
	}
	for i, n := range f.ParamNames {
		r.Params[n] = f.Params[i]
		if i < len(f.StdErr) && !math.IsNaN(f.StdErr[i]) && !math.IsInf(f.StdErr[i], 0) {
			if r.StdErr == nil {
				r.StdErr = map[string]float64{}
			}
			r.StdErr[n] = f.StdErr[i]
		}
	}
	if f.Below > 0 && f.BelowDist != nil {
		r.Below = f.BelowShare()
		r.BelowValues, r.BelowWeights = empiricalTable(f.BelowDist)
	}
	r.noteTail()
	return r
}

// noteTail writes, for a censored fit, how it is drawn and how much of
// the model lies beyond the censoring point.
func (r *FitRecord) noteTail() {
	if r.CensorAt <= 0 {
		return
	}
	r.Tail = TailTruncated
	if d, err := r.whole(); err == nil {
		r.Beyond = finiteOr0(1 - d.CDF(r.CensorAt))
	}
}

// Record is the average-system model as a fit-file entry: the mean
// parameters, with the standard error of each mean, and the mean D.
func (s *Selection) Record() FitRecord {
	r := FitRecord{Family: s.Family, Log2: s.Log2, Params: map[string]float64{}, D: s.MeanD, Traces: len(s.PerTrace)}
	for i, n := range s.ParamNames {
		r.Params[n] = s.Params[i]
		se := make([]float64, len(s.PerTrace))
		for t, f := range s.PerTrace {
			se[t] = f.StdErr[i]
		}
		if v := meanStdErr(se); !math.IsNaN(v) {
			if r.StdErr == nil {
				r.StdErr = map[string]float64{}
			}
			r.StdErr[n] = v
		}
	}
	for _, f := range s.PerTrace {
		r.N += f.N
		r.Censored += f.Censored
		r.Floor = f.Floor
		r.CensorAt = f.CensorAt
	}
	if math.IsInf(r.Floor, -1) {
		r.Floor = 0
	}
	if sp, ok := s.Dist.(Spliced); ok {
		if e, ok := sp.Low.(*Empirical); ok {
			r.Below = sp.LowShare
			r.BelowValues, r.BelowWeights = empiricalTable(e)
		}
	}
	r.noteTail()
	return r
}

// empiricalTable lists an empirical distribution's distinct values and
// their probabilities.
func empiricalTable(e *Empirical) (vals, weights []float64) {
	prev := 0.0
	for i, v := range e.sorted {
		vals = append(vals, v)
		weights = append(weights, e.sortCum[i]-prev)
		prev = e.sortCum[i]
	}
	return vals, weights
}

// OrderedParams returns the record's parameters in the family's order.
func (r *FitRecord) OrderedParams() (string, []float64, error) {
	fam := lookupFitFamily(r.Family)
	if fam == nil {
		return "", nil, unknownFitFamily(r.Family)
	}
	names := fam.ParamNames()
	var params []float64
	for _, n := range names {
		v, ok := r.Params[n]
		if !ok {
			return "", nil, fmt.Errorf("%s needs the parameters %s; %q is missing", fam.Name, strings.Join(names, ", "), n)
		}
		params = append(params, v)
	}
	if len(r.Params) != len(names) {
		var extra []string
		for n := range r.Params {
			if !slices.Contains(names, n) {
				extra = append(extra, n)
			}
		}
		sort.Strings(extra)
		return "", nil, fmt.Errorf("%s has no parameter %s (it takes %s)", fam.Name, strings.Join(extra, ", "), strings.Join(names, ", "))
	}
	return fam.Name, params, nil
}

// Model is the record's fitted family on the fitted scale.
func (r *FitRecord) Model() (Distribution, error) {
	fam, params, err := r.OrderedParams()
	if err != nil {
		return nil, err
	}
	return NewFitted(fam, params)
}

// Distribution rebuilds the distribution of the data: the model, as 2^Y when
// log2, spliced with the values below the floor when there were any, and,
// for a fit censored at CensorAt, truncated there (Truncated), or capped
// there with TailCapped (Capped), unless Tail is TailUncensored: the data
// said nothing of the model past that point, and its tail there may reach
// decades (a fit of LCG's run times, censored at 48 h, drew jobs of 75
// years).
func (r *FitRecord) Distribution() (Distribution, error) {
	d, err := r.whole()
	if err != nil {
		return nil, err
	}
	switch r.Tail {
	case "", TailTruncated, TailCapped:
	case TailUncensored:
		return d, nil
	default:
		return nil, fmt.Errorf("tail = %q: %q (the default: draws below censor_at), %q (draws at or past censor_at are censor_at) or %q (the whole model)", r.Tail, TailTruncated, TailCapped, TailUncensored)
	}
	if r.CensorAt == 0 {
		return d, nil
	}
	if !(r.CensorAt > 0) || math.IsInf(r.CensorAt, 0) {
		return nil, fmt.Errorf("censor_at = %g: a censoring point is a finite number > 0", r.CensorAt)
	}
	if r.Tail == TailCapped {
		return Capped{Of: d, Max: r.CensorAt}, nil
	}
	t, err := NewTruncated(d, r.CensorAt)
	if err != nil {
		return nil, fmt.Errorf("censor_at = %g: %v", r.CensorAt, err)
	}
	return t, nil
}

// whole is the distribution of the data without the truncation at the
// censoring point.
func (r *FitRecord) whole() (Distribution, error) {
	d, err := r.Model()
	if err != nil {
		return nil, err
	}
	if r.Log2 {
		d = Pow2{d}
	}
	if !(r.Below >= 0 && r.Below < 1) {
		return nil, fmt.Errorf("below = %g: the share of values below the floor must be in [0, 1)", r.Below)
	}
	if r.Below > 0 {
		if len(r.BelowValues) == 0 || len(r.BelowValues) != len(r.BelowWeights) {
			return nil, fmt.Errorf("below = %g needs below_values and below_weights of the same length (got %d and %d)", r.Below, len(r.BelowValues), len(r.BelowWeights))
		}
		low, err := NewEmpirical(r.BelowValues, r.BelowWeights)
		if err != nil {
			return nil, fmt.Errorf("below_values/below_weights: %v", err)
		}
		d = Spliced{Low: low, LowShare: r.Below, High: d}
	}
	return d, nil
}
