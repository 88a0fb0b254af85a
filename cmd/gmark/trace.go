package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/gwa/imbalance"
	"github.com/gmark/gmark/gwa/wfstats"
	"github.com/gmark/gmark/internal/cliflag"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/internal/progress"
	"github.com/urfave/cli/v2"
)

// gmark trace: Grid Workloads Archive and Parallel Workloads Archive traces,
// their analysis, selection and conversion. The work is done by package gwa;
// this file wires flags to it. docs/trace.md describes it all.
func init() { makers = append(makers, traceCommand) }

// traceFlags are the values of the flags of 'gmark trace' and its subcommands:
// in, the input's but --input-format; sel, the selection's but its lists and bounds.
type traceFlags struct {
	in                                                 traceInput
	procs, top, reportedWork, list, minProcs, maxProcs int
	json, cdf, force                                   bool
	inFormat, output, format, categories               string
	delta, site, user, status, tag, target             cli.StringSlice
	works                                              cli.IntSlice
	sel                                                gwa.SelectionFlags
}

func traceCommand() *cli.Command {
	o := &traceFlags{}
	strict, quiet := &cli.BoolFlag{Name: "strict", Destination: &o.in.read.Strict, Usage: "stop at the first malformed line (without it: skip malformed lines, count them and report the count)"}, &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &o.in.quiet, Usage: "no progress bar"}
	format := &cli.StringFlag{Name: "input-format", Destination: &o.inFormat, Usage: "input format when it cannot be detected: swf, gwf, wf (GWF's workflow variant), sqlite, wfformat (WfCommons JSON) or wta (parquet)"}
	procs := &cli.IntFlag{Name: "procs", Destination: &o.procs, DefaultText: "the header's MaxProcs, else its MaxNodes, else the peak of processors in use at once (an estimate, said so)", Usage: "system size (processors) for utilization"}
	return &cli.Command{
		Name:  "trace",
		Usage: "analyse, plot, select, convert and rank GWF, GWF-SQLite and SWF traces",
		Description: "Reads Grid Workloads Archive traces (GWF text, GWF-SQLite) and Parallel Workloads Archive\n" +
			"traces (SWF), gzip-compressed or not; the format is detected. See docs/trace.md.\n\n" +
			"Exit status: 0 on success, 2 on bad usage or a malformed trace under --strict, 1 on other errors.",
		Subcommands: []*cli.Command{
			{
				Name:      "stats",
				Usage:     "the GWA analysis of a trace: totals, utilization, arrivals, distributions, users, sites, status, ranking",
				ArgsUsage: "TRACE...",
				Flags: []cli.Flag{strict, quiet, format, procs,
					&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "print the analysis as JSON (one object per trace; an array for several)"},
					&cli.BoolFlag{Name: "cdf", Destination: &o.cdf, Usage: "with --json, include the CDF points of each distribution"},
					&cli.IntFlag{Name: "top", Value: 10, Destination: &o.top, Usage: "how many top users to list"},
					&cli.IntFlag{Name: "reported-work", Value: -1, Destination: &o.reportedWork, DefaultText: "none: left out", Usage: "publications using the trace, the sixth ranking category (not computable from a trace)"},
				},
				Action: o.stats,
			},
			{
				Name:      "plot",
				Usage:     "draw the analysis figures of traces as PNG and SVG, with a page (several traces: overlaid)",
				ArgsUsage: "TRACE...",
				Flags: []cli.Flag{strict, quiet, format, procs,
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Destination: &o.output, Usage: "directory for the figures"},
				},
				Action: o.plot,
			},
			{
				Name:      "select",
				Usage:     "filter, area-select, scale and mix traces; write the result as SWF, GWF or GWF-SQLite",
				ArgsUsage: "TRACE...",
				Description: "Several input traces are mixed into one, in submit order (each trace's start at offset 0;\n" +
					"--tag names them so their users and sites stay apart). The selection runs: filters, then the\n" +
					"representative area (--area-width and --target), then --first, then rebasing to the selection's\n" +
					"start (--rebase) and scaling. Times take units ms s m h d w; a bare number is seconds.",
				Flags:  append(o.selectionFlags(), strict, quiet, format, o.outputFlags()[0], o.outputFlags()[1], o.outputFlags()[2]),
				Action: o.selectTrace,
			},
			{
				Name:      "convert",
				Usage:     "convert a trace between SWF, GWF and GWF-SQLite (.gz compresses text output)",
				ArgsUsage: "IN OUT",
				Flags:     append([]cli.Flag{strict, quiet, format}, o.outputFlags()[1:]...),
				Action:    o.convert,
			},
			{
				Name:      "bots",
				Usage:     "extract bags-of-tasks (batch submissions) and report their sizes, inter-arrival and run times",
				ArgsUsage: "TRACE",
				Flags: []cli.Flag{strict, quiet, format,
					&cli.StringSliceFlag{Name: "delta", Value: cli.NewStringSlice("120s"), Destination: &o.delta, Usage: "Δ: the largest submit gap inside a batch (several for a sensitivity table)"},
					&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "print JSON"},
					&cli.IntFlag{Name: "list", Destination: &o.list, Usage: "also print the first N batches (of the first Δ)"},
				},
				Action: o.bots,
			},
			{
				Name:      "rank",
				Usage:     "the GWA trace ranking: stars per category, each trace's value and the distances between traces",
				ArgsUsage: "TRACE...",
				Flags: []cli.Flag{strict, quiet, format, procs,
					&cli.StringFlag{Name: "categories", Value: "sites,cores,users,jobs,utilization", Destination: &o.categories, Usage: "the categories C (comma-separated; add reported_work with --reported-work)"},
					&cli.IntSliceFlag{Name: "reported-work", Destination: &o.works, Usage: "publications using each trace, in argument order"},
					&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "print JSON"},
				},
				Action: o.rank,
			},
			imbalance.Command([]cli.Flag{strict, quiet, format}, o.input, (*traceInput).open),
		},
	}
}

