package main

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/internal/version"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/urfave/cli/v2"
)

// gmark fit: maximum-likelihood fits of the thesis's candidate families to
// a trace's job characteristics, their goodness of fit, the thesis's
// selection rule, CDF plots, and a fit file that the WDL reads back
// (Fit(fit.toml,runtime), Model=fit.toml). The work is done by stats (the
// fitting), gwa (the fields of traces, the report, the figures) and wdl (the
// fit file); docs/models.md describes it all.
func init() { makers = append(makers, fitCommand) }

// fitFlags are gmark fit's flags: FitOptions' and in's bound, the others' text for parse.
type fitFlags struct {
	FitOptions
	in                                        traceInput
	families, censorAt, delta, peak, inFormat string
	force                                     bool
	fields                                    cli.StringSlice
}

func fitCommand() *cli.Command {
	f := &fitFlags{}
	return &cli.Command{
		Name:      "fit",
		Usage:     "fit distributions to the job characteristics of traces; write a fit file the WDL reads back",
		ArgsUsage: "TRACE...",
		Description: "Fits each family by maximum likelihood to a field of one or more traces (SWF, GWF, GWF-SQLite,\n" +
			"gzip-compressed or not), prints the goodness of fit (Kolmogorov-Smirnov D and p-value,\n" +
			"Anderson-Darling A², AIC, BIC) and marks the best fit: the lowest D, but the fewest parameters among\nthe fits within D's sampling noise (0.26/√n) of the lowest. With several traces it also\n" +
			"applies the thesis's \"average system\" rule: the lowest D averaged over the traces, ties within\n" +
			"0.01 going to the family best for the most traces, parameters averaged.\n\n" +
			"Fields: " + strings.Join(gwa.FitFieldNames(), ", ") + ".\n" +
			"-o writes the best model of each field (the average-system model with several traces) as TOML,\n" +
			"read back in a WDL spec by Fit(fit.toml,FIELD) wherever a distribution is accepted, or Model=fit.toml.\n" +
			"See docs/models.md.\n\n" +
			"Exit status: 0 on success, 2 on bad usage, an unreadable trace, or a field without data; 1 on other errors.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "field", Value: cli.NewStringSlice("runtime"), Destination: &f.fields, Usage: "what to fit (repeat or comma-separate for several): " + strings.Join(gwa.FitFieldNames(), ", ")},
			&cli.BoolFlag{Name: "log2", Destination: &f.Fit.Stats.Log2, Usage: "fit log2 of the values, as the thesis does (the fit file says so; the WDL samples 2^Y)"},
			&cli.StringFlag{Name: "families", Value: strings.Join(stats.FitFamilies(), ","), Destination: &f.families, Usage: "the candidate families, comma-separated"},
			&cli.StringFlag{Name: "censor-at", Destination: &f.censorAt, Usage: "right-censor values at or above this (a wall-time limit, e.g. 48h): they count as 'at least this long'"},
			&cli.Float64Flag{Name: "floor", Destination: &f.Fit.Stats.Floor, Usage: "set apart values at or below this on the fitted scale (they are kept as an empirical part of the model)"},
			&cli.BoolFlag{Name: "no-floor", Destination: &f.Fit.Stats.NoFloor, Usage: "fit every value (families that need values > 0 then fail on zeros)"},
			&cli.StringFlag{Name: "delta", Value: "120s", Destination: &f.delta, Usage: "Δ of the bag-of-tasks fields: the largest submit gap inside a bag"},
			&cli.StringFlag{Name: "peak", Destination: &f.peak, Usage: "for the inter-arrival fields, only gaps between arrivals both within these hours of the same day, e.g. 8-17 (the thesis's peak hours)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &f.Output, Usage: "write the fit file (TOML) here"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Destination: &f.force, Usage: "replace the fit file if it exists"},
			&cli.StringFlag{Name: "plot", Destination: &f.PlotDir, Usage: "draw the empirical CDF against the fitted ones into this directory (PNG and SVG)"},
			&cli.BoolFlag{Name: "json", Destination: &f.JSON, Usage: "print every fit as JSON instead of the tables"},
			&cli.BoolFlag{Name: "strict", Destination: &f.in.read.Strict, Usage: "stop at the first malformed trace line (without it: skip and count)"},
			&cli.StringFlag{Name: "input-format", Destination: &f.inFormat, Usage: "input format when it cannot be detected: swf, gwf or sqlite"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &f.in.quiet, Usage: "no progress bar"},
		},
		Action: f.run,
	}
}

// FitOptions are the parsed flags of gmark fit.
type FitOptions struct {
	Traces  []string
	Fit     gwa.FitOptions
	Output  string // the fit file; "" for none
	PlotDir string // the figures; "" for none
	JSON    bool
	Input   *traceInput // how the traces are read
}

func (f *fitFlags) run(c *cli.Context) error {
	o, err := f.parse(c)
	if err != nil {
		return err
	}
	return fitTraces(c, o)
}

