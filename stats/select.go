package stats

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Model selection, the thesis's rule (§4.2.4, step 3.d):
//
//   - for one trace, the best fit is the family with the lowest KS distance D,
//     but among the families whose D is within D's sampling noise of the
//     lowest (KSNoise), the one with the fewest free parameters (then the
//     lowest D): D cannot tell such fits apart, and a hyper-exponential of
//     three branches whose two rates coincide is the one of two, not a
//     better model (it won by a D lower by 10⁻⁵);
//   - across several traces (the "average system"), the family with the
//     lowest D averaged over the traces wins; if the averages of two or more
//     families differ by less than the tie margin (0.01 in the thesis), the
//     one that is the best fit for the most traces wins among them, and a
//     remaining tie goes to the lower average D. The model's parameters are
//     the arithmetic means of that family's per-trace parameters, including
//     traces where another family fitted better.

// DefaultTie is the thesis's tie margin on the average D.
const DefaultTie = 0.01

// ksSD is the standard deviation of the Kolmogorov distribution, the limit
// of √n·D: √(π²/12 − (π/2)(ln 2)²), about 0.2604.
var ksSD = math.Sqrt(math.Pi*math.Pi/12 - math.Pi/2*math.Ln2*math.Ln2)

// KSNoise is the sampling noise of the KS distance D of n values: the
// standard deviation of D, about 0.26/√n (0.0006 for LCG's 188,041 values).
// Two fits whose D differ by less cannot be told apart by D.
func KSNoise(n int) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	return ksSD / math.Sqrt(float64(n))
}

// Best is the best of fits, or nil when every fit failed: of the fits
// whose D is within KSNoise of the lowest, the one with the fewest free
// parameters, then the first after SortFits (lowest D, then AIC).
func Best(fits []Fit) *Fit {
	s := append([]Fit(nil), fits...)
	SortFits(s)
	if len(s) == 0 || s[0].Err != nil {
		return nil
	}
	best, noise := s[0], KSNoise(s[0].N)
	for _, f := range s[1:] {
		if f.Err != nil || f.D-s[0].D > noise {
			break
		}
		if f.K < best.K {
			best = f
		}
	}
	for i := range fits {
		if fits[i].Family == best.Family {
			return &fits[i]
		}
	}
	return nil
}

// BestReason says why Best chose best among fits: the criterion, and the
// noise within which the fewer parameters won.
func BestReason(fits []Fit, best *Fit) string {
	s := append([]Fit(nil), fits...)
	SortFits(s)
	noise := KSNoise(best.N)
	if s[0].Family == best.Family {
		return fmt.Sprintf("lowest KS distance D; none of fewer parameters within D's sampling noise %.2g", noise)
	}
	return fmt.Sprintf("the fewest parameters among the fits whose KS distance D is within its sampling noise %.2g (0.26/√n) of the lowest, %s's %.5f", noise, s[0].Family, s[0].D)
}

// Candidate is one family's standing across traces.
type Candidate struct {
	Family string
	MeanD  float64
	Wins   int // traces for which it is the best fit
}

// Selection is the average-system model of several traces.
type Selection struct {
	Family     string
	ParamNames []string
	Params     []float64 // the means of the per-trace parameters
	MeanD      float64
	Wins       int
	TieBroken  bool        // the tie rule decided between families
	Candidates []Candidate // families fitted to every trace, best first
	PerTrace   []Fit       // the chosen family's fit to each trace
	Model      Distribution
	Dist       Distribution // on the data's scale, as Fit.Dist
	Log2       bool
	BelowShare float64 // the mean share of values set apart
}

