package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/version"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/urfave/cli/v2"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// gmark fit: maximum-likelihood fits of the thesis's candidate families to
// a trace's job characteristics, their goodness of fit, the thesis's
// selection rule, CDF plots, and a fit file that the WDL reads back
// (Fit(fit.toml,runtime), Model=fit.toml). The work is done by stats (the
// fitting) and gwa (the trace); docs/models.md describes it all.
func init() {
	commands = append(commands, &cli.Command{
		Name:      "fit",
		Usage:     "fit distributions to the job characteristics of traces; write a fit file the WDL reads back",
		ArgsUsage: "TRACE...",
		Description: "Fits each family by maximum likelihood to a field of one or more traces (SWF, GWF, GWF-SQLite,\n" +
			"gzip-compressed or not), prints the goodness of fit (Kolmogorov-Smirnov D and p-value,\n" +
			"Anderson-Darling A², AIC, BIC) and marks the best fit (lowest D). With several traces it also\n" +
			"applies the thesis's \"average system\" rule: the lowest D averaged over the traces, ties within\n" +
			"0.01 going to the family best for the most traces, parameters averaged.\n\n" +
			"Fields: " + strings.Join(fitFieldNames(), ", ") + ".\n" +
			"-o writes the best model of each field (the average-system model with several traces) as TOML,\n" +
			"read back in a WDL spec by Fit(fit.toml,FIELD) wherever a distribution is accepted, or Model=fit.toml.\n" +
			"See docs/models.md.\n\n" +
			"Exit status: 0 on success, 2 on bad usage, an unreadable trace, or a field without data; 1 on other errors.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "field", Value: cli.NewStringSlice("runtime"), Usage: "what to fit (repeat or comma-separate for several): " + strings.Join(fitFieldNames(), ", ")},
			&cli.BoolFlag{Name: "log2", Usage: "fit log2 of the values, as the thesis does (the fit file says so; the WDL samples 2^Y)"},
			&cli.StringFlag{Name: "families", Value: strings.Join(stats.FitFamilies(), ","), Usage: "the candidate families, comma-separated"},
			&cli.StringFlag{Name: "censor-at", Usage: "right-censor values at or above this (a wall-time limit, e.g. 48h): they count as 'at least this long'"},
			&cli.Float64Flag{Name: "floor", Usage: "set apart values at or below this on the fitted scale (they are kept as an empirical part of the model)"},
			&cli.BoolFlag{Name: "no-floor", Usage: "fit every value (families that need values > 0 then fail on zeros)"},
			&cli.StringFlag{Name: "delta", Value: "120s", Usage: "Δ of the bag-of-tasks fields: the largest submit gap inside a bag"},
			&cli.StringFlag{Name: "peak", Usage: "for the inter-arrival fields, only gaps between arrivals both within these hours of the same day, e.g. 8-17 (the thesis's peak hours)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the fit file (TOML) here"},
			&cli.BoolFlag{Name: "force", Usage: "replace the fit file if it exists"},
			&cli.StringFlag{Name: "plot", Usage: "draw the empirical CDF against the fitted ones into this directory (PNG and SVG)"},
			&cli.BoolFlag{Name: "json", Usage: "print every fit as JSON instead of the tables"},
			&cli.BoolFlag{Name: "strict", Usage: "stop at the first malformed trace line (default: skip and count)"},
			&cli.StringFlag{Name: "input-format", Usage: "input format when it cannot be detected: swf, gwf or sqlite"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar"},
		},
		Action: runFit,
	})
}

// fitField is one characteristic gmark fit can extract.
type fitField struct {
	name, doc, unit string
}

var fitFields = []fitField{
	{"runtime", "run time (s)", "s"},
	{"interarrival", "time between consecutive submissions (s)", "s"},
	{"wait", "wait time (s)", "s"},
	{"size", "processors (allocated, else requested)", "processors"},
	{"cputime", "average CPU time per processor (s)", "s"},
	{"memory", "used memory per processor (KB)", "KB"},
	{"reqtime", "requested time (s)", "s"},
	{"bot-size", "jobs per bag of tasks (bags of 2 or more)", "jobs"},
	{"bot-interarrival", "time between the first submissions of consecutive bags (s)", "s"},
	{"bot-art", "average run time of a bag's jobs (s)", "s"},
	{"bot-rtv", "variance of the run times of a bag's jobs (s²)", "s²"},
}

