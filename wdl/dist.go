package wdl

import (
	"fmt"
	"strings"

	"github.com/gmark/gmark/stats"
)

// distError is a distribution syntax error at a byte offset of its text.
type distError struct {
	off int
	msg string
}

func (e *distError) Error() string { return e.msg }

// ParseDistribution reads a distribution as written in the WDL:
//
//	Name(p1,p2,…)   e.g. Poisson(120s), W(4.25,7.86), U(1m,5m)
//	Name            a family without parameters, e.g. Zero
//	Emp(v/w;v/w;…)  an empirical distribution (weights default to 1)
//
// Parameters that are times (the family says which) may carry a unit: ms, s,
// m, h or d; a bare number is seconds. Other parameters take no unit.
func ParseDistribution(text string) (stats.Distribution, error) {
	open := strings.IndexByte(text, '(')
	name, args := text, ""
	if open >= 0 {
		if !strings.HasSuffix(text, ")") {
			return nil, &distError{len(text), fmt.Sprintf("distribution %q: missing ')'", text)}
		}
		name, args = text[:open], text[open+1:len(text)-1]
	}
	if name == "" {
		return nil, &distError{0, fmt.Sprintf("distribution %q has no name", text)}
	}
	lname := strings.ToLower(name)
	if lname == "emp" || lname == "empirical" {
		return parseEmpirical(text, args, open+1)
	}
	fam, ok := stats.LookupFamily(name)
	if !ok {
		return nil, &distError{0, fmt.Sprintf("unknown distribution %q (known: %s)", name, strings.Join(stats.FamilyNames(), ", "))}
	}
	var params []float64
	if strings.TrimSpace(args) != "" {
		off := open + 1
		for i, a := range strings.Split(args, ",") {
			at := off
			off += len(a) + 1
			a = strings.TrimSpace(a)
			if i >= len(fam.Params) {
				return nil, &distError{at, fmt.Sprintf("%s takes %d parameter(s): %s", fam.Name, len(fam.Params), fam.Signature())}
			}
			v, err := parseParam(fam, fam.Params[i], a)
			if err != nil {
				return nil, &distError{at, err.Error()}
			}
			params = append(params, v)
		}
	}
	if len(params) != len(fam.Params) {
		return nil, &distError{0, fmt.Sprintf("%s takes %d parameter(s): %s", fam.Name, len(fam.Params), fam.Signature())}
	}
	d, err := stats.NewDistribution(name, params)
	if err != nil {
		return nil, &distError{0, err.Error()}
	}
	return d, nil
}

func parseParam(fam *stats.Family, ps stats.ParamSpec, a string) (float64, error) {
	if ps.Kind == stats.Time {
		secs, _, err := ParseSeconds(a)
		if err != nil {
			return 0, fmt.Errorf("%s: %s: %v", fam.Name, ps.Name, err)
		}
		return secs, nil
	}
	v, err := ParseFloat(a)
	if err != nil {
		if _, hasUnit, uerr := ParseSeconds(a); uerr == nil && hasUnit {
			return 0, fmt.Errorf("%s: %s takes no time unit (%q); only time parameters do", fam.Name, ps.Name, a)
		}
		return 0, fmt.Errorf("%s: %s: %v", fam.Name, ps.Name, err)
	}
	return v, nil
}

func parseEmpirical(text, args string, base int) (stats.Distribution, error) {
	items, err := ParseWeighted(args)
	if err != nil {
		return nil, &distError{base, fmt.Sprintf("Emp: %v", err)}
	}
	values := make([]float64, len(items))
	weights := make([]float64, len(items))
	for i, it := range items {
		secs, _, err := ParseSeconds(it.Value)
		if err != nil {
			return nil, &distError{base + it.Off, fmt.Sprintf("Emp: %v", err)}
		}
		values[i], weights[i] = secs, it.Weight
	}
	d, err := stats.NewEmpirical(values, weights)
	if err != nil {
		return nil, &distError{base, fmt.Sprintf("Emp: %v", err)}
	}
	return d, nil
}
