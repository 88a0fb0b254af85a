package gwa

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/gmark/gmark/stats"
)

// Trace-to-model fitting (gmark fit): the fields of each trace are fitted
// by package stats; across several traces the thesis's "average system"
// rule picks one model per field (stats.SelectAcross). docs/models.md
// describes it all.

// FitOptions are the choices of a fit of traces.
type FitOptions struct {
	FieldOptions
	Families []string         // the candidate families (canonical names)
	Stats    stats.FitOptions // transform, floor, censoring
}

// TraceFit is the fits of every field of one trace.
type TraceFit struct {
	Path   string
	Header *Header
	Data   map[string][]float64   // the values of each field (ReadFields)
	Fits   map[string][]stats.Fit // best first (stats.FitAll)
	Errs   map[string]error       // the fields that could not be fitted
}

// FitTrace fits the families of o to each field of data, the values
// ReadFields read from the trace at path.
func FitTrace(path string, h *Header, data map[string][]float64, o FitOptions) *TraceFit {
	tf := &TraceFit{Path: path, Header: h, Data: data, Fits: map[string][]stats.Fit{}, Errs: map[string]error{}}
	for _, field := range o.Fields {
		x := data[field]
		if len(x) == 0 {
			tf.Errs[field] = fmt.Errorf("no values (the trace does not record %s)", field)
			continue
		}
		fits, err := stats.FitAll(x, o.Families, o.Stats)
		if err != nil {
			tf.Errs[field] = err
			continue
		}
		tf.Fits[field] = fits
	}
	return tf
}

// FitResult is the fit of one or more traces.
type FitResult struct {
	Options FitOptions // Fields: those fitted in every trace
	Traces  []*TraceFit
	// Selection is the average-system model of each field, with several
	// traces; SelectionErr says why a field has none.
	Selection    map[string]*stats.Selection
	SelectionErr map[string]error
}

// FieldError is a field of a trace that could not be fitted.
type FieldError struct {
	Path, Field string
	Err         error
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s: %v", e.Path, e.Field, e.Err) }

func (e *FieldError) Unwrap() error { return e.Err }

// ErrNothingToFit is CombineFits's error when no field could be fitted in
// every trace.
var ErrNothingToFit = errors.New("nothing to fit: no field has values to fit (see the warnings)")

// CombineFits gathers the fits of traces: a field that could not be fitted
// in one of them is left out (and reported, trace by trace, in the
// returned FieldErrors); with several traces, it selects the average-system
// model of each field.
func CombineFits(traces []*TraceFit, o FitOptions) (*FitResult, []*FieldError, error) {
	var fitted []string
	var skipped []*FieldError
	for _, field := range o.Fields {
		ok := true
		for _, tf := range traces {
			if err := tf.Errs[field]; err != nil {
				skipped = append(skipped, &FieldError{tf.Path, field, err})
				ok = false
			}
		}
		if ok {
			fitted = append(fitted, field)
		}
	}
	if len(fitted) == 0 {
		return nil, skipped, ErrNothingToFit
	}
	o.Fields = fitted
	res := &FitResult{Options: o, Traces: traces, Selection: map[string]*stats.Selection{}, SelectionErr: map[string]error{}}
	if len(traces) > 1 {
		for _, field := range o.Fields {
			var per [][]stats.Fit
			for _, tf := range traces {
				per = append(per, tf.Fits[field])
			}
			s, err := stats.SelectAcross(per, stats.DefaultTie)
			if err != nil {
				res.SelectionErr[field] = err
				continue
			}
			res.Selection[field] = s
		}
	}
	return res, skipped, nil
}

// SelectionErrors are the fields without an average-system model, in field
// order, each with the reason.
func (r *FitResult) SelectionErrors() []error {
	var errs []error
	for _, field := range r.Options.Fields {
		if r.Selection[field] == nil && r.SelectionErr[field] != nil {
			errs = append(errs, fmt.Errorf("%s: no average-system model: %w", field, r.SelectionErr[field]))
		}
	}
	return errs
}

// Records are the fit-file entries of the result: for each field, the
// average-system model with several traces, else the best fit; Field and
// Source say where each comes from.
func (r *FitResult) Records() (map[string]stats.FitRecord, error) {
	recs := map[string]stats.FitRecord{}
	for _, field := range r.Options.Fields {
		var rec stats.FitRecord
		if s := r.Selection[field]; s != nil {
			rec = s.Record()
		} else {
			best := stats.Best(r.Traces[0].Fits[field])
			if best == nil {
				return nil, fmt.Errorf("%s: no family could be fitted; nothing to write", field)
			}
			rec = best.Record()
		}
		rec.Field = field
		for _, tf := range r.Traces {
			rec.Source = append(rec.Source, filepath.Base(tf.Path))
		}
		recs[field] = rec
	}
	return recs, nil
}
