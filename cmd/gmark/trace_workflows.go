package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gmark/gmark/analyzer/plots"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/gwa/wfstats"
)

// analyseWorkflows adds the workflow analysis of a trace that holds
// workflows (its records kept by wfstats.Collect).
func (in *traceInput) analyseWorkflows(a *gwa.Analysis, recs []gwa.Record) error {
	if !gwa.HasWorkflows(a.Trace.Format) {
		return nil
	}
	s, err := wfstats.Analyze(recs)
	if err != nil {
		return err
	}
	if in.workflows == nil {
		in.workflows = map[*gwa.Analysis]*wfstats.Summary{}
	}
	in.workflows[a] = s
	return nil
}

func (in *traceInput) writeWorkflows(w io.Writer, a *gwa.Analysis) {
	if s := in.workflows[a]; s != nil {
		s.WriteText(w)
	}
}

// withWorkflows is an analysis in JSON with its workflow analysis beside
// its fields.
type withWorkflows struct {
	*gwa.Analysis
	Workflows *wfstats.Summary `json:"workflows,omitempty"`
}

func (in *traceInput) writeJSON(w io.Writer, all []*gwa.Analysis) error {
	if len(in.workflows) == 0 {
		return gwa.WriteAnalysesJSON(w, all)
	}
	out := make([]withWorkflows, len(all))
	for i, a := range all {
		out[i] = withWorkflows{a, in.workflows[a]}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if len(out) == 1 {
		return enc.Encode(out[0])
	}
	return enc.Encode(out)
}

// plotWorkflows adds the workflow figures of the traces that hold
// workflows to dir and to its page (written again with them).
func (in *traceInput) plotWorkflows(all []*gwa.Analysis, figs []plots.Figure, dir string) ([]plots.Figure, error) {
	added := false
	for i, a := range all {
		s := in.workflows[a]
		if s == nil {
			continue
		}
		prefix := ""
		if len(all) > 1 {
			prefix = strconv.Itoa(i+1) + "_"
		}
		wf, err := wfstats.Plot(s, dir, prefix)
		if err != nil {
			return figs, err
		}
		figs, added = append(figs, wf...), added || len(wf) > 0
	}
	// The page of one trace is written again with the workflow figures;
	// with several traces, the overlay page is left as it is (it links
	// each trace's own page).
	if !added || len(all) > 1 {
		return figs, nil
	}
	return figs, gwa.WritePage(all, figs, filepath.Join(dir, gwa.PageFile), os.Args)
}
