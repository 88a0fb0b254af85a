package wfstats

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/plots"
)

// Traces are the workflow analyses of the traces a command analyses, by
// their GWA analysis: what gmark trace stats and plot add to it.
type Traces struct {
	by map[*gwa.Analysis]*Summary
}

// Analyze is gwa.Analyze of r with, for a trace that holds workflows,
// its workflow analysis (Add).
func (x *Traces) Analyze(r gwa.Reader, opts gwa.AnalysisOptions, progress func(int64)) (*gwa.Analysis, error) {
	cr, recs := Collect(r)
	a, err := gwa.Analyze(cr, opts, progress)
	if err != nil {
		return nil, err
	}
	return a, x.Add(a, recs())
}

// PlotTraces is gwa.PlotTraces with the workflow figures (Plot).
func (x *Traces) PlotTraces(all []*gwa.Analysis, dir string, command []string) ([]plots.Figure, error) {
	figs, err := gwa.PlotTraces(all, dir, command)
	if err != nil {
		return figs, err
	}
	return x.Plot(all, figs, dir, command)
}

// Add analyses the workflows of a trace (its records kept by Collect),
// when its format holds workflows.
func (x *Traces) Add(a *gwa.Analysis, recs []gwa.Record) error {
	if !gwa.HasWorkflows(a.Trace.Format) {
		return nil
	}
	s, err := Analyze(recs)
	if err != nil {
		return err
	}
	if x.by == nil {
		x.by = map[*gwa.Analysis]*Summary{}
	}
	x.by[a] = s
	return nil
}

// Of is the workflow analysis of a trace, nil when it has none.
func (x *Traces) Of(a *gwa.Analysis) *Summary { return x.by[a] }

// WriteText writes a trace's analysis as text, and its workflow
// analysis, if it has one.
func (x *Traces) WriteText(w io.Writer, a *gwa.Analysis) {
	a.WriteText(w)
	if s := x.by[a]; s != nil {
		s.WriteText(w)
	}
}

// withWorkflows is an analysis in JSON with its workflow analysis beside
// its fields.
type withWorkflows struct {
	*gwa.Analysis
	Workflows *Summary `json:"workflows,omitempty"`
}

// WriteJSON writes the analyses as gwa.WriteAnalysesJSON does, each with
// its workflow analysis as "workflows".
func (x *Traces) WriteJSON(w io.Writer, all []*gwa.Analysis) error {
	if len(x.by) == 0 {
		return gwa.WriteAnalysesJSON(w, all)
	}
	out := make([]withWorkflows, len(all))
	for i, a := range all {
		out[i] = withWorkflows{a, x.by[a]}
	}
	var v any = out
	if len(out) == 1 {
		v = out[0]
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Plot adds the workflow figures of the traces to dir (written by
// gwa.PlotTraces, figs its figures), and, for one trace, writes its page
// again with them (the page of several traces links each one's own page,
// and is left as it is).
func (x *Traces) Plot(all []*gwa.Analysis, figs []plots.Figure, dir string, command []string) ([]plots.Figure, error) {
	added := false
	for i, a := range all {
		s := x.by[a]
		if s == nil {
			continue
		}
		prefix := ""
		if len(all) > 1 {
			prefix = strconv.Itoa(i+1) + "_"
		}
		wf, err := Plot(s, dir, prefix)
		if err != nil {
			return figs, err
		}
		figs, added = append(figs, wf...), added || len(wf) > 0
	}
	if !added || len(all) > 1 {
		return figs, nil
	}
	return figs, gwa.WritePage(all, figs, filepath.Join(dir, gwa.PageFile), command)
}