// SelectAcross applies the thesis's rule to the fits of several traces
// (traces[t] holds every family fitted to trace t). tie is the margin on the
// average D (DefaultTie when ≤ 0). Only families fitted without error to
// every trace compete.
func SelectAcross(traces [][]Fit, tie float64) (*Selection, error) {
	if len(traces) == 0 {
		return nil, fmt.Errorf("no traces to select across")
	}
	if tie <= 0 {
		tie = DefaultTie
	}
	log2 := false
	byFamily := map[string][]Fit{}
	wins := map[string]int{}
	for t, fits := range traces {
		if best := Best(fits); best != nil {
			wins[best.Family]++
		}
		for _, f := range fits {
			if t == 0 {
				log2 = f.Log2
			} else if f.Log2 != log2 {
				return nil, fmt.Errorf("trace %d was fitted with log2=%v, trace 1 with log2=%v: fit every trace the same way", t+1, f.Log2, log2)
			}
			if f.Err == nil {
				byFamily[f.Family] = append(byFamily[f.Family], f)
			}
		}
	}
	var cands []Candidate
	for fam, fits := range byFamily {
		if len(fits) != len(traces) {
			continue
		}
		sd := 0.0
		for _, f := range fits {
			sd += f.D
		}
		cands = append(cands, Candidate{Family: fam, MeanD: sd / float64(len(fits)), Wins: wins[fam]})
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("no family was fitted to all %d traces", len(traces))
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].MeanD != cands[j].MeanD {
			return cands[i].MeanD < cands[j].MeanD
		}
		return cands[i].Family < cands[j].Family
	})
	chosen := cands[0]
	tied := false
	for _, c := range cands[1:] {
		if c.MeanD-cands[0].MeanD >= tie {
			break
		}
		tied = true
		if c.Wins > chosen.Wins {
			chosen = c
		}
	}
	per := byFamily[chosen.Family]
	sel := &Selection{Family: chosen.Family, ParamNames: per[0].ParamNames, MeanD: chosen.MeanD, Wins: chosen.Wins,
		TieBroken: tied && chosen.Family != cands[0].Family, Candidates: cands, PerTrace: per, Log2: log2}
	sel.Params = make([]float64, len(per[0].Params))
	for _, f := range per {
		for i, p := range f.Params {
			sel.Params[i] += p / float64(len(per))
		}
	}
	model, err := NewFitted(sel.Family, sel.Params)
	if err != nil {
		return nil, fmt.Errorf("the averaged parameters of %s are invalid: %v", sel.Family, err)
	}
	sel.Model = model
	var d Distribution = model
	if log2 {
		d = Pow2{model}
	}
	var lows []*Empirical
	var shares []float64
	for _, f := range per {
		sel.BelowShare += f.BelowShare() / float64(len(per))
		if f.BelowDist != nil {
			lows = append(lows, f.BelowDist)
			shares = append(shares, f.BelowShare())
		}
	}
	if sel.BelowShare > 0 && len(lows) > 0 {
		low, err := mergeEmpirical(lows, shares)
		if err == nil {
			d = Spliced{Low: low, LowShare: sel.BelowShare, High: d}
		}
	}
	sel.Dist = d
	return sel, nil
}

// mergeEmpirical mixes empirical distributions with the given weights.
func mergeEmpirical(es []*Empirical, weights []float64) (*Empirical, error) {
	mass := map[float64]float64{}
	var vals []float64
	for k, e := range es {
		prev := 0.0
		for i, v := range e.sorted {
			p := e.sortCum[i] - prev
			prev = e.sortCum[i]
			if _, ok := mass[v]; !ok {
				vals = append(vals, v)
			}
			mass[v] += weights[k] * p
		}
	}
	sort.Float64s(vals)
	w := make([]float64, len(vals))
	for i, v := range vals {
		w[i] = mass[v]
	}
	return NewEmpirical(vals, w)
}

// Describe is a one-line account of the selection, for reports.
func (s *Selection) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", s.Family)
	for i, n := range s.ParamNames {
		fmt.Fprintf(&b, " %s=%.4g", n, s.Params[i])
	}
	fmt.Fprintf(&b, " (mean D %.4f, best for %d of %d traces", s.MeanD, s.Wins, len(s.PerTrace))
	if s.TieBroken {
		b.WriteString("; chosen by the tie rule")
	}
	b.WriteString(")")
	return b.String()
}

// meanStdErr is the standard error of a mean of independent estimates.
func meanStdErr(se []float64) float64 {
	v := 0.0
	for _, s := range se {
		v += s * s
	}
	if math.IsNaN(v) {
		return math.NaN()
	}
	return math.Sqrt(v) / float64(len(se))
}