func (o *traceFlags) selectionFlags() []cli.Flag {
	s := &o.sel
	return []cli.Flag{
		&cli.StringFlag{Name: "from", Destination: &s.From, Usage: "keep jobs submitted at or after this offset from the trace's time base"},
		&cli.StringFlag{Name: "to", Destination: &s.To, Usage: "keep jobs submitted before this offset"},
		&cli.Int64Flag{Name: "first", Destination: &s.First, Usage: "keep the first N jobs (after the other filters and the area)"},
		&cli.StringSliceFlag{Name: "site", Destination: &o.site, Usage: "keep jobs of these sites (ids or SWF partition names)"},
		&cli.StringSliceFlag{Name: "user", Destination: &o.user, Usage: "keep jobs of these users"},
		&cli.StringSliceFlag{Name: "status", Destination: &o.status, Usage: "keep jobs with these statuses: completed, failed, cancelled, partial, unknown or -1..5"},
		&cli.StringFlag{Name: "min-runtime", Destination: &s.MinRunTime, Usage: "keep jobs that ran at least this long"},
		&cli.StringFlag{Name: "max-runtime", Destination: &s.MaxRunTime, Usage: "keep jobs that ran at most this long"},
		&cli.IntFlag{Name: "min-procs", Destination: &o.minProcs, Usage: "keep jobs of at least this many processors"},
		&cli.IntFlag{Name: "max-procs", Destination: &o.maxProcs, Usage: "keep jobs of at most this many processors"},
		&cli.StringFlag{Name: "area-width", Destination: &s.AreaWidth, Usage: "select the representative window of this width (e.g. 3h)"},
		&cli.StringSliceFlag{Name: "target", Destination: &o.target, DefaultText: "arrivals:p50", Usage: "area target CHAR:VALUE or CHAR:pP, CHAR one of arrivals, work, runtime, procs, users, wait"},
		&cli.Float64Flag{Name: "submit-scale", Value: 1, Destination: &s.SubmitScale, Usage: "multiply submit offsets (0.1: ten times the arrival rate)"},
		&cli.Float64Flag{Name: "runtime-scale", Value: 1, Destination: &s.RunTimeScale, Usage: "multiply run, requested and CPU times"},
		&cli.Float64Flag{Name: "proc-scale", Value: 1, Destination: &s.ProcScale, Usage: "multiply processor counts (rounded, at least 1)"},
		&cli.BoolFlag{Name: "rebase", Destination: &s.Rebase, Usage: "make submit times offsets from the selection's start (implied by --area-width)"},
		&cli.StringSliceFlag{Name: "tag", Destination: &o.tag, DefaultText: "the file names, without .gz", Usage: "with several traces, a tag per trace prefixed to its ids"},
	}
}

