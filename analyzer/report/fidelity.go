package report

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gmark/gmark/analyzer/fidelity"
	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/plots"
)

// compare fills the run's fidelity comparison. A run that replayed no
// trace gets a note; a trace that cannot be read again is an error.
func (run *Run) compare(st *store.Store, rd *metrics.RunData, opts Options) error {
	res, err := fidelity.Compare(st, rd, fidelity.Options{Bins: opts.Bins, IncludeWarm: opts.IncludeWarm, ReadWindow: opts.ReadWindow})
	if errors.Is(err, fidelity.ErrNoTrace) {
		run.FidelityNote = err.Error()
		return nil
	}
	run.Fidelity = res
	return err
}

// HasFidelity tells whether the report compared runs with their traces.
func (r *Report) HasFidelity() bool {
	for _, run := range r.Runs {
		if len(run.Fidelity) > 0 || run.FidelityNote != "" {
			return true
		}
	}
	return false
}

// fidelityRows writes the comparisons as rows of the CSV form.
func (run *Run) fidelityRows(row func(section, key, metric, value string), f func(float64) string) {
	for _, fr := range run.Fidelity {
		key := "unit " + strconv.Itoa(fr.Unit)
		for _, t := range fr.Tests {
			row("fidelity", key, t.Metric+"_n_original", strconv.Itoa(t.NOriginal))
			row("fidelity", key, t.Metric+"_n_replayed", strconv.Itoa(t.NReplayed))
			row("fidelity", key, t.Metric+"_ks_d", f(t.D))
			row("fidelity", key, t.Metric+"_ks_p", f(t.P))
		}
	}
}

// writeFidelity prints the run's comparisons: one line per metric.
func (run *Run) writeFidelity(ew *errWriter) {
	if run.FidelityNote != "" {
		ew.printf("  replay fidelity: %s\n", run.FidelityNote)
	}
	for _, f := range run.Fidelity {
		warm := ""
		if f.WarmJobs > 0 && !f.WarmIncluded {
			warm = fmt.Sprintf(" (%d warm left out)", f.WarmJobs)
		} else if f.WarmJobs > 0 {
			warm = fmt.Sprintf(" (%d warm included)", f.WarmJobs)
		}
		ew.printf("  replay fidelity, unit %d: %s, window from %s s for %s workload s (%s); %d original jobs, %d replayed%s\n",
			f.Unit, f.Trace, num(f.Origin), num(f.WindowS), f.Selection, f.OriginalJobs, f.ReplayedJobs, warm)
		for _, t := range f.Tests {
			ew.printf("    %-12s KS D %s, p %s (n %d original, %d replayed); median %s vs %s, mean %s vs %s %s\n", t.Metric, num(t.D), pval(t.P),
				t.NOriginal, t.NReplayed, num(t.MedianOriginal), num(t.MedianReplayed), num(t.MeanOriginal), num(t.MeanReplayed), t.Unit)
		}
		for _, n := range f.Notes {
			ew.printf("    note: %s\n", n)
		}
	}
}

// fidelityFigures are the figures of every comparison: the CDFs of the
// original and replayed samples, and the utilization of both over the
// window.
func (fc *figureContext) fidelityFigures(add func(title, name, what string, draw func() (*plots.Drawing, error))) {
	for _, run := range fc.runs {
		for _, f := range run.Fidelity {
			prefix := fmt.Sprintf("fidelity_%s_u%d_", run.Label, f.Unit)
			who := run.Label + " unit " + strconv.Itoa(f.Unit)
			for _, t := range f.Tests {
				if t.Metric == "utilization" {
					continue
				}
				title := who + ": CDF of the " + t.Metric + " time, original and replayed"
				series := []plots.Series{{Label: "original", Values: t.Original}, {Label: "replayed", Values: t.Replayed}}
				add(title, prefix+"cdf_"+t.Metric, "", func() (*plots.Drawing, error) {
					return plots.CDF(title, t.Metric+" time (s)", series, true)
				})
			}
			title := who + ": utilization over the window, original and replayed"
			add(title, prefix+"utilization", "", func() (*plots.Drawing, error) { return utilizationLines(title, f.Utilization) })
		}
	}
}

// utilizationLines draws the original and replayed utilization over the
// window; an unknown series (empty) is left out.
func utilizationLines(title string, u fidelity.Utilization) (*plots.Drawing, error) {
	ylabel, scale := "utilization (%)", 100.0
	if u.Basis == "processors" {
		ylabel, scale = "busy processors", 1
	}
	x := make([]float64, len(u.T))
	for k := range u.T {
		x[k] = (u.T[k] + u.BinS/2) / 60
	}
	scaled := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for k := range v {
			out[k] = v[k] * scale
		}
		return out
	}
	return plots.Lines(title, "minutes since the window's start (workload time)", ylabel, [][]float64{x[:len(u.Original)], x[:len(u.Replayed)]},
		[]plots.Series{{Label: "original", Values: scaled(u.Original)}, {Label: "replayed", Values: scaled(u.Replayed)}}, 0)
}