func fitFieldNames() []string {
	var n []string
	for _, f := range fitFields {
		n = append(n, f.name)
	}
	return n
}

func lookupFitField(name string) (fitField, bool) {
	for _, f := range fitFields {
		if f.name == name {
			return f, true
		}
	}
	return fitField{}, false
}

// fitOptions are the parsed flags of gmark fit.
type fitOptions struct {
	traces   []string
	fields   []string
	families []string
	opts     stats.FitOptions
	delta    float64
	peak     [2]int // hours [from, to); to == 0: no peak filter
	out      string
	plotDir  string
}

func parseFitOptions(c *cli.Context) (*fitOptions, error) {
	if c.NArg() == 0 {
		return nil, usageErrorf("fit takes one or more trace files (see 'gmark fit --help')")
	}
	o := &fitOptions{traces: c.Args().Slice(), out: c.String("output"), plotDir: c.String("plot")}
	for _, f := range splitList(c.StringSlice("field")) {
		if _, ok := lookupFitField(f); !ok {
			return nil, usageErrorf("--field %q: not one of %s", f, strings.Join(fitFieldNames(), ", "))
		}
		if !slices.Contains(o.fields, f) {
			o.fields = append(o.fields, f)
		}
	}
	if len(o.fields) == 0 {
		return nil, usageErrorf("--field: give at least one of %s", strings.Join(fitFieldNames(), ", "))
	}
	for _, f := range splitList([]string{c.String("families")}) {
		name, ok := stats.CanonicalFitFamily(f)
		if !ok {
			return nil, usageErrorf("--families: unknown family %q (known: %s)", f, strings.Join(stats.FitFamilies(), ", "))
		}
		if !slices.Contains(o.families, name) {
			o.families = append(o.families, name)
		}
	}
	if len(o.families) == 0 {
		return nil, usageErrorf("--families: give at least one of %s", strings.Join(stats.FitFamilies(), ", "))
	}
	if f := c.Float64("floor"); math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, usageErrorf("--floor %v: a finite number on the fitted scale", f)
	}
	o.opts = stats.FitOptions{Log2: c.Bool("log2"), Floor: c.Float64("floor"), NoFloor: c.Bool("no-floor")}
	if s := c.String("censor-at"); s != "" {
		v, err := gwa.ParseDurationSeconds(s)
		if err != nil || !(v > 0) {
			return nil, usageErrorf("--censor-at %q: a value > 0, e.g. 48h or 172800", s)
		}
		o.opts.CensorAt = v
	}
	d, err := gwa.ParseDurationSeconds(c.String("delta"))
	if err != nil || !(d > 0) {
		return nil, usageErrorf("--delta %q: a duration > 0, e.g. 120s", c.String("delta"))
	}
	o.delta = d
	if s := c.String("peak"); s != "" {
		var from, to int
		if n, err := fmt.Sscanf(s, "%d-%d", &from, &to); n != 2 || err != nil || from < 0 || to > 24 || from >= to {
			return nil, usageErrorf("--peak %q: FROM-TO whole hours, 0 ≤ FROM < TO ≤ 24, e.g. 8-17", s)
		}
		o.peak = [2]int{from, to}
	}
	if o.out != "" {
		if err := checkOutput(c, o.out, false); err != nil {
			return nil, err
		}
	}
	if o.plotDir != "" {
		if err := checkFigureDir(o.plotDir); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// traceFits are the fits of every field of one trace.
type traceFits struct {
	path   string
	header *gwa.Header
	data   map[string][]float64
	fits   map[string][]stats.Fit
	errs   map[string]error
}

func runFit(c *cli.Context) error {
	o, err := parseFitOptions(c)
	if err != nil {
		return err
	}
	var all []*traceFits
	for _, path := range o.traces {
		data, hdr, err := collectFields(c, path, o)
		if err != nil {
			return err
		}
		tf := &traceFits{path: path, header: hdr, data: data, fits: map[string][]stats.Fit{}, errs: map[string]error{}}
		for _, field := range o.fields {
			x := data[field]
			if len(x) == 0 {
				tf.errs[field] = fmt.Errorf("no values (the trace does not record %s)", field)
				continue
			}
			fits, err := stats.FitAll(x, o.families, o.opts)
			if err != nil {
				tf.errs[field] = err
				continue
			}
			tf.fits[field] = fits
		}
		all = append(all, tf)
	}
	// A field that cannot be fitted is reported and left out; when none
	// can, the input was unusable.
	var fitted []string
	for _, field := range o.fields {
		ok := true
		for _, tf := range all {
			if err := tf.errs[field]; err != nil {
				fmt.Fprintf(c.App.ErrWriter, "warning: %s: %s: %v\n", tf.path, field, err)
				ok = false
			}
		}
		if ok {
			fitted = append(fitted, field)
		}
	}
	if len(fitted) == 0 {
		return usageErrorf("nothing to fit: no field has values to fit (see the warnings)")
	}
	o.fields = fitted
	sel := map[string]*stats.Selection{}
	selErr := map[string]error{}
	if len(all) > 1 {
		for _, field := range o.fields {
			var per [][]stats.Fit
			for _, tf := range all {
				per = append(per, tf.fits[field])
			}
			s, err := stats.SelectAcross(per, stats.DefaultTie)
			if err != nil {
				selErr[field] = err
				continue
			}
			sel[field] = s
		}
	}
	if c.Bool("json") {
		if err := printFitJSON(c.App.Writer, all, sel, o); err != nil {
			return err
		}
	} else {
		for _, tf := range all {
			for _, field := range o.fields {
				printFitTable(c.App.Writer, tf, field, o)
			}
		}
		for _, field := range o.fields {
			if s := sel[field]; s != nil {
				printSelection(c.App.Writer, field, s, len(all))
			} else if err := selErr[field]; err != nil {
				fmt.Fprintf(c.App.ErrWriter, "warning: %s: no average-system model: %v\n", field, err)
			}
		}
	}
	if o.plotDir != "" {
		files, err := plotFits(o.plotDir, all, o)
		if err != nil {
			return err
		}
		if !c.Bool("json") {
			fmt.Fprintf(c.App.Writer, "plots: %s\n", strings.Join(files, ", "))
		}
	}
	if o.out != "" {
		recs := map[string]stats.FitRecord{}
		for _, field := range o.fields {
			var rec stats.FitRecord
			if s := sel[field]; s != nil {
				rec = s.Record()
			} else {
				best := stats.Best(all[0].fits[field])
				if best == nil {
					return fmt.Errorf("%s: no family could be fitted; nothing to write", field)
				}
				rec = best.Record()
			}
			rec.Field = field
			for _, tf := range all {
				rec.Source = append(rec.Source, filepath.Base(tf.path))
			}
			recs[field] = rec
		}
		if err := writeFitFile(o.out, recs, o); err != nil {
			return err
		}
		if !c.Bool("json") {
			fmt.Fprintf(c.App.Writer, "wrote %s: use Fit(%s,%s) in a WDL spec, or Model=%s\n", o.out, filepath.Base(o.out), o.fields[0], filepath.Base(o.out))
		}
	}
	return nil
}

// collectFields reads a trace once and extracts every requested field.
func collectFields(c *cli.Context, path string, o *fitOptions) (map[string][]float64, *gwa.Header, error) {
	r, err := openTrace(c, path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	hdr := r.Header()
	want := map[string]bool{}
	for _, f := range o.fields {
		want[f] = true
	}
	data := map[string][]float64{}
	var submits, botStarts []float64
	var bots *gwa.BoTAnalyzer
	if want["bot-size"] || want["bot-interarrival"] || want["bot-art"] || want["bot-rtv"] {
		bots = gwa.NewBoTAnalyzer(o.delta, func(b *gwa.Batch) {
			data["bot-size"] = append(data["bot-size"], float64(b.Size))
			botStarts = append(botStarts, b.Start)
			if b.RunN > 0 {
				data["bot-art"] = append(data["bot-art"], b.MeanRunTime())
				s := b.RunTimeStd()
				data["bot-rtv"] = append(data["bot-rtv"], s*s)
			}
		})
	}
	bar, progress := recordProgress(c, r, "reading "+filepath.Base(path))
	defer bar.Done()
	known := func(v float64) bool { return v != gwa.Missing && !math.IsNaN(v) }
	var n int64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, traceError(c, err)
		}
		n++
		if n%4096 == 0 {
			progress(n)
		}
		if want["runtime"] && known(rec.RunTime) && rec.RunTime >= 0 {
			data["runtime"] = append(data["runtime"], rec.RunTime)
		}
		if want["wait"] && known(rec.WaitTime) {
			data["wait"] = append(data["wait"], rec.WaitTime)
		}
		if want["size"] {
			if p := rec.Procs(); p > 0 {
				data["size"] = append(data["size"], p)
			}
		}
		if want["cputime"] && known(rec.AvgCPUTimeUsed) && rec.AvgCPUTimeUsed >= 0 {
			data["cputime"] = append(data["cputime"], rec.AvgCPUTimeUsed)
		}
		if want["memory"] && known(rec.UsedMemory) && rec.UsedMemory >= 0 {
			data["memory"] = append(data["memory"], rec.UsedMemory)
		}
		if want["reqtime"] && known(rec.ReqTime) && rec.ReqTime >= 0 {
			data["reqtime"] = append(data["reqtime"], rec.ReqTime)
		}
		if want["interarrival"] {
			submits = append(submits, rec.SubmitTime)
		}
		if bots != nil {
			bots.Add(&rec)
		}
	}
	progress(n)
	reportSkipped(c, path, r.Stats())
	if bots != nil {
		bots.Result()
	}
	peak := newPeakFilter(hdr, o.peak)
	if want["interarrival"] {
		data["interarrival"] = gaps(submits, peak)
	}
	if want["bot-interarrival"] {
		data["bot-interarrival"] = gaps(botStarts, peak)
	}
	return data, hdr, nil
}