func (o *traceFlags) outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Destination: &o.output, Usage: "output file (.swf, .gwf, .db3/.sqlite; .gz compresses text)"},
		&cli.StringFlag{Name: "format", Destination: &o.format, Usage: "output format when the name does not tell: swf, gwf, wf, sqlite, wfformat (WfCommons JSON; a directory OUT/ for several workflows) or wta (the Workflow Trace Archive's parquet)"},
		&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Destination: &o.force, Usage: "replace the output file if it exists"},
	}
}

// traceInput is how a trace command reads its traces: the reader options
// (--strict, --input-format), --quiet, where warnings go, and standard
// input, the trace "-" (gwa.OpenArg: read once, then nil).
type traceInput struct {
	read      gwa.ReadOptions
	quiet     bool
	stderr    io.Writer
	workflows wfstats.Traces // the workflow analyses of the traces analysed
	stdin     io.Reader
}

func (o *traceFlags) input(c *cli.Context) (*traceInput, error) { return o.in.parse(c, o.inFormat) }

// parse is in, given --strict and --quiet, reading the input format.
func (in traceInput) parse(c *cli.Context, format string) (*traceInput, error) {
	in.stderr, in.stdin = c.App.ErrWriter, c.App.Reader
	var err error
	if in.read.Format, err = gwa.InputFormat(format); err != nil {
		return nil, usageError{err}
	}
	return &in, nil
}

// traceError classifies a read error: malformed input exits with 2.
func (in *traceInput) traceError(err error) error {
	var pe *gwa.ParseError
	var ne *gwa.NoRecordsError
	switch {
	case errors.As(err, &ne) || errors.Is(err, gwa.ErrOutOfRange) || errors.Is(err, gwa.ErrNotInSubmitOrder) || errors.Is(err, gwa.ErrStdinRead):
		return usageError{err}
	case errors.As(err, &pe) && in.read.Strict:
		return usageError{fmt.Errorf("%v (without --strict, malformed lines are skipped and counted)", err)}
	case errors.As(err, &pe):
		return usageError{err}
	}
	if errors.Is(err, os.ErrNotExist) {
		return usageError{err}
	}
	return err
}

// open opens one trace: a regular file or a directory, or "-".
func (in *traceInput) open(path string) (gwa.Reader, error) {
	r, err := gwa.OpenArg(path, &in.stdin, in.read)
	if err != nil {
		return nil, in.traceError(err)
	}
	return r, nil
}

// reportSkipped prints the count of skipped malformed lines on stderr.
func (in *traceInput) reportSkipped(name string, s *gwa.ReadStats) {
	gwa.WriteSkipped(in.stderr, name, s)
}

// progress is a progress bar over records, sized by the header's MaxJobs
// when it has one.
func (in *traceInput) progress(r gwa.Reader, desc string) (*progress.Bar, func(int64)) {
	total := int64(r.Header().MaxJobs)
	if total <= 0 {
		total = -1
	}
	bar := progress.New(in.stderr, progress.Options{Total: total, Desc: desc, Unit: "jobs", Quiet: in.quiet || (total > 0 && total < 200000)})
	last := int64(0)
	return bar, func(n int64) {
		bar.Add(int(n - last))
		last = n
	}
}

