package gwa

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/gmark/gmark/stats"
)

// The report of gmark fit: a table of the fits of each trace and field,
// then the average-system model of each field; or all of it as JSON.

// WriteText writes the tables of r to w.
func (r *FitResult) WriteText(w io.Writer) {
	for _, tf := range r.Traces {
		for _, field := range r.Options.Fields {
			r.writeTable(w, tf, field)
		}
	}
	for _, field := range r.Options.Fields {
		if s := r.Selection[field]; s != nil {
			writeSelection(w, field, s, len(r.Traces))
		}
	}
}

// describeData is the header line of a field's table.
func (r *FitResult) describeData(tf *TraceFit, field string) string {
	f, _ := LookupFitField(field)
	o := r.Options
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s", filepath.Base(tf.Path), field, f.Doc)
	if o.Stats.Log2 {
		b.WriteString(", fitted on log2")
	}
	if fits := tf.Fits[field]; len(fits) > 0 {
		x := fits[0]
		fmt.Fprintf(&b, "\n  %d values", x.Total)
		if x.Below > 0 {
			fmt.Fprintf(&b, ", %d at or below the floor (%.2f%%, kept apart)", x.Below, 100*x.BelowShare())
		}
		if x.Censored > 0 {
			fmt.Fprintf(&b, ", %d censored at %g %s", x.Censored, o.Stats.CensorAt, f.Unit)
		}
	}
	if o.Peak.To > 0 && strings.Contains(field, "interarrival") {
		fmt.Fprintf(&b, "; peak hours %d-%d only", o.Peak.From, o.Peak.To)
	}
	return b.String()
}

func formatParams(f *stats.Fit) string {
	var parts []string
	for i, n := range f.ParamNames {
		s := fmt.Sprintf("%s=%.5g", n, f.Params[i])
		if i < len(f.StdErr) && !math.IsNaN(f.StdErr[i]) {
			s += fmt.Sprintf("±%.2g", f.StdErr[i])
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func (r *FitResult) writeTable(w io.Writer, tf *TraceFit, field string) {
	fmt.Fprintln(w, r.describeData(tf, field))
	fits := tf.Fits[field]
	best := stats.Best(fits)
	width := 10
	for i := range fits {
		if fits[i].Err == nil {
			width = max(width, len(formatParams(&fits[i])))
		}
	}
	fmt.Fprintf(w, "    %-8s %-*s %8s %9s %10s %14s %14s\n", "family", width, "parameters", "D", "p", "A²", "AIC", "BIC")
	for i := range fits {
		f := &fits[i]
		mark := " "
		if best != nil && f.Family == best.Family {
			mark = "*"
		}
		if f.Err != nil {
			fmt.Fprintf(w, "  %s %-8s %s\n", mark, f.Family, strings.TrimPrefix(f.Err.Error(), f.Family+": "))
			continue
		}
		fmt.Fprintf(w, "  %s %-8s %-*s %8.5f %9.3g %10.4g %14.6g %14.6g\n", mark, f.Family, width, formatParams(f), f.D, f.P, f.AD, f.AIC, f.BIC)
	}
	if best != nil {
		fmt.Fprintf(w, "  best: %s (%s); the p-values are approximate: the parameters come from the data\n", best.Family, stats.BestReason(fits, best))
		if rec := best.Record(); rec.CensorAt > 0 {
			fmt.Fprintf(w, "  censored: the model puts %.3g%% of its mass at or beyond %g (the data: %d values, %.3g%%, censored there); generated values are drawn below it (tail = %q in the fit file draws the whole model)\n",
				100*rec.Beyond, rec.CensorAt, rec.Censored, 100*float64(rec.Censored)/float64(max(1, rec.N)), stats.TailUncensored)
		}
	}
	fmt.Fprintln(w)
}

func writeSelection(w io.Writer, field string, s *stats.Selection, n int) {
	fmt.Fprintf(w, "%s across %d traces (the thesis's rule: lowest mean D, ties within %.2g to the most wins):\n", field, n, stats.DefaultTie)
	for _, c := range s.Candidates {
		mark := " "
		if c.Family == s.Family {
			mark = "*"
		}
		fmt.Fprintf(w, "  %s %-8s mean D %.5f, best for %d trace(s)\n", mark, c.Family, c.MeanD, c.Wins)
	}
	fmt.Fprintf(w, "  average system: %s\n\n", s.Describe())
}

// fitJSON is one fit in the JSON report.
type fitJSON struct {
	Family     string             `json:"family"`
	Params     map[string]float64 `json:"params,omitempty"`
	StdErr     map[string]float64 `json:"stderr,omitempty"`
	D          *float64           `json:"d,omitempty"`
	P          *float64           `json:"p,omitempty"`
	AD         *float64           `json:"ad,omitempty"`
	LogL       *float64           `json:"loglik,omitempty"`
	AIC        *float64           `json:"aic,omitempty"`
	BIC        *float64           `json:"bic,omitempty"`
	Iterations int                `json:"iterations,omitempty"`
	Converged  bool               `json:"converged"`
	Best       bool               `json:"best,omitempty"`
	Error      string             `json:"error,omitempty"`
}

func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func toFitJSON(f *stats.Fit, best bool) fitJSON {
	j := fitJSON{Family: f.Family, Best: best, Iterations: f.Iterations, Converged: f.Converged}
	if f.Err != nil {
		j.Error = f.Err.Error()
		return j
	}
	j.Params, j.StdErr = map[string]float64{}, map[string]float64{}
	for i, n := range f.ParamNames {
		j.Params[n] = f.Params[i]
		if !math.IsNaN(f.StdErr[i]) {
			j.StdErr[n] = f.StdErr[i]
		}
	}
	j.D, j.P, j.AD, j.LogL, j.AIC, j.BIC = finitePtr(f.D), finitePtr(f.P), finitePtr(f.AD), finitePtr(f.LogL), finitePtr(f.AIC), finitePtr(f.BIC)
	return j
}

type fieldJSON struct {
	Values   int       `json:"values"`
	Fitted   int       `json:"fitted"`
	Below    int       `json:"below"`
	Censored int       `json:"censored"`
	Fits     []fitJSON `json:"fits"`
}

type traceJSON struct {
	Trace  string               `json:"trace"`
	Fields map[string]fieldJSON `json:"fields"`
}

// WriteJSON writes every fit of r, and the average-system models, as one
// JSON document (docs/models.md describes it).
func (r *FitResult) WriteJSON(w io.Writer) error {
	out := struct {
		Log2      bool                       `json:"log2"`
		CensorAt  float64                    `json:"censor_at,omitempty"`
		Traces    []traceJSON                `json:"traces"`
		Selection map[string]stats.FitRecord `json:"average_system,omitempty"`
	}{Log2: r.Options.Stats.Log2, CensorAt: r.Options.Stats.CensorAt}
	for _, tf := range r.Traces {
		tj := traceJSON{Trace: tf.Path, Fields: map[string]fieldJSON{}}
		for _, field := range r.Options.Fields {
			fits := tf.Fits[field]
			best := stats.Best(fits)
			fj := fieldJSON{Values: fits[0].Total, Fitted: fits[0].N, Below: fits[0].Below, Censored: fits[0].Censored}
			for i := range fits {
				fj.Fits = append(fj.Fits, toFitJSON(&fits[i], best != nil && fits[i].Family == best.Family))
			}
			tj.Fields[field] = fj
		}
		out.Traces = append(out.Traces, tj)
	}
	if len(r.Selection) > 0 {
		out.Selection = map[string]stats.FitRecord{}
		for f, s := range r.Selection {
			out.Selection[f] = s.Record()
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