func (f *fitFlags) parse(c *cli.Context) (FitOptions, error) {
	if c.NArg() == 0 {
		return FitOptions{}, usageErrorf("fit takes one or more trace files (see 'gmark fit --help')")
	}
	o := f.FitOptions
	o.Traces = c.Args().Slice()
	var err error
	if o.Input, err = f.in.parse(c, f.inFormat); err != nil {
		return o, err
	}
	if o.Fit.Fields, err = gwa.ParseFitFields(splitList(f.fields.Value())); err != nil {
		return o, usageError{err}
	}
	if o.Fit.Families, err = stats.ParseFitFamilies(splitList([]string{f.families})); err != nil {
		return o, usageError{err}
	}
	if v := o.Fit.Stats.Floor; math.IsNaN(v) || math.IsInf(v, 0) {
		return o, usageErrorf("--floor %v: a finite number on the fitted scale", v)
	}
	if s := f.censorAt; s != "" {
		v, err := gwa.ParseDurationSeconds(s)
		if err != nil || !(v > 0) {
			return o, usageErrorf("--censor-at %q: a value > 0, e.g. 48h or 172800", s)
		}
		o.Fit.Stats.CensorAt = v
	}
	d, err := gwa.ParseDurationSeconds(f.delta)
	if err != nil || !(d > 0) {
		return o, usageErrorf("--delta %q: a duration > 0, e.g. 120s", f.delta)
	}
	o.Fit.Delta = d
	if s := f.peak; s != "" {
		var from, to int
		if n, err := fmt.Sscanf(s, "%d-%d", &from, &to); n != 2 || err != nil || from < 0 || to > 24 || from >= to {
			return o, usageErrorf("--peak %q: FROM-TO whole hours, 0 ≤ FROM < TO ≤ 24, e.g. 8-17", s)
		}
		o.Fit.Peak = gwa.PeakHours{From: from, To: to}
	}
	if o.Output != "" {
		if err := outfile.Check(o.Output, "", f.force); err != nil {
			return o, usageError{err}
		}
	}
	if o.PlotDir != "" {
		if err := outfile.CheckDir(o.PlotDir, "the figures"); err != nil {
			return o, usageError{err}
		}
	}
	return o, nil
}

// fitTraces fits the traces (gwa.FitTrace, gwa.CombineFits), prints the
// report, draws the figures and writes the fit file.
func fitTraces(c *cli.Context, o FitOptions) error {
	var traces []*gwa.TraceFit
	for _, path := range o.Traces {
		tf, err := readAndFitTrace(o.Input, path, o.Fit)
		if err != nil {
			return err
		}
		traces = append(traces, tf)
	}
	res, skipped, err := gwa.CombineFits(traces, o.Fit)
	for _, e := range skipped {
		fmt.Fprintf(c.App.ErrWriter, "warning: %v\n", e)
	}
	if errors.Is(err, gwa.ErrNothingToFit) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if o.JSON {
		if err := res.WriteJSON(c.App.Writer); err != nil {
			return err
		}
	} else {
		res.WriteText(c.App.Writer)
		for _, e := range res.SelectionErrors() {
			fmt.Fprintf(c.App.ErrWriter, "warning: %v\n", e)
		}
	}
	if o.PlotDir != "" {
		files, err := gwa.PlotFits(o.PlotDir, res)
		if err != nil {
			return err
		}
		if !o.JSON {
			fmt.Fprintf(c.App.Writer, "plots: %s\n", strings.Join(files, ", "))
		}
	}
	if o.Output != "" {
		return writeFitFile(c, o, res)
	}
	return nil
}

// readAndFitTrace reads one trace, with a progress bar, and fits its fields.
func readAndFitTrace(in *traceInput, path string, o gwa.FitOptions) (*gwa.TraceFit, error) {
	r, err := in.open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	bar, progress := in.progress(r, "reading "+filepath.Base(path))
	data, err := gwa.ReadFields(r, o.FieldOptions, progress)
	bar.Done()
	if err != nil {
		return nil, in.traceError(err)
	}
	in.reportSkipped(path, r.Stats())
	return gwa.FitTrace(path, r.Header(), data, o), nil
}

// writeFitFile writes the fit file (wdl.WriteFitFile).
func writeFitFile(c *cli.Context, o FitOptions, res *gwa.FitResult) error {
	recs, err := res.Records()
	if err != nil {
		return err
	}
	h := wdl.FitFileHeader{Version: version.String(), Written: time.Now(), Traces: o.Traces,
		Families: o.Fit.Families, Log2: o.Fit.Stats.Log2, CensorAt: o.Fit.Stats.CensorAt}
	if err := wdl.WriteFitFile(o.Output, h, recs); err != nil {
		return err
	}
	if !o.JSON {
		fields := res.Options.Fields
		fmt.Fprintf(c.App.Writer, "wrote %s: use Fit(%s,%s) in a WDL spec, or Model=%s\n", o.Output, filepath.Base(o.Output), fields[0], filepath.Base(o.Output))
	}
	return nil
}