// analyse reads one trace through the analysis.
func (in *traceInput) analyse(path string, opts gwa.AnalysisOptions) (*gwa.Analysis, error) {
	r, err := in.open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	bar, prog := in.progress(r, "analysing "+filepath.Base(path))
	a, err := in.workflows.Analyze(r, opts, prog)
	bar.Done()
	if err != nil {
		return nil, in.traceError(err)
	}
	a.Trace.Name = filepath.Base(path)
	in.reportSkipped(path, r.Stats())
	return a, nil
}

// analysisInput parses what stats, plot and rank read their traces with:
// the input, then the analysis flags.
func (o *traceFlags) analysisInput(c *cli.Context) (*traceInput, gwa.AnalysisOptions, error) {
	opts := gwa.AnalysisOptions{Processors: o.procs, TopN: o.top, NoCDF: !o.cdf && c.Command.Name != "plot"}
	if n := o.reportedWork; n >= 0 && c.Command.Name == "stats" {
		opts.ReportedWork, opts.ReportedWorkKnown = n, true
	}
	in, err := o.input(c)
	if err == nil && (o.procs < 0 || o.procs > gwa.MaxProcs) {
		err = usageErrorf("--procs must be from 1 to %d", gwa.MaxProcs)
	}
	return in, opts, err
}

func (o *traceFlags) stats(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("trace stats takes one or more trace files (see 'gmark trace stats --help')")
	}
	in, aopts, err := o.analysisInput(c)
	if err != nil {
		return err
	}
	var all []*gwa.Analysis
	for _, path := range c.Args().Slice() {
		a, err := in.analyse(path, aopts)
		if err != nil {
			return err
		}
		all = append(all, a)
		if !o.json {
			in.workflows.WriteText(c.App.Writer, a)
		}
	}
	if o.json {
		return in.workflows.WriteJSON(c.App.Writer, all)
	}
	return nil
}

func (o *traceFlags) plot(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("trace plot takes one or more trace files and -o DIR")
	}
	if err := outfile.CheckDir(o.output, "the figures"); err != nil {
		return usageError{err}
	}
	in, aopts, err := o.analysisInput(c)
	if err != nil {
		return err
	}
	var all []*gwa.Analysis
	for _, path := range c.Args().Slice() {
		a, err := in.analyse(path, aopts)
		if err != nil {
			return err
		}
		all = append(all, a)
	}
	figs, err := in.workflows.PlotTraces(all, o.output, os.Args)
	if err == nil && !in.quiet {
		fmt.Fprintf(c.App.Writer, "wrote %d figures (PNG, SVG and their data as CSV) and %s to %s\n", len(figs), gwa.PageFile, o.output)
	}
	return err
}

// parseSelection reads the selection flags (gwa.SelectionFlags parses them).
func (o *traceFlags) parseSelection(c *cli.Context) (gwa.Selection, error) {
	f := o.sel
	f.Sites, f.Users, f.Status, f.Targets = splitList(o.site.Value()), splitList(o.user.Value()), splitList(o.status.Value()), splitList(o.target.Value())
	f.MinProcs, f.MaxProcs = cliflag.IfSet(c, &o.minProcs), cliflag.IfSet(c, &o.maxProcs)
	s, err := f.Selection()
	if err != nil {
		return s, usageError{err}
	}
	return s, nil
}

// checkOutputFile reads --format and checks the output path before any
// input is read.
func (o *traceFlags) checkOutputFile(path string) (gwa.Format, error) {
	f, err := gwa.CheckOutput(path, o.format, o.force)
	if err != nil {
		return f, usageError{err}
	}
	return f, nil
}

// writeTrace writes r to path as an output of internal/outfile (see
// gwa.WriteTrace): a failure leaves no half-written file.
func (in *traceInput) writeTrace(r gwa.Reader, path string, f gwa.Format, h *gwa.Header) (int64, error) {
	bar, prog := in.progress(r, "writing "+filepath.Base(path))
	n, err := gwa.WriteTrace(path, f, h, r, prog)
	bar.Done()
	if err != nil {
		return n, in.traceError(err)
	}
	return n, nil
}