// peakFilter tells whether two arrivals lie in the peak hours of the same
// day, in the trace's time zone when its time base is known.
type peakFilter struct {
	from, to int
	base     int64
	loc      *time.Location
}

func newPeakFilter(h *gwa.Header, peak [2]int) *peakFilter {
	if peak[1] == 0 {
		return nil
	}
	p := &peakFilter{from: peak[0], to: peak[1], base: h.UnixStartTime, loc: time.UTC}
	if l, err := time.LoadLocation(h.TimeZone); err == nil && h.TimeZone != "" {
		p.loc = l
	}
	return p
}

func (p *peakFilter) keep(a, b float64) bool {
	ta := time.Unix(p.base+int64(math.Floor(a)), 0).In(p.loc)
	tb := time.Unix(p.base+int64(math.Floor(b)), 0).In(p.loc)
	if ta.YearDay() != tb.YearDay() || ta.Year() != tb.Year() {
		return false
	}
	return ta.Hour() >= p.from && ta.Hour() < p.to && tb.Hour() >= p.from && tb.Hour() < p.to
}

// gaps are the differences between consecutive times, sorted first.
func gaps(t []float64, peak *peakFilter) []float64 {
	slices.Sort(t)
	var out []float64
	for i := 1; i < len(t); i++ {
		if peak != nil && !peak.keep(t[i-1], t[i]) {
			continue
		}
		out = append(out, t[i]-t[i-1])
	}
	return out
}

