package wdl

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/internal/srcerr"
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
//	Pow2(D)         2^X for X distributed as D: a model of log2 values
//	HGamma2(p,k1,θ1,k2,θ2)  hyper-gamma: gamma(k1,θ1) with probability p
//	Fit(file,key)   the model stored under key in a fit file of gmark fit
//
// Parameters that are times (the family says which) may carry a unit: ms, s,
// m, h or d; a bare number is seconds. Other parameters take no unit. A Fit
// file's relative path is relative to the working directory; use
// ParseDistributionIn to resolve it against the file that names it.
func ParseDistribution(text string) (stats.Distribution, error) {
	return ParseDistributionIn(text, DistContext{})
}

// DistContext tells ParseDistributionIn where Fit(file,key) finds its file.
type DistContext struct {
	Dir    string            // relative paths are relative to it ("" = the working directory)
	Open   Opener            // reads the file; nil = ReadFile
	Loaded func(path string) // when set, called with the path of each fit file read
}

// ParseDistributionIn is ParseDistribution with Fit files resolved in ctx.
func ParseDistributionIn(text string, ctx DistContext) (stats.Distribution, error) {
	return parseDist(text, ctx, 0)
}

// maxNesting bounds how deep Pow2 may nest: a distribution is parsed (and
// drawn) recursively, and a line of a million Pow2( overflowed the stack.
const maxNesting = 8

func parseDist(text string, ctx DistContext, depth int) (stats.Distribution, error) {
	open := strings.IndexByte(text, '(')
	name, args := text, ""
	if open >= 0 {
		if !strings.HasSuffix(text, ")") {
			return nil, &distError{len(text), fmt.Sprintf("distribution %q: missing ')'", Excerpt(text))}
		}
		name, args = text[:open], text[open+1:len(text)-1]
	}
	if name == "" {
		return nil, &distError{0, fmt.Sprintf("distribution %q has no name", Excerpt(text))}
	}
	lname := strings.ToLower(name)
	if lname == "emp" || lname == "empirical" {
		return parseEmpirical(text, args, open+1)
	}
	switch lname {
	case "pow2":
		if open < 0 || strings.TrimSpace(args) == "" {
			return nil, &distError{0, "Pow2 takes one distribution: Pow2(D) is 2^X for X distributed as D, e.g. Pow2(W(4.25,7.86))"}
		}
		if depth == maxNesting {
			return nil, &distError{0, fmt.Sprintf("Pow2 nests more than %d deep", maxNesting)}
		}
		inner, err := parseDist(strings.TrimSpace(args), ctx, depth+1)
		if err != nil {
			var de *distError
			if errors.As(err, &de) {
				return nil, &distError{open + 1 + de.off, "Pow2: " + de.msg}
			}
			return nil, err
		}
		return stats.Pow2{Of: inner}, nil
	case "fit":
		return parseFit(args, open+1, ctx)
	}
	fam, ok := stats.LookupFamily(name)
	if !ok {
		return nil, &distError{0, fmt.Sprintf("unknown distribution %q (known: %s)", Excerpt(name), strings.Join(stats.FamilyNames(), ", "))}
	}
	var params []float64
	if strings.TrimSpace(args) != "" {
		off := open + 1
		for i, a := range strings.SplitN(args, ",", len(fam.Params)+1) {
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
			return 0, fmt.Errorf("%s: %s takes no time unit (%q); only time parameters do", fam.Name, ps.Name, Excerpt(a))
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

// parseFit reads Fit(file,key): the model stored under key in a fit file.
func parseFit(args string, base int, ctx DistContext) (stats.Distribution, error) {
	comma := strings.LastIndexByte(args, ',')
	if comma < 0 {
		return nil, &distError{0, "Fit takes a fit file and a key: Fit(fit.toml,runtime)"}
	}
	path, key := strings.TrimSpace(args[:comma]), strings.TrimSpace(args[comma+1:])
	if path == "" || key == "" {
		return nil, &distError{0, "Fit takes a fit file and a key: Fit(fit.toml,runtime)"}
	}
	recs, full, err := LoadFitFile(path, ctx)
	if err != nil {
		return nil, &distError{base, fmt.Sprintf("Fit: %v", err)}
	}
	rec, ok := recs[key]
	if !ok {
		return nil, &distError{base + comma + 1, fmt.Sprintf("Fit: %s has no model %q (it has: %s)", ExcerptPath(full), Excerpt(key), ExcerptPath(strings.Join(FitKeys(recs), ", ")))}
	}
	d, err := rec.Distribution()
	if err != nil {
		return nil, &distError{base + comma + 1, fmt.Sprintf("Fit: %s [%s]: %v", ExcerptPath(full), Excerpt(key), err)}
	}
	return d, nil
}

// LoadFitFile reads a fit file written by gmark fit: one TOML table of a
// stats.FitRecord per key (runtime, interarrival, …). A relative path is
// resolved against ctx.Dir; the resolved path is returned too.
func LoadFitFile(path string, ctx DistContext) (map[string]stats.FitRecord, string, error) {
	full := path
	if !filepath.IsAbs(full) && ctx.Dir != "" {
		full = filepath.Join(ctx.Dir, full)
	}
	full = filepath.Clean(full)
	open := ctx.Open
	if open == nil {
		open = ReadFile
	}
	src, err := open(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, full, fmt.Errorf("%s: no such file (write one with gmark fit TRACE -o %s)", ExcerptPath(full), ExcerptPath(filepath.Base(full)))
		}
		return nil, full, fmt.Errorf("%s: %s", ExcerptPath(full), readError(err))
	}
	recs, err := decodeFitFile(ExcerptPath(full), src)
	if err != nil {
		return nil, full, err
	}
	if ctx.Loaded != nil {
		ctx.Loaded(full)
	}
	return recs, full, nil
}

// decodeFitFile reads the TOML of a fit file. Its errors are "file:line:
// what is wrong", quoting at most a short excerpt of the file (it may be any
// file a spec names); a key no fit file has (a typo) is an error, not
// silently a default.
func decodeFitFile(name string, src []byte) (map[string]stats.FitRecord, error) {
	recs := map[string]stats.FitRecord{}
	md, err := toml.Decode(string(src), &recs)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: pe.Position.Line}, "not a fit file: %s", excerpt(pe.Message, 80))
		}
		// Type errors are plain errors: "toml: line N (last key "k"): msg".
		if m := tomlError.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1]) // 0, the file, when the decoder gives no line
			return nil, srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "not a fit file: %s", excerpt(m[2], 80))
		}
		return nil, fmt.Errorf("%s: not a fit file: %s", name, excerpt(err.Error(), 80))
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		return nil, fmt.Errorf("%s: unknown key %q in a fit file (a typo? the keys are described in docs/models.md)", name, Excerpt(keys[0].String()))
	}
	return recs, nil
}

// tomlError splits the TOML decoder's errors that are not a ParseError.
var tomlError = regexp.MustCompile(`^toml: (?:line (\d+) )?(?:\(last key "(?:[^"\\]|\\.)*"\): )?(.*)$`)

// FitKeys lists a fit file's keys, sorted.
func FitKeys(recs map[string]stats.FitRecord) []string {
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