func (o *traceFlags) selectTrace(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("trace select takes one or more trace files and -o OUT (see 'gmark trace select --help')")
	}
	in, err := o.input(c)
	if err != nil {
		return err
	}
	sel, err := o.parseSelection(c)
	if err != nil {
		return err
	}
	format, err := o.checkOutputFile(o.output)
	if err != nil {
		return err
	}
	paths := c.Args().Slice()
	mixed, err := gwa.NewMixedOpener(paths, splitList(o.tag.Value()), in.open)
	if err != nil {
		return usageError{err}
	}
	r, area, err := gwa.Select(mixed.Open, sel)
	if err != nil {
		return in.traceError(err)
	}
	defer r.Close()
	n, err := in.writeTrace(r, o.output, format, sel.Header(r.Header(), paths))
	if err != nil {
		return err
	}
	for i, rd := range mixed.Last {
		in.reportSkipped(paths[i], rd.Stats())
	}
	if !in.quiet {
		fmt.Fprintf(c.App.Writer, "selected %d jobs (%s) into %s\n", n, sel.Describe(), o.output)
		if area != nil {
			area.WriteText(c.App.Writer)
		}
	}
	return nil
}

func (o *traceFlags) convert(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageErrorf("trace convert takes IN and OUT (see 'gmark trace convert --help')")
	}
	in, err := o.input(c)
	if err != nil {
		return err
	}
	src, out := c.Args().Get(0), c.Args().Get(1)
	format, err := o.checkOutputFile(out)
	if err != nil {
		return err
	}
	r, err := in.open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := in.writeTrace(r, out, format, r.Header())
	if err != nil {
		return err
	}
	in.reportSkipped(src, r.Stats())
	if !in.quiet {
		fmt.Fprintf(c.App.Writer, "converted %d jobs from %s (%s) to %s\n", n, src, r.Header().Format, out)
	}
	return nil
}

func (o *traceFlags) bots(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("trace bots takes one trace file")
	}
	in, err := o.input(c)
	if err != nil {
		return err
	}
	deltas, err := gwa.ParseDeltas(splitList(o.delta.Value()))
	if err != nil {
		return usageError{err}
	}
	r, err := in.open(c.Args().First())
	if err != nil {
		return err
	}
	defer r.Close()
	list := o.list
	var listed []gwa.Batch
	res, err := gwa.AnalyzeBoTs(r, deltas, func(b *gwa.Batch) {
		if len(listed) < list {
			listed = append(listed, *b)
		}
	})
	if err != nil {
		return in.traceError(err)
	}
	in.reportSkipped(c.Args().First(), r.Stats())
	w := c.App.Writer
	if o.json {
		return gwa.WriteBoTsJSON(w, c.Args().First(), res)
	}
	gwa.WriteBoTsText(w, c.Args().First(), res, listed)
	return nil
}

func (o *traceFlags) rank(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("trace rank takes one or more trace files")
	}
	cats, err := gwa.ParseCategories(splitList([]string{o.categories}))
	if err != nil {
		return usageError{err}
	}
	in, aopts, err := o.analysisInput(c)
	if err != nil {
		return err
	}
	works := o.works.Value()
	if len(works) > 0 && len(works) != c.NArg() {
		return usageErrorf("--reported-work: %d values for %d traces", len(works), c.NArg())
	}
	var sigs []gwa.Signature
	for i, path := range c.Args().Slice() {
		a, err := in.analyse(path, aopts)
		if err != nil {
			return err
		}
		sig := a.Ranking
		if len(works) > 0 {
			sig = gwa.Classify(a.Facts(works[i]))
		}
		if unknown := sig.UnknownCategories(cats); len(unknown) > 0 {
			return usageErrorf("%s: the ranking categories %s are unknown for this trace (reported_work needs --reported-work; cores and utilization need a system size, --procs, and jobs that ran); leave them out of --categories",
				path, strings.Join(unknown, ", "))
		}
		sigs = append(sigs, sig)
	}
	out, err := gwa.Rank(cats, c.Args().Slice(), sigs)
	if err != nil {
		return usageError{err}
	}
	if o.json {
		return gwa.WriteRankingJSON(c.App.Writer, out)
	}
	gwa.WriteRankingText(c.App.Writer, cats, out)
	return nil
}