// describeData is the header line of a field's table.
func describeData(tf *traceFits, field string, o *fitOptions) string {
	f, _ := lookupFitField(field)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s", filepath.Base(tf.path), field, f.doc)
	if o.opts.Log2 {
		b.WriteString(", fitted on log2")
	}
	if fits := tf.fits[field]; len(fits) > 0 {
		x := fits[0]
		fmt.Fprintf(&b, "\n  %d values", x.Total)
		if x.Below > 0 {
			fmt.Fprintf(&b, ", %d at or below the floor (%.2f%%, kept apart)", x.Below, 100*x.BelowShare())
		}
		if x.Censored > 0 {
			fmt.Fprintf(&b, ", %d censored at %g %s", x.Censored, o.opts.CensorAt, f.unit)
		}
	}
	if o.peak[1] > 0 && strings.Contains(field, "interarrival") {
		fmt.Fprintf(&b, "; peak hours %d-%d only", o.peak[0], o.peak[1])
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

func printFitTable(w io.Writer, tf *traceFits, field string, o *fitOptions) {
	fmt.Fprintln(w, describeData(tf, field, o))
	fits := tf.fits[field]
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
		fmt.Fprintf(w, "  best: %s (lowest D); the p-values are approximate: the parameters come from the data\n", best.Family)
	}
	fmt.Fprintln(w)
}

func printSelection(w io.Writer, field string, s *stats.Selection, n int) {
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

// fitJSON is one fit for --json.
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

func toJSON(f *stats.Fit, best bool) fitJSON {
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

func printFitJSON(w io.Writer, all []*traceFits, sel map[string]*stats.Selection, o *fitOptions) error {
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
	out := struct {
		Log2      bool                       `json:"log2"`
		CensorAt  float64                    `json:"censor_at,omitempty"`
		Traces    []traceJSON                `json:"traces"`
		Selection map[string]stats.FitRecord `json:"average_system,omitempty"`
	}{Log2: o.opts.Log2, CensorAt: o.opts.CensorAt}
	for _, tf := range all {
		tj := traceJSON{Trace: tf.path, Fields: map[string]fieldJSON{}}
		for _, field := range o.fields {
			fits := tf.fits[field]
			best := stats.Best(fits)
			fj := fieldJSON{Values: fits[0].Total, Fitted: fits[0].N, Below: fits[0].Below, Censored: fits[0].Censored}
			for i := range fits {
				fj.Fits = append(fj.Fits, toJSON(&fits[i], best != nil && fits[i].Family == best.Family))
			}
			tj.Fields[field] = fj
		}
		out.Traces = append(out.Traces, tj)
	}
	if len(sel) > 0 {
		out.Selection = map[string]stats.FitRecord{}
		for f, s := range sel {
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

// writeFitFile writes the fit file (wdl.WriteFitFile).
func writeFitFile(path string, recs map[string]stats.FitRecord, o *fitOptions) error {
	return wdl.WriteFitFile(path, wdl.FitFileHeader{Version: version.String(), Written: time.Now(),
		Traces: o.traces, Families: o.families, Log2: o.opts.Log2, CensorAt: o.opts.CensorAt}, recs)
}

// plotFits draws, for each trace and field, the empirical CDF of the fitted
// values (on the fitted scale) against the CDFs of the best four fits.
func plotFits(dir string, all []*traceFits, o *fitOptions) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, tf := range all {
		for _, field := range o.fields {
			fits := tf.fits[field]
			y := fittedValues(tf.data[field], o.opts)
			if len(y) == 0 {
				continue
			}
			p := plot.New()
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(tf.path), ".gz"), filepath.Ext(strings.TrimSuffix(filepath.Base(tf.path), ".gz")))
			p.Title.Text = name + ": " + field
			p.X.Label.Text = field
			if o.opts.Log2 {
				p.X.Label.Text = "log2(" + field + ")"
			}
			p.Y.Label.Text = "CDF"
			p.Legend.Top = false
			p.Legend.Left = false
			p.Legend.YOffs = vg.Points(20)
			// The empirical CDF of the fitted values among all fitted ones,
			// censored included (they lie above the last point).
			emp := make(plotter.XYs, 0, 2001)
			n := len(y)
			total := float64(max(n, fits[0].N))
			step := max(1, n/2000)
			for i := 0; i < n; i += step {
				emp = append(emp, plotter.XY{X: y[i], Y: float64(i+1) / total})
			}
			emp = append(emp, plotter.XY{X: y[n-1], Y: float64(n) / total})
			line, err := plotter.NewLine(emp)
			if err != nil {
				return nil, err
			}
			line.Width = vg.Points(2.5)
			line.Color = plotutil.Color(0)
			p.Add(line)
			p.Legend.Add("data", line)
			k := 0
			for i := range fits {
				f := &fits[i]
				if f.Err != nil || k == 4 {
					continue
				}
				k++
				pts := make(plotter.XYs, 0, 400)
				lo, hi := y[0], y[n-1]
				for s := 0; s <= 400; s++ {
					x := lo + (hi-lo)*float64(s)/400
					pts = append(pts, plotter.XY{X: x, Y: f.Model.CDF(x)})
				}
				l, err := plotter.NewLine(pts)
				if err != nil {
					return nil, err
				}
				l.Color = plotutil.Color(k)
				l.Dashes = plotutil.Dashes(k)
				p.Add(l)
				p.Legend.Add(fmt.Sprintf("%s (D=%.3f)", f.Family, f.D), l)
			}
			base := filepath.Join(dir, name+"_"+field)
			for _, ext := range []string{".png", ".svg"} {
				if err := gwa.SavePlot(p, 8*vg.Inch, 5*vg.Inch, base+ext); err != nil {
					return nil, err
				}
				files = append(files, base+ext)
			}
		}
	}
	return files, nil
}

// fittedValues are the values the fit used, on the fitted scale, sorted.
func fittedValues(x []float64, opts stats.FitOptions) []float64 {
	var y []float64
	for _, v := range x {
		if opts.CensorAt > 0 && v >= opts.CensorAt {
			continue
		}
		if opts.Log2 {
			if v <= 0 {
				continue
			}
			v = math.Log2(v)
		}
		if !opts.NoFloor && v <= opts.Floor {
			continue
		}
		y = append(y, v)
	}
	slices.Sort(y)
	return y
}
